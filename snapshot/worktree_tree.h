// The working tree of a git repository as a git tree, for `candor verify --git BASE..`: the files
// git would show against BASE (tracked, or untracked and not ignored), each read through a
// descriptor beneath the root, written as blobs and trees into the repository's object database,
// which the caller has made one that keeps every write in memory (GitRepository::read_worktree):
// nothing is written into the repository. The tree then diffs against BASE's like any commit's.
//
// The working tree is the change, and untrusted. So what is ignored is decided by BASE: its tree's
// .gitignore files (copied into a private folder read by a second libgit2 handle, as a run's
// snapshots freeze theirs) and BASE's config `snapshot.ignore`; never a .gitignore the change
// wrote, the repository's info/exclude or a global excludes file (both writable by whoever made
// the change). A path BASE tracks, or the index tracks, is never ignored.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "core/result.h"
#include "snapshot/range.h"

struct git_repository;

namespace candor::snapshot {

struct WorktreeSource {
  std::string root;        // the working tree, absolute
  std::string index_file;  // the repository's index: which paths are tracked (never its ids or stat cache)
  std::string base_tree;   // BASE's tree: the ignore rules, and what counts as tracked
  std::vector<std::string> extra_ignore;  // BASE's config `snapshot.ignore`, relative to the root
  std::string skip_dir;                   // "dir/": candor's own store when it lies inside, else ""
  // candor's store, where the last read of this working tree is kept for the next (worktree_cache.h):
  // a file whose stat is what that read saw is not read again. "": every file is read.
  std::string store_dir;
  // BASE's config snapshot.fsmonitor "watchman": look only where Watchman says something changed
  // since the last read's clock, and walk (saying why) when it cannot say.
  bool watchman = false;
  std::chrono::milliseconds watchman_timeout{5000};
};

// Reads the working tree described by `source` into `repo`'s object database.
// REQUIRES: every write to `repo`'s object database stays in memory (GitRepository::read_worktree
// arranges it). A symlink is recorded as a link (its target as the blob) and never followed;
// submodules (gitlinks in BASE) are carried over from BASE unchanged, and folders holding their
// own `.git` are read like any folder (their `.git` left out). Errors: kIo when the root cannot be
// listed or libgit2 fails.
Result<WorktreeRead> read_worktree(git_repository* repo, const WorktreeSource& source);

}  // namespace candor::snapshot
