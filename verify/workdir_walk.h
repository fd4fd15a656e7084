// A parallel walk of the workspace that stats every entry relative to its directory's fd
// (fstatat), so unchanged files cost one cheap stat. Directories the caller says hold no tracked
// files are not entered: they are returned for the caller to check against ignore rules.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace candor::verify {

struct FileStat {
  std::string path;    // relative, '/'-separated
  std::uint32_t mode;  // git mode: 0100644, 0100755 or 0120000
  std::int64_t size;
  std::int64_t mtime_s, mtime_ns, ctime_s, ctime_ns;
  std::uint64_t ino;
  std::uint32_t uid, gid;
};

struct WalkResult {
  std::vector<std::string> untracked_dirs;  // "dir/" paths not entered
};

// Called from the walker's threads, `thread` in [0, threads), for every regular file and symlink
// in the directories walked. `file` is reused after the call returns: copy what you keep.
using FileVisitor = std::function<void(unsigned thread, const FileStat& file)>;

// Walks `root`/`start` (`start` is "" or "dir/"). `tracked_dir("a/b/")` must be thread-safe. Skipped everywhere: `.git`, directories holding a
// `.git` (nested repositories), candor's temporary files; at the root also `.candor`. FIFOs,
// sockets and devices are not files to git and are skipped too.
Result<WalkResult> walk_workdir(const std::string& root, const std::string& start,
                                const std::function<bool(std::string_view)>& tracked_dir, const FileVisitor& visit,
                                unsigned threads);


}  // namespace candor::verify
