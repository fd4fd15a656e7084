// Reading workspace entries through descriptors opened beneath the workspace root, never by path:
// the kernel resolves each component and refuses symlinks on the way (openat2 with
// RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS) or, where openat2 is missing, a
// component-by-component O_NOFOLLOW walk does. A folder swapped for a symlink while a scan runs
// then reads as gone, never as what the symlink points at.
#pragma once

#include <sys/stat.h>

#include <cerrno>
#include <string>
#include <string_view>

#include "core/result.h"
#include "sandbox/unique_fd.h"

namespace candor::snapshot {

// An errno that means "nothing (or no longer a file or folder) is there": a vanished path, or one
// whose folder became a file or a symlink.
inline bool is_gone(int error) { return error == ENOENT || error == ENOTDIR || error == ELOOP; }

struct Opened {
  sandbox::UniqueFd fd;
  int error = 0;  // errno when !fd.valid()
};

// What is at a path now, looked at once.
struct Entry {
  enum class Kind { kFile, kSymlink, kGone, kUnreadable };
  Kind kind = Kind::kGone;
  struct stat st {};     // kFile, kSymlink: the entry's own stat (from its descriptor)
  sandbox::UniqueFd fd;  // kFile: open for reading
  std::string target;    // kSymlink: where it points (not followed)
  int error = 0;         // kUnreadable: errno
};

// Thread-safe: the descriptor is only used as a starting point.
class BeneathRoot {
 public:
  // Opens `root` (absolute). `force_fallback` uses the O_NOFOLLOW walk even where openat2 exists.
  static Result<BeneathRoot> open(const std::string& root, bool force_fallback = false);

  bool uses_openat2() const { return openat2_; }

  // Opens `rel` ("a/b/c": relative, no "." or ".." components; "" is the root) with `flags`
  // (O_CLOEXEC is added). Symlinks anywhere on the way fail with ELOOP or ENOTDIR.
  Opened open(const std::string& rel, int flags) const;

  // The regular file or symlink at `rel`. Anything else (a folder, a FIFO, a device) and any
  // component on the way that is a symlink is kGone: not a file git can hold there.
  Entry look(const std::string& rel) const;

  // As look(), for `name` (one component) in `dir`, a folder opened through open() with
  // O_PATH | O_DIRECTORY: the kernel resolves one name, not the whole path again.
  static Entry look_in(int dir, const char* name);

 private:
  BeneathRoot(sandbox::UniqueFd fd, bool openat2) : fd_(std::move(fd)), openat2_(openat2) {}
  Opened open_walk(const std::string& rel, int flags) const;

  sandbox::UniqueFd fd_;  // O_PATH
  bool openat2_ = false;
};

// Looks at paths beneath `root` as BeneathRoot::look does, keeping the folder of the last one
// open: paths of one folder in a row cost a lookup of their own name each, not of their whole
// path (on a 100,000-file first scan, path lookups were most of the kernel's time). The folder
// was opened through the root, symlinks refused, when its first path came; one swapped for a
// symlink after that is still read as the folder it was, as look() reads a file opened just
// before its folder was swapped. One per thread.
class BeneathLooker {
 public:
  explicit BeneathLooker(const BeneathRoot& root) : root_(root) {}
  Entry look(std::string_view rel);

 private:
  const BeneathRoot& root_;
  std::string dir_;           // the folder of the last path ("" the root)
  sandbox::UniqueFd dir_fd_;  // dir_, O_PATH; invalid when it could not be opened
};

// Reads `fd` to its end into `out`. False with errno set on a read error.
bool read_to_end(int fd, std::string& out);

// Reads the first `size` bytes of `fd` (fewer if it ends before) into `out`, as git reads a file:
// the size its stat said. What was appended since that stat is left for the next scan, whose stat
// then differs. Saves the read that finds the end: one system call per small file. False with
// errno set on a read error.
bool read_size(int fd, std::size_t size, std::string& out);

}  // namespace candor::snapshot
