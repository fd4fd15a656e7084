#include "import/turn_slice.h"

#include <istream>
#include <optional>
#include <sstream>
#include <string_view>
#include <vector>

#include "core/arg_schema.h"
#include "core/json_text.h"

namespace candor::import {
namespace {

// The lines of a stream, one at a time, each with the offset it begins at: memory for one line,
// never the file. A line past the limit of a record is consumed but not kept (`whole` false).
class Lines {
 public:
  explicit Lines(std::istream& in, std::streamoff offset = 0) : buf_(in.rdbuf()), offset_(offset) {}

  bool next(std::string& line, std::streamoff& begin, bool& whole) {
    line.clear();
    whole = true;
    begin = offset_;
    int c = buf_->sbumpc();
    if (c == std::char_traits<char>::eof()) return false;
    for (; c != std::char_traits<char>::eof(); c = buf_->sbumpc()) {
      ++offset_;
      if (c == '\n') break;
      if (line.size() < kMaxTranscriptLineBytes) {
        line.push_back(static_cast<char>(c));
      } else {
        whole = false;
      }
    }
    ++number_;
    return true;
  }
  int number() const { return number_; }

 private:
  std::streambuf* buf_;
  std::streamoff offset_;
  int number_ = 0;
};

// The line as a JSON object, or a discarded value: over the limits, not JSON, not an object.
nlohmann::json object_of(std::string_view line, bool whole) {
  if (!whole || !check_json_limits(line, "transcript", kTranscriptLineLimits).ok())
    return nlohmann::json::value_t::discarded;
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
  int line = 0;  // 1-based
  std::streamoff offset = 0;
  bool by_key = false;
  std::string prompt;
  bool found = false;
};

Start claude_start(std::istream& in, const std::string& key) {
  Start last, keyed;
  Lines lines(in);
  std::string line;
  std::streamoff begin = 0;
  bool whole = true;
  while (lines.next(line, begin, whole)) {
    if (line.find("\"user\"") == std::string::npos) continue;  // no user record: no parse
    nlohmann::json j = object_of(line, whole);
    if (j.is_discarded()) continue;
    if (!key.empty() && !keyed.found && json_str(j, "type") == "user" && json_str(j, "promptId") == key) {
      keyed = {lines.number(), begin, true, claude_prompt(j).value_or(""), true};
    }
    if (auto prompt = claude_prompt(j)) last = {lines.number(), begin, false, *prompt, true};
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
std::string codex_prompt(std::istream& in, std::streamoff from) {
  in.clear();
  in.seekg(from);
  Lines lines(in, from);
  std::string line, fallback;
  std::streamoff begin = 0;
  bool whole = true;
  while (lines.next(line, begin, whole)) {
    if (line.find("user") == std::string::npos && line.find("User") == std::string::npos) continue;
    nlohmann::json j = object_of(line, whole);
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

Start codex_start(std::istream& in, const std::string& key) {
  Start last, keyed, last_context, keyed_context;
  Lines lines(in);
  std::string line;
  std::streamoff begin = 0;
  bool whole = true;
  while (lines.next(line, begin, whole)) {
    bool started = line.find("task_started") != std::string::npos;
    bool context = line.find("turn_context") != std::string::npos;
    if (!started && !context) continue;
    nlohmann::json j = object_of(line, whole);
    if (j.is_discarded()) continue;
    const auto& p = j.contains("payload") && j["payload"].is_object() ? j["payload"] : nlohmann::json::object();
    std::string type = json_str(j, "type"), pt = json_str(p, "type");
    bool is_start = type == "event_msg" && pt == "task_started";
    bool is_context = type == "turn_context";
    if (!is_start && !is_context) continue;
    std::string id = codex_turn_id(p);
    Start here{lines.number(), begin, false, "", true};
    Start keyed_here{lines.number(), begin, true, "", true};
    if (is_start) {
      last = here;
      if (!key.empty() && id == key && !keyed.found) keyed = keyed_here;
    } else {
      last_context = here;
      if (!key.empty() && id == key && !keyed_context.found) keyed_context = keyed_here;
    }
  }
  Start s = keyed.found ? keyed : keyed_context.found ? keyed_context : last.found ? last : last_context;
  if (s.found) s.prompt = codex_prompt(in, s.offset);
  return s;
}

}  // namespace

Result<TurnStart> find_turn(std::istream& in, Format format, const std::string& turn_key) {
  if (format != Format::kClaudeCode && format != Format::kCodex) {
    return make_error(
        ErrorCode::kInvalidInput,
        "a turn can be found in a Claude Code transcript or a Codex rollout only, not " + format_name(format));
  }
  in.clear();
  in.seekg(0);
  Start start = format == Format::kClaudeCode ? claude_start(in, turn_key) : codex_start(in, turn_key);
  TurnStart out;
  if (!start.found) return out;
  out.found = true;
  out.by_key = start.by_key;
  out.prompt = std::move(start.prompt);
  out.first_line = start.line;
  out.offset = start.offset;
  return out;
}

Result<TurnSlice> slice_turn(const std::string& text, Format format, const std::string& turn_key) {
  std::istringstream in(text);
  TRY(TurnStart start, find_turn(in, format, turn_key));
  TurnSlice out;
  static_cast<TurnStart&>(out) = std::move(start);
  if (out.found) out.text = text.substr(static_cast<std::size_t>(out.offset));
  return out;
}

}  // namespace candor::import
