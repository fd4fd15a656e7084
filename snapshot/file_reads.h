// A scan's reads of the workspace on worker threads: for each path, whether the frozen ignore rules
// exclude it, and its contents and their blob id, read through a descriptor beneath the workspace
// (BeneathRoot::look). The caller puts the results into the index and the object database, on
// its own thread (neither libgit2 object is shared between threads).
#pragma once

#include <sys/stat.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <git2.h>

#include "core/deadline.h"
#include "core/result.h"
#include "snapshot/beneath.h"

namespace candor::snapshot {

struct FileRead {
  std::size_t request = 0;  // the position of the path in the requests
  bool ignored = false;     // excluded by the ignore rules: not looked at
  // kFile, kSymlink: read (content, id); kGone; kUnreadable (a read error, or it kept changing).
  Entry::Kind kind = Entry::Kind::kGone;
  bool too_large = false;    // a file larger than the buffered limit: not read, the caller streams it
  bool out_of_time = false;  // the deadline had passed: not read (kind kUnreadable)
  struct stat st {};
  git_oid id{};
  std::string content;  // the blob's bytes (a symlink's target)
};

struct FileReadRequest {
  std::string path;
  bool check_ignore = false;  // a path the index does not hold: read only when not ignored
};

// Whether a path is ignored; a thread's own (libgit2 handles are not shared between threads).
using IgnoreCheck = std::function<bool(const std::string&)>;

struct FileReadOptions {
  unsigned threads = 1;
  std::int64_t buffered_max = 8 << 20;  // larger files are left to the caller (too_large)
  // Bytes read but not yet taken by `take`: workers wait beyond it (a file larger than the
  // budget is read when nothing else is held).
  std::uint64_t budget = 64 << 20;
  // Makes one thread's ignore check, when the first path to check comes; called on that thread,
  // with `calling_thread` true when that is the caller's own (few requests: no workers).
  std::function<Result<IgnoreCheck>(bool calling_thread)> make_ignore_check;
  // Files not begun by then are not read (FileRead::out_of_time): a scan obeys the run's time budget.
  Deadline deadline;
};

// Reads every request on `options.threads` workers and hands each result to `take` on the calling
// thread, in the order they finish. Stops at the first error `take` or an ignore check returns
// (the workers finish what they hold, nothing more is read) and returns it.
Status read_files(const BeneathRoot& root, const std::vector<FileReadRequest>& requests, const FileReadOptions& options,
                  const std::function<Status(FileRead&)>& take);

}  // namespace candor::snapshot
