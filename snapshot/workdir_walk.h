// A parallel walk of the workspace that stats every entry relative to its directory's fd
// (fstatat), so unchanged files cost one cheap stat. Directories the caller says hold no tracked
// files are not entered: they are returned for the caller to check against ignore rules.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "snapshot/beneath.h"

namespace candor::snapshot {

struct FileStat {
  std::string path;  // relative, '/'-separated
  // False for a file of a folder whose files need no stat (WalkOptions::stat_files_in): the
  // listing's type alone, `mode` 0100644 or 0120000, the other fields 0.
  bool stated = true;
  std::uint32_t mode;           // git mode: 0100644, 0100755 or 0120000
  std::uint32_t full_mode = 0;  // st_mode as stat'ed (type and every permission bit); 0 when !stated
  std::int64_t size;
  std::int64_t mtime_s, mtime_ns, ctime_s, ctime_ns;
  std::uint64_t ino;
  std::uint32_t uid, gid;
  std::uint32_t nlink = 0;  // names the file has (st_nlink); 0 when !stated
};

// The mode git records for `st`: 0100644, 0100755 (owner may execute), 0120000 (symlink); 0 for
// what git does not hold (folders, FIFOs, sockets, devices).
std::uint32_t git_file_mode(const struct stat& st);

struct FolderMode {
  std::string path;        // "" the root, else "dir/"
  std::uint32_t mode = 0;  // st_mode of the folder as opened
  std::uint32_t uid = 0, gid = 0;
};

struct WalkResult {
  std::vector<std::string> untracked_dirs;  // "dir/" paths not entered
  // Every folder listed, with its mode (an fstat of the descriptor the listing read).
  std::vector<FolderMode> folders;
  // Entries named `.git` met in the folders listed (at any depth, the root's too): not entered,
  // and for the caller to fingerprint (a repository's config can carry commands).
  std::vector<std::string> git_entries;
  // FIFOs, sockets and devices met (git holds none of them): "dir/name" with the entry's stat.
  std::vector<FolderMode> specials;
  // What could not be looked at: folders ("dir/", the root "./") that could not be opened or
  // listed, entries ("dir/name") that could not be stat'ed. What vanished meanwhile is not here: it is gone.
  std::vector<std::string> unread;
};

// Called from the walker's threads, `thread` in [0, threads), for every regular file and symlink
// in the directories walked. `file` is reused after the call returns: copy what you keep.
using FileVisitor = std::function<void(unsigned thread, const FileStat& file)>;

struct WalkOptions {
  // Skip `.candor` at the root, which runs fingerprint on their own (protected_paths.cc). A git
  // working tree read for `verify --git BASE..` holds it like any folder. No other name is ever
  // skipped: candor's own temporary files exist only while one of its file tools runs.
  bool skip_candor_files = true;
  // Whether the files of folder `dir` ("" the root, "a/b/") need their stat; thread-safe. Unset:
  // all do. Files of a folder that need none cost no system call of their own where the listing
  // says what they are (a workspace without a repository is all such folders, on a first scan).
  std::function<bool(std::string_view)> stat_files_in = nullptr;
  // Called for every folder listed, with its descriptor and path ("" the root, "a/b/"), before its
  // listing is read: a watch placed here (change_events.h) sees whatever is written there after
  // the listing. From the walker's threads; thread-safe. Unset: none.
  std::function<void(int dir_fd, const std::string& rel)> on_folder = nullptr;
};

// Walks `start` ("" or "dir/") beneath `root`, opened through it so no symlink is followed on the
// way. `tracked_dir("a/b/")` must be thread-safe. Skipped everywhere: entries named `.git` (so a
// nested repository's folder is walked like any other, without its `.git`; they are listed in
// `git_entries`) and, unless `options` say otherwise, the root's `.candor`. FIFOs, sockets and devices are not files to
// git and are skipped too. A `start` that has vanished walks nothing; one that cannot be opened is unread.
WalkResult walk_workdir(const BeneathRoot& root, const std::string& start,
                        const std::function<bool(std::string_view)>& tracked_dir, const FileVisitor& visit,
                        unsigned threads, const WalkOptions& options = {});

// What each of `paths` (files: "a/b.txt", never a folder's "a/") is now, looked at alone as the
// walk would meet it in its folder's listing, without following a symlink on the way: a file or
// symlink is visited (thread 0), a FIFO, socket or device is in `result.specials`, a `.git` in
// `result.git_entries`, an entry that could not be stat'ed in `result.unread`. The root's
// `.candor` is skipped unless `options` say otherwise. `options.stat_files_in` is not asked: each
// path is stat'ed.
struct PathsLooked {
  WalkResult result;
  std::vector<std::string> folders_now;  // paths that are folders now: "a/b/", for the caller to walk
  std::vector<std::string> missing;      // paths with nothing there (or no folder above them any more)
};
PathsLooked look_at_paths(const BeneathRoot& root, const std::vector<std::string>& paths, const FileVisitor& visit,
                          const WalkOptions& options = {});

}  // namespace candor::snapshot
