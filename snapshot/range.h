// A change in a repository, named as git names ranges: what `candor verify --git` verifies.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "snapshot/trees.h"

struct git_repository;

namespace candor::snapshot {

struct GitRange {
  std::string spec;         // as given: "A..B", "A...B", "C", "BASE.."
  std::string base_commit;  // full ids
  std::string head_commit;  // "" when the head is the working tree
  std::string base_tree;
  std::string head_tree;  // for the working tree: "" until read_worktree() read it
  bool worktree = false;  // `BASE..`: the head is the working tree, not a commit
  // BASE as given when it is a name (`main`, `origin/main`, `HEAD~3`), not a commit id: a ref the
  // change's author may be able to move (`git branch -f main HEAD` empties `main..`). "" for an id.
  std::string base_name;
  std::string base_name_commit;  // what base_name named then (for `A...B`, A; BASE is their merge base)
  // Sentences for the report about how far BASE can be trusted (see resolve()).
  std::vector<std::string> warnings;
};

// What GitRepository::read_worktree() read (worktree_tree.cc).
struct WorktreeRead {
  std::string tree;  // the working tree's tree id (its objects are in memory only)
  // What could not be read: BASE's entry stands in for a path that BASE had. Not seen is not
  // evidence of anything, so the caller marks the scan incomplete.
  std::vector<std::string> unread;
  std::size_t hashed = 0;  // files read and hashed
  // Files not read: candor's record of its last read of this working tree vouched for them, by
  // their stat or by Watchman naming no change to them. The repository's index never does.
  std::size_t reused = 0;
  // With config snapshot.fsmonitor: "watchman" when the read looked only where its answer said,
  // else "walk" and why; "" without one.
  std::string looked;
  std::string reason;
  std::string warning;  // the record of this read could not be kept (the next read walks and reads)
};

// How GitRepository::read_worktree() reads: BASE's config and candor's store.
struct WorktreeOptions {
  std::vector<std::string> extra_ignore;  // BASE's config snapshot.ignore
  std::string skip_dir;                   // "dir/": candor's store, when it lies inside the working tree
  std::string store_dir;                  // candor's store: the last read is kept there ("": none)
  bool watchman = false;                  // BASE's config snapshot.fsmonitor is "watchman"
};

// The repository whose root is `root` (no search above it: docs/design.md, Trust boundary: Git),
// opened read-only in the sense that nothing here writes to it.
class GitRepository {
 public:
  static Result<std::unique_ptr<GitRepository>> open(const std::string& root);
  ~GitRepository();
  GitRepository(const GitRepository&) = delete;
  GitRepository& operator=(const GitRepository&) = delete;

  // `A..B`: the tree of A to the tree of B. `A...B`: the merge base of A and B to B. `C`: C's first
  // parent to C (a root commit: the empty tree to C). `BASE..`: BASE's tree to the working tree,
  // whose tree read_worktree() then reads. Errors are kUsage naming the part that did not resolve.
  Result<GitRange> resolve(const std::string& spec) const;
  // What `range.base_name` names now, when it names something else than when resolve() ran (the
  // ref was moved while candor worked): a sentence for the report; "" when it did not move.
  std::string base_moved(const GitRange& range) const;

  // Reads the working tree into `range` (a `BASE..` range: head_tree), ignoring what BASE's tree
  // and `extra_ignore` (BASE's config `snapshot.ignore`) ignore (worktree_tree.h). From
  // here on every object written to this repository's database stays in memory: the working
  // tree's blobs and trees are readable through trees() and never reach the repository's folder.
  Result<WorktreeRead> read_worktree(GitRange& range, const WorktreeOptions& options);

  GitTrees trees() const { return GitTrees(repo_); }
  const std::string& root() const { return root_; }

 private:
  GitRepository(git_repository* repo, std::string root, std::string git_dir, std::string common_dir)
      : repo_(repo), root_(std::move(root)), git_dir_(std::move(git_dir)), common_dir_(std::move(common_dir)) {}
  Status keep_writes_in_memory();
  git_repository* repo_;
  std::string root_;
  std::string git_dir_;     // the repository's git folder (a linked worktree's own: its index)
  std::string common_dir_;  // where its objects are
  bool writes_in_memory_ = false;
};

}  // namespace candor::snapshot
