#include "import/trajectory_import.h"

#include <sstream>

#include <fmt/format.h>

#include "core/arg_schema.h"
#include "core/json_text.h"

namespace candor::import {
namespace {

using Kind = TrajectoryEvent::Kind;

struct Builder {
  ImportedTrajectory out;
  std::map<std::string, std::pair<std::string, nlohmann::json>> calls;  // call id -> tool, input
  std::optional<Error> refused;  // the first JSON string inside a record that was over the limits
  std::string where;             // the record being read ("FILE:LINE", "FILE"), for messages

  void call(const std::string& id, const std::string& tool, nlohmann::json input) {
    if (!input.is_object()) input = nlohmann::json{{"value", input}};
    calls[id] = {tool, input};
    push({0, Kind::kToolCalled, tool, std::move(input), nullptr, ""});
  }
  void result(const std::string& id, nlohmann::json result) {
    auto it = calls.find(id);
    std::string tool = it != calls.end() ? it->second.first : "";
    nlohmann::json input = it != calls.end() ? it->second.second : nlohmann::json::object();
    push({0, Kind::kToolResult, tool, std::move(input), std::move(result), ""});
  }
  void final_answer(const std::string& text) {
    push({0, Kind::kFinalAnswer, "", nlohmann::json::object(), nullptr, text});
  }
  void skip(const std::string& type) { ++out.skipped[type.empty() ? "(untyped)" : type]; }
  void push(TrajectoryEvent e) {
    e.seq = static_cast<std::int64_t>(out.events.size()) + 1;
    out.events.push_back(std::move(e));
  }
};

// A JSON string holding JSON (tool-call arguments): parsed, or kept as {"raw": text}. It is JSON
// from outside like the record around it: past the limits the transcript is refused (b.refused).
nlohmann::json arguments_of(const nlohmann::json& j, Builder& b) {
  if (j.is_object()) return j;
  if (!j.is_string()) return nlohmann::json::object();
  const std::string& text = j.get_ref<const std::string&>();
  if (Status within =
          check_json_limits(text, b.where + ": a tool call's arguments (JSON in a string)", kTranscriptLineLimits);
      !within.ok()) {
    if (!b.refused) b.refused = within.error();
    return nlohmann::json{{"raw", ""}};
  }
  auto parsed = parse_within_limits_or_discarded(text);
  return parsed.is_object() ? parsed : nlohmann::json{{"raw", text}};
}

// Tool-result content: a string, or [{type: text, text}] blocks joined.
std::string text_of(const nlohmann::json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string out;
  if (content.is_array()) {
    for (const auto& b : content) {
      if (b.is_object() && json_str(b, "type") == "text") out += json_str(b, "text");
      if (b.is_object() && json_str(b, "type") == "output_text") out += json_str(b, "text");
    }
  }
  return out;
}

// Reads JSONL: every line an object; a last line that does not parse (the file was still being
// written) is tolerated and reported; any other bad line is an error naming it, and so is a line
// over the JSON limits, wherever it is (a cut line is short of its end, never too deep).
Status for_each_line(const std::string& text, const std::string& source, Builder& b,
                     const std::function<void(const nlohmann::json&)>& visit) {
  ImportedTrajectory& out = b.out;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  std::vector<std::pair<int, std::string>> lines;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    lines.emplace_back(number, line);
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    TRY_STATUS(check_json_line(lines[i].second, source, lines[i].first));
    auto j = parse_within_limits_or_discarded(lines[i].second);
    if (j.is_discarded() || !j.is_object()) {
      bool last = i + 1 == lines.size();
      if (last && !text.empty() && text.back() != '\n') {
        out.truncated_last_line = true;
        continue;
      }
      return make_error(ErrorCode::kInvalidInput, fmt::format("{}:{}: not a JSON object", source, lines[i].first));
    }
    ++out.records;
    b.where = fmt::format("{}:{}", source, lines[i].first);
    visit(j);
    if (b.refused) return *b.refused;
  }
  return ok_status();
}

Status import_claude_code(const std::string& text, const std::string& source, Builder& b) {
  std::string last_text;  // the last assistant text block: the final answer
  TRY_STATUS(for_each_line(text, source, b, [&](const nlohmann::json& j) {
    std::string type = json_str(j, "type");
    const auto& message = j.contains("message") ? j["message"] : nlohmann::json();
    if (type == "assistant" && message.is_object() && message.contains("content")) {
      const auto& content = message["content"];
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
    } else if (type == "user" && message.is_object() && message.contains("content")) {
      const auto& content = message["content"];
      if (!content.is_array()) return;  // the person's prompt
      for (const auto& block : content) {
        if (json_str(block, "type") != "tool_result") {
          b.skip("user." + json_str(block, "type"));
          continue;
        }
        bool is_error = block.contains("is_error") && block["is_error"].is_boolean() && block["is_error"].get<bool>();
        nlohmann::json result = {{"ok", !is_error},
                                 {"output", text_of(block.contains("content") ? block["content"] : nlohmann::json())}};
        if (j.contains("toolUseResult")) result["detail"] = j["toolUseResult"];
        b.result(json_str(block, "tool_use_id"), result);
      }
    } else {
      b.skip(type);
    }
  }));
  if (!last_text.empty()) b.final_answer(last_text);
  return ok_status();
}

const std::vector<std::string>& swe_commands() {
  static const std::vector<std::string> commands = {"bash",
                                                    "create",
                                                    "edit",
                                                    "find_file",
                                                    "insert",
                                                    "open",
                                                    "submit",
                                                    "goto",
                                                    "scroll_up",
                                                    "scroll_down",
                                                    "search_dir",
                                                    "search_file",
                                                    "str_replace_editor",
                                                    "filemap",
                                                    "exit_forfeit"};
  return commands;
}

Status import_swe_agent(const std::string& text, const std::string& source, Builder& b) {
  TRY_STATUS(check_json_limits(text, source, kTranscriptLimits));
  b.where = source;
  auto j = parse_within_limits_or_discarded(text);
  if (j.is_discarded() || !j.is_object())
    return make_error(ErrorCode::kInvalidInput, source + ": not a SWE-agent .traj (a JSON object)");
  bool function_calling = false;
  if (j.contains("history") && j["history"].is_array()) {
    for (const auto& h : j["history"]) function_calling = function_calling || h.contains("tool_calls");
  }
  if (function_calling) {
    for (const auto& h : j["history"]) {
      ++b.out.records;
      std::string role = json_str(h, "role");
      bool demo = h.contains("is_demo") && h["is_demo"].is_boolean() && h["is_demo"].get<bool>();
      if (demo) {
        b.skip("demo");
      } else if (role == "assistant" && h.contains("tool_calls") && h["tool_calls"].is_array()) {
        for (const auto& c : h["tool_calls"]) {
          const auto& f = c.contains("function") ? c["function"] : nlohmann::json::object();
          b.call(json_str(c, "id"), json_str(f, "name"),
                 arguments_of(f.contains("arguments") ? f["arguments"] : nlohmann::json(), b));
        }
      } else if (role == "tool" && h.contains("tool_call_ids") && h["tool_call_ids"].is_array()) {
        std::string output = text_of(h.contains("content") ? h["content"] : nlohmann::json());
        for (const auto& id : h["tool_call_ids"])
          b.result(id.is_string() ? id.get<std::string>() : "", {{"ok", true}, {"output", output}});
      } else {
        b.skip(role.empty() ? "history" : role);
      }
    }
  } else if (j.contains("trajectory") && j["trajectory"].is_array()) {
    int n = 0;
    for (const auto& step : j["trajectory"]) {
      ++b.out.records;
      std::string action = json_str(step, "action");
      std::string first = action.substr(0, action.find_first_of(" \n"));
      bool known = std::find(swe_commands().begin(), swe_commands().end(), first) != swe_commands().end();
      std::string id = fmt::format("step-{}", ++n);
      b.call(id, known ? first : "bash", {{"command", action}});
      b.result(id, {{"ok", true}, {"output", json_str(step, "observation")}});
    }
  } else {
    return make_error(ErrorCode::kInvalidInput, source + ": a .traj needs a \"history\" or a \"trajectory\" array");
  }
  const auto& info = j.contains("info") && j["info"].is_object() ? j["info"] : nlohmann::json::object();
  std::string submission = json_str(info, "submission");
  if (!submission.empty()) b.final_answer(submission);
  return ok_status();
}

// What the model asked for: the tool call inside the recorded model response (its arguments are a
// JSON string); OpenHands' normalised `args` when that is missing.
nlohmann::json raw_openhands_input(const nlohmann::json& e, const nlohmann::json& meta, Builder& b) {
  std::string call_id = json_str(meta, "tool_call_id");
  if (!call_id.empty() && meta.contains("model_response")) {
    const auto& choices =
        meta["model_response"].contains("choices") ? meta["model_response"]["choices"] : nlohmann::json();
    if (choices.is_array() && !choices.empty() && choices[0].contains("message")) {
      const auto& calls =
          choices[0]["message"].contains("tool_calls") ? choices[0]["message"]["tool_calls"] : nlohmann::json();
      if (calls.is_array()) {
        for (const auto& c : calls) {
          if (json_str(c, "id") == call_id && c.contains("function") && c["function"].contains("arguments")) {
            return arguments_of(c["function"]["arguments"], b);
          }
        }
      }
    }
  }
  return e.contains("args") && e["args"].is_object() ? e["args"] : nlohmann::json::object();
}

Status import_openhands(const std::string& text, const std::string& source, Builder& b) {
  TRY_STATUS(check_json_limits(text, source, kTranscriptLimits));
  b.where = source;
  auto j = parse_within_limits_or_discarded(text);
  if (j.is_discarded() || !j.is_array())
    return make_error(ErrorCode::kInvalidInput, source + ": not an OpenHands event stream (a JSON array)");
  std::string last_message;
  bool finished = false;
  for (const auto& e : j) {
    ++b.out.records;
    std::string source_of = json_str(e, "source");
    std::string action = json_str(e, "action");
    std::string observation = json_str(e, "observation");
    const auto& meta = e.contains("tool_call_metadata") && e["tool_call_metadata"].is_object() ? e["tool_call_metadata"]
                                                                                               : nlohmann::json();
    std::string id = e.contains("id") ? e["id"].dump() : "";
    if (source_of == "agent" && action == "finish") {
      const auto& args = e.contains("args") ? e["args"] : nlohmann::json::object();
      std::string answer = json_str(args, "final_thought");
      if (answer.empty()) answer = json_str(e, "message");
      if (answer.empty()) answer = json_str(args, "thought");
      b.final_answer(answer);
      finished = true;
    } else if (source_of == "agent" && action == "message") {
      last_message = json_str(e, "message");
    } else if (source_of == "agent" && !action.empty()) {
      std::string tool = json_str(meta, "function_name");
      b.call(id, tool.empty() ? action : tool, raw_openhands_input(e, meta, b));
    } else if (!observation.empty() && observation != "null" && e.contains("cause") &&
               observation != "agent_state_changed") {
      const auto& extras = e.contains("extras") ? e["extras"] : nlohmann::json::object();
      nlohmann::json result = {{"ok", true}, {"output", json_str(e, "content")}};
      if (extras.is_object() && extras.contains("metadata") && extras["metadata"].is_object() &&
          extras["metadata"].contains("exit_code")) {
        result["exit_code"] = extras["metadata"]["exit_code"];
        result["ok"] = extras["metadata"]["exit_code"] == 0;
      }
      if (observation == "error") result["ok"] = false;
      b.result(e["cause"].dump(), result);
    } else {
      b.skip(!action.empty() ? source_of + "." + action
                             : source_of + "." + (observation.empty() ? "event" : observation));
    }
  }
  if (!finished && !last_message.empty()) b.final_answer(last_message);
  return ok_status();
}

Status import_codex(const std::string& text, const std::string& source, Builder& b) {
  std::string last_text;
  TRY_STATUS(for_each_line(text, source, b, [&](const nlohmann::json& j) {
    std::string type = json_str(j, "type");
    const auto& p = j.contains("payload") && j["payload"].is_object() ? j["payload"] : nlohmann::json::object();
    std::string pt = json_str(p, "type");
    if (type == "response_item" && pt == "function_call") {
      b.call(json_str(p, "call_id"), json_str(p, "name"),
             arguments_of(p.contains("arguments") ? p["arguments"] : nlohmann::json(), b));
    } else if (type == "response_item" && pt == "custom_tool_call") {
      b.call(json_str(p, "call_id"), json_str(p, "name"), {{"input", json_str(p, "input")}});
    } else if (type == "response_item" && pt == "local_shell_call") {
      b.call(json_str(p, "call_id"), "local_shell", p.contains("action") ? p["action"] : nlohmann::json::object());
    } else if (type == "response_item" && (pt == "function_call_output" || pt == "custom_tool_call_output")) {
      const auto& output = p.contains("output") ? p["output"] : nlohmann::json();
      nlohmann::json result = {{"ok", true},
                               {"output", output.is_string() ? output.get<std::string>() : text_of(output)}};
      // Codex wraps shell output as {"output": ..., "metadata": {"exit_code": N}} in a string. A
      // string past the JSON limits is no such wrapper (it is 2 deep): it stays plain output.
      bool wrapper = output.is_string() && check_json_limits(output.get_ref<const std::string&>(), b.where).ok();
      auto inner = wrapper ? parse_within_limits_or_discarded(output.get_ref<const std::string&>()) : nlohmann::json();
      if (inner.is_object() && inner.contains("metadata") && inner["metadata"].is_object() &&
          inner["metadata"].contains("exit_code")) {
        result["exit_code"] = inner["metadata"]["exit_code"];
        result["ok"] = inner["metadata"]["exit_code"] == 0;
        result["output"] = json_str(inner, "output");
      }
      b.result(json_str(p, "call_id"), result);
    } else if (type == "response_item" && pt == "message" && json_str(p, "role") == "assistant") {
      std::string t = text_of(p.contains("content") ? p["content"] : nlohmann::json());
      if (!t.empty()) last_text = t;
    } else if (type == "event_msg" && pt == "task_complete" && !json_str(p, "last_agent_message").empty()) {
      last_text = json_str(p, "last_agent_message");
    } else {
      b.skip(pt.empty() ? type : type + "." + pt);
    }
  }));
  if (!last_text.empty()) b.final_answer(last_text);
  return ok_status();
}

}  // namespace

const std::vector<std::string>& format_names() {
  static const std::vector<std::string> names = {"claude-code", "swe-agent", "openhands", "codex"};
  return names;
}

std::optional<Format> parse_format(const std::string& name) {
  if (name == "claude-code") return Format::kClaudeCode;
  if (name == "swe-agent") return Format::kSweAgent;
  if (name == "openhands") return Format::kOpenHands;
  if (name == "codex") return Format::kCodex;
  return std::nullopt;
}

std::string format_name(Format format) { return format_names()[static_cast<std::size_t>(format)]; }

const std::vector<std::string>& tool_catalogue(Format format) {
  static const std::vector<std::string> claude = {"Bash",         "BashOutput",   "KillShell",   "Read",      "Write",
                                                  "Edit",         "MultiEdit",    "Glob",        "Grep",      "LS",
                                                  "NotebookRead", "NotebookEdit", "WebFetch",    "WebSearch", "Task",
                                                  "TodoWrite",    "ExitPlanMode", "SlashCommand"};
  static const std::vector<std::string> openhands = {"execute_bash",
                                                     "str_replace_editor",
                                                     "execute_ipython_cell",
                                                     "browser",
                                                     "web_read",
                                                     "edit_file",
                                                     "think",
                                                     "run",
                                                     "read",
                                                     "edit",
                                                     "run_ipython",
                                                     "browse",
                                                     "browse_interactive",
                                                     "delegate"};
  static const std::vector<std::string> codex = {"shell",      "local_shell",  "apply_patch", "update_plan",
                                                 "view_image", "exec_command", "write_stdin", "unified_exec"};
  switch (format) {
    case Format::kClaudeCode:
      return claude;
    case Format::kSweAgent:
      return swe_commands();
    case Format::kOpenHands:
      return openhands;
    case Format::kCodex:
      return codex;
  }
  return claude;
}

bool is_effect_call(Format format, const TrajectoryEvent& call) {
  const std::string& t = call.tool;
  switch (format) {
    case Format::kClaudeCode:
      return t == "Write" || t == "Edit" || t == "MultiEdit" || t == "NotebookEdit";
    case Format::kSweAgent:
      return t == "edit" || t == "create" || t == "insert" ||
             (t == "str_replace_editor" && json_str(call.input, "command") != "view");
    case Format::kOpenHands:
      return t == "edit" || t == "edit_file" ||
             (t == "str_replace_editor" && json_str(call.input, "command") != "view" &&
              json_str(call.input, "command") != "");
    case Format::kCodex:
      return t == "apply_patch";
  }
  return false;
}

Result<ImportedTrajectory> import_trajectory(const std::string& text, Format format, const std::string& source) {
  if (text.size() > kMaxTranscriptBytes) {
    return make_error(ErrorCode::kInvalidInput,
                      fmt::format("{}: refused: {} of transcript, over the limit of {}", source,
                                  format_bytes(text.size()), format_bytes(kMaxTranscriptBytes)));
  }
  Builder b;
  b.out.format = format;
  switch (format) {
    case Format::kClaudeCode:
      TRY_STATUS(import_claude_code(text, source, b));
      break;
    case Format::kSweAgent:
      TRY_STATUS(import_swe_agent(text, source, b));
      break;
    case Format::kOpenHands:
      TRY_STATUS(import_openhands(text, source, b));
      break;
    case Format::kCodex:
      TRY_STATUS(import_codex(text, source, b));
      break;
  }
  if (b.refused) return *b.refused;
  // Below, operator== and the importers' dump() recurse: every value came through the limits above,
  // so they are at most kMaxJsonDepth (+1 for {"value": ...}) deep.
  // A goal action: an effect call whose result, when there is one, did not fail.
  for (std::size_t i = 0; i < b.out.events.size(); ++i) {
    const auto& e = b.out.events[i];
    if (e.kind != Kind::kToolCalled || !is_effect_call(format, e)) continue;
    bool failed = false;
    for (std::size_t k = i + 1; k < b.out.events.size(); ++k) {
      const auto& r = b.out.events[k];
      if (r.kind == Kind::kToolResult && r.tool == e.tool && r.input == e.input) {
        failed = r.result.is_object() && r.result.contains("ok") && r.result["ok"] == false;
        break;
      }
    }
    b.out.goal_actions_executed = b.out.goal_actions_executed || !failed;
  }
  return std::move(b.out);
}

}  // namespace candor::import
