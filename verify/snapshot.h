// Workspace snapshots in a git object database kept inside the run store, never in the
// workspace's own .git. The index in the store is a stat cache: after the first scan, an
// unchanged file costs one stat. The only place that includes <git2.h>.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/run_record.h"

namespace candor::verify {


// Not thread-safe. One per run; two runs on one workspace at once fail on the index lock.
class SnapshotStore {
 public:
  // Opens or creates the snapshot repository for `workspace_root` (absolute) beneath
  // `store_dir`/snapshots/. Respects the workspace's .gitignore files; .git and .candor are
  // never part of a snapshot.
  static Result<std::unique_ptr<SnapshotStore>> open(const std::string& store_dir, const std::string& workspace_root);
  ~SnapshotStore();
  SnapshotStore(const SnapshotStore&) = delete;
  SnapshotStore& operator=(const SnapshotStore&) = delete;

  // Brings the index (in memory) up to date with the workspace. Returns the paths that differ
  // from the previous scan, sorted. This is the call made after every step that may write.
  Result<std::vector<std::string>> scan();

  // Writes the tree of the index as of the last scan and returns its id: the snapshot.
  Result<std::string> write_tree();

  // Saves the index, the stat cache that makes the next run's first scan cheap.
  Status flush();

  // The net change from `from_tree` to `to_tree`: added/modified/deleted, sizes, line counts.
  // `steps` and `last_change_seq` are left for the caller to attribute.
  Result<std::vector<Mutation>> diff(const std::string& from_tree, const std::string& to_tree) const;

  // Unified diff text of one path between two trees, for people and the judge. Capped.
  Result<std::string> patch_text(const std::string& from_tree, const std::string& to_tree,
                                 const std::string& path, std::size_t max_bytes) const;

  struct TreeFile {
    std::string content;
    unsigned mode = 0100644;  // git mode: 0100644, 0100755, 0120000 (symlink)
  };
  // `path` in `tree` with its mode; nullopt when the path is not in it.
  Result<std::optional<TreeFile>> read_file(const std::string& tree, const std::string& path) const;

  struct TreeEntryInfo {
    bool directory = false;
    std::int64_t size = 0;    // blob size; 0 for a directory
    unsigned mode = 0040000;  // git mode
  };
  // What is at `path` in `tree`: nullopt when nothing is. "." is the tree itself.
  Result<std::optional<TreeEntryInfo>> stat(const std::string& tree, const std::string& path) const;

  // Content of `path` in `tree`; nullopt when the path is not in it.
  Result<std::optional<std::string>> read(const std::string& tree, const std::string& path) const;

  // Keeps `tree` reachable under refs/candor/<name>.
  Status pin(const std::string& tree, const std::string& name);

  const std::string& repository_path() const { return repo_path_; }

 private:
  struct Impl;
  explicit SnapshotStore(std::unique_ptr<Impl> impl, std::string repo_path);
  std::unique_ptr<Impl> impl_;
  std::string repo_path_;
};

}  // namespace candor::verify
