// What `run` and `exec` share: the registries, the workspace and its config, the run store and the
// snapshots, the run record, the executor, and the end of the run through end_run. Private to app/.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/observer.h"
#include "app/run_end.h"
#include "app/run_opening.h"
#include "app/session.h"
#include "assertions/evaluator.h"
#include "core/clock.h"
#include "core/trajectory.h"
#include "executor/config.h"
#include "executor/executor.h"
#include "executor/tool.h"
#include "llm/provider.h"
#include "planner/plan.h"
#include "sandbox/process_sandbox.h"
#include "sandbox/workspace.h"
#include "snapshot/store.h"
#include "store/run_store.h"
#include "verify/acceptance.h"
#include "verify/judge_outcome.h"

namespace candor::app {

class WorkspaceRun {
 public:
  // Validates everything that can be wrong before a run is recorded: the workspace, its
  // .candor/config.json, the --expect assertions, the store (which must lie outside the workspace).
  // `observer` (may be null) and `cancel` are borrowed and must outlive the run.
  static Result<std::unique_ptr<WorkspaceRun>> open(const WorkspaceOptions& options, RunObserver* observer,
                                                    const std::atomic<bool>* cancel);

  const planner::Catalog& catalog() const { return catalog_; }
  const executor::ToolRegistry& tools() const { return tools_; }
  const sandbox::Workspace& workspace() const { return *workspace_; }
  const std::vector<nlohmann::json>& expects() const { return expects_; }
  const std::vector<nlohmann::json>& guards() const { return guards_; }
  // The values of the run's credentials, masked wherever text leaves candor; the provider of the
  // run's LLM calls masks its requests with it (llm::ProviderOptions::masker).
  const std::shared_ptr<const SecretMasker>& masker() const { return opening_->masker(); }
  executor::ExecutorOptions& options() { return options_; }
  // Keeps `path` (outside the workspace) unreadable to every shell step and external evaluator.
  void hide_from_steps(const std::string& path) { sandbox_policy_.hidden_paths.push_back(path); }

  // Records the run and snapshots the workspace. On failure, when the run was recorded
  // (recorded()), end_not_started() ends it as an error; else nothing was recorded.
  Status start(const std::string& goal);
  bool recorded() const { return executor_ != nullptr; }
  Result<RunResult> end_not_started(const Error& why);
  executor::Executor& executor() { return *executor_; }
  Trajectory& trajectory() { return opening_->trajectory(); }

  // The run's end (end_run): acceptance when a spec was given, tier 1, the judge (`judge`, may be
  // null) per `policy`, shown the facts' planner_questions as the planner's reading of the goal.
  Result<RunResult> finish(const RunFacts& facts, llm::Provider* judge, verify::JudgePolicy policy);

 private:
  WorkspaceRun() = default;
  // open()'s steps: the config's evaluators, assertions, provenance and the acceptance spec; the
  // sandbox policy and the credentials it keeps from steps (their values, the masker).
  Status read_config(const WorkspaceOptions& args, const executor::WorkspaceConfig& config);
  void read_credentials(const WorkspaceOptions& args, const sandbox::Mechanisms& mechanisms);
  // The credential files steps are kept from: by a walk, or with config snapshot.fsmonitor from
  // those the last run's start found and Watchman's answer (sandbox::make_sandbox_policy_from).
  Status find_credential_files(const executor::WorkspaceConfig& config);
  RunObserver* observer_ = nullptr;
  executor::ToolRegistry tools_ = executor::builtin_tools();
  assertions::Registry evaluators_ = assertions::builtin_evaluators();
  planner::Catalog catalog_;
  std::unique_ptr<sandbox::Workspace> workspace_;
  std::vector<nlohmann::json> expects_;
  std::vector<nlohmann::json> guards_;
  executor::ExecutorOptions options_;
  sandbox::SandboxPolicy sandbox_policy_;
  std::optional<verify::AcceptanceSpec> acceptance_;
  // The snapshot before the run, which the opening's thread takes (declared before opening_: it
  // outlives the thread, which destroying opening_ joins).
  std::optional<executor::ScanBeforeRun> scanned_before_;
  // The run store, the deadline, the snapshots, the masker and the run's record (app/run_opening.h).
  std::unique_ptr<RunOpening> opening_;
  std::unique_ptr<executor::Executor> executor_;
};

}  // namespace candor::app
