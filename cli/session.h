// What `candor exec` and `candor run` share: the registries, the workspace and its config, the
// store and the snapshots, the run record, the executor, and the end of the run (tier 1, the
// report, the exit code).
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "assertions/evaluator.h"
#include "core/clock.h"
#include "core/json_text.h"
#include "core/trajectory.h"
#include "executor/config.h"
#include "executor/executor.h"
#include "executor/tool.h"
#include "llm/provider.h"
#include "planner/plan.h"
#include "sandbox/workspace.h"
#include "snapshot/store.h"
#include "store/run_store.h"
#include "verify/acceptance.h"
#include "verify/judge.h"

namespace candor::cli {

struct SessionArgs {
  std::string workspace = ".";
  std::string store_dir;  // "" = default
  std::vector<std::string> expects;
  std::vector<std::string> guards;  // --guard: what must still hold (never evidence of the goal)
  bool trust_config = false;        // --trust-config: use a .candor/config.json a recorded run wrote
  std::optional<int> max_replans, max_steps, timeout_s;
  std::optional<std::int64_t> max_tokens;
  bool quiet = false;                    // -q: no progress on stderr
  ProgressObserver* progress = nullptr;  // borrowed; null = none
  const std::atomic<bool>* cancel = nullptr;
  bool allow_network = false;    // --allow-network: shell steps may use the network
  bool require_sandbox = false;  // --require-sandbox: refuse to run without every protection
  std::vector<std::string> pass_env;  // --pass-env NAME: credentials a shell step may see
  std::string acceptance_file;        // --acceptance SPEC: checked once after the loop
  std::string kind;                   // --kind modify|inspect: fixed before any plan ("" = the plan says)
  std::vector<std::string> scope;     // --scope GLOB: the paths the run may change (with config `scope`)
};

class Session {
 public:
  // Validates everything that can be wrong before a run is recorded: the workspace, its
  // .candor/config.json, the --expect assertions, the store (which must lie outside the workspace).
  static Result<std::unique_ptr<Session>> open(const SessionArgs& args);

  const planner::Catalog& catalog() const { return catalog_; }
  const executor::ToolRegistry& tools() const { return tools_; }
  const sandbox::Workspace& workspace() const { return *workspace_; }
  const std::vector<nlohmann::json>& expects() const { return expects_; }
  const std::vector<nlohmann::json>& guards() const { return guards_; }
  // The values of the run's credentials, masked wherever text leaves candor; the provider of the
  // run's LLM calls masks its requests with it (llm::ProviderOptions::masker).
  const std::shared_ptr<const SecretMasker>& masker() const { return masker_; }
  executor::ExecutorOptions& options() { return options_; }
  // Keeps `path` (outside the workspace) unreadable to every shell step and external evaluator.
  void hide_from_steps(const std::string& path) { sandbox_policy_.hidden_paths.push_back(path); }

  // Records the run and snapshots the workspace. On failure the run is recorded as an error.
  Status start(const std::string& goal);
  executor::Executor& executor() { return *executor_; }
  Trajectory& trajectory() { return *trajectory_; }

  // Tier 1, tier 2 when the policy says so (with `judge`, which may be null), the reviews, the
  // verdict, the report (stored and printed). Returns the exit code of the verdict.
  // Acceptance, when a spec was given: evaluated once over the recorded events, however the loop
  // ended; recorded as an event and in `facts`. Best-effort: a failure is recorded, never thrown,
  // and never touches status or verdict.
  void check_acceptance(RunFacts& facts);

  // The judge's questions come from the goal alone (verify/judge_run.h); `planner_questions` are
  // shown to it as the planner's reading. A judge whose provider failed: exit 69, the verdict stored.
  int finish(const RunFacts& facts, bool json, llm::Provider* judge = nullptr,
             verify::JudgePolicy policy = verify::JudgePolicy::kAuto, const std::vector<std::string>& planner_questions = {});

 private:
  Session() = default;
  executor::ToolRegistry tools_ = executor::builtin_tools();
  assertions::Registry evaluators_ = assertions::builtin_evaluators();
  planner::Catalog catalog_;
  std::unique_ptr<sandbox::Workspace> workspace_;
  std::vector<nlohmann::json> expects_;
  std::vector<nlohmann::json> guards_;
  executor::ExecutorOptions options_;
  sandbox::SandboxPolicy sandbox_policy_;
  std::shared_ptr<const SecretMasker> masker_;
  std::optional<verify::AcceptanceSpec> acceptance_;
  std::unique_ptr<store::RunStore> store_;
  std::unique_ptr<snapshot::SnapshotStore> snapshots_;
  SystemClock clock_;
  std::string created_at_;
  std::unique_ptr<Trajectory> trajectory_;
  std::unique_ptr<executor::Executor> executor_;
};

// Each --scope GLOB in candor's one dialect (core/glob.h); kInvalidInput naming the first invalid
// one and what is wrong with it (exit 65): a glob is never dropped.
Status check_scope_option(const std::vector<std::string>& scope);

// The file's text; kInvalidInput naming the path when it cannot be read or is over `max_bytes`
// (the JSON limits, core/json_text.h: a file of any size is never read whole to be refused).
Result<std::string> read_text_file(const std::string& path, std::size_t max_bytes = kMaxDocumentBytes);

// The goal-level assertions of a run: the config's `expect` (from `config_where`), then each
// --expect text, all validated against `catalog`; errors name the one that is wrong. `key` says
// which list: "expect" (config `expect`, --expect) or "guard" (config `guard`, --guard).
Result<std::vector<nlohmann::json>> parse_expects(const std::vector<std::string>& texts, const std::vector<nlohmann::json>& from_config,
                                                  const planner::Catalog& catalog, const std::string& config_where,
                                                  const std::string& key = "expect");

// Whether `path` is `dir` or lies beneath it, symlinks resolved (for the parts that exist).
bool path_within(const std::string& path, const std::string& dir);

}  // namespace candor::cli
