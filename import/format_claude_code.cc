// Claude Code session JSONL (~/.claude/projects/<cwd-slug>/<session>.jsonl).
#include "core/arg_schema.h"
#include "import/formats.h"

namespace candor::import {
namespace {

// Record types of a session file that carry nothing for the stream (they still show the file is one).
bool session_record(const std::string& type) {
  static const char* const kTypes[] = {
      "summary",     "system",     "attachment",        "file-history-snapshot", "queue-operation",
      "last-prompt", "atis-latch", "api-request-shape", "api-request-blob",      "api-request",
      "tools-used",  "cost-state", "progress",          "custom-title",          "tag",
      "agent-name",  "mode"};
  for (const char* t : kTypes)
    if (type == t) return true;
  return false;
}

// A message Claude Code wrote in the model's place ("API Error: 500 ...", "Please run /login"): not
// the agent's answer.
bool synthetic(const nlohmann::json& record, const nlohmann::json& message) {
  return flag(record, "isApiErrorMessage") || json_str(message, "model") == "<synthetic>";
}

nlohmann::json tool_result(const nlohmann::json& record, const nlohmann::json& block) {
  bool is_error = flag(block, "is_error");
  std::string output = text_of(member(block, "content"));
  nlohmann::json result = {{"ok", !is_error}, {"output", output}};
  // Bash states a failing command's code only in the text ("Exit code 1\n..."); success has none.
  if (auto code = exit_code_in_text(output)) {
    result["exit_code"] = *code;
  } else if (const auto& detail = member(record, "toolUseResult"); !is_error && member(detail, "stdout").is_string() &&
                                                                   !flag(detail, "interrupted") &&
                                                                   !member(detail, "backgroundTaskId").is_string()) {
    result["exit_code"] = 0;  // a shell command that ran to its end and did not fail
  }
  if (record.contains("toolUseResult")) result["detail"] = record["toolUseResult"];
  return result;
}

}  // namespace

Status import_claude_code(std::istream& in, Builder& b) {
  std::string last_text;  // the last assistant text block: the final answer
  TRY_STATUS(for_each_line(in, b, [&](const nlohmann::json& j) {
    std::string type = json_str(j, "type");
    const auto& message = member(j, "message");
    const auto& content = member(message, "content");
    if (type == "assistant" && synthetic(j, message)) {
      b.skip("assistant.synthetic");
    } else if (type == "assistant" && !content.is_null()) {
      b.seen();
      if (content.is_string()) last_text = content.get<std::string>();
      if (!content.is_array()) return;
      for (const auto& block : content) {
        std::string bt = json_str(block, "type");
        if (bt == "tool_use") {
          b.call(json_str(block, "id"), json_str(block, "name"),
                 block.contains("input") ? block["input"] : nlohmann::json::object());
        } else if (bt == "text") {
          last_text = json_str(block, "text");
        } else {
          b.skip("assistant." + bt);
        }
      }
    } else if (type == "user" && !content.is_null()) {
      if (!content.is_array()) {  // the person's prompt
        b.seen();
        return;
      }
      for (const auto& block : content) {
        if (json_str(block, "type") != "tool_result") {
          b.skip("user." + json_str(block, "type"));
          continue;
        }
        b.result(json_str(block, "tool_use_id"), tool_result(j, block));
      }
    } else if (session_record(type) || ((type == "user" || type == "assistant") && message.is_object())) {
      b.skip(type);
    } else {
      b.unknown(type);
    }
  }));
  if (!last_text.empty()) b.final_answer(last_text);
  return ok_status();
}

}  // namespace candor::import
