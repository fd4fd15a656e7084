#include "executor/undo.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "sandbox/secret_files.h"

namespace candor::executor {
namespace {

using TreeFile = snapshot::SnapshotStore::TreeFile;

// What is at `path` now: content and git mode of a file, plus its whole mode; nullopt when absent.
struct Now {
  TreeFile file;
  unsigned mode = 0;  // st_mode's permission bits (with setuid/setgid/sticky)
};

bool is_folder(const Mutation& m) { return !m.path.empty() && m.path.back() == '/'; }

// A FIFO, socket or device: no snapshot holds its content, only the mutation its mode.
bool is_special(std::uint32_t mode) {
  constexpr std::uint32_t kType = 0170000;
  std::uint32_t type = mode & kType;
  return mode != 0 && type != 0100000 && type != 0120000 && type != 0040000;
}

Result<std::optional<Now>> current(const sandbox::Workspace& ws, const std::string& path) {
  auto info = ws.stat(path);
  if (!info.ok()) {
    if (info.error().code == ErrorCode::kNotFound) return std::optional<Now>();
    return info.error();
  }
  if (info->kind != sandbox::EntryKind::kFile)
    return make_error(ErrorCode::kRefused, path + ": is not a regular file now");
  // A credential file is compared too (undo restores it); its bytes are never shown.
  TRY(sandbox::FileContent content, ws.read_file_flagged(path, static_cast<std::size_t>(info->size) + 1));
  return std::optional<Now>(
      Now{{std::move(content.bytes), (info->mode & 0100) ? 0100755u : 0100644u}, info->mode & 07777});
}

// Whether the path is as the run left it: the content and git mode the after-snapshot holds, and
// the whole mode the run recorded (when it did).
bool as_left(const std::optional<TreeFile>& after, const std::optional<Now>& now, const Mutation& m) {
  if (after.has_value() != now.has_value()) return false;
  if (!after) return true;
  if (after->content != now->file.content || after->mode != now->file.mode) return false;
  return m.mode_after == 0 || (m.mode_after & 07777) == now->mode;
}

// Whether the path is as it was before the run: the content and git mode of the before-snapshot,
// and the whole mode the run recorded (when it did). Absent then and now counts.
bool as_before(const std::optional<TreeFile>& before, const std::optional<Now>& now, const Mutation& m) {
  if (before.has_value() != now.has_value()) return false;
  if (!before) return true;
  if (before->mode == 0120000) return false;  // a symlink then: never restored, never "already"
  if (before->content != now->file.content || before->mode != now->file.mode) return false;
  return m.mode_before == 0 || (m.mode_before & 07777) == now->mode;
}

// The permission bits to restore `m` with. A run recorded before whole modes were kept says only
// git's 644/755: a credential file then gets 600, never more readable than it may have been.
unsigned restore_mode(const Mutation& m, const TreeFile& before) {
  if (m.mode_before != 0) return m.mode_before & 07777;
  if (sandbox::looks_secret(m.path)) return 0600;
  return before.mode == 0100755 ? 0755u : 0644u;
}

}  // namespace

Result<UndoResult> undo_run(const RunFacts& facts, const sandbox::Workspace& workspace,
                            const snapshot::SnapshotStore& snapshots, bool force) {
  if (facts.snapshot_before.empty() || facts.snapshot_after.empty()) {
    return make_error(ErrorCode::kInvalidInput,
                      fmt::format("run {} has no complete snapshots to undo from", facts.run_id));
  }
  UndoResult result;
  for (const auto& m : facts.mutations) {
    if (is_folder(m)) {
      auto info = workspace.stat(m.path == "./" ? "." : m.path.substr(0, m.path.size() - 1));
      if (!info.ok() || info->kind != sandbox::EntryKind::kDirectory || (m.mode_after & 07777) != info->mode)
        result.drifted.push_back(m.path);
      continue;
    }
    if (is_special(m.mode_after)) {
      auto info = workspace.stat(m.path);
      if (!info.ok() || info->kind != sandbox::EntryKind::kOther || (m.mode_after & 07777) != info->mode)
        result.drifted.push_back(m.path);
      continue;
    }
    TRY(auto after, snapshots.read_file(facts.snapshot_after, m.path));
    auto now = current(workspace, m.path);
    if (now.ok() && as_left(after, *now, m)) continue;
    // Put back by hand (a `git checkout`, an editor's undo): nothing to restore, nothing to lose.
    TRY(auto before, snapshots.read_file(facts.snapshot_before, m.path));
    if (now.ok() && as_before(before, *now, m)) {
      result.already.push_back(m.path);
    } else {
      result.drifted.push_back(m.path);
    }
  }
  if (!result.drifted.empty() && !force) {
    std::string list;
    for (const auto& p : result.drifted) list += "\n  " + p;
    return make_error(
        ErrorCode::kInvalidInput,
        fmt::format("these files changed after run {} ended; undo would lose those changes (use --force):{}",
                    facts.run_id, list));
  }
  auto fail = [&](const std::string& path, const Error& e) { result.failed.push_back({path, e.message}); };
  // The owner the run changed, put back after the content (root alone may), and the mode again
  // after it: a chown clears setuid and setgid.
  auto restore_owner = [&](const Mutation& m, unsigned mode) {
    unsigned uid = 0, gid = 0;
    if (m.owner_before.empty() || std::sscanf(m.owner_before.c_str(), "%u:%u", &uid, &gid) != 2) return true;
    Status s = workspace.set_owner(m.path, uid, gid);
    if (s.ok()) s = workspace.set_mode(m.path, mode);
    if (!s.ok()) fail(m.path, s.error());
    return s.ok();
  };
  for (const auto& m : facts.mutations) {
    if (std::find(result.already.begin(), result.already.end(), m.path) != result.already.end()) continue;
    if (m.change == "mode") {
      if (m.mode_before == 0) {
        fail(m.path, make_error(ErrorCode::kInvalidInput, "the run did not record the mode it had before"));
      } else if (Status s = workspace.set_mode(m.path, m.mode_before & 07777); !s.ok()) {
        fail(m.path, s.error());
      } else if (restore_owner(m, m.mode_before & 07777)) {
        result.modes.push_back(m.path);
      }
      continue;
    }
    // A FIFO, socket or device the run left there goes first: nothing is written through one.
    if (is_special(m.mode_after)) {
      if (Status s = workspace.delete_file(m.path); !s.ok() && s.error().code != ErrorCode::kNotFound) {
        fail(m.path, s.error());
        continue;
      }
    }
    auto before = snapshots.read_file(facts.snapshot_before, m.path);
    if (!before.ok()) {
      fail(m.path, before.error());
    } else if (!*before) {
      Status s = workspace.delete_file(m.path);
      if (!s.ok() && s.error().code != ErrorCode::kNotFound) {
        fail(m.path, s.error());
      } else {
        result.removed.push_back(m.path);
      }
    } else if ((*before)->mode == 0120000) {
      result.skipped.push_back(m.path);
    } else if (Status s = workspace.write_file(m.path, (*before)->content, restore_mode(m, **before)); !s.ok()) {
      fail(m.path, s.error());
    } else if (restore_owner(m, restore_mode(m, **before))) {
      result.restored.push_back(m.path);
    }
  }
  return result;
}

}  // namespace candor::executor
