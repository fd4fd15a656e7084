// Gemini CLI sessions (~/.gemini/tmp/<project>/chats/session-*.jsonl; .json before): a record of
// the session's metadata, then one message record a line ({id, timestamp, type: user | gemini |
// info | error | warning, content, toolCalls?}), `$set` metadata updates and `$rewindTo` marks;
// the older .json is one object with a `messages` array of the same records. A gemini message's
// toolCalls carry each call with its result (functionResponse parts) and status.
#include "core/arg_schema.h"
#include "import/formats.h"

namespace candor::import {
namespace {

const char* const kExpected = "a Gemini CLI session (chats/session-*.jsonl, or .json with a \"messages\" array)";

// The text of a call's result: functionResponse.response.output (or .error), or text parts.
std::string result_text(const nlohmann::json& result) {
  if (result.is_string()) return result.get<std::string>();
  std::string out;
  const auto& parts = result.is_array() ? result : nlohmann::json::array({result});
  for (const auto& p : parts) {
    const auto& response = member(member(p, "functionResponse"), "response");
    if (member(response, "output").is_string()) out += response["output"].get<std::string>();
    if (member(response, "error").is_string()) out += response["error"].get<std::string>();
    if (member(p, "text").is_string()) out += p["text"].get<std::string>();
  }
  return out;
}

// Gemini's content: a string, or parts with text.
std::string content_text(const nlohmann::json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string out;
  if (content.is_array()) {
    for (const auto& p : content)
      if (member(p, "text").is_string() && !flag(p, "thought")) out += p["text"].get<std::string>();
  }
  return out;
}

}  // namespace

Status import_gemini_cli(std::istream& in, Builder& b) {
  std::string last_text;
  TRY_STATUS(for_each_element(in, b, {"messages"}, kExpected, [&](const nlohmann::json& m) {
    std::string type = json_str(m, "type");
    if (type == "gemini") {
      std::string text = content_text(member(m, "content"));
      if (!text.empty()) last_text = text;
      const auto& calls = member(m, "toolCalls");
      if (!calls.is_array() || calls.empty()) {
        b.seen();
        return;
      }
      for (const auto& c : calls) {
        std::string id = json_str(c, "id");
        b.call(id, json_str(c, "name"), member(c, "args").is_object() ? c["args"] : nlohmann::json::object());
        std::string status = json_str(c, "status");
        if (status.empty() || (!c.contains("result") && status != "error" && status != "cancelled")) continue;
        std::string output = result_text(member(c, "result"));
        nlohmann::json result = {{"ok", status == "success"}, {"status", status}, {"output", output}};
        // run_shell_command's output says "Exit Code: N" when N is not 0.
        if (auto code = exit_code_after(output, "Exit Code: ")) {
          result["exit_code"] = *code;
          if (*code != 0) result["ok"] = false;
        } else if (json_str(c, "name") == "run_shell_command" && status == "success") {
          result["exit_code"] = 0;  // the output says "Exit Code: N" only when it is not 0
        }
        b.result(id, result);
      }
    } else if (type == "user" || type == "info" || type == "error" || type == "warning") {
      b.skip(type);
    } else if (m.contains("$set") || m.contains("$rewindTo") ||
               (m.contains("sessionId") && m.contains("projectHash"))) {
      b.skip(m.contains("$set") ? "$set" : m.contains("$rewindTo") ? "$rewindTo" : "metadata");
    } else {
      b.unknown(type);
    }
  }));
  if (!last_text.empty()) b.final_answer(last_text);
  return ok_status();
}

}  // namespace candor::import
