#include "app/hook_protocol.h"

#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/json_text.h"

namespace candor::app {
namespace {

// The kind of a value, never the value: what was sent may be anything.
const char* kind_of(const nlohmann::json& j) {
  if (j.is_array()) return "an array";
  if (j.is_string()) return "a string";
  if (j.is_number()) return "a number";
  if (j.is_boolean()) return "true or false";
  if (j.is_null()) return "null";
  return "an object";
}

// An id the store keys on and messages name: bounded, printable.
bool usable_id(const std::string& id) {
  if (id.empty() || id.size() > kMaxHookIdBytes) return false;
  for (unsigned char c : id) {
    if (c < 0x20 || c == 0x7f) return false;
  }
  return true;
}

// `text` cut to at most `max` bytes, never inside a UTF-8 sequence.
std::string cut_utf8(const std::string& text, std::size_t max) {
  if (text.size() <= max) return text;
  std::size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

// The string at `key`; nullopt when absent or null, with a note when of another type.
std::optional<std::string> string_field(const nlohmann::json& j, const char* key, std::vector<std::string>& notes) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  if (!j[key].is_string()) {
    notes.push_back(fmt::format("the hook input's `{}` is {}, not a string: ignored", key, kind_of(j[key])));
    return std::nullopt;
  }
  return j[key].get<std::string>();
}

bool bool_field(const nlohmann::json& j, const char* key, std::vector<std::string>& notes) {
  if (!j.contains(key) || j[key].is_null()) return false;
  if (!j[key].is_boolean()) {
    notes.push_back(fmt::format("the hook input's `{}` is {}, not true or false: read as false", key, kind_of(j[key])));
    return false;
  }
  return j[key].get<bool>();
}

Error refused(const std::string& why) { return make_error(ErrorCode::kInvalidInput, "hook input: " + why); }

}  // namespace

std::optional<GateAgent> parse_gate_agent(std::string_view name) {
  if (name == "claude-code") return GateAgent::kClaudeCode;
  if (name == "codex") return GateAgent::kCodex;
  return std::nullopt;
}

const char* to_string(GateAgent agent) { return agent == GateAgent::kClaudeCode ? "claude-code" : "codex"; }

import::Format transcript_format(GateAgent agent){return agent == GateAgent::kClaudeCode ? import::Format::kClaudeCode
                                                                                         : import::Format::kCodex;
}  // namespace candor::app

Result<HookInput> parse_hook_input(std::string_view text, GateAgent agent) {
  if (text.size() > kMaxHookInputBytes) {
    return refused(
        fmt::format("refused: over the limit of {} (hostile or broken input)", format_bytes(kMaxHookInputBytes)));
  }
  TRY(nlohmann::json j, parse_json_text(text, "hook input", {kMaxHookInputBytes, kMaxJsonDepth}));
  if (!j.is_object()) return refused(fmt::format("expected a JSON object, got {}", kind_of(j)));
  HookInput in;
  auto event = string_field(j, "hook_event_name", in.notes);
  if (!event || event->empty()) return refused("no `hook_event_name` (a string): not a hook's input");
  in.event_name = cut_utf8(*event, kMaxHookIdBytes);
  in.event = *event == "UserPromptSubmit" ? HookEvent::kUserPromptSubmit
             : *event == "Stop"           ? HookEvent::kStop
                                          : HookEvent::kOther;
  auto session = string_field(j, "session_id", in.notes);
  if (!session || !usable_id(*session)) {
    return refused(fmt::format("no usable `session_id` (a string of 1 to {} printable bytes)", kMaxHookIdBytes));
  }
  in.session_id = *session;
  const char* turn_field = agent == GateAgent::kCodex ? "turn_id" : "prompt_id";
  if (auto turn = string_field(j, turn_field, in.notes); turn && !turn->empty()) {
    if (!usable_id(*turn)) return refused(fmt::format("`{}` is not a usable id", turn_field));
    in.turn_key = *turn;
  }
  auto cwd = string_field(j, "cwd", in.notes);
  if (!cwd || cwd->empty() || cwd->front() != '/' || cwd->find('\0') != std::string::npos)
    return refused("no absolute `cwd`");
  std::string normal = std::filesystem::path(*cwd).lexically_normal().string();
  while (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  in.cwd = normal;
  if (auto t = string_field(j, "transcript_path", in.notes); t && !t->empty() && t->find('\0') == std::string::npos)
    in.transcript_path = *t;
  if (auto prompt = string_field(j, "prompt", in.notes)) {
    in.prompt = cut_utf8(*prompt, kMaxGoalBytes);
    if (in.prompt.size() < prompt->size()) {
      in.notes.push_back(fmt::format("the prompt ({}) was cut to its first {} for the goal",
                                     format_bytes(prompt->size()), format_bytes(in.prompt.size())));
      in.prompt += fmt::format("\n[prompt cut: {} in all]", format_bytes(prompt->size()));
    }
  }
  in.stop_hook_active = bool_field(j, "stop_hook_active", in.notes);
  if (auto last = string_field(j, "last_assistant_message", in.notes)) {
    in.last_assistant_message = cut_utf8(*last, kMaxGoalBytes);
  }
  return in;
}

std::string render_hook_answer(GateAgent /*agent*/, HookEvent event, const HookAnswer& answer) {
  nlohmann::json out = nlohmann::json::object();
  if (answer.block && event == HookEvent::kStop) {
    out["decision"] = "block";
    // Codex wants a reason with something in it; so does an agent that is to act on it.
    out["reason"] = answer.reason.find_first_not_of(" \t\r\n") == std::string::npos
                        ? std::string("candor blocked this stop (no reason was given)")
                        : answer.reason;
  }
  if (!answer.message.empty()) out["systemMessage"] = answer.message;
  // Bytes that are not UTF-8 (a path, a cut message) are replaced, never a throw.
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace candor::app
