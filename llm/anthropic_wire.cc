// The Anthropic Messages API on the wire (https://docs.anthropic.com/en/api/messages,
// https://docs.anthropic.com/en/api/handling-stop-reasons).
#include <fmt/format.h>

#include "core/arg_schema.h"
#include "llm/wire.h"

namespace candor::llm {

nlohmann::json anthropic_body(const Request& request, const std::string& model) {
  nlohmann::json messages = nlohmann::json::array();
  for (const auto& m : request.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
  return {
      {"model", model}, {"max_tokens", request.max_output_tokens}, {"system", request.system}, {"messages", messages}};
}

Result<Reply> read_anthropic_reply(const nlohmann::json& j, const Request& request) {
  if (!j.contains("content") || !j["content"].is_array()) {
    if (j.contains("error")) {
      return make_error(ErrorCode::kUnavailable,
                        "the server answered with an error: " + read_error_body(j.dump()).message);
    }
    return make_error(
        ErrorCode::kUnavailable,
        "the reply has no `content` list: it is not a Messages API reply (is ANTHROPIC_BASE_URL the API's "
        "address, without /v1?)");
  }
  Reply r;
  bool thinking = false;
  for (const auto& block : j["content"]) {
    if (!block.is_object()) continue;
    std::string type = json_str(block, "type");
    if (type == "text") {
      r.text += json_str(block, "text");
    } else if (type == "thinking" || type == "redacted_thinking") {
      thinking = true;
    }
  }
  std::string stop = json_str(j, "stop_reason");
  if (stop == "refusal") return refusal_error("stop_reason \"refusal\"", r.text);
  if (stop == "max_tokens") {
    r.cut = true;
    r.incomplete = fmt::format("the reply was cut at the output limit ({} tokens){}", request.max_output_tokens,
                               r.text.empty() && thinking ? " while the model was still thinking" : "");
  } else if (stop == "model_context_window_exceeded") {
    r.cut = true;
    r.incomplete =
        "the reply was cut: the model's context window is full (stop_reason \"model_context_window_exceeded\")";
  } else if (stop == "tool_use") {
    r.incomplete = "the model asked to use a tool (stop_reason \"tool_use\"), and candor offers it none";
  } else if (stop == "pause_turn") {
    r.incomplete = "the server paused the model's turn before it answered (stop_reason \"pause_turn\")";
  } else if (!stop.empty() && stop != "end_turn" && stop != "stop_sequence") {
    r.incomplete = fmt::format("the reply stopped for a reason candor does not know (stop_reason \"{}\")", stop);
  } else if (r.text.find_first_not_of(" \t\r\n") == std::string::npos) {
    r.incomplete = thinking ? "the reply holds only the model's thinking, no answer text" : "the reply is empty";
  }

  read_usage(j, "input_tokens", "output_tokens", request, r);
  return r;
}

}  // namespace candor::llm
