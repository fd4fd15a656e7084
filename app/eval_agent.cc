#include "app/eval_agent.h"

#include <sstream>

#include <fmt/format.h>

namespace candor::app {
namespace {

constexpr std::size_t kAnswerBytes = 4000;

std::string cut(const std::string& s) {
  if (s.size() <= kAnswerBytes) return s;
  std::size_t end = kAnswerBytes;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;  // not inside a UTF-8 sequence
  return s.substr(0, end) + " [...]";
}

// A transcript is the agent's output: any field may hold anything. Read as text or a flag only
// when it is one.
std::string str(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

bool flag(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_boolean() && j[key].get<bool>();
}

std::vector<nlohmann::json> json_lines(const std::string& output) {
  std::vector<nlohmann::json> out;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line.front() != '{') continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object()) out.push_back(std::move(j));
  }
  return out;
}

std::optional<std::int64_t> count(const nlohmann::json& usage, const char* key) {
  if (!usage.is_object() || !usage.contains(key) || !usage[key].is_number_integer()) return std::nullopt;
  return usage[key].get<std::int64_t>();
}

void claude_claim(const std::string& output, EvalClaim& c) {
  for (const auto& j : json_lines(output)) {
    if (str(j, "type") != "result") continue;  // the last result line is the turn's end
    const bool ok = str(j, "subtype") == "success" && !flag(j, "is_error");
    c.claimed = ok ? "success" : "failure";
    c.answer = j.contains("result") && j["result"].is_string() ? cut(j["result"].get<std::string>()) : "";
    c.detail = ok ? "" : str(j, "subtype").empty() ? "error" : str(j, "subtype");
    const auto& usage = j.contains("usage") ? j["usage"] : nlohmann::json();
    c.input_tokens = count(usage, "input_tokens");
    if (auto cached = count(usage, "cache_read_input_tokens"); cached && c.input_tokens) *c.input_tokens += *cached;
    if (auto made = count(usage, "cache_creation_input_tokens"); made && c.input_tokens) *c.input_tokens += *made;
    c.output_tokens = count(usage, "output_tokens");
    if (j.contains("total_cost_usd") && j["total_cost_usd"].is_number()) c.cost_usd = j["total_cost_usd"].get<double>();
  }
}

void codex_claim(const std::string& output, EvalClaim& c) {
  std::string answer;
  for (const auto& j : json_lines(output)) {
    const std::string type = str(j, "type");
    if (type == "item.completed" && j.contains("item") && j["item"].is_object() &&
        str(j["item"], "type") == "agent_message" && j["item"].contains("text") && j["item"]["text"].is_string()) {
      answer = j["item"]["text"].get<std::string>();
    } else if (type == "turn.completed") {
      c.claimed = "success";
      c.detail.clear();
      const auto& usage = j.contains("usage") ? j["usage"] : nlohmann::json();
      c.input_tokens = count(usage, "input_tokens");
      c.output_tokens = count(usage, "output_tokens");
    } else if (type == "turn.failed" || type == "error") {
      c.claimed = "failure";
      const auto& e = j.contains("error") ? j["error"] : j;
      c.detail = !str(e, "message").empty() ? str(e, "message") : type;
    }
  }
  c.answer = cut(answer);
}

void candor_claim(const std::string& output, EvalClaim& c) {
  nlohmann::json r = nlohmann::json::parse(output, nullptr, false);
  if (!r.is_object()) return;
  // candor's own loop: its status is its claim (the verdict it printed is recomputed by eval).
  auto text = [&](const char* key) { return r.contains(key) && r[key].is_string() ? r[key].get<std::string>() : ""; };
  const std::string status = text("status");
  c.claimed = status == "completed" ? "success" : status.empty() ? "none" : "failure";
  c.detail = status == "completed" ? "" : status;
  c.answer = cut(!text("final_answer").empty() ? text("final_answer") : text("status_detail"));
}

void command_claim(const std::string& output, int exit_code, EvalClaim& c) {
  c.claimed = exit_code == 0 ? "success" : "failure";
  c.detail = exit_code == 0 ? "" : fmt::format("exited {}", exit_code);
  std::istringstream in(output);
  std::string line, last;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  }
  c.answer = cut(last);
}

}  // namespace

Result<EvalAgent> parse_eval_agent(const std::string& text) {
  if (text == "claude-code") return EvalAgent{EvalAgentKind::kClaudeCode, text, "", "claude-code"};
  if (text == "codex") return EvalAgent{EvalAgentKind::kCodex, text, "", "codex-exec"};
  if (text == "candor") return EvalAgent{EvalAgentKind::kCandor, text, "", ""};
  if (text.rfind("command:", 0) == 0 && text.size() > 8)
    return EvalAgent{EvalAgentKind::kCommand, text, text.substr(8), ""};
  return make_error(ErrorCode::kUsage,
                    fmt::format("--agent {}: expected claude-code, codex, candor or command:PROG", text));
}

std::vector<std::string> eval_agent_argv(const EvalAgent& agent, const std::string& goal,
                                         const std::string& candor_path, const std::string& llm) {
  switch (agent.kind) {
    case EvalAgentKind::kClaudeCode:
      return {"claude", "-p", goal, "--output-format", "stream-json", "--verbose", "--permission-mode", "acceptEdits"};
    case EvalAgentKind::kCodex:
      return {"codex", "exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", goal};
    case EvalAgentKind::kCandor: {
      std::vector<std::string> argv = {candor_path, "run", goal, "-C", ".", "--json", "--judge", "never"};
      if (!llm.empty()) {
        argv.push_back("--llm");
        argv.push_back(llm);
      }
      return argv;
    }
    case EvalAgentKind::kCommand:
      return {agent.program, goal};
  }
  return {};
}

EvalClaim claim_of(const EvalAgent& agent, const std::string& output, int exit_code, bool timed_out, int timeout_s) {
  EvalClaim c;
  switch (agent.kind) {
    case EvalAgentKind::kClaudeCode:
      claude_claim(output, c);
      break;
    case EvalAgentKind::kCodex:
      codex_claim(output, c);
      break;
    case EvalAgentKind::kCandor:
      candor_claim(output, c);
      break;
    case EvalAgentKind::kCommand:
      if (!timed_out) command_claim(output, exit_code, c);
      break;
  }
  if (timed_out) {
    // Killed before it ended its turn: whatever it printed last was not its answer.
    c.claimed = "none";
    c.detail = fmt::format("killed at the task's timeout ({} s)", timeout_s);
  } else if (c.claimed == "none" && c.detail.empty()) {
    c.detail = fmt::format("no final answer in its output (exit {})", exit_code);
  }
  return c;
}

}  // namespace candor::app
