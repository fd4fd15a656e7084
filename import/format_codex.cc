// Codex CLI rollout JSONL (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl).
#include "core/arg_schema.h"
#include "core/json_text.h"
#include "import/formats.h"

namespace candor::import {
namespace {

nlohmann::json call_output(const nlohmann::json& output, Builder& b) {
  nlohmann::json result = {{"ok", true}, {"output", output.is_string() ? output.get<std::string>() : text_of(output)}};
  // Older Codex wraps shell output as {"output": ..., "metadata": {"exit_code": N}} in a string. A
  // string past the JSON limits is no such wrapper (it is 2 deep): it stays plain output.
  bool wrapper = output.is_string() && check_json_limits(output.get_ref<const std::string&>(), b.where()).ok();
  auto inner = wrapper ? parse_within_limits_or_discarded(output.get_ref<const std::string&>()) : nlohmann::json();
  const auto& metadata = member(inner, "metadata");
  if (metadata.is_object() && metadata.contains("exit_code")) {
    result["exit_code"] = metadata["exit_code"];
    result["ok"] = metadata["exit_code"] == 0;
    result["output"] = json_str(inner, "output");
  } else if (auto code = exit_code_in_text(result["output"].get_ref<const std::string&>())) {
    // Newer Codex writes it in the text: "Process exited with code 1" (exec_command), "Exit code: 0"
    // (apply_patch and shell).
    result["exit_code"] = *code;
    result["ok"] = *code == 0;
  } else if (result["output"].get_ref<const std::string&>().rfind("apply_patch verification failed", 0) == 0) {
    // A patch Codex refused to apply (Codex 0.169: "apply_patch verification failed: Failed to read
    // file to update ...: No such file or directory"): no code, and no change made.
    result["ok"] = false;
  }
  return result;
}

// Rollout record types that carry nothing for the stream.
bool rollout_record(const std::string& type) {
  return type == "session_meta" || type == "turn_context" || type == "event_msg" || type == "response_item" ||
         type == "compacted" || type == "world_state" || type == "token_usage_record";
}

}  // namespace

Status import_codex(std::istream& in, Builder& b) {
  std::string last_text;
  TRY_STATUS(for_each_line(in, b, [&](const nlohmann::json& j) {
    std::string type = json_str(j, "type");
    const auto& p = member(j, "payload").is_object() ? j["payload"] : nlohmann::json::object();
    std::string pt = json_str(p, "type");
    if (type == "response_item" && pt == "function_call") {
      b.call(json_str(p, "call_id"), json_str(p, "name"), arguments_of(member(p, "arguments"), b));
    } else if (type == "response_item" && pt == "custom_tool_call") {
      b.call(json_str(p, "call_id"), json_str(p, "name"), {{"input", json_str(p, "input")}});
    } else if (type == "response_item" && pt == "local_shell_call") {
      b.call(json_str(p, "call_id"), "local_shell", p.contains("action") ? p["action"] : nlohmann::json::object());
    } else if (type == "response_item" && (pt == "function_call_output" || pt == "custom_tool_call_output")) {
      b.result(json_str(p, "call_id"), call_output(member(p, "output"), b));
    } else if (type == "response_item" && pt == "message" && json_str(p, "role") == "assistant") {
      std::string t = text_of(member(p, "content"));
      if (!t.empty()) last_text = t;
      b.seen();
    } else if (type == "event_msg" && pt == "task_complete" && !json_str(p, "last_agent_message").empty()) {
      last_text = json_str(p, "last_agent_message");
      b.seen();
    } else if (rollout_record(type)) {
      b.skip(pt.empty() ? type : type + "." + pt);
    } else {
      b.unknown(pt.empty() ? type : type + "." + pt);
    }
  }));
  if (!last_text.empty()) b.final_answer(last_text);
  return ok_status();
}

}  // namespace candor::import
