// What a person watching `candor run` sees while it runs, on stderr (stdout is for the report).
#pragma once

#include <cstdio>

#include "core/progress.h"

namespace candor::report {

// On a terminal: every round, step and assertion as it happens, in colour unless NO_COLOR.
// Otherwise a quiet log: rounds, failures and notes only.
class TerminalProgress final : public ProgressObserver {
 public:
  TerminalProgress(std::FILE* out, bool tty, bool color) : out_(out), tty_(tty), color_(color) {}
  void round_started(int round, std::size_t steps) override;
  void step_finished(const StepRecord& step, const std::vector<AssertionRecord>& assertions) override;
  void note(const std::string& line) override;

 private:
  std::FILE* out_;
  bool tty_;
  bool color_;
};

}  // namespace candor::report
