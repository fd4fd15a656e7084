// The workspace's own `.git/` and `.candor/`: no step may change them, except for the history the
// git_commit tool records. Capturing only stats (no content is read); comparing is pure.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/result.h"

namespace candor::verify {

// Enough of a stat to tell that an entry changed: a rewrite in place moves mtime/ctime, a
// replacement by rename changes the inode, a chmod moves ctime.
struct StatFingerprint {
  char type = '?';  // 'f' file, 'd' folder, 'l' symlink, 'o' anything else
  std::int64_t size = 0;
  std::uint32_t mode = 0;
  std::int64_t mtime_ns = 0, ctime_ns = 0;
  std::uint64_t inode = 0;
  bool operator==(const StatFingerprint&) const = default;
};

struct ProtectedState {
  // Workspace-relative paths: ".git", ".git/HEAD", ".candor/config.json", ... (the roots too).
  // Beneath `.git/objects/` only `info/` is looked at: objects alone change nothing a person
  // sees, and there are many.
  std::map<std::string, StatFingerprint> entries;
  // Paths beneath the protected roots that could not be looked at, sorted.
  std::vector<std::string> unread;
};

// Stats `.git` and `.candor` in `workspace_root` and every entry beneath them, and each of
// `nested_git` (workspace-relative `.git` entries below the root, "vendor/lib/.git": a nested
// repository's config can carry commands that a later `git status` there runs), without following
// symlinks. A missing root is simply absent from `entries`. kIo only when the workspace itself
// cannot be opened.
Result<ProtectedState> capture_protected_state(const std::string& workspace_root, const std::set<std::string>& nested_git = {});

// One sentence per change between two captures, for a person to act on, in path order:
// "`.candor/config.json` was created during the run", "`.git/hooks/pre-commit` was modified",
// "`.git/config` was deleted during the run". When `history_recorded` (a git_commit step ran), the
// entries that recording a commit changes are allowed: .git/index, .git/logs/**, .git/COMMIT_EDITMSG,
// .git/ORIG_HEAD, .git/refs/heads/**, .git/packed-refs (and the folders holding them).
std::vector<std::string> protected_changes(const ProtectedState& before, const ProtectedState& after,
                                           bool history_recorded);

}  // namespace candor::verify
