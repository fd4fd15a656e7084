#include "report/progress.h"

#include <algorithm>

#include <fmt/format.h>

#include "report/escape.h"

namespace candor::report {
namespace {

// The first line of text from the run (the agent chose it), safe for the terminal, at most n bytes.
std::string fit(const std::string& s, std::size_t n) { return shorten(terminal_safe(s.substr(0, s.find('\n'))), n); }

constexpr const char* kEraseLine = "\r\033[K";

}  // namespace

TerminalProgress::TerminalProgress(std::FILE* out, bool tty, bool color, LiveStatus status)
    : out_(out), tty_(tty), color_(color), live_(std::move(status)) {
  if (live() && live_.ticker) ticker_ = std::thread([this] { run_ticker(); });
}

TerminalProgress::~TerminalProgress() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    erase_locked();
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
}

void TerminalProgress::run_ticker() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    // Redraws only when the text changed, so in effect once a second.
    wake_.wait_for(lock, std::chrono::milliseconds(200));
    if (!stopping_) draw_locked();
  }
}

void TerminalProgress::tick() {
  std::lock_guard<std::mutex> lock(mu_);
  draw_locked();
}

void TerminalProgress::draw_locked() {
  if (!live() || !activity_) return;
  auto elapsed = std::chrono::duration_cast<std::chrono::seconds>(live_.clock->monotonic() - since_);
  std::string line = status_line(*activity_, elapsed, live_.width ? live_.width() : 80, color_);
  if (line == shown_) return;
  std::fputs((kEraseLine + line).c_str(), out_);
  std::fflush(out_);
  shown_ = std::move(line);
}

std::size_t TerminalProgress::room(std::size_t usual, std::size_t taken) const {
  if (!live() || !live_.width) return usual;
  std::size_t width = live_.width();
  std::size_t left = width > taken + 1 ? width - taken - 1 : 0;
  return std::max<std::size_t>(8, std::min(usual, left));
}

void TerminalProgress::erase_locked() {
  if (shown_.empty()) return;
  std::fputs(kEraseLine, out_);
  std::fflush(out_);
  shown_.clear();
}

void TerminalProgress::begin_locked(Activity activity) {
  if (!live()) return;
  activity_ = std::move(activity);
  since_ = live_.clock->monotonic();
  draw_locked();
}

void TerminalProgress::end_locked() {
  activity_.reset();
  erase_locked();
}

void TerminalProgress::log_locked(const std::string& lines) {
  erase_locked();
  std::fputs(lines.c_str(), out_);
  std::fflush(out_);
  draw_locked();
}

void TerminalProgress::round_started(int round, std::size_t steps) {
  std::string line = fmt::format("round {} ({} step{})", round, steps, steps == 1 ? "" : "s");
  std::lock_guard<std::mutex> lock(mu_);
  log_locked((color_ ? "\033[1m" + line + "\033[0m" : line) + "\n");
}

void TerminalProgress::step_started(const StepRecord& step) {
  std::lock_guard<std::mutex> lock(mu_);
  begin_locked(Activity{std::nullopt, step.id, step.tool, masked(step.target)});
}

void TerminalProgress::step_finished(const StepRecord& step, const std::vector<AssertionRecord>& assertions) {
  std::lock_guard<std::mutex> lock(mu_);
  end_locked();
  bool failed = !step.ok;
  for (const auto& a : assertions) failed |= !a.passed;
  if (!tty_ && !failed) return;  // the quiet log keeps failures only
  std::string mark =
      step.ok ? (color_ ? "\033[32mok\033[0m    " : "ok    ") : (color_ ? "\033[31mFAILED\033[0m" : "FAILED");
  std::string changed = step.changed_paths.empty() ? "" : fmt::format("  (changed {})", step.changed_paths.size());
  std::string out = fmt::format("  {} {:<4} {:<11} {}{}\n", mark, fit(step.id, 4), fit(step.tool, 11),
                                fit(masked(step.target), room(40, 26 + changed.size())), changed);
  if (!step.ok) out += fmt::format("         {}\n", fit(masked(step.error), room(70, 9)));
  for (const auto& a : assertions) {
    if (!tty_ && a.passed) continue;
    std::string am = a.passed ? (color_ ? "\033[32mpass\033[0m" : "pass") : (color_ ? "\033[31mFAIL\033[0m" : "FAIL");
    std::string type = terminal_safe(a.type);
    out += fmt::format("         {} {}: {}\n", am, type, fit(masked(a.message), room(60, 16 + column_bound(type))));
  }
  log_locked(out);
}

void TerminalProgress::wait_started(WaitKind kind) {
  std::lock_guard<std::mutex> lock(mu_);
  begin_locked(Activity{kind, "", "", ""});
}

void TerminalProgress::wait_finished(WaitKind /*kind*/) {
  std::lock_guard<std::mutex> lock(mu_);
  end_locked();
}

void TerminalProgress::note(const std::string& line) {
  std::lock_guard<std::mutex> lock(mu_);
  log_locked(fmt::format("  {}\n", fit(masked(line), room(76, 2))));
}

}  // namespace candor::report
