// Change detection in O(changes) within one process (docs/design.md): inotify watches on the
// workspace's folders, placed as a walk lists them, and read between scans, so a scan can look at
// the paths the events name instead of walking everything. Nothing is trusted that a walk would
// have caught and the events did not: whenever the events cannot prove they are complete (the
// queue overflowed, a watch could not be placed, a file system delivers no events, the workspace
// folder itself moved), drain() says so, with the reason, and the caller walks in full.
// Private to snapshot/; the only user of <sys/inotify.h>.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace candor::snapshot {

struct ChangeEventsOptions {
  // Whether folder "a/b/" is watched, and walked by watch_tree(): the same rule the snapshot's walk
  // enters folders by (its frozen ignore rules), so what no scan would look at costs no watch.
  // Entries named `.git` and (with `skip_candor_files`) the root's `.candor` are never watched,
  // as no walk enters them. Thread-safe. Unset: every folder.
  std::function<bool(std::string_view)> enter = nullptr;
  bool skip_candor_files = true;
  // At most this many watches; 0: as many as the kernel allows (fs.inotify.max_user_watches). A
  // folder beyond the limit is not watched and every drain() from then on is incomplete: a budget,
  // and the way a test forces the watch limit without changing the machine's.
  std::size_t max_watches = 0;
  // The file system type (statfs f_type) of an open folder; unset: fstatfs. A seam for tests: no
  // test machine mounts NFS.
  std::function<long(int dir_fd)> fs_type = nullptr;
};

// What the events said since the last drain() (or since watching began).
struct ChangeSet {
  // Workspace-relative paths the events named: a file "a/b.txt" (written, made, removed, renamed,
  // chmod'ed), or a folder "a/d/" whose whole content is to be looked at again (made, removed, or
  // moved in, out or within the tree: files can be written in a new folder before its watch is
  // placed). A superset of what changed: a path named may turn out the same.
  std::set<std::string> changed_paths;
  // True only when the events prove that nothing outside `changed_paths` changed. False: walk
  // everything; `reason` says why in words for the report ("inotify queue overflowed").
  bool complete = true;
  std::string reason;
};

// Whether the `changed` of a complete ChangeSet covers `path`: named itself, or beneath a folder it
// names.
bool covers(const std::set<std::string>& changed, std::string_view path);

// The mount points beneath `root` now ("/ws/sub": absolute, canonical; not `root` itself), from
// /proc/self/mountinfo; nullopt when it cannot be read.
std::optional<std::set<std::string>> mounts_beneath_now(const std::string& root);

// The name of a file system whose changes inotify does not see (those made by another machine, a
// FUSE daemon or a hypervisor), by its statfs f_type; nullptr for one whose changes it sees.
const char* file_system_without_events(long fs_type);

// add_watch() and watch_tree() may be called from several threads (a parallel walk); drain() from
// one thread at a time, not while a walk places watches.
class ChangeEvents {
 public:
  // An inotify instance for the workspace at `root` (absolute), watching nothing yet. kUnavailable
  // when the kernel gives no instance (fs.inotify.max_user_instances): the caller walks.
  static Result<std::unique_ptr<ChangeEvents>> start(const std::string& root, ChangeEventsOptions options = {});
  ~ChangeEvents();
  ChangeEvents(const ChangeEvents&) = delete;
  ChangeEvents& operator=(const ChangeEvents&) = delete;

  // Watches folder `rel` ("" the root, else "a/b/"), open as `dir_fd` (the descriptor a walk lists
  // it through, so the watch is on that very folder, not on whatever the path names by then).
  // REQUIRES: called before the folder's listing is read (WalkOptions::on_folder), so that what is
  // written after the listing is an event and what was written before is in the listing.
  void add_watch(int dir_fd, const std::string& rel);

  // Walks the folders beneath `start` ("" or "a/b/") that `enter` takes, placing a watch on each
  // before listing it: what the first scan's walk does when the watches ride on it.
  void watch_tree(const std::string& start = "");

  // Reads the events queued, without blocking, and returns what they name since the last drain. A
  // folder that appeared is watched here (its content is named as changed: files may have been
  // written before the watch). After an overflow the watches are placed again over the whole tree,
  // so that the next drain can be complete.
  ChangeSet drain();

  // Folders watched now.
  std::size_t watch_count() const;

  // Between processes: the folders watched now ("" the root, "a/b/"), for the next process to watch
  // again without a walk (watch_folders()); nullopt when they are not every folder to watch (a
  // watch could not be placed, a file system delivers no events). With the mount points beneath
  // the root when watching began (absolute): a mount made since hides what was watched.
  struct WatchList {
    std::vector<std::string> folders;
    std::set<std::string> mounts;
  };
  std::optional<WatchList> watch_list() const;
  // Watches each folder of `folders` the paths still name (opened beneath the root, no symlink on
  // the way; one gone or no longer a folder is skipped: whatever replaced it is a change the
  // caller learns from elsewhere), before the caller asks what changed since the list was made.
  // Returns why the drains can not be complete ("" when they can): what drain() would say, or
  // the mounts beneath the root differ from `list`'s.
  std::string watch_folders(const WatchList& list);

  struct Impl;

 private:
  explicit ChangeEvents(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace candor::snapshot
