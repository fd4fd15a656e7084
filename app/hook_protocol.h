// The hook protocols of Claude Code and Codex CLI as candor's gate speaks them (docs/gate.md;
// tests/agents/README.md for what was observed of each): the JSON an agent writes on a hook's
// stdin, read into one value, and the JSON candor answers on stdout. Pure functions: no I/O.
//
// The input is untrusted: an agent's shell can run `candor gate` itself, with any stdin. It is
// bounded (kMaxHookInputBytes, kMaxJsonDepth), a field of the wrong type is ignored and said, and
// what must be there (the event, the session, an absolute cwd) is checked, never assumed.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "import/trajectory_import.h"

namespace candor::app {

enum class GateAgent { kClaudeCode, kCodex };

// "claude-code" | "codex".
std::optional<GateAgent> parse_gate_agent(std::string_view name);
const char* to_string(GateAgent agent);
// The format of the agent's transcript (import/).
import::Format transcript_format(GateAgent agent);

enum class HookEvent { kUserPromptSubmit, kStop, kOther };

// A hook's stdin is refused past this size (and past kMaxJsonDepth): far above a prompt a person
// types, far below what would hurt.
inline constexpr std::size_t kMaxHookInputBytes = std::size_t{4} << 20;
// The prompt kept as a turn's goal; a longer one is cut, and the cut said in the goal.
inline constexpr std::size_t kMaxGoalBytes = std::size_t{64} << 10;
// Ids (session, turn) longer than this, or holding control characters, are refused.
inline constexpr std::size_t kMaxHookIdBytes = 256;

struct HookInput {
  HookEvent event = HookEvent::kOther;
  std::string event_name;  // as the agent named it
  std::string session_id;
  // The agent's own key of the turn: Codex's `turn_id`, Claude Code's `prompt_id`; "" when absent.
  std::string turn_key;
  std::string cwd;                                    // absolute, normalised ("/a/b", no trailing '/')
  std::string transcript_path;                        // "" when absent; where it may lie is the gate's to check
  std::string prompt;                                 // UserPromptSubmit: what the person typed (cut at kMaxGoalBytes)
  bool stop_hook_active = false;                      // Stop: the agent stops again after a block
  std::optional<std::string> last_assistant_message;  // Stop
  // Fields present but of the wrong type (ignored), or cut: one sentence each, for the warning.
  std::vector<std::string> notes;
};

// Reads the agent's hook input. kInvalidInput, saying what is wrong (never the input itself), for
// text over the limits, not a JSON object, without a string `hook_event_name`, a usable
// `session_id` or an absolute `cwd`.
Result<HookInput> parse_hook_input(std::string_view text, GateAgent agent);

// What candor answers: let the stop through (with `message` shown to the person, when the agent
// shows one), or block it with `reason` for the agent to act on.
struct HookAnswer {
  bool block = false;
  std::string reason;   // when blocking: never empty
  std::string message;  // systemMessage; "" = none
};

// The answer as the agent's protocol wants it on stdout, one line of JSON. Both agents take
// `{"decision": "block", "reason": ...}` to block a Stop and `{"systemMessage": ...}` beside it;
// Codex refuses any other field (its schema has `additionalProperties: false`), so none is sent. A
// block is only ever a Stop's: for any other event `block` is ignored (a UserPromptSubmit that
// answered "block" would drop the person's prompt).
std::string render_hook_answer(GateAgent agent, HookEvent event, const HookAnswer& answer);

}  // namespace candor::app
