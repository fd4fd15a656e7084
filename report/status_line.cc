#include "report/status_line.h"

#include <fmt/format.h>

#include "report/escape.h"

namespace candor::report {
namespace {

const char* wait_label(WaitKind kind) {
  switch (kind) {
    case WaitKind::kPlanner:
      return "planning";
    case WaitKind::kJudge:
      return "judge";
    case WaitKind::kReviewer:
      return "reviewer";
  }
  return "waiting";
}

// Below this many columns for the step's text, the whole line is cut instead.
constexpr std::size_t kLeastForStep = 8;
// An id or a tool name longer than this leaves the rest to the target.
constexpr std::size_t kWidestName = 16;

}  // namespace

std::string status_line(const Activity& activity, std::chrono::seconds elapsed, std::size_t width, bool color) {
  const std::size_t columns = width > 1 ? width - 1 : 0;
  const std::string prefix = "  ";
  std::string what, suffix;
  if (activity.wait) {
    what = wait_label(*activity.wait);
    suffix = fmt::format("… {} s", elapsed.count());
  } else {
    what = fit_columns(terminal_safe(activity.step_id), kWidestName) + " " +
           fit_columns(terminal_safe(activity.tool), kWidestName);
    if (!activity.target.empty()) what += " " + terminal_safe(activity.target);
    suffix = fmt::format(" … {} s", elapsed.count());
  }
  std::size_t fixed = column_bound(prefix) + column_bound(suffix);
  if (columns < fixed + kLeastForStep) return fit_columns(prefix + what + suffix, columns);
  what = fit_columns(what, columns - fixed);
  return prefix + what + (color ? "\033[36m" + suffix + "\033[0m" : suffix);
}

}  // namespace candor::report
