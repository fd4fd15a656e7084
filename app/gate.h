// The live gate (`candor gate claude-code|codex`, docs/design.md "Gating other agents live"): the
// command Claude Code and Codex CLI run at each user turn's start (UserPromptSubmit) and at each
// attempt to stop (Stop). A turn is one run (`source: "gate"`): its start snapshots the workspace
// and fixes the config; each Stop verifies the turn so far through the one pipeline every run ends
// by (app/run_end.h) and answers: let the agent stop, or send it back with the findings.
//
// The hook must never wedge the person's session: answer_hook always answers, and when candor
// itself cannot work (the store unwritable, the workspace unreadable, input it cannot read) it lets
// the agent go on and says so (fail open, never a silent pass).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/gate_decision.h"
#include "app/hook_protocol.h"
#include "app/session.h"

namespace candor::app {

struct GateOptions {
  std::string store_dir;  // "" = store::default_store_dir()
  // The judge's LLM, PROVIDER[:MODEL], given on the hook's command line (`--llm`, written there by
  // `candor gate install --llm`); "" = no judge. Never the environment's: the hook inherits the
  // agent's own keys and endpoints (ANTHROPIC_API_KEY, OPENAI_API_KEY), which are not candor's.
  std::string llm;
  std::string judge;  // auto | always | never; "" = the config's gate.judge, else auto
  // Reads an environment variable ("" when unset); empty: the process's own. Where the agent keeps
  // its transcripts (CLAUDE_CONFIG_DIR, CODEX_HOME, HOME) comes from here.
  std::function<std::string(const char*)> env;
};

// What a turn's start did.
struct GateBegun {
  std::string run_id;
  std::int64_t turn = 0;
  bool already = false;  // the turn had begun before: its first start stands, nothing was done
  std::vector<std::string> warnings;
};

// What a Stop got.
struct GateEnded {
  RunResult run;  // the turn's run as verified now (stored)
  GateDecision decision;
  std::int64_t blocks_before = 0;
  // No turn start was recorded: the working tree was verified against HEAD (`verify --git HEAD..`).
  bool fallback = false;
  std::vector<std::string> warnings;
};

// The answer to one hook call, and what it did.
struct HookReply {
  std::string stdout_text;  // the JSON line for the agent (render_hook_answer)
  HookEvent event = HookEvent::kOther;
  bool blocked = false;
  std::string run_id;                 // the turn's run, when there is one
  std::vector<std::string> warnings;  // shown in the answer's systemMessage too
};

// Reads the agent's hook input (its stdin), begins or ends the turn it names, and returns the
// answer for stdout. Never fails and never throws: what goes wrong is a warning in an answer that
// lets the agent go on. Exits are the caller's (always 0: exit 2 would block in both protocols).
HookReply answer_hook(Session& session, GateAgent agent, std::string_view input, const GateOptions& options);

// Where `agent` keeps its transcripts: the only folders a hook's `transcript_path` is read from
// (a path elsewhere is not read, and its content never shown). Claude Code:
// $CLAUDE_CONFIG_DIR/projects and ~/.claude/projects; Codex: $CODEX_HOME/sessions and
// ~/.codex/sessions.
std::vector<std::string> transcript_roots(GateAgent agent, const std::function<std::string(const char*)>& env);

}  // namespace candor::app
