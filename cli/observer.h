// What `candor run`, `exec` and `verify` print on stderr while they run: the progress (on a
// terminal, every step and the running step or LLM wait redrawn in place; otherwise the quiet
// log; nothing with -q) and the warnings, "candor: <warning>", whatever -q says. With a session
// to cancel, Ctrl-C winds its run down (a second ends candor at once).
#pragma once

#include <memory>

#include "app/observer.h"
#include "app/session.h"
#include "report/progress.h"

namespace candor::cli {

class StderrObserver final : public app::RunObserver {
 public:
  explicit StderrObserver(bool quiet);
  // From run_starting() to steps_ended(), the first Ctrl-C calls session->cancel(). `session` is
  // borrowed and must outlive this.
  void cancel_on_interrupt(app::Session* session) { interruptible_ = session; }

  void round_started(int round, std::size_t steps) override;
  void step_started(const StepRecord& step) override;
  void step_finished(const StepRecord& step, const std::vector<AssertionRecord>& assertions) override;
  void wait_started(WaitKind kind) override;
  void wait_finished(WaitKind kind) override;
  void note(const std::string& line) override;
  void set_masker(std::shared_ptr<const SecretMasker> masker) override;
  void warning(const std::string& message) override;
  void run_starting() override;
  void steps_ended() override;

 private:
  std::unique_ptr<report::TerminalProgress> progress_;  // null with -q
  app::Session* interruptible_ = nullptr;
};

}  // namespace candor::cli
