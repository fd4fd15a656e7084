// The one pipeline that ends every run, whichever use case ran it: acceptance (when a spec is
// given) → tier 1 → the judge per policy → its llm_call/judge events recorded → decide → the
// report → masked → stored. Printing is the caller's. Private to app/.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/observer.h"
#include "app/session.h"
#include "core/credentials.h"
#include "core/deadline.h"
#include "core/trajectory.h"
#include "llm/provider.h"
#include "sandbox/credential_registry.h"
#include "snapshot/trees.h"
#include "store/run_store.h"
#include "verify/acceptance.h"
#include "verify/judge_outcome.h"

namespace candor::app {

// The judge of one run, opened only when tier 1 and the policy ask for it. Pointers borrow.
struct JudgeSetup {
  llm::Provider* provider = nullptr;        // null: there is no judge to ask
  std::optional<snapshot::GitTrees> trees;  // none: the run's trees cannot be read (the judge is shown nothing)
  std::vector<std::string> questions;       // verify::JudgeRunInputs
  const CredentialLookup* credentials = nullptr;
};

struct RunEnd {
  RunFacts facts;
  std::string created_at;
  // A run that just ended (`run`, `exec`, `verify --git`): what the end finds is recorded in
  // `trajectory`, the judge has the time the run left (`deadline`), and the verdict is
  // stored in `store`. Null both: a recorded run verified again (`verify RUN`): nothing is recorded
  // or stored, and the judge has the run's whole time budget again (a new process, after the run).
  Trajectory* trajectory = nullptr;
  store::RunStore* store = nullptr;
  // false: the verdict stored is not synced yet, for a caller that stores the run again at once
  // and syncs then, before anything is reported (the gate: the run with its answer).
  bool sync_verdict = true;
  // Checked over `events` when given (`run`, `exec`, `verify RUN --acceptance`); `verify --git`
  // checks the agent's transcript before its review, and sets facts.acceptance itself.
  const verify::AcceptanceSpec* acceptance = nullptr;
  const std::vector<Event>* events = nullptr;
  verify::JudgePolicy policy = verify::JudgePolicy::kNever;
  // Called only when the policy asks the judge for this tier 1; an Error ends the call. Empty: no judge.
  std::function<Result<JudgeSetup>()> judge;
  // The run's trees (its snapshots, the repository's commits), when it just ended: its change is
  // read there for test-aware lines (evidence/test_aware.h) before tier 1. Null: a recorded run
  // keeps the flags it was recorded with. Borrowed.
  const TreeReader* trees = nullptr;
  // Called after the judge, before the verdict (`verify --git` records base_moved and run_ended).
  std::function<void(RunFacts&)> before_verdict;
  // What the judge may take (borrowed; null: no bound): the run's own deadline when it just ended
  // (the time budget bounds the judge too); for `verify RUN`, a new process after the run, the
  // run's whole budget again, from when the judge is ready (it is read when the judge is asked).
  const Deadline* deadline = nullptr;
};

// REQUIRES: `trajectory` and `store` are both set or both null. `observer` may be null.
// `exit` is the verdict's category, or kUnavailable when the judge's provider failed.
Result<RunResult> end_run(RunEnd end, RunObserver* observer);

// An EventSink that hands each event to the store, then to the observer.
class ObservedSink final : public EventSink {
 public:
  // Both borrowed; `observer` may be null.
  ObservedSink(EventSink& store, RunObserver* observer) : store_(store), observer_(observer) {}
  Status append(const std::string& run_id, const Event& event) override;

 private:
  EventSink& store_;
  RunObserver* observer_;
};

}  // namespace candor::app
