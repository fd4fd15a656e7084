// The progress `candor run` and `candor exec` print on stderr while they run (and `candor verify`
// while it asks the judge).
#pragma once

#include <memory>

#include "report/progress.h"

namespace candor::cli {

// On a terminal: every step, and the running step or LLM wait redrawn in place, fitted to the
// terminal's width, in colour unless NO_COLOR. Otherwise the quiet log. Null when `quiet` (-q).
std::unique_ptr<report::TerminalProgress> stderr_progress(bool quiet);

}  // namespace candor::cli
