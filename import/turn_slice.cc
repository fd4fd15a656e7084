#include "import/turn_slice.h"

#include <optional>
#include <string_view>
#include <vector>

#include "core/arg_schema.h"
#include "core/json_text.h"

namespace candor::import {
namespace {

struct Line {
  std::size_t begin = 0, end = 0;  // [begin, end) in the text, without the newline
};

std::vector<Line> lines_of(std::string_view text) {
  std::vector<Line> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t nl = text.find('\n', at);
    std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    out.push_back({at, end});
    at = end + 1;
  }
  return out;
}

// The line as a JSON object, or a discarded value: over the limits, not JSON, not an object.
nlohmann::json object_of(std::string_view line) {
  if (!check_json_limits(line, "transcript", kTranscriptLineLimits).ok()) return nlohmann::json::value_t::discarded;
  nlohmann::json j = parse_within_limits_or_discarded(line);
  return j.is_object() ? j : nlohmann::json(nlohmann::json::value_t::discarded);
}

// Text blocks of a message's content joined ("text", "input_text"), or the string itself.
std::string text_blocks(const nlohmann::json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string out;
  if (!content.is_array()) return out;
  for (const auto& b : content) {
    if (!b.is_object()) continue;
    std::string type = json_str(b, "type");
    if (type == "text" || type == "input_text" || type == "Text")
      out += (out.empty() ? "" : "\n") + json_str(b, "text");
  }
  return out;
}

// A Claude Code `user` record that is the person's prompt: not meta (hook feedback, reminders), no
// tool result. Its text, or nullopt.
std::optional<std::string> claude_prompt(const nlohmann::json& j) {
  if (json_str(j, "type") != "user") return std::nullopt;
  if (j.contains("isMeta") && j["isMeta"].is_boolean() && j["isMeta"].get<bool>()) return std::nullopt;
  if (!j.contains("message") || !j["message"].is_object() || !j["message"].contains("content")) return std::nullopt;
  const auto& content = j["message"]["content"];
  if (content.is_array()) {
    for (const auto& b : content) {
      if (b.is_object() && json_str(b, "type") == "tool_result") return std::nullopt;
    }
  }
  std::string text = text_blocks(content);
  if (text.empty()) return std::nullopt;
  return text;
}

struct Start {
  std::size_t line = 0;
  bool by_key = false;
  std::string prompt;
  bool found = false;
};

Start claude_start(std::string_view text, const std::vector<Line>& lines, const std::string& key) {
  Start last, keyed;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = text.substr(lines[i].begin, lines[i].end - lines[i].begin);
    if (line.find("\"user\"") == std::string_view::npos) continue;  // no user record: no parse
    nlohmann::json j = object_of(line);
    if (j.is_discarded()) continue;
    if (!key.empty() && !keyed.found && json_str(j, "type") == "user" && json_str(j, "promptId") == key) {
      keyed = {i, true, claude_prompt(j).value_or(""), true};
    }
    if (auto prompt = claude_prompt(j)) last = {i, false, *prompt, true};
  }
  return keyed.found ? keyed : last;
}

// The payload's turn id: `turn_id`, or `turn_attribution.turn_id`.
std::string codex_turn_id(const nlohmann::json& p) {
  std::string id = json_str(p, "turn_id");
  if (id.empty() && p.contains("turn_attribution") && p["turn_attribution"].is_object())
    id = json_str(p["turn_attribution"], "turn_id");
  return id;
}

// The person's message after the turn's start: an `item_completed` UserMessage, a `user_message`
// event, or a `user` message item that is not Codex's own context (which begins with a tag).
std::string codex_prompt(std::string_view text, const std::vector<Line>& lines, std::size_t from) {
  std::string fallback;
  for (std::size_t i = from; i < lines.size(); ++i) {
    std::string_view line = text.substr(lines[i].begin, lines[i].end - lines[i].begin);
    if (line.find("user") == std::string_view::npos && line.find("User") == std::string_view::npos) continue;
    nlohmann::json j = object_of(line);
    if (j.is_discarded() || !j.contains("payload") || !j["payload"].is_object()) continue;
    const auto& p = j["payload"];
    std::string type = json_str(j, "type"), pt = json_str(p, "type");
    if (type == "event_msg" && pt == "item_completed" && p.contains("item") && p["item"].is_object() &&
        json_str(p["item"], "type") == "UserMessage") {
      return text_blocks(p["item"].contains("content") ? p["item"]["content"] : nlohmann::json());
    }
    if (type == "event_msg" && pt == "user_message") return json_str(p, "message");
    if (type == "response_item" && pt == "message" && json_str(p, "role") == "user" && fallback.empty()) {
      std::string t = text_blocks(p.contains("content") ? p["content"] : nlohmann::json());
      if (!t.empty() && t.front() != '<') fallback = t;
    }
  }
  return fallback;
}

Start codex_start(std::string_view text, const std::vector<Line>& lines, const std::string& key) {
  Start last, keyed, last_context, keyed_context;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = text.substr(lines[i].begin, lines[i].end - lines[i].begin);
    bool started = line.find("task_started") != std::string_view::npos;
    bool context = line.find("turn_context") != std::string_view::npos;
    if (!started && !context) continue;
    nlohmann::json j = object_of(line);
    if (j.is_discarded()) continue;
    const auto& p = j.contains("payload") && j["payload"].is_object() ? j["payload"] : nlohmann::json::object();
    std::string type = json_str(j, "type"), pt = json_str(p, "type");
    bool is_start = type == "event_msg" && pt == "task_started";
    bool is_context = type == "turn_context";
    if (!is_start && !is_context) continue;
    std::string id = codex_turn_id(p);
    Start here{i, false, "", true};
    if (is_start) {
      last = here;
      if (!key.empty() && id == key && !keyed.found) keyed = {i, true, "", true};
    } else {
      last_context = here;
      if (!key.empty() && id == key && !keyed_context.found) keyed_context = {i, true, "", true};
    }
  }
  Start s = keyed.found ? keyed : keyed_context.found ? keyed_context : last.found ? last : last_context;
  if (s.found) s.prompt = codex_prompt(text, lines, s.line);
  return s;
}

}  // namespace

Result<TurnSlice> slice_turn(const std::string& text, Format format, const std::string& turn_key) {
  if (format != Format::kClaudeCode && format != Format::kCodex) {
    return make_error(
        ErrorCode::kInvalidInput,
        "a turn can be found in a Claude Code transcript or a Codex rollout only, not " + format_name(format));
  }
  std::vector<Line> lines = lines_of(text);
  Start start =
      format == Format::kClaudeCode ? claude_start(text, lines, turn_key) : codex_start(text, lines, turn_key);
  TurnSlice out;
  if (!start.found) return out;
  out.found = true;
  out.by_key = start.by_key;
  out.prompt = std::move(start.prompt);
  out.first_line = static_cast<int>(start.line) + 1;
  out.text = text.substr(lines[start.line].begin);
  return out;
}

}  // namespace candor::import
