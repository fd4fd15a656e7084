// Workspace snapshots in a git object database kept inside the run store, never in the
// workspace's own .git. The index in the store is a stat cache: after the first scan, an
// unchanged file costs one stat. The agent is untrusted, so nothing it writes blinds a scan: the
// ignore rules are frozen at run start, nested repositories are walked like any folder, contents
// are read through descriptors beneath the workspace, and what cannot be read is named.
// The one verify source that uses libgit2 (with core/git_ptr.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/run_record.h"
#include "verify/git_trees.h"

namespace candor::verify {

// Where the snapshots of `workspace_root` (absolute) live in the store:
// `store_dir`/snapshots/<hash of the path>.git.
std::string snapshot_repository_path(const std::string& store_dir, const std::string& workspace_root);

// Not thread-safe. One per run. Two runs on one workspace at once share the repository: objects
// are safe to share, and each run keeps its index in memory and its frozen ignore rules in a
// folder of its own. The index file is only a stat cache: the last flush() wins, and a flush()
// that meets the other run's lock fails, which costs the next run's first scan time, nothing else.
class SnapshotStore {
 public:
  // Opens or creates the snapshot repository for `workspace_root` (absolute) beneath
  // `store_dir`/snapshots/, and holds its RepositoryLock (shared) until it goes: `candor gc` leaves
  // the repository alone meanwhile (and this waits while a gc holds it). Follows the workspace's
  // .gitignore files (not the user's global excludes; scan() says what they decide) and
  // `extra_ignore` (config snapshot.ignore: gitignore patterns relative to the root, given here
  // so the first scan already leaves them out); any `.git` and the root's .candor are never part
  // of a snapshot.
  static Result<std::unique_ptr<SnapshotStore>> open(const std::string& store_dir, const std::string& workspace_root,
                                                     const std::vector<std::string>& extra_ignore = {});
  ~SnapshotStore();
  SnapshotStore(const SnapshotStore&) = delete;
  SnapshotStore& operator=(const SnapshotStore&) = delete;

  // Brings the index (in memory) up to date with the workspace. Returns the paths that differ
  // from the previous scan, sorted. This is the call made after every step that may write. A path
  // it cannot read goes to unread() and its entries stay as they were; kIo only when the
  // workspace itself cannot be listed, or the repository cannot be written.
  // Ignored means "not committed", not "does not matter" (DESIGN.md, "Snapshots see everything"):
  // the scans before the first write_tree() (the snapshot before the run) take in every file but
  // those config snapshot.ignore excludes, in folders .gitignore ignores too. Later scans watch
  // every path the snapshot has held in this run (changed, deleted, made again), and take in a
  // path it has not held only when the frozen .gitignore rules do not ignore it (build output
  // stays out) or it is in `written`: what candor's file tools wrote since the last scan, taken
  // in whatever .gitignore says (snapshot.ignore still excludes it).
  Result<std::vector<std::string>> scan(const std::vector<std::string>& written = {});

  // scan() for when only candor's own file tools can have written since the last scan (no process
  // has run since) and `paths` are all they wrote: looks at these alone, as scan(paths) would (a
  // path the index does not hold is taken in unless config snapshot.ignore excludes it). A path
  // reached through a symlinked folder, or whose folder is gone, may have been written elsewhere:
  // then the whole workspace is scanned. REQUIRES: a scan() before, in this run.
  Result<std::vector<std::string>> scan_paths(const std::vector<std::string>& paths);

  // Writes the tree of the index as of the last scan and returns its id: the snapshot. While no
  // scan has changed the index's contents since it was last built (in this run, or saved with
  // the index by the last flush), the same id, without building it again.
  Result<std::string> write_tree();

  // Saves the index, the stat cache that makes the next run's first scan cheap, with the
  // snapshot.ignore patterns it was pruned with and the tree its contents make. An index no scan
  // changed is not written again.
  Status flush();

  // Fixes the ignore rules for the rest of the run: the .gitignore files as the first scan found
  // them (it copies them right after its walk; not those in folders the others ignore, which git
  // never reads) plus `extra_patterns` (config snapshot.ignore), which replace those given to
  // open(). Entries `extra_patterns` exclude leave the index when the first scan may have taken
  // them in; entries only the .gitignore files ignore stay (see scan()).
  // REQUIRES: called once, right after the run's first scan and before its first write_tree().
  Status freeze_ignore_rules(const std::vector<std::string>& extra_patterns);

  // Paths the scans of this run could not read, sorted, each once: folders end in '/'. Non-empty
  // means the snapshots are incomplete.
  const std::vector<std::string>& unread() const;

  // Scans from now on read no file they have not begun by `deadline` (a large file streamed is
  // given up within a megabyte of it): what they leave goes to unread(), and ran_out_of_time()
  // says so. nullopt: no deadline. The walk itself (a stat per file) is not cut short.
  void set_deadline(std::optional<std::chrono::steady_clock::time_point> deadline);
  bool ran_out_of_time() const;

  // Who may do what with a path: its whole mode (type, permission bits, setuid/setgid/sticky) and
  // its owner. git's trees hold only 644/755: a step that makes a file setuid, a folder
  // world-writable or gives the workspace to another user changes nothing git shows.
  struct Access {
    std::uint32_t mode = 0;  // st_mode
    std::uint32_t uid = 0, gid = 0;
    bool operator==(const Access&) const = default;
  };
  struct AccessChange {
    std::string path;  // a folder's ends in '/' (the root is "./")
    Access before, after;  // before.mode 0: the path was not there
  };
  // Files and folders present at the scans before the first write_tree() (the snapshot before the
  // run) and at the latest scan, whose mode or owner differs, in path order.
  std::vector<AccessChange> access_changes() const;
  // Folders the latest full scan listed that those first scans did not.
  std::vector<AccessChange> created_folders() const;
  // FIFOs, sockets and devices (no tree holds them) made, removed or changed since those first
  // scans: `before.mode` 0 for one made, `after.mode` 0 for one gone.
  std::vector<AccessChange> special_changes() const;
  // The access of `path` (a folder's ending in '/') at the latest scan that looked at it, and at
  // the run's first scans; nullopt when not known. access_at_start() of a path that did not exist
  // then is meaningless: ask only for paths that did.
  std::optional<Access> access_now(const std::string& path) const;
  std::optional<Access> access_at_start(const std::string& path) const;
  // Every `.git` (folder, file or link) the full scans met below the root ("vendor/lib/.git"):
  // never walked into, but fingerprinted by the caller as a protected path.
  const std::set<std::string>& nested_git() const;

  // For tests: called by scan() after the walk and before file contents are read, so a test can
  // change the workspace in that window as a racing process could.
  void set_after_walk_hook_for_tests(std::function<void()> hook);

  // The net change from `from_tree` to `to_tree`: added/modified/deleted, sizes, line counts.
  // `steps` and `last_change_seq` are left for the caller to attribute.
  Result<std::vector<Mutation>> diff(const std::string& from_tree, const std::string& to_tree) const;

  // Unified diff text of one path between two trees, for people and the judge. Capped.
  Result<std::string> patch_text(const std::string& from_tree, const std::string& to_tree,
                                 const std::string& path, std::size_t max_bytes) const;

  using TreeFile = verify::TreeFile;
  using TreeEntryInfo = verify::TreeEntryInfo;
  // `path` in `tree` with its mode; nullopt when the path is not in it.
  Result<std::optional<TreeFile>> read_file(const std::string& tree, const std::string& path) const;
  // What is at `path` in `tree`: nullopt when nothing is. "." is the tree itself.
  Result<std::optional<TreeEntryInfo>> stat(const std::string& tree, const std::string& path) const;

  // Reads and diffs of the snapshot trees (what the methods above go through).
  GitTrees trees() const;

  // Content of `path` in `tree`; nullopt when the path is not in it.
  Result<std::optional<std::string>> read(const std::string& tree, const std::string& path) const;

  // Keeps `tree` reachable under refs/candor/<name>.
  Status pin(const std::string& tree, const std::string& name);

  // Copies into the store the contents of `paths` in each of `trees` that only the workspace's
  // own repository holds (a first snapshot names the blobs its index vouches for without copying
  // them), so the run can still be undone, diffed and judged after that repository is gc'd. A
  // path whose content cannot be found anywhere goes to unread(). Call it with the mutated paths
  // of a run, before and after.
  Status retain(const std::vector<std::string>& trees, const std::vector<std::string>& paths);

  const std::string& repository_path() const { return repo_path_; }

 private:
  struct Impl;
  explicit SnapshotStore(std::unique_ptr<Impl> impl, std::string repo_path);
  std::unique_ptr<Impl> impl_;
  std::string repo_path_;
};

}  // namespace candor::verify
