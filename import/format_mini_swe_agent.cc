// mini-swe-agent trajectories (.traj.json): {"info": {..., "submission", "exit_status"},
// "messages": [...], "trajectory_format": "mini-swe-agent-1.1"}; before 1.0 a bare array of
// messages. Every action is a bash command: in an assistant message's `extra.actions` (1.1), in
// its `tool_calls` (tool-calling models), or, in older files, the one ```bash block of its text.
// Its output follows as a `user` (text) or `tool` message with `extra.returncode`, or with
// <returncode>N</returncode> in its text.
#include <algorithm>

#include <set>

#include <fmt/format.h>

#include "core/arg_schema.h"
#include "import/formats.h"

namespace candor::import {
namespace {

const char* const kExpected = "a mini-swe-agent trajectory (an object with a \"messages\" array, or an array)";

// The command of the one fenced block in an assistant's text (```bash or ```mswea_bash_command).
std::string fenced_command(const std::string& text) {
  std::size_t open = text.find("```");
  while (open != std::string::npos) {
    std::size_t eol = text.find('\n', open);
    if (eol == std::string::npos) return "";
    std::string lang = text.substr(open + 3, eol - open - 3);
    std::size_t close = text.find("```", eol + 1);
    if (close == std::string::npos) return "";
    if (lang == "bash" || lang == "mswea_bash_command" || lang == "sh") {
      std::string body = text.substr(eol + 1, close - eol - 1);
      while (!body.empty() && (body.back() == '\n' || body.back() == ' ')) body.pop_back();
      return body;
    }
    open = text.find("```", close + 3);
  }
  return "";
}

struct State {
  std::vector<std::string> pending;  // calls of the last assistant message not yet answered, in order
  std::set<std::string> submits;     // calls that submit: echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT
  std::string last_text;             // the last assistant text
  std::string submitted;             // what a submitting command printed (files before 1.1)
  int n = 0;
};

// The command mini-swe-agent reads as "done": what it prints after it is the submission.
bool submits(const std::string& command) {
  return command.find("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT") != std::string::npos ||
         command.find("MINI_SWE_AGENT_FINAL_OUTPUT") != std::string::npos;
}

void add_call(Builder& b, State& s, const std::string& id, const std::string& tool, nlohmann::json input) {
  if (submits(json_str(input, "command"))) s.submits.insert(id);
  b.call(id, tool, std::move(input));
  s.pending.push_back(id);
}

void assistant(const nlohmann::json& m, Builder& b, State& s) {
  std::string text = text_of(member(m, "content"));
  if (!text.empty()) s.last_text = text;
  s.pending.clear();
  const auto& actions = member(member(m, "extra"), "actions");
  if (member(m, "tool_calls").is_array() && !m["tool_calls"].empty()) {
    for (const auto& c : m["tool_calls"]) {
      const auto& f = member(c, "function");
      std::string id = json_str(c, "id");
      add_call(b, s, id, json_str(f, "name").empty() ? "bash" : json_str(f, "name"),
               arguments_of(member(f, "arguments"), b));
    }
  } else if (actions.is_array() && !actions.empty()) {
    for (const auto& a : actions) {
      std::string id = json_str(a, "tool_call_id");
      if (id.empty()) id = fmt::format("action-{}", ++s.n);
      add_call(b, s, id, "bash", {{"command", json_str(a, "command")}});
    }
  } else if (std::string command = fenced_command(text); !command.empty()) {
    std::string id = fmt::format("action-{}", ++s.n);
    add_call(b, s, id, "bash", {{"command", command}});
  } else {
    b.seen();
  }
}

void observation(const nlohmann::json& m, Builder& b, State& s) {
  std::string id = json_str(m, "tool_call_id");
  if (id.empty() && !s.pending.empty()) id = s.pending.front();
  if (id.empty()) {
    b.skip(json_str(m, "role"));  // the task, a format error, a limit
    return;
  }
  s.pending.erase(std::remove(s.pending.begin(), s.pending.end(), id), s.pending.end());
  std::string text = text_of(member(m, "content"));
  const auto& extra = member(m, "extra");
  nlohmann::json result = {{"ok", true}, {"output", text}};
  if (member(extra, "raw_output").is_string()) result["output"] = extra["raw_output"];
  std::optional<int> code;
  if (member(extra, "returncode").is_number_integer()) code = extra["returncode"].get<int>();
  if (!code) code = exit_code_in_text(text);
  // Its timeout_template: "The last command <command>...</command> timed out and has been killed."
  // No code, and not a command that succeeded, whatever its partial output says.
  if (!code && text.rfind("The last command <command>", 0) == 0 &&
      text.substr(0, text.find('\n')).find("</command> timed out") != std::string::npos) {
    result["ok"] = false;
  }
  if (!code && s.submits.count(id)) s.submitted = result["output"].get<std::string>();
  if (code) {
    result["exit_code"] = *code;
    result["ok"] = *code == 0;
  }
  if (member(extra, "exception_info").is_string() && !extra["exception_info"].get<std::string>().empty()) {
    result["ok"] = false;
    result["error"] = extra["exception_info"];
  }
  b.result(id, result);
}

}  // namespace

Status import_mini_swe_agent(std::istream& in, Builder& b) {
  State s;
  std::string submission;
  bool has_info = false;
  TRY_STATUS(for_each_element(
      in, b, {"messages"}, kExpected,
      [&](const nlohmann::json& m) {
        std::string role = json_str(m, "role");
        if (member(m, "content").is_array()) {
          // Content as typed blocks (tool_use, text blocks: Cline's, Claude's shape): not mini's,
          // whose messages hold a string.
          b.unknown(role + ".blocks");
        } else if (role == "assistant") {
          assistant(m, b, s);
        } else if ((role == "user" || role == "tool") && (!s.pending.empty() || m.contains("tool_call_id"))) {
          observation(m, b, s);
        } else if (role == "exit") {
          submission = json_str(member(m, "extra"), "submission");
          b.skip("exit");
        } else if (role == "system" || role == "user" || role == "tool") {
          b.skip(role);
        } else {
          b.unknown(role);
        }
      },
      [&](const std::string& key, const nlohmann::json& value) {
        if (key != "info") return;
        has_info = true;
        submission = json_str(value, "submission");
      }));
  // The answer: what it submitted (1.1: info.submission), else the last thing it said.
  if (submission.empty()) submission = s.submitted;
  if (!submission.empty()) {
    b.final_answer(submission);
  } else if (!has_info && !s.last_text.empty()) {
    b.final_answer(s.last_text);
  }
  return ok_status();
}

}  // namespace candor::import
