#include "app/run_opening.h"

#include <unistd.h>

#include "store/run_store.h"

namespace candor::app {

Result<std::unique_ptr<RunOpening>> RunOpening::open(const std::string& store_dir, RunObserver* observer) {
  std::unique_ptr<RunOpening> o(new RunOpening());
  o->observer_ = observer;
  // The runs go where `store_dir` says (a folder or a URL); the snapshots to this machine's folder.
  TRY(o->store_path_, store::prepare_store_dir(store::store_location(store_dir).dir));
  TRY(o->store_, store::RunStore::open(store_dir));
  return o;
}

void RunOpening::begin_snapshots(const std::string& root, const std::vector<std::string>& ignore,
                                 std::function<void(snapshot::SnapshotStore&)> then) {
  opening_snapshots_ =
      std::async(std::launch::async, [path = store_path_, root, ignore, &clock = clock_, then = std::move(then)] {
        snapshot::init_git_once();
        auto opened = snapshot::SnapshotStore::open(path, root, clock, ignore);
        if (opened.ok() && then) then(**opened);
        return opened;
      });
}

Status RunOpening::snapshots_ready() {
  if (snapshots_) return ok_status();
  TRY(snapshots_, opening_snapshots_.get());
  snapshots_->set_deadline(deadline_);
  return ok_status();
}

Status RunOpening::open_snapshots(const std::string& root, const std::vector<std::string>& ignore) {
  begin_snapshots(root, ignore);
  return snapshots_ready();
}

void RunOpening::mask_known(const snapshot::GitTrees& trees, const RunFacts& known,
                            const std::function<void(sandbox::CredentialRegistry&)>& also) {
  credentials_ = snapshot::run_credentials(trees, known, ::environ, also);
  set_masker(credentials_->masker());
}

void RunOpening::set_masker(std::shared_ptr<const SecretMasker> masker) {
  masker_ = std::move(masker);
  store_->set_masker(masker_);
}

Status RunOpening::create_run(const std::string& goal, const std::string& workspace_root) {
  auto now = clock_.wall();
  created_at_ = format_timestamp(now);
  TRY(run_id_, store_->create_new_run(now, created_at_, goal, workspace_root));
  sink_ = std::make_unique<ObservedSink>(*store_, observer_);
  trajectory_ = std::make_unique<Trajectory>(run_id_, clock_, sink_.get(), masker_);
  return ok_status();
}

void RunOpening::continue_run(const std::string& run_id, std::int64_t after_seq) {
  run_id_ = run_id;
  sink_ = std::make_unique<ObservedSink>(*store_, nullptr);
  trajectory_ = std::make_unique<Trajectory>(run_id_, clock_, sink_.get(), masker_);
  trajectory_->continue_after(after_seq);
}

}  // namespace candor::app
