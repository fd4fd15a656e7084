// `undo RUN`: the workspace files a recorded run changed, written back from its snapshot.
#include <chrono>

#include <fmt/format.h>

#include "app/inputs.h"
#include "app/recorded_run.h"
#include "app/session.h"
#include "core/arg_schema.h"
#include "core/clock.h"
#include "sandbox/workspace.h"
#include "snapshot/store.h"

namespace candor::app {
namespace {

// A run undo cannot work on: one that never ended (no snapshot after it), or a `git` run, whose
// change is git's to take back.
Status check_undoable(const RecordedRun& l) {
  if (!l.finished) {
    return make_error(ErrorCode::kInvalidInput,
                      fmt::format("run {} never ended, so it has no snapshot after it to undo from", l.facts.run_id));
  }
  // A team store (PostgreSQL) holds runs of many machines; snapshots stay on the one that made them.
  if (const std::string& made_on = l.run.summary.machine; !made_on.empty() && made_on != store::this_machine()) {
    return make_error(
        ErrorCode::kInvalidInput,
        fmt::format("run {} was made on {}, and its snapshots are there, not on {}: run `candor undo {}` "
                    "on {} (the store {} is shared, the snapshots are not)",
                    l.facts.run_id, made_on, store::this_machine(), l.facts.run_id, made_on, l.store->describe()));
  }
  if (l.facts.source != "git" && l.facts.source != "eval") return ok_status();
  if (l.facts.source == "eval") {
    return make_error(ErrorCode::kInvalidInput,
                      fmt::format("run {} verified an eval's attempt in a checkout candor made for it, and changed no "
                                  "files of yours: there is nothing to undo",
                                  l.facts.run_id));
  }
  bool worktree = l.facts.git.is_object() && l.facts.git.value("worktree", false);
  return make_error(
      ErrorCode::kInvalidInput,
      worktree
          ? fmt::format(
                "run {} verified the working tree against {}, it changed no files itself: put them back with git "
                "(git restore, git clean)",
                l.facts.run_id, json_str(l.facts.git, "range"))
          : fmt::format("run {} verified commits ({}), it changed no files itself: undo them with git (git revert)",
                        l.facts.run_id, json_str(l.facts.git, "range")));
}

// Undo writes in the run's workspace: one the caller is not in is refused unless `yes` (an id from
// elsewhere, or `any`), so that a file is never put back or removed in a folder nobody named.
Status check_caller_workspace(const RecordedRun& l, const std::string& here, bool yes) {
  if (yes || store::run_belongs_to(l.facts.workspace, l.facts.source, here)) return ok_status();
  return make_error(ErrorCode::kUsage,
                    fmt::format("run {} was made in {}, not in this workspace ({}): nothing was undone; --yes undoes "
                                "it there",
                                l.facts.run_id, l.facts.workspace, here));
}

// The undo recorded as a late event and in the run's stored report.
Status record_undo(store::RunStore& store, const std::string& run_id, const executor::UndoResult& undone) {
  std::string at = format_timestamp(std::chrono::system_clock::now());
  nlohmann::json failed = nlohmann::json::array();
  for (const auto& f : undone.failed) failed.push_back({{"path", f.path}, {"reason", f.reason}});
  nlohmann::json record = {{"restored", undone.restored}, {"removed", undone.removed}, {"modes", undone.modes},
                           {"skipped", undone.skipped},   {"failed", failed},          {"forced_over", undone.drifted},
                           {"already", undone.already}};
  TRY_STATUS(store.append_late(run_id, "undo", record, at));
  record["at"] = at;
  return store.set_undone(run_id, record);
}

}  // namespace

Result<UndoResult> Session::undo(const UndoRequest& request) {
  TRY(std::string here, caller_workspace(request.workspace));
  TRY(RecordedRun l, load_recorded_run(request.store_dir, {request.run, here, request.any}));
  TRY_STATUS(check_undoable(l));
  TRY_STATUS(check_caller_workspace(l, here, request.yes));
  UndoResult out;
  out.run_id = l.facts.run_id;
  out.workspace = l.facts.workspace;
  if (const auto& was = l.run.report.is_object() ? l.run.report.value("undone", nlohmann::json()) : nlohmann::json();
      was.is_object() && !request.force) {
    out.already_undone = was;
    return out;
  }
  auto workspace = sandbox::Workspace::open(
      l.facts.workspace, {.force_fallback = false, .protected_dirs = {l.store->dir()}, .secrets = {}});
  if (!workspace.ok()) return make_error(ErrorCode::kInvalidInput, workspace.error().message);
  TRY_STATUS(l.opening->open_snapshots((*workspace)->root(), {}));
  TRY(out.undone, executor::undo_run(l.facts, **workspace, l.opening->snapshots(), request.force));
  out.recorded = record_undo(*l.store, l.facts.run_id, out.undone);
  out.exit = out.undone.failed.empty() ? ExitCategory::kSuccess : ExitCategory::kInternal;
  return out;
}

}  // namespace candor::app
