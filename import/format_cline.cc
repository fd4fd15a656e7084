// Cline and Roo Code task files (api_conversation_history.json, in the editor's global storage:
// .../saoudrizwan.claude-dev/tasks/<id>/ or .../rooveterinaryinc.roo-cline/tasks/<id>/): the
// Anthropic messages the extension sent. A call is a `tool_use` block (native tool calling) or,
// in the XML protocol, a <tool_name>...</tool_name> element in the assistant's text with one
// element per parameter; its result is the next user message's `tool_result` block, or its text
// block "[tool_name for '...'] Result:" with the text after it (Cline 3.x writes these even for
// native tool_use calls, with no id: matched by tool and order). attempt_completion's `result` is
// the final answer.
#include <algorithm>

#include <fmt/format.h>

#include "core/arg_schema.h"
#include "import/formats.h"

namespace candor::import {
namespace {

const char* const kExpected = "a Cline or Roo Code api_conversation_history.json (a JSON array of messages)";

// The XML calls in an assistant's text: <tool><param>value</param>...</tool>, tools of the catalogue only.
std::vector<std::pair<std::string, nlohmann::json>> xml_calls(const std::string& text) {
  std::vector<std::pair<std::string, nlohmann::json>> out;
  std::size_t at = 0;
  while ((at = text.find('<', at)) != std::string::npos) {
    std::size_t close = text.find('>', at);
    if (close == std::string::npos) break;
    std::string name = text.substr(at + 1, close - at - 1);
    std::size_t end = in_catalogue(Format::kCline, name) ? text.find("</" + name + ">", close) : std::string::npos;
    if (end == std::string::npos) {
      at = close;
      continue;
    }
    nlohmann::json input = nlohmann::json::object();
    std::string body = text.substr(close + 1, end - close - 1);
    std::size_t p = 0;
    while ((p = body.find('<', p)) != std::string::npos) {
      std::size_t pc = body.find('>', p);
      if (pc == std::string::npos) break;
      std::string param = body.substr(p + 1, pc - p - 1);
      std::size_t pe = param.empty() || param[0] == '/' ? std::string::npos : body.find("</" + param + ">", pc);
      if (pe == std::string::npos) {
        p = pc;
        continue;
      }
      std::string value = body.substr(pc + 1, pe - pc - 1);
      if (!value.empty() && value.front() == '\n') value.erase(0, 1);
      if (!value.empty() && value.back() == '\n') value.pop_back();
      input[param] = value;
      p = pe + param.size() + 3;
    }
    out.emplace_back(name, std::move(input));
    at = end + name.size() + 3;
  }
  return out;
}

// The result's first line is the agent's own account of the command, its output on the lines after
// it: Roo writes "Command executed in terminal within working directory '...'. Exit code: 0", Cline
// (its CLI 2.18, core 3.82) "Command executed successfully (exit code 0)." or "Command failed with
// exit code 1.". Only that line is read: a line the command printed ("Exit code: 0" in a failing
// test's log) is never its code.
std::optional<int> exit_code_of(const std::string& text) {
  std::string_view first(text);
  first = first.substr(0, std::min(first.find('\n'), std::size_t{1024}));
  if (first.rfind("Command executed in terminal", 0) == 0) {
    std::size_t at = first.rfind(". Exit code: ");
    if (at != std::string_view::npos) return exit_code_after(first.substr(at + 2), "Exit code: ");
  }
  if (auto code = exit_code_after(first, "Command executed successfully (exit code ")) return code;
  if (auto code = exit_code_after(first, "Command failed with exit code ")) return code;
  return exit_code_in_text(text);
}

nlohmann::json result_of(const std::string& text, bool is_error) {
  nlohmann::json result = {
      {"ok", !is_error && text.rfind("[ERROR]", 0) != 0 && text.find("The tool execution failed") == std::string::npos},
      {"output", text}};
  if (auto code = exit_code_of(text)) {
    result["exit_code"] = *code;
    if (*code != 0) result["ok"] = false;
  }
  return result;
}

struct Pending {
  std::string id, tool;
  std::vector<std::string> args;  // the input's string values: what a result's header may quote
};

std::vector<std::string> string_values(const nlohmann::json& input) {
  std::vector<std::string> out;
  for (const auto& [key, value] : input.items())
    if (value.is_string()) out.push_back(value.get<std::string>());
  return out;
}

struct State {
  std::vector<Pending> pending;  // calls of the last assistant message not yet answered, in order
  std::string answer;            // attempt_completion's result
  std::string last_text;
  int n = 0;
};

void assistant(const nlohmann::json& content, Builder& b, State& s) {
  s.pending.clear();
  auto blocks = content.is_array() ? content : nlohmann::json::array({{{"type", "text"}, {"text", text_of(content)}}});
  for (const auto& block : blocks) {
    std::string type = json_str(block, "type");
    if (type == "tool_use") {
      std::string name = json_str(block, "name");
      nlohmann::json input = member(block, "input").is_object() ? block["input"] : nlohmann::json::object();
      if (name == "attempt_completion") s.answer = json_str(input, "result");
      std::string id = json_str(block, "id");
      std::vector<std::string> args = string_values(input);
      b.call(id, name, std::move(input));
      s.pending.push_back(
          {id, name, std::move(args)});  // Cline answers even these with "[tool for '...'] Result:" text
    } else if (type == "text") {
      std::string text = json_str(block, "text");
      auto calls = xml_calls(text);
      if (calls.empty() && !text.empty() && content.is_array()) s.last_text = text;
      for (auto& [name, input] : calls) {
        if (name == "attempt_completion") s.answer = json_str(input, "result");
        std::string id = fmt::format("xml-{}", ++s.n);
        std::vector<std::string> args = string_values(input);
        b.call(id, name, std::move(input));
        s.pending.push_back({id, name, std::move(args)});
      }
      // Cline keeps an answer as typed blocks; a plain string without its tool tags is any chat's.
      if (content.is_array() || !calls.empty()) {
        b.seen();
      } else {
        b.unknown("assistant");
      }
    } else {
      b.skip("assistant." + type);
    }
  }
}

void user(const nlohmann::json& content, Builder& b, State& s) {
  if (!content.is_array()) {
    // Cline wraps the person's words in <task>, <feedback> or <answer> tags; a bare string is
    // any chat's (a mini-swe-agent message) and says nothing of the format.
    std::string text = content.is_string() ? content.get<std::string>() : "";
    if (text.find("<task>") != std::string::npos || text.find("<feedback>") != std::string::npos ||
        text.find("<answer>") != std::string::npos) {
      b.skip("user");
    } else {
      b.unknown("user");
    }
    return;
  }
  std::string open;  // an XML call whose result text is being read
  std::string text;
  auto flush = [&] {
    if (!open.empty()) b.result(open, result_of(text, false));
    open.clear();
    text.clear();
  };
  for (const auto& block : content) {
    std::string type = json_str(block, "type");
    if (type == "tool_result") {
      std::string id = json_str(block, "tool_use_id");
      std::erase_if(s.pending, [&](const Pending& p) { return p.id == id; });
      b.result(id, result_of(text_of(member(block, "content")), flag(block, "is_error")));
    } else if (type == "text") {
      std::string t = json_str(block, "text");
      bool header = t.size() > 1 && t[0] == '[' && t.find("] Result:") != std::string::npos;
      if (header && !s.pending.empty()) {
        flush();
        // "[read_file for 'a.cs'] Result:": the pending call of that tool whose input holds what the
        // header quotes, else the first of that tool, else the first one. The quote first: results
        // need not come in the calls' order, and a result given to the wrong call would lend it
        // another command's exit code.
        std::size_t close = t.find("] Result:");
        std::string tool = t.substr(1, std::min(t.find(" for "), close) - 1);
        std::size_t quote = t.find(" for '");
        std::string quoted = quote != std::string::npos && quote < close && close >= quote + 7 && t[close - 1] == '\''
                                 ? t.substr(quote + 6, close - 1 - (quote + 6))
                                 : std::string();
        auto it = std::find_if(s.pending.begin(), s.pending.end(), [&](const Pending& p) {
          return p.tool == tool && !quoted.empty() && std::find(p.args.begin(), p.args.end(), quoted) != p.args.end();
        });
        if (it == s.pending.end())
          it = std::find_if(s.pending.begin(), s.pending.end(), [&](const Pending& p) { return p.tool == tool; });
        if (it == s.pending.end()) it = s.pending.begin();
        open = it->id;
        s.pending.erase(it);
        text = t.substr(t.find("] Result:") + 9);
        while (!text.empty() && text.front() == '\n') text.erase(0, 1);
      } else if (!open.empty() && t.rfind("<environment_details>", 0) != 0) {
        text += (text.empty() ? "" : "\n") + t;
      } else {
        b.skip("user.text");
      }
    } else {
      b.skip("user." + type);
    }
  }
  flush();
}

}  // namespace

Status import_cline(std::istream& in, Builder& b) {
  State s;
  TRY_STATUS(for_each_element(in, b, {"messages"}, kExpected, [&](const nlohmann::json& m) {
    std::string role = json_str(m, "role");
    if (role == "assistant") {
      assistant(member(m, "content"), b, s);
    } else if (role == "user") {
      user(member(m, "content"), b, s);
    } else {
      b.unknown(role.empty() ? json_str(m, "type") : role);
    }
  }));
  if (!s.answer.empty()) {
    b.final_answer(s.answer);
  } else if (!s.last_text.empty()) {
    b.final_answer(s.last_text);
  }
  return ok_status();
}

}  // namespace candor::import
