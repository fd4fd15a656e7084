#include "report/progress.h"

#include <fmt/format.h>

#include "report/escape.h"

namespace candor::report {
namespace {

// The first line of text from the run (the agent chose it), safe for the terminal, at most n bytes.
std::string fit(const std::string& s, std::size_t n) { return shorten(terminal_safe(s.substr(0, s.find('\n'))), n); }

}  // namespace

void TerminalProgress::round_started(int round, std::size_t steps) {
  std::string line = fmt::format("round {} ({} step{})", round, steps, steps == 1 ? "" : "s");
  std::fputs((color_ ? "\033[1m" + line + "\033[0m" : line).c_str(), out_);
  std::fputc('\n', out_);
  std::fflush(out_);
}

void TerminalProgress::step_finished(const StepRecord& step, const std::vector<AssertionRecord>& assertions) {
  bool failed = !step.ok;
  for (const auto& a : assertions) failed |= !a.passed;
  if (!tty_ && !failed) return;  // the quiet log keeps failures only
  std::string mark = step.ok ? (color_ ? "\033[32mok\033[0m    " : "ok    ") : (color_ ? "\033[31mFAILED\033[0m" : "FAILED");
  std::string changed = step.changed_paths.empty() ? "" : fmt::format("  (changed {})", step.changed_paths.size());
  std::fputs(fmt::format("  {} {:<4} {:<11} {}{}\n", mark, fit(step.id, 4), fit(step.tool, 11), fit(step.target, 40), changed).c_str(), out_);
  if (!step.ok) std::fputs(fmt::format("         {}\n", fit(step.error, 70)).c_str(), out_);
  for (const auto& a : assertions) {
    if (!tty_ && a.passed) continue;
    std::string am = a.passed ? (color_ ? "\033[32mpass\033[0m" : "pass") : (color_ ? "\033[31mFAIL\033[0m" : "FAIL");
    std::fputs(fmt::format("         {} {}: {}\n", am, terminal_safe(a.type), fit(a.message, 60)).c_str(), out_);
  }
  std::fflush(out_);
}

void TerminalProgress::note(const std::string& line) {
  std::fputs(fmt::format("  {}\n", fit(line, 76)).c_str(), out_);
  std::fflush(out_);
}

}  // namespace candor::report
