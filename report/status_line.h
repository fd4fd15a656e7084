// The one line `candor run` and `candor exec` redraw in place on a terminal: what the run is
// doing now, and for how long. Pure: the same activity, time and width give the same text.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

#include "core/progress.h"

namespace candor::report {

// A running step (the agent chose its id and target), or an LLM being waited for.
struct Activity {
  std::optional<WaitKind> wait;  // set: a wait; unset: the step below
  std::string step_id;
  std::string tool;
  std::string target;
};

// "  s1 shell sleep 3 … 2 s", "  planning… 12 s", "  judge… 4 s", "  reviewer… 7 s". One line, at
// most width - 1 columns by column_bound (a terminal that is written to its last column may wrap,
// and a wrapped line cannot be redrawn in place); the step's text is cut first, the elapsed time
// last. The agent's text is made terminal-safe: no control character reaches the terminal. With
// `color`, the elapsed time is painted (escape codes take no columns). REQUIRES: width >= 1.
std::string status_line(const Activity& activity, std::chrono::seconds elapsed, std::size_t width, bool color = false);

}  // namespace candor::report
