// Who may drop objects from a snapshot repository. Every SnapshotStore (a run, an exec, an undo,
// a report with diffs) holds a shared lock on `<repository>.in-use` for its whole life; `candor gc`
// takes it exclusively, without waiting, before it deletes refs of runs it does not know, packs,
// prunes or removes the repository, and leaves a repository it cannot lock as it is. So a run in
// progress, whose new objects no ref names yet, never loses them. The lock is flock(2): the kernel
// drops it when its process dies, so a killed run or gc never leaves a repository locked.
#pragma once

#include <optional>
#include <string>

#include "core/result.h"
#include "sandbox/unique_fd.h"

namespace candor::snapshot {

class RepositoryLock {
 public:
  // Waits while a gc holds the repository (seconds: the gc of one repository).
  static Result<RepositoryLock> shared(const std::string& repository_path);
  // nullopt when another process holds it, shared or not.
  static Result<std::optional<RepositoryLock>> try_exclusive(const std::string& repository_path);
  // Whether some process holds it right now (a probe that takes and drops it).
  static bool held_by_others(const std::string& repository_path);

  RepositoryLock(RepositoryLock&&) noexcept = default;
  RepositoryLock& operator=(RepositoryLock&&) noexcept = default;

  // Unlinks the lock file while still holding it: a process waiting on the old file notices it
  // is gone and opens the new one. REQUIRES: held exclusively, the repository already removed.
  void remove_file();

 private:
  RepositoryLock(sandbox::UniqueFd fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {}
  sandbox::UniqueFd fd_;
  std::string path_;
};

// `<repository>.in-use`, beside the repository folder (not in it, so removing it is separate).
std::string repository_lock_path(const std::string& repository_path);

}  // namespace candor::snapshot
