// The step log of `report --verbose`: each step with its tool, target, outcome and capped output.
#include <fmt/format.h>

#include "core/events.h"
#include "report/escape.h"
#include "report/fields.h"
#include "report/formats.h"

namespace candor::report {

// For a terminal: every string from the events passes through terminal_safe (the step's output is
// whatever the step printed, escape sequences included).
std::string render_step_log(const std::vector<Event>& events, std::size_t output_cap, bool color) {
  auto safe = [](const nlohmann::json& j, const char* key) { return terminal_safe(json_str(j, key)); };
  std::string out;
  for (const auto& ev : events) {
    if (ev.type == event::kPlan) out += fmt::format("round {}\n", json_int(ev.data, "round"));
    if (ev.type == event::kToolCalled) {
      std::string input = json_field(ev.data, "input").dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      out +=
          fmt::format("  {} {} {}\n", safe(ev.data, "step"), safe(ev.data, "tool"), shorten(terminal_safe(input), 100));
    }
    if (ev.type == event::kToolResult) {
      bool ok = json_bool(ev.data, "ok");
      std::string mark = ok ? "ok" : "FAILED: " + safe(ev.data, "error");
      if (color) mark = ok ? "\033[32m" + mark + "\033[0m" : "\033[31m" + mark + "\033[0m";
      out += "    " + mark + "\n";
      std::string output = json_str(ev.data, "output");
      if (output.size() > output_cap)
        output = output.substr(0, output_cap) + fmt::format("\n[{} more bytes]", output.size() - output_cap);
      output = terminal_safe(output, true);
      std::size_t pos = 0;
      while (pos < output.size()) {
        std::size_t nl = output.find('\n', pos);
        out += "    | " + output.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos) + "\n";
        pos = nl == std::string::npos ? output.size() : nl + 1;
      }
    }
    if (ev.type == event::kAssertion) {
      out += fmt::format("    {} {}: {}\n", json_bool(ev.data, "passed") ? "pass" : "FAIL", safe(ev.data, "type"),
                         safe(ev.data, "message"));
    }
  }
  return out;
}

}  // namespace candor::report
