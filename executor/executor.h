// Runs plan rounds against a workspace: each step through its tool, the workspace scanned after
// every step that may write, assertions right after their step, every fact recorded as an event.
// Decides nothing about success: that is verify/'s job, from the facts this produces.
#pragma once

#include <atomic>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "assertions/evaluator.h"
#include "core/clock.h"
#include "core/deadline.h"
#include "core/progress.h"
#include "core/run_record.h"
#include "core/trajectory.h"
#include "executor/command_evidence.h"
#include "executor/tool.h"
#include "net/http_client.h"
#include "planner/plan.h"
#include "sandbox/workspace.h"
#include "snapshot/fsmonitor_start.h"
#include "snapshot/store.h"

namespace candor::executor {

// The snapshot before the run: its scan's outcome, and sandbox::processes_started() from before it
// began (a later scan trusts the change events only while no process ran since).
struct ScanBeforeRun {
  Status status = ok_status();
  std::uint64_t processes_before = 0;
  std::optional<snapshot::FsmonitorStart> fsmonitor;  // how it looked, with config snapshot.fsmonitor
};

struct ExecutorOptions {
  BudgetLimits limits;
  std::size_t output_cap = kDefaultOutputCap;
  net::NetworkPolicy network;
  std::size_t observation_cap = 8 * 1024;                   // per step, in RoundOutcome::observations
  ProgressObserver* progress = nullptr;                     // borrowed; may be null
  const std::atomic<bool>* cancel = nullptr;                // borrowed; set by Ctrl-C
  const sandbox::SandboxPolicy* process_sandbox = nullptr;  // borrowed; for shell steps
  nlohmann::json sandbox_protections;  // what the run records as its sandbox (Protections::to_json)
  // Who wrote the plans' step assertions: the user (`candor exec`) or the planner (`candor run`).
  Provenance plan_assertions_by = Provenance::kPlanner;
  std::vector<std::string> snapshot_ignore;  // config snapshot.ignore: fixed with the .gitignore files at begin()
  // Config snapshot.change_events and snapshot.max_watches: the scans after the first look where
  // inotify's events say, unless they cannot prove they are complete.
  bool change_events = true;
  std::size_t max_watches = 0;
  // Config snapshot.fsmonitor ("watchman"): the snapshot before the run looks by its answer since
  // the base the last run saved with the snapshot index (docs/design.md, between processes).
  std::string fsmonitor;
  // The snapshot before the run, taken as the run opened (WorkspaceRun: beside the credential
  // walk, with scan_before_run()); unset: begin() takes it.
  std::optional<ScanBeforeRun> scanned_before;
  // process_sandbox's credential files were found after that snapshot (with snapshot.fsmonitor):
  // when it looked by Watchman's answer, its watches were in place before, and the first refresh
  // before a process looks only where the events since say.
  bool credentials_after_first_scan = false;
  std::string judge_policy;            // recorded in run_started and the facts (RunFacts::judge_policy); "" = not given
  std::vector<std::string> scope;      // --scope and config `scope`: the paths the run may change
  std::vector<std::string> sensitive;  // config `sensitive`: beyond the built-in sensitive paths
};

// Everything the executor uses, borrowed; all must outlive it.
struct ExecutorDeps {
  const sandbox::Workspace& workspace;
  snapshot::SnapshotStore& snapshots;
  const ToolRegistry& tools;
  const assertions::Registry& evaluators;
  Clock& clock;
  // The run's time budget, made where the run opened (borrowed): the steps, the scans, the
  // assertions' programs and the final scan's grace all ask it.
  const Deadline& deadline;
  Trajectory& trajectory;
};

struct RoundOutcome {
  bool all_passed = true;                                 // every step ran and passed its assertions
  bool cancelled = false;                                 // Ctrl-C stopped the round
  BudgetKind budget_hit = BudgetKind::kNone;              // a budget stopped the round early
  std::string failure;                                    // the first failure, as recovery instructions
  nlohmann::json observations = nlohmann::json::array();  // per step: {step, tool, ok, output}
};

// Takes the snapshot before the run of the workspace at `root`: every scan obeys `deadline`; with
// options.change_events the scans after this one look where inotify's events say, and with
// options.fsmonitor this one by Watchman's answer when it can. The store must be unscanned.
ScanBeforeRun scan_before_run(snapshot::SnapshotStore& snapshots, const std::string& root, const Deadline& deadline,
                              const ExecutorOptions& options);

class Executor {
 public:
  Executor(ExecutorDeps deps, ExecutorOptions options);

  // Snapshots the workspace before anything runs and records run_started.
  Status begin(const std::string& run_id, const std::string& goal);

  // Runs one round's steps in order; a failed step or assertion ends the round at once.
  RoundOutcome run_round(const planner::Plan& plan, int round);

  // Goal-level assertions (--expect), then guards (--guard: what must still hold; recorded with
  // `guard`), evaluated against the workspace as it is now. Returns the first failure's text, ""
  // when all passed.
  std::string run_goal_assertions(const std::vector<nlohmann::json>& expects,
                                  const std::vector<nlohmann::json>& guards = {});

  // Fixes the goal kind once (round 1's plan or --kind); `by` says which, for the trajectory.
  void set_goal_kind(GoalKind kind, const std::string& by);
  void set_final_answer(const std::string& text);
  bool budget_left(BudgetKind& which) const;  // false with `which` when a budget is spent
  bool cancelled() const { return options_.cancel != nullptr && options_.cancel->load(); }
  void note(const std::string& line) {
    if (options_.progress != nullptr) options_.progress->note(line);
  }
  ProgressObserver* progress() const { return options_.progress; }  // may be null
  double elapsed_s() const;
  const Deadline& deadline() const { return deps_.deadline; }

  // Re-checks every assertion whose last evaluation failed (tier-1 rule 5: a failure nothing
  // checked again stands only if it still fails), then the final scan (always a full one: a read-only
  // tool can have had a process change the workspace), net mutations with their steps, the commits
  // git_commit made, run_ended. Returns the facts for tier 1.
  RunFacts finish(RunStatus status, BudgetKind exhausted, const std::string& detail);

  RunFacts& facts() { return facts_; }

 private:
  StepRecord run_step(const planner::PlanStep& step, int round, RoundOutcome& outcome);
  // `wrote`: what the step's tool says it wrote, when it knows (ToolResult::wrote).
  // Why the change events cannot be trusted after a process ran under this run's sandbox ("" when
  // they can).
  std::string events_blind_spot() const;
  // The credential files processes are kept from, as the last refresh found them, and how the next
  // refresh finds them again (by the change events, when they can say).
  mutable std::optional<std::vector<std::string>> secret_files_now_;
  sandbox::SecretRefresh secret_refresh() const;
  std::vector<std::string> scan_for_changes(const std::string& step_id,
                                            const std::optional<std::vector<std::string>>& wrote = std::nullopt);
  // Whether `m` is a credential file's change: by its name, or by identity (a path of the start,
  // an inode of the start now at its path, a credential's content before or after).
  // REQUIRES: facts_.snapshot_before and snapshot_after are the trees `m` was diffed between.
  bool credential_change(const Mutation& m) const;
  // Replaces the run's secret values in `text` (the workspace's credentials, when set).
  void mask(std::string& text) const;
  // A scan succeeded; `processes_before` is sandbox::processes_started() from before it began.
  void note_scan(std::uint64_t processes_before);
  // Nothing of the run can have changed the workspace since the latest scan, which succeeded.
  bool workspace_as_scanned() const;
  // What the scans could not read, and what changed under .git/ and .candor/, into the facts.
  void record_scan_coverage();
  // The whole modes of the mutated paths, mode-only changes as mutations, folders created.
  void record_modes();
  assertions::Context assertion_context(const assertions::StepView* step) const;
  // Evaluates `assertion` and records it: `as` says whose it is (step, round, by, guard,
  // final_check); the outcome, discrimination and positivity are filled in.
  AssertionRecord evaluate(const nlohmann::json& assertion, const assertions::StepView* step, AssertionRecord as);
  // The last evaluation of each assertion (by its JSON) that failed, evaluated once more.
  void recheck_stale_failures();
  // The paths the run's commits (git_commit steps) changed between the HEAD before the first and
  // the tree of the last, as mutations marked `committed` where the workspace diff has none.
  void record_commits();
  // The discriminating check: the same assertion on the pre-run snapshot. True when it fails
  // there (so its pass is evidence about the change); false when it passes there too or cannot
  // be checked.
  bool fails_before_run(const nlohmann::json& assertion, const assertions::StepView* step) const;
  // The second half of positive evidence: the same assertion with an empty file at its `path`
  // (the rest of the workspace as it is now). True when it fails there.
  bool fails_on_empty_file(const nlohmann::json& assertion, const std::string& path,
                           const assertions::StepView* step) const;

  // A user's passing command, evaluated again before the change (and with added paths emptied).
  void add_command_evidence(AssertionRecord& ar, const assertions::StepView* step);

  ExecutorDeps deps_;
  ExecutorOptions options_;
  // Made at the first user command that passes (the pre-run snapshot is known by then); keeps the
  // runs before the change, once per distinct command.
  std::unique_ptr<CommandEvidence> command_evidence_;
  RunFacts facts_;
  // How far past the time budget the last scan may read (see finish()).
  static constexpr std::chrono::seconds kFinalScanGrace{5};
  std::string scan_error_;
  bool scanned_ = false;  // the latest scan succeeded
  // sandbox::processes_started() when the latest scan began: a later scan may look at what a file
  // tool wrote alone only while no process has started since.
  std::uint64_t processes_at_scan_ = 0;
  // .git/ and .candor/ as they were when the run began; compared at the end.
  std::optional<snapshot::ProtectedState> protected_before_;
  // Attribution of workspace changes: path -> steps that changed it, and the seq after which its
  // last change was seen.
  std::map<std::string, std::vector<std::string>> changed_by_;
  std::map<std::string, std::int64_t> last_change_seq_;
  // What each step gave its assertions, for the end's re-check of those that failed.
  std::map<std::string, assertions::StepView> step_views_;
  std::vector<std::string> commit_steps_;  // the git_commit steps that made a commit, in order
};

}  // namespace candor::executor
