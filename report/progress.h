// What a person watching `candor run` or `candor exec` sees while it runs, on stderr (stdout is
// for the report).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "core/clock.h"
#include "core/progress.h"
#include "core/secret_masker.h"
#include "report/status_line.h"

namespace candor::report {

// The status line redrawn in place on a terminal (status_line.h).
struct LiveStatus {
  Clock* clock = nullptr;              // borrowed; measures how long the step or wait has run
  std::function<std::size_t()> width;  // the terminal's columns, asked at every redraw; empty = 80
  bool ticker = true;                  // a thread redraws every 200 ms; false: only tick() does
};

// On a terminal (`tty`): every round, step and assertion as it happens, in colour when `color`;
// with a LiveStatus, also the running step or LLM wait on one line redrawn in place ("\r", erase
// line), erased before any other line is written, so finished lines scroll above it whole.
// Otherwise a quiet log: rounds, failures and notes only, plain lines, no "\r", no escape codes.
// Thread-safe: the ticker's redraws and the run's calls take turns.
class TerminalProgress final : public ProgressObserver {
 public:
  TerminalProgress(std::FILE* out, bool tty, bool color) : TerminalProgress(out, tty, color, LiveStatus{}) {}
  // REQUIRES: `out` and `status.clock` outlive this.
  TerminalProgress(std::FILE* out, bool tty, bool color, LiveStatus status);
  ~TerminalProgress() override;  // stops the ticker and erases the status line
  TerminalProgress(const TerminalProgress&) = delete;
  TerminalProgress& operator=(const TerminalProgress&) = delete;

  void round_started(int round, std::size_t steps) override;
  void step_started(const StepRecord& step) override;
  void step_finished(const StepRecord& step, const std::vector<AssertionRecord>& assertions) override;
  void wait_started(WaitKind kind) override;
  void wait_finished(WaitKind kind) override;
  void note(const std::string& line) override;

  // Redraws the status line when its text changed (a second went by, the terminal was resized).
  void tick();
  // The run's secret values, masked in every line this prints (a step's command, its error, an
  // assertion's message): the last guard before the terminal or a CI log. May be null.
  // REQUIRES: called before the run's first step.
  void set_masker(std::shared_ptr<const SecretMasker> masker) { masker_ = std::move(masker); }

 private:
  bool live() const { return tty_ && live_.clock != nullptr; }
  void begin_locked(Activity activity);
  void end_locked();
  void draw_locked();
  void erase_locked();
  // Writes log lines: the status line is erased first and redrawn after.
  void log_locked(const std::string& lines);
  void run_ticker();
  // The bytes a log line's text may take: `usual` (what fits 80 columns), less on a narrower
  // terminal, where the rest of the line takes `taken` columns; at least 8. A wrapped finished line
  // is harmless, but one cut to the width reads better.
  std::size_t room(std::size_t usual, std::size_t taken) const;

  std::string masked(const std::string& text) const { return masker_ != nullptr ? masker_->mask(text) : text; }

  std::FILE* out_;
  std::shared_ptr<const SecretMasker> masker_;
  bool tty_;
  bool color_;
  LiveStatus live_;
  std::mutex mu_;
  std::optional<Activity> activity_;
  std::chrono::steady_clock::time_point since_;
  std::string shown_;  // the status line on screen, "" when none
  bool stopping_ = false;
  std::condition_variable wake_;
  std::thread ticker_;
};

}  // namespace candor::report
