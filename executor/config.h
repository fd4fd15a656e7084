// .candor/config.json: read once when a run starts, so no step can change how it is checked.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "assertions/external.h"
#include "core/result.h"
#include "core/run_record.h"
#include "net/http_client.h"
#include "sandbox/process_sandbox.h"

namespace candor::executor {

// What `candor gate` (the live gate over another agent's turns) can block a stop for: the kinds
// of finding config `gate.block_on` names (all by default).
const std::vector<std::string>& gate_finding_kinds();

// "gate": how `candor gate` treats a turn (app/gate.h). Read, like the rest, from the config as it
// was when the turn began.
struct GateConfig {
  int max_blocks = 3;  // blocks of one turn's stops, then the stop is let through with a warning
  // The start answers within this (below every agent's hook timeout): what its scan could not read
  // by then is recorded, and the stop treats it as an incomplete scan.
  int start_timeout_s = 10;
  std::vector<std::string> block_on = gate_finding_kinds();
  std::string judge;  // auto | always | never; "" = auto (asked only with --llm on the hook)
  // An acceptance spec for the turn's transcript: a spec (with "checkpoints"), or one per agent
  // ({"claude-code": SPEC, "codex": SPEC}); validated against the agent's tools when a turn uses it.
  nlohmann::json acceptance;
};

struct WorkspaceConfig {
  net::NetworkPolicy network;
  // Budget values the config sets; the command line overrides them.
  std::optional<int> max_replans, max_steps, timeout_s;
  std::optional<std::int64_t> max_tokens;
  std::optional<std::size_t> output_cap_bytes;
  std::vector<nlohmann::json> expect;  // goal-level assertions, validated by the caller's catalog
  // "guard": what must still hold (the tests still pass): checked as the goal's assertions are, but
  // never evidence of the goal (docs/design.md, Trust boundary: Guards are not goals).
  std::vector<nlohmann::json> guard;
  // The file's bytes as read (load_config), when there was one: who wrote them is asked of the
  // store (a config a recorded run's step planted is the agent's, not the user's).
  std::optional<std::string> file_text;
  // "sandbox": allow_network, pass_env, read_paths, limits; the paths it protects are filled in
  // by make_sandbox_policy() once the workspace is open.
  sandbox::SandboxPolicy sandbox;
  std::vector<std::string> secrets_allow;  // "secrets": {"allow": [globs]}
  // "evaluators": {"TYPE": {"command": [...], "timeout_s"?, "description"?, "args"?}}
  std::vector<assertions::ExternalEvaluatorSpec> evaluators;
  // "snapshot": {"ignore": [patterns]}: gitignore patterns, relative to the workspace root, that
  // snapshots leave out on top of the .gitignore files the run starts with.
  std::vector<std::string> snapshot_ignore;
  // Change events (docs/design.md, "Change detection in O(changes)"): snapshot.change_events false
  // walks the whole workspace at every scan; snapshot.max_watches caps the inotify watches (0: the
  // kernel's limit), past which every scan walks, saying so.
  bool change_events = true;
  std::size_t max_watches = 0;
  // Between processes (a run's start, the gate's start and stop, `verify --git BASE..` by BASE's
  // config): snapshot.fsmonitor "watchman" asks the user's Watchman what changed since the last
  // start or read instead of walking; "" walks.
  std::string fsmonitor;
  // "scope": the paths a change may touch; "sensitive": paths suspicious when changed, beyond the
  // built-in ones (verify/scope.h).
  std::vector<std::string> scope;
  std::vector<std::string> sensitive;
  GateConfig gate;
};

// Parses the config object; messages name the JSON path ("budget.max_steps: ...").
Result<WorkspaceConfig> parse_config(const nlohmann::json& j);

// Parses config text; `where` names its origin in errors (a file, "BASE:.candor/config.json").
Result<WorkspaceConfig> parse_config_text(const std::string& text, const std::string& where);
// Reads `workspace_root`/.candor/config.json. A missing file is an empty config; a malformed one
// is kInvalidInput naming the file.
Result<WorkspaceConfig> load_config(const std::string& workspace_root);

// Applies the config's budget values to `limits` (only those it sets).
void apply_config_budget(const WorkspaceConfig& config, BudgetLimits& limits);

}  // namespace candor::executor
