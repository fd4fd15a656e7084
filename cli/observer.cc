#include "cli/observer.h"

#include <atomic>
#include <csignal>
#include <cstdio>

#include <unistd.h>

#include "cli/commands.h"
#include "report/report.h"

namespace candor::cli {
namespace {

// The session the first Ctrl-C cancels; a second ends candor at once.
std::atomic<app::Session*> g_interruptible{nullptr};

void on_interrupt(int) {
  if (app::Session* session = g_interruptible.load()) session->cancel();
  std::signal(SIGINT, SIG_DFL);
}

// On a terminal: every step, and the running step or LLM wait redrawn in place, fitted to the
// terminal's width, in colour unless NO_COLOR. Otherwise the quiet log. Null when `quiet` (-q).
std::unique_ptr<report::TerminalProgress> stderr_progress(bool quiet) {
  if (quiet) return nullptr;
  static SystemClock clock;
  bool tty = ::isatty(STDERR_FILENO) == 1;
  report::LiveStatus live{&clock, [] { return terminal_width(STDERR_FILENO); }, true};
  return std::make_unique<report::TerminalProgress>(stderr, tty, report::want_color(STDERR_FILENO), std::move(live));
}

}  // namespace

StderrObserver::StderrObserver(bool quiet) : progress_(stderr_progress(quiet)) {}

void StderrObserver::round_started(int round, std::size_t steps) {
  if (progress_ != nullptr) progress_->round_started(round, steps);
}
void StderrObserver::step_started(const StepRecord& step) {
  if (progress_ != nullptr) progress_->step_started(step);
}
void StderrObserver::step_finished(const StepRecord& step, const std::vector<AssertionRecord>& assertions) {
  if (progress_ != nullptr) progress_->step_finished(step, assertions);
}
void StderrObserver::wait_started(WaitKind kind) {
  if (progress_ != nullptr) progress_->wait_started(kind);
}
void StderrObserver::wait_finished(WaitKind kind) {
  if (progress_ != nullptr) progress_->wait_finished(kind);
}
void StderrObserver::note(const std::string& line) {
  if (progress_ != nullptr) progress_->note(line);
}
void StderrObserver::set_masker(std::shared_ptr<const SecretMasker> masker) {
  if (progress_ != nullptr) progress_->set_masker(std::move(masker));
}

void StderrObserver::warning(const std::string& message) { std::fprintf(stderr, "candor: %s\n", message.c_str()); }

void StderrObserver::run_starting() {
  if (interruptible_ == nullptr) return;
  g_interruptible.store(interruptible_);
  std::signal(SIGINT, on_interrupt);
}

void StderrObserver::steps_ended() {
  if (interruptible_ != nullptr) std::signal(SIGINT, SIG_DFL);
}

}  // namespace candor::cli
