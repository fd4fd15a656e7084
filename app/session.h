// candor's use cases as library calls: `run` (the planner loop), `exec` (a given plan), `verify` (a
// recorded run, again) and `verify_git` (a change made elsewhere). Each ends through the one
// pipeline of app/run_end.h (tier 1, the judge per policy, acceptance, the verdict, the report,
// stored) and returns what a caller prints and exits with. Nothing here prints or exits: the
// observer (app/observer.h) hears the progress and the warnings; errors are values.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/observer.h"
#include "core/result.h"
#include "core/run_record.h"
#include "executor/undo.h"
#include "llm/provider.h"
#include "verify/judge_outcome.h"
#include "verify/verdict.h"

namespace candor::app {

// The live gate's types (app/gate.h, app/hook_protocol.h).
enum class GateAgent;
struct HookInput;
struct GateOptions;
struct GateBegun;
struct GateEnded;

// The exit codes of docs/design.md, by what they mean; the values are the codes.
enum class ExitCategory {
  kSuccess = 0,
  kPartial = 1,
  kFail = 2,
  kAcceptanceNotPassed = 3,  // success, but the acceptance spec did not pass
  kUsage = 64,
  kInvalidInput = 65,
  kUnavailable = 69,
  kInternal = 70,
  kExists = 73,      // a file the command would create is there already (`init` without --force)
  kRefused = 77,     // --require-sandbox: the sandbox asked for is not available
  kCancelled = 130,  // cancel() (Ctrl-C): the run was still verified, recorded and reported
};

// The category of an error that ended a call before (or instead of) a verdict.
ExitCategory exit_category(const Error& error);
// The verdict's category; kAcceptanceNotPassed instead of kSuccess when `acceptance` (a report's
// acceptance object, or null) did not pass.
ExitCategory exit_category(Verdict verdict, const nlohmann::json& acceptance = nullptr);

// What `run` and `exec` share: where, what is stored, the goal-level checks, the budgets.
struct WorkspaceOptions {
  std::string workspace = ".";
  std::string store_dir;  // "" = store::default_store_dir()
  std::vector<std::string> expects;
  std::vector<std::string> guards;  // --guard: what must still hold (never evidence of the goal)
  bool trust_config = false;        // --trust-config: use a .candor/config.json a recorded run wrote
  std::optional<int> max_replans, max_steps, timeout_s;
  std::optional<std::int64_t> max_tokens;
  bool allow_network = false;         // --allow-network: shell steps may use the network
  bool require_sandbox = false;       // --require-sandbox: refuse to run without every protection
  std::vector<std::string> pass_env;  // --pass-env NAME: credentials a shell step may see
  std::string acceptance_file;        // --acceptance SPEC: checked once after the loop
  std::string kind;                   // --kind modify|inspect: fixed before any plan ("" = the plan says)
  std::vector<std::string> scope;     // --scope GLOB: the paths the run may change (with config `scope`)
};

// The names a request's `judge` may take (verify::JudgePolicy); any other is a usage error before
// the request does any work.
inline std::vector<std::string> judge_policy_names() {
  return {verify::kJudgePolicyNames.begin(), verify::kJudgePolicyNames.end()};
}

struct RunRequest {
  std::string goal;
  std::string llm;  // PROVIDER[:MODEL]; "" = llm::choose_provider's choice
  std::string judge = "auto";
  std::string criterion;       // checked by an independent reviewer; the worker never sees it
  std::string criterion_file;  // the criterion from a file outside the workspace
  int max_goal_attempts = 5;
  WorkspaceOptions workspace;
};

struct ExecRequest {
  std::string plan_file;
  std::string goal;  // "" = "exec <plan file>"
  std::string llm;   // for the judge only; "" = llm::choose_provider's choice, if any
  std::string judge = "auto";
  WorkspaceOptions workspace;
};

// A recorded run verified again: nothing new is stored but a `verified` event.
struct VerifyRequest {
  std::string run = "last";  // an id, a unique prefix or suffix, or "last"
  std::string store_dir;
  std::string judge;  // "" = the policy the run was recorded with (never for older runs)
  std::string llm;
  std::string acceptance_file;
  // Whose run "last" is (docs/design.md, "The CLI"): the latest of `workspace` ("" = the current
  // folder), or with `any` the store's latest, whatever its workspace. Ids name a run anywhere.
  std::string workspace;
  bool any = false;
};

// A change made elsewhere (`verify --git RANGE`), verified and stored as a run (`source: "git"`).
struct VerifyGitRequest {
  std::string range;
  std::string repo = ".";
  std::string goal;
  std::string goal_file;
  std::string kind;  // "" = modify
  std::vector<std::string> expects;
  std::vector<std::string> guards;
  std::vector<std::string> questions;
  std::vector<std::string> scope;
  std::optional<int> timeout_s;  // the time budget (the judge, the commands); default the run's
  std::string criterion;         // checked by the independent reviewer over HEAD's files
  std::string criterion_file;
  std::string store_dir;
  std::string judge;  // "" = auto
  std::string llm;
  // The agent's transcript checked against the acceptance spec, when all three are given.
  std::string acceptance_file;
  std::string trajectory_file;
  std::string format;
  // The live gate's fallback (a Stop with no recorded turn start, app/gate.h): the run is stored as
  // `source: "gate"` with this record as its `gate`; the goal kind is `inspect` when the working
  // tree changes nothing (a question answered), else `modify`; and the judge's LLM is `llm` alone,
  // never one the environment names (the hook's environment is the agent's).
  nlohmann::json gate;
  // `candor eval`'s attempt ({eval_id, task, attempt, agent}): the run is stored as `source: "eval"`.
  nlohmann::json eval;
};

// A recorded run's changes put back from its snapshots.
struct UndoRequest {
  std::string run;  // an id, a unique prefix or suffix, or "last"
  std::string store_dir;
  bool force = false;  // restore even files that changed after the run, and undo an undone run again
  // The caller's workspace ("" = the current folder): "last" is its latest run, unless `any` (the
  // store's latest), as for VerifyRequest. A run made in another workspace is refused (kUsage,
  // naming it) unless `yes`: undo writes in the run's workspace, wherever the caller is.
  std::string workspace;
  bool any = false;
  bool yes = false;
};

struct UndoResult {
  std::string run_id;
  std::string workspace;  // the run's workspace: where the files were (or would have been) written
  // The run was undone before and `force` was not given: its record ({at, restored, removed, ...});
  // nothing was done. Null otherwise.
  nlohmann::json already_undone;
  executor::UndoResult undone;
  Status recorded = ok_status();               // not ok: the undo was done, but not recorded in the store
  ExitCategory exit = ExitCategory::kSuccess;  // kInternal when a path could not be restored
};

// How a run ended. A caller prints `report`, then says what `stored`, `judge`, `provider_failed`,
// `input_refused` and `not_started` tell, in that order, and exits with `exit`.
struct RunResult {
  RunFacts facts;  // as stored (for `verify`: as verified)
  verify::Decision decision;
  nlohmann::json report;         // built once and masked: what was stored
  Status stored = ok_status();   // not ok: the verdict could not be stored (the report still stands)
  verify::JudgeOutcome judge;    // `asked` false when the judge was not asked
  std::string judge_provider;    // the judge's LLM (llm::Provider::describe) when asked
  bool provider_failed = false;  // `run`: the planner's LLM could not be reached (facts.status_detail)
  bool input_refused = false;    // `run`: the planner's reply was over the JSON limits (facts.status_detail)
  // The run was recorded, then could not begin (its workspace could not be snapshotted): it is
  // recorded as an error, and this is why. `report` is that run's.
  std::optional<Error> not_started;
  ExitCategory exit = ExitCategory::kInternal;
};

struct VerifyResult : RunResult {
  bool ended = true;       // false: the run never ended, and was verified from its events
  std::size_t events = 0;  // the events recorded for it
};

// How a Session makes the LLM provider a PROVIDER[:MODEL] spec names (the planner's, the judge's,
// the reviewer's). The default is llm::make_provider; a test passes its own fake.
using ProviderFactory =
    std::function<Result<std::unique_ptr<llm::Provider>>(const std::string& spec, const llm::ProviderOptions& options)>;

// One caller's use of candor. A call opens what it needs (the workspace, the stores, the
// repository), runs, and closes it; calls are not made concurrently on one Session.
class Session {
 public:
  // `observer` is borrowed, may be null, and must outlive every call. `make_provider` empty:
  // llm::make_provider.
  explicit Session(RunObserver* observer = nullptr, ProviderFactory make_provider = {});
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // `candor run`: the planner loop over a workspace, then its end. An Error: nothing was recorded.
  Result<RunResult> run(const RunRequest& request);
  // `candor exec`: one given plan, no planner, no replans, then the run's end.
  Result<RunResult> exec(const ExecRequest& request);
  // `candor verify RUN`: the verdict of a recorded run worked out again (the judge asked per
  // policy, with the run's whole time budget); the stored verdict is kept, a `verified` event added.
  Result<VerifyResult> verify(const VerifyRequest& request);
  // `candor verify --git RANGE`: the change verified by the same rules as a run, stored as one.
  Result<RunResult> verify_git(const VerifyGitRequest& request);
  // `candor undo RUN`: the files the run changed written back from its snapshot.
  Result<UndoResult> undo(const UndoRequest& request);
  // The live gate (app/gate.h): a turn of another agent begun (its UserPromptSubmit hook: the
  // workspace snapshotted, the prompt its goal, the config fixed), and one of its stops checked
  // (its Stop hook: the turn so far verified as a run, stored, and the gate's answer decided). A
  // Stop with no recorded start verifies the working tree against HEAD. Errors: candor could not
  // work (the caller fails open).
  Result<GateBegun> gate_begin(GateAgent agent, const HookInput& input, const GateOptions& options);
  Result<GateEnded> gate_end(GateAgent agent, const HookInput& input, const GateOptions& options);

  // Winds the run in progress down: its step is stopped, no other starts, and it is still
  // verified, recorded and reported (exit kCancelled). Stays set: a later call's run is wound
  // down as soon as it starts. Thread-safe and async-signal-safe (a SIGINT handler may call it).
  void cancel() { cancelled_.store(true); }
  bool cancelled() const { return cancelled_.load(); }

 private:
  RunObserver* observer_;
  ProviderFactory make_provider_;
  std::atomic<bool> cancelled_{false};
  static_assert(std::atomic<bool>::is_always_lock_free, "cancel() must be async-signal-safe");
};

}  // namespace candor::app
