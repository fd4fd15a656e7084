// OpenHands event streams: V0 (a JSON array of events with `action`/`observation`) and V1
// (software-agent-sdk: events with `kind`, one a line in events.jsonl, an array, the agent
// server's {"items": [...]} page, or the conversation folder the SDK and OpenHands-CLI persist:
// events/event-NNNNN-<id>.json, one event a file).
#include "core/arg_schema.h"
#include "import/formats.h"

namespace candor::import {
namespace {

const char* const kExpected = "an OpenHands event stream (a JSON array of events, or events.jsonl)";

// V0: what the model asked for is the tool call inside the recorded model response (its arguments
// are a JSON string); OpenHands' normalised `args` when that is missing.
nlohmann::json raw_v0_input(const nlohmann::json& e, const nlohmann::json& meta, Builder& b) {
  std::string call_id = json_str(meta, "tool_call_id");
  const auto& choices = member(member(meta, "model_response"), "choices");
  if (!call_id.empty() && choices.is_array() && !choices.empty()) {
    const auto& calls = member(member(choices[0], "message"), "tool_calls");
    if (calls.is_array()) {
      for (const auto& c : calls) {
        if (json_str(c, "id") == call_id && member(c, "function").contains("arguments"))
          return arguments_of(c["function"]["arguments"], b);
      }
    }
  }
  return member(e, "args").is_object() ? e["args"] : nlohmann::json::object();
}

struct Answers {
  std::string last_message;  // the last agent message: the answer when the run ends on it
  bool finished = false;
};

void v0_event(const nlohmann::json& e, Builder& b, Answers& a) {
  std::string source = json_str(e, "source");
  std::string action = json_str(e, "action");
  std::string observation = json_str(e, "observation");
  const auto& meta = member(e, "tool_call_metadata");
  std::string id = e.contains("id") ? e["id"].dump() : "";
  if (source == "agent" && action == "finish") {
    const auto& args = member(e, "args");
    std::string answer = json_str(args, "final_thought");
    if (answer.empty()) answer = json_str(e, "message");
    if (answer.empty()) answer = json_str(args, "thought");
    b.final_answer(answer);
    a.finished = true;
  } else if (source == "agent" && action == "message") {
    a.last_message = json_str(e, "message");
    b.seen();
  } else if (source == "agent" && !action.empty()) {
    std::string tool = json_str(meta, "function_name");
    b.call(id, tool.empty() ? action : tool, raw_v0_input(e, meta, b));
  } else if (!observation.empty() && observation != "null" && e.contains("cause") &&
             observation != "agent_state_changed") {
    nlohmann::json result = {{"ok", true}, {"output", json_str(e, "content")}};
    const auto& metadata = member(member(e, "extras"), "metadata");
    if (metadata.is_object() && metadata.contains("exit_code")) {
      result["exit_code"] = metadata["exit_code"];
      result["ok"] = metadata["exit_code"] == 0;
    }
    if (observation == "error") result["ok"] = false;
    b.result(e["cause"].dump(), result);
  } else if (!source.empty()) {
    b.skip(!action.empty() ? source + "." + action : source + "." + (observation.empty() ? "event" : observation));
  } else {
    b.unknown(json_str(e, "type"));
  }
}

// The SDK's event classes: SystemPromptEvent, ConversationStateUpdateEvent, PauseEvent,
// CondensationRequest, Condensation, ... (their names end so, or begin with "Condensation").
bool v1_kind(const std::string& kind) {
  auto ends = [&](std::string_view s) {
    return kind.size() > s.size() && kind.compare(kind.size() - s.size(), s.size(), s) == 0;
  };
  return ends("Event") || ends("Observation") || kind.rfind("Condensation", 0) == 0;
}

// V1: ActionEvent (tool_name, tool_call_id, tool_call.arguments as the model wrote them, `action`
// as the SDK read them), ObservationEvent and AgentErrorEvent (by tool_call_id), MessageEvent.
void v1_event(const nlohmann::json& e, const std::string& kind, Builder& b, Answers& a) {
  std::string call_id = json_str(e, "tool_call_id");
  if (kind == "ActionEvent" && json_str(member(e, "action"), "kind") == "FinishAction") {
    b.final_answer(json_str(e["action"], "message"));
    a.finished = true;
  } else if (kind == "ActionEvent") {
    nlohmann::json input = arguments_of(member(member(e, "tool_call"), "arguments"), b);
    if (input.empty() && member(e, "action").is_object()) input = e["action"];
    b.call(call_id, json_str(e, "tool_name"), std::move(input));
  } else if (kind == "ObservationEvent" || kind == "AgentErrorEvent" || kind == "UserRejectObservation") {
    const auto& o = member(e, "observation");
    std::string output = kind == "ObservationEvent" ? text_of(member(o, "content")) : json_str(e, "error");
    if (kind == "UserRejectObservation") output = json_str(e, "rejection_reason");
    nlohmann::json result = {{"ok", kind == "ObservationEvent" && !flag(o, "is_error")}, {"output", output}};
    const auto& code = member(o, "exit_code");
    const auto& meta_code = member(member(o, "metadata"), "exit_code");
    if (code.is_number_integer()) {
      result["exit_code"] = code;
    } else if (meta_code.is_number_integer() && meta_code.get<int>() >= 0) {
      result["exit_code"] = meta_code;
    }
    if (result.contains("exit_code") && result["exit_code"] != 0) result["ok"] = false;
    b.result(call_id, result, json_str(e, "tool_name"));
  } else if (kind == "MessageEvent" && json_str(e, "source") == "agent") {
    a.last_message = text_of(member(member(e, "llm_message"), "content"));
    b.seen();
  } else if (v1_kind(kind)) {
    b.skip(kind);
  } else {
    b.unknown(kind);  // another file's "kind" (Gemini CLI's session line has "kind": "main")
  }
}

void event(const nlohmann::json& e, Builder& b, Answers& a) {
  std::string kind = json_str(e, "kind");
  if (!kind.empty()) {
    v1_event(e, kind, b, a);
  } else {
    v0_event(e, b, a);
  }
}

}  // namespace

Status import_openhands(std::istream& in, Builder& b) {
  Answers a;
  TRY_STATUS(for_each_element(in, b, {"items", "events"}, kExpected, [&](const nlohmann::json& e) { event(e, b, a); }));
  if (!a.finished && !a.last_message.empty()) b.final_answer(a.last_message);
  return ok_status();
}

Status import_openhands_folder(const std::string& dir, Builder& b) {
  TRY(std::vector<std::string> files, event_files(dir));
  Answers a;
  TRY_STATUS(for_each_file(files, b, [&](const nlohmann::json& e) { event(e, b, a); }));
  if (!a.finished && !a.last_message.empty()) b.final_answer(a.last_message);
  return ok_status();
}

}  // namespace candor::import
