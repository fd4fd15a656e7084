// `candor gc` for the snapshot repositories (libgit2 has no gc of its own). For each repository,
// holding its RepositoryLock exclusively: drop the refs of runs the store no longer holds; collect
// what the remaining refs and the index (the next run's stat cache, whose blobs and cached tree a
// later snapshot reuses without writing them again) can reach; write those objects that the
// repository itself holds into one new pack; only then delete the old packs and every loose
// object. A gc killed at any point leaves a valid repository: until the new pack and its index
// are complete nothing is deleted, and afterwards everything reachable is in it. Objects a tree
// names that the store does not hold (the workspace's own repository may hold them) are skipped
// and counted, never an error. A repository no remaining run refers to is removed whole (renamed
// away first, so no one opens it half-removed); one that some process holds is left as it is,
// but for the refs of the runs this gc removed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "core/result.h"

namespace candor::snapshot {

// The runs the store holds. Read again for each repository once the gc holds its lock, so a run
// that started and ended just before counts.
struct RunsInStore {
  std::set<std::string> run_ids;
  std::set<std::string> workspaces;
};

struct RepositoryGc {
  enum class Outcome {
    kPacked,   // its reachable objects are now one pack (or it was collected as far as a dry run goes)
    kRemoved,  // no remaining run refers to it
    kInUse,    // a run (or an undo, a report) holds it: left as it is, but for the removed runs' refs
    kFailed,   // `error` says why; the repository is left valid
  };
  std::string path;
  std::string workspace;  // from its candor-workspace file; "" when it cannot be read
  Outcome outcome = Outcome::kFailed;
  std::string error;
  std::size_t refs_removed = 0;
  std::size_t objects_before = 0;  // distinct objects in its own object folder
  std::size_t objects_after = 0;   // dry run: how many would stay
  std::size_t not_in_store = 0;    // objects the kept snapshots name that the repository does not hold
  std::uint64_t bytes_before = 0;  // on disk (disk_usage)
  std::uint64_t bytes_after = 0;   // dry run: bytes_before, or 0 for a repository that would go
};

struct SnapshotGc {
  std::vector<RepositoryGc> repositories;  // sorted by path
  std::vector<std::string> leftovers;      // temporary folders and stale lock files of candors that died, removed
};

struct SnapshotGcOptions {
  bool dry_run = false;  // change nothing; say what would go
  // For tests: called at each point a kill could land that matters (after the refs are dropped,
  // after the pack is written, after each deleted pack or loose object), with its name, so a test
  // can end the process exactly there.
  std::function<void(const std::string&)> at_step;
};

// REQUIRES: the removed runs are already gone from the run store, so that a gc killed half-way
// leaves refs of runs that no longer exist (the next gc drops them), never a run without its
// snapshots. `removed_runs`: their ids, whose refs are dropped even from a repository in use.
// `runs_in_store` reads the store (what remains); an error from it leaves that repository as it is.
SnapshotGc collect_snapshots(const std::string& store_dir, const std::set<std::string>& removed_runs,
                             const std::function<Result<RunsInStore>()>& runs_in_store,
                             const SnapshotGcOptions& options);

struct SnapshotUsage {
  std::size_t repositories = 0;
  std::uint64_t bytes = 0;
  // Repositories holding an `index.lock` while no process has them open: a run killed while it
  // saved the index left it, and until `candor gc` removes it no run saves the index again (each
  // re-hashes what changed since the last save: slower, never wrong).
  std::vector<std::string> stale_index_locks;
};
// The snapshot repositories in `store_dir` and their size on disk, for `candor doctor`.
SnapshotUsage snapshot_usage(const std::string& store_dir);

// The records `verify --git BASE..` keeps of the working trees it read (worktree_cache.h, the
// latest few), and their size on disk, for `candor doctor`.
struct WorktreeRecordsUsage {
  std::size_t records = 0;
  std::uint64_t bytes = 0;
};
WorktreeRecordsUsage worktree_records_usage(const std::string& store_dir);

const char* to_string(RepositoryGc::Outcome outcome);

// Whether some process holds the repository at `repository_path` (snapshot_repository_path()) right
// now: a run, an undo or a report using its snapshots, or a gc (a probe that takes its lock and
// drops it).
bool repository_in_use(const std::string& repository_path);

}  // namespace candor::snapshot
