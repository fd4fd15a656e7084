// Which runs `candor gc` removes. A pure function of the recorded runs, the policy and the time,
// so every choice can be tested without a store or a clock.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "store/run_store.h"

namespace candor::store {

// What the user asked to keep. With both set, a run goes only when both let it go (it is older
// than `older_than` and not among the newest `keep`); with neither, nothing goes.
struct RetentionPolicy {
  std::optional<std::size_t> keep;                 // --keep N: the newest N runs stay
  std::optional<std::chrono::seconds> older_than;  // --older-than AGE: runs created before now - AGE go
};

struct RetentionChoice {
  std::vector<RunSummary> remove;     // newest first
  std::vector<RunSummary> kept_live;  // the policy would remove them, but they may still be running
  // The policy would remove them, but they are the gate's open turns or a session's latest turn
  // (set by the caller, which asks the store: RunStore::gate_runs_to_keep).
  std::vector<RunSummary> kept_gate_turns;
  std::size_t kept = 0;  // runs that stay, kept_live included
};

// `newest_first` as RunStore::list returns it. `maybe_live` says whether a run that has not ended
// may still be running (its process may still write to it): such a run is never removed, whatever
// the policy says. It is asked only about runs whose status is "running".
RetentionChoice choose_runs_to_remove(const std::vector<RunSummary>& newest_first, const RetentionPolicy& policy,
                                      std::chrono::system_clock::time_point now,
                                      const std::function<bool(const RunSummary&)>& maybe_live);

}  // namespace candor::store
