#include "executor/undo.h"

#include <fmt/format.h>

namespace candor::executor {
namespace {

// The file as it is now, in the snapshot's terms; nullopt when absent.
Result<std::optional<verify::SnapshotStore::TreeFile>> current(const sandbox::Workspace& ws, const std::string& path) {
  auto info = ws.stat(path);
  if (!info.ok()) {
    if (info.error().code == ErrorCode::kNotFound) return std::optional<verify::SnapshotStore::TreeFile>();
    return info.error();
  }
  if (info->kind != sandbox::EntryKind::kFile) return make_error(ErrorCode::kRefused, path + ": is not a regular file now");
  // A credential file is compared too (undo restores it); its bytes are never shown.
  TRY(sandbox::FileContent content, ws.read_file_flagged(path, static_cast<std::size_t>(info->size) + 1));
  return std::optional<verify::SnapshotStore::TreeFile>({std::move(content.bytes), (info->mode & 0100) ? 0100755u : 0100644u});
}

bool same(const std::optional<verify::SnapshotStore::TreeFile>& a, const std::optional<verify::SnapshotStore::TreeFile>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || (a->content == b->content && a->mode == b->mode);
}

}  // namespace

Result<UndoResult> undo_run(const RunFacts& facts, const sandbox::Workspace& workspace, const verify::SnapshotStore& snapshots,
                            bool force) {
  if (facts.snapshot_before.empty() || facts.snapshot_after.empty()) {
    return make_error(ErrorCode::kInvalidInput, fmt::format("run {} has no complete snapshots to undo from", facts.run_id));
  }
  UndoResult result;
  for (const auto& m : facts.mutations) {
    TRY(auto after, snapshots.read_file(facts.snapshot_after, m.path));
    TRY(auto now, current(workspace, m.path));
    if (!same(after, now)) result.drifted.push_back(m.path);
  }
  if (!result.drifted.empty() && !force) {
    std::string list;
    for (const auto& p : result.drifted) list += "\n  " + p;
    return make_error(ErrorCode::kInvalidInput,
                      fmt::format("these files changed after run {} ended; undo would lose those changes (use --force):{}",
                                  facts.run_id, list));
  }
  for (const auto& m : facts.mutations) {
    TRY(auto before, snapshots.read_file(facts.snapshot_before, m.path));
    if (!before) {
      Status s = workspace.delete_file(m.path);
      if (!s.ok() && s.error().code != ErrorCode::kNotFound) return s.error();
      result.removed.push_back(m.path);
    } else if (before->mode == 0120000) {
      result.skipped.push_back(m.path);
    } else {
      TRY_STATUS(workspace.write_file(m.path, before->content, before->mode == 0100755 ? 0755u : 0644u));
      result.restored.push_back(m.path);
    }
  }
  return result;
}

}  // namespace candor::executor
