// SWE-agent trajectories (.traj): one JSON object, read a history/trajectory element at a time.
#include <fmt/format.h>

#include "core/arg_schema.h"
#include "import/formats.h"

namespace candor::import {
namespace {

const char* const kExpected = "a SWE-agent .traj (an object with a \"history\" or a \"trajectory\" array)";

void history_item(const nlohmann::json& h, Builder& b, bool& function_calling) {
  std::string role = json_str(h, "role");
  if (flag(h, "is_demo")) {
    b.skip("demo");
  } else if (role == "assistant" && member(h, "tool_calls").is_array()) {
    function_calling = true;
    for (const auto& c : h["tool_calls"]) {
      const auto& f = member(c, "function");
      b.call(json_str(c, "id"), json_str(f, "name"), arguments_of(member(f, "arguments"), b));
    }
  } else if (role == "tool" && member(h, "tool_call_ids").is_array()) {
    std::string output = text_of(member(h, "content"));
    for (const auto& id : h["tool_call_ids"])
      b.result(id.is_string() ? id.get<std::string>() : "", {{"ok", true}, {"output", output}});
  } else {
    b.skip(role.empty() ? "history" : role);
  }
}

}  // namespace

Status import_swe_agent(std::istream& in, Builder& b) {
  bool function_calling = false;
  // The legacy steps (action, observation), cut as events are: used when the history has no tool calls.
  std::vector<std::pair<std::string, std::string>> steps;
  std::string submission;
  TRY_STATUS(for_each_element(
      in, b, {"history", "trajectory"}, kExpected,
      [&](const nlohmann::json& e) {
        if (b.where().find("$.trajectory[") != std::string::npos) {
          steps.emplace_back(b.kept(json_str(e, "action")), b.kept(json_str(e, "observation")));
          return;
        }
        history_item(e, b, function_calling);
      },
      [&](const std::string& key, const nlohmann::json& value) {
        if (key == "info") submission = json_str(value, "submission");
      },
      /*object_only=*/true));
  if (!function_calling) {
    int n = 0;
    for (const auto& [action, observation] : steps) {
      std::string first = action.substr(0, action.find_first_of(" \n"));
      std::string id = fmt::format("step-{}", ++n);
      // The first word of a legacy action names an SWE-agent (or EnIGMA) command, else it is a shell command.
      b.call(id, in_catalogue(Format::kSweAgent, first) ? first : "bash", {{"command", action}});
      b.result(id, {{"ok", true}, {"output", observation}});
    }
  }
  if (!submission.empty()) b.final_answer(submission);
  return ok_status();
}

}  // namespace candor::import
