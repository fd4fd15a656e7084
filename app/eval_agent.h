// The agents `candor eval` runs headless (docs/eval.md): how each is started on a task, and what
// it claimed, read from its own output. The claim is the agent's story, kept beside candor's
// verdict and never part of it. Pure but for agent_command's PATH lookup.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace candor::app {

enum class EvalAgentKind { kClaudeCode, kCodex, kCandor, kCommand };

struct EvalAgent {
  EvalAgentKind kind = EvalAgentKind::kCommand;
  std::string name;     // as --agent named it: claude-code, codex, candor, command:PROG
  std::string program;  // command:PROG's PROG
  // The transcript format `candor verify --trajectory` reads it with (import/formats.h); "" = none.
  std::string transcript_format;
};

// claude-code | codex | candor | command:PROG; kUsage naming the valid ones.
Result<EvalAgent> parse_eval_agent(const std::string& text);

// The agent's argv for one attempt on `goal`. `candor_path` is this candor (for `candor`, whose
// loop runs with `llm`); the agent's own settings (its API key, base URL, home) come from the
// environment eval runs in.
std::vector<std::string> eval_agent_argv(const EvalAgent& agent, const std::string& goal,
                                         const std::string& candor_path, const std::string& llm);

struct EvalClaim {
  std::string claimed = "none";  // success | failure | none (the agent said nothing that ends a turn)
  std::string answer;            // the agent's final answer, cut to a few thousand bytes
  std::optional<std::int64_t> input_tokens, output_tokens;
  std::optional<double> cost_usd;
  std::string detail;  // why failure or none: "killed at the task's timeout (300 s)", "error_max_turns", ...
};

// What the agent said it did: from Claude Code's stream-json `result` line, Codex's `turn.completed`
// / `turn.failed` and last agent message, candor's report JSON, or a program's exit status and last
// line. A transcript that cannot be read says none, never success.
EvalClaim claim_of(const EvalAgent& agent, const std::string& output, int exit_code, bool timed_out, int timeout_s);

}  // namespace candor::app
