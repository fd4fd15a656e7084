#include "cli/progress_output.h"

#include <unistd.h>

#include "cli/commands.h"
#include "report/report.h"

namespace candor::cli {

std::unique_ptr<report::TerminalProgress> stderr_progress(bool quiet) {
  if (quiet) return nullptr;
  static SystemClock clock;
  bool tty = ::isatty(STDERR_FILENO) == 1;
  report::LiveStatus live{&clock, [] { return terminal_width(STDERR_FILENO); }, true};
  return std::make_unique<report::TerminalProgress>(stderr, tty, report::want_color(STDERR_FILENO), std::move(live));
}

}  // namespace candor::cli
