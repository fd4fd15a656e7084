// What a caller asks of a Session: a run the planner drives, a given plan, a recorded run verified
// again, a change made elsewhere, a run undone. Each field says what the `candor` command's flag of
// the same name does (docs/design.md, The CLI). An enumeration out of range is a usage Error
// before any work.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <candor/types.h>

namespace candor::api {

// What `run` and `exec` share: where, what is stored, the goal-level checks, the budgets.
struct WorkspaceOptions {
  std::string workspace = ".";
  std::string store_dir;             // "" = $CANDOR_HOME, else the user's state folder
  std::vector<std::string> expects;  // assertions (JSON objects as text) the goal must meet
  std::vector<std::string> guards;   // what must still hold (never evidence of the goal)
  bool trust_config = false;         // use a .candor/config.json a recorded run wrote
  std::optional<int> max_replans, max_steps, timeout_s;
  std::optional<std::int64_t> max_tokens;
  bool allow_network = false;         // shell steps may use the network
  bool require_sandbox = false;       // refuse to run without every protection
  std::vector<std::string> pass_env;  // credentials a shell step may see, by variable name
  std::string acceptance_file;        // an acceptance spec, checked once after the loop
  std::optional<GoalKind> kind;       // fixed before any plan; empty: the first plan says
  std::vector<std::string> scope;     // globs of the paths the run may change
};

struct RunRequest {
  std::string goal;
  std::string llm;  // PROVIDER[:MODEL]; "" = the environment's provider
  JudgePolicy judge = JudgePolicy::kAuto;
  std::string criterion;       // checked by an independent reviewer; the worker never sees it
  std::string criterion_file;  // the criterion from a file outside the workspace
  int max_goal_attempts = 5;
  WorkspaceOptions workspace;
};

struct ExecRequest {
  std::string plan_file;
  std::string goal;  // "" = "exec <plan file>"
  std::string llm;   // for the judge only
  JudgePolicy judge = JudgePolicy::kAuto;
  WorkspaceOptions workspace;
};

// A recorded run verified again: nothing new is stored but a `verified` event.
struct VerifyRequest {
  std::string run = "last";  // an id, a unique prefix or suffix, or "last"
  std::string store_dir;
  std::optional<JudgePolicy> judge;  // empty: the policy the run was recorded with
  std::string llm;
  std::string acceptance_file;
  // Whose run "last" is: the latest of `workspace` ("" = the current folder), or with `any` the
  // store's latest, whatever its workspace. Ids name a run anywhere.
  std::string workspace;
  bool any = false;
};

// A change made elsewhere (`verify --git RANGE`), verified and stored as a run.
struct VerifyGitRequest {
  std::string range;
  std::string repo = ".";
  std::string goal;
  std::string goal_file;
  std::optional<GoalKind> kind;  // empty: modify
  std::vector<std::string> expects;
  std::vector<std::string> guards;
  std::vector<std::string> questions;  // the judge's questions; empty: the goal decomposed
  std::vector<std::string> scope;
  std::optional<int> timeout_s;
  std::string criterion;  // checked by the independent reviewer over HEAD's files
  std::string criterion_file;
  std::string store_dir;
  std::optional<JudgePolicy> judge;  // empty: auto
  std::string llm;
  // The agent's transcript checked against the acceptance spec, when all three are given.
  std::string acceptance_file;
  std::string trajectory_file;
  std::string format;
};

// A recorded run's changes put back from its snapshots.
struct UndoRequest {
  std::string run;  // an id, a unique prefix or suffix, or "last"
  std::string store_dir;
  bool force = false;  // restore even files that changed after the run, and undo an undone run again
  // The caller's workspace ("" = the current folder): "last" is its latest run, unless `any`. A run
  // made in another workspace is refused (a usage Error naming it) unless `yes`.
  std::string workspace;
  bool any = false;
  bool yes = false;
};

}  // namespace candor::api
