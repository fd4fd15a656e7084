// How every run opens, in one place: the run store (its folder prepared), the run's one Deadline,
// the snapshot store, the secret masker, and the run's record (its id, the sink that stores its
// events and tells the observer, its trajectory). `run` and `exec` (WorkspaceRun), the gate's start
// (Session::gate_begin) and stop (end_gate_turn), `verify --git` and `verify RUN` each take these
// steps in the order they need; none of them opens a store, a snapshot store or a trajectory
// itself, so the next use case (eval) has one thing to call. Private to app/.
#pragma once

#include <functional>
#include <future>
#include <memory>
#include <string>

#include "app/observer.h"
#include "app/run_end.h"
#include "core/clock.h"
#include "core/deadline.h"
#include "core/result.h"
#include "core/run_record.h"
#include "core/secret_masker.h"
#include "core/trajectory.h"
#include "sandbox/credential_registry.h"
#include "snapshot/store.h"
#include "store/run_store.h"

namespace candor::app {

class RunOpening {
 public:
  // The run store in `store_dir` ("" = store::default_store_dir()), its folder prepared (owned by
  // this user, not writable by others). `observer` is borrowed and may be null.
  static Result<std::unique_ptr<RunOpening>> open(const std::string& store_dir, RunObserver* observer);
  RunOpening(const RunOpening&) = delete;
  RunOpening& operator=(const RunOpening&) = delete;

  // The run's time budget starts now: `timeout_s` (BudgetLimits.timeout_s, or a start's own).
  void start_deadline(int timeout_s) { deadline_ = Deadline::in_seconds(clock_, timeout_s); }

  // The snapshot store of `root` in the run store's folder. begin_snapshots() starts opening it (its
  // index: a stat per file of a large workspace, read back) beside whatever the caller does next;
  // snapshots_ready() joins (so does destroying the opening; a second call has nothing to join).
  // open_snapshots() is both at once.
  // `then`, when given, runs on the opening's thread once the store is open (the snapshot before a
  // run, beside what the caller does meanwhile); snapshots_ready() joins it too.
  void begin_snapshots(const std::string& root, const std::vector<std::string>& ignore,
                       std::function<void(snapshot::SnapshotStore&)> then = nullptr);
  Status snapshots_ready();
  Status open_snapshots(const std::string& root, const std::vector<std::string>& ignore);

  // The values to mask from here on: those of the credential files `known` names in its trees, and
  // the scrubbed variables of this process (snapshot::run_credentials). The masker is the store's,
  // the trajectory's, the LLM providers' and the judge's (docs/design.md, Trust boundary).
  void mask_known(const snapshot::GitTrees& trees, const RunFacts& known,
                  const std::function<void(sandbox::CredentialRegistry&)>& also = nullptr);
  // A masker made elsewhere (WorkspaceRun reads the workspace's credential files as it opens).
  void set_masker(std::shared_ptr<const SecretMasker> masker);

  // A new run recorded in the store, and its trajectory (nothing recorded in it yet).
  Status create_run(const std::string& goal, const std::string& workspace_root);
  // A run recorded earlier (the gate's turn, from its start): its trajectory goes on after `seq`.
  // The observer is not told its events (the stop answers the agent, not a person).
  void continue_run(const std::string& run_id, std::int64_t after_seq);

  store::RunStore& store() { return *store_; }
  const std::string& store_path() const { return store_path_; }
  Clock& clock() { return clock_; }
  const Deadline& deadline() const { return deadline_; }
  snapshot::SnapshotStore& snapshots() { return *snapshots_; }
  bool has_snapshots() const { return snapshots_ != nullptr; }
  const std::shared_ptr<const SecretMasker>& masker() const { return masker_; }
  // The credential registry mask_known() made; null before it.
  const std::shared_ptr<const sandbox::CredentialRegistry>& credentials() const { return credentials_; }
  Trajectory& trajectory() { return *trajectory_; }
  const std::string& run_id() const { return run_id_; }
  const std::string& created_at() const { return created_at_; }

 private:
  RunOpening() = default;
  RunObserver* observer_ = nullptr;
  SystemClock clock_;
  Deadline deadline_;
  std::unique_ptr<store::RunStore> store_;
  std::string store_path_;
  std::future<Result<std::unique_ptr<snapshot::SnapshotStore>>> opening_snapshots_;
  std::unique_ptr<snapshot::SnapshotStore> snapshots_;
  std::shared_ptr<const SecretMasker> masker_;
  std::shared_ptr<const sandbox::CredentialRegistry> credentials_;
  std::unique_ptr<ObservedSink> sink_;
  std::unique_ptr<Trajectory> trajectory_;
  std::string run_id_;
  std::string created_at_;
};

}  // namespace candor::app
