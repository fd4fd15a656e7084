#include "snapshot/beneath.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <optional>
#include <vector>

#include <fmt/format.h>

namespace candor::snapshot {
namespace {

using sandbox::UniqueFd;

Opened failed(int error) { return Opened{UniqueFd(), error}; }

Opened openat2_beneath(int root, const std::string& rel, int flags) {
  struct open_how how {};
  how.flags = static_cast<std::uint64_t>(flags | O_CLOEXEC);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  const char* path = rel.empty() ? "." : rel.c_str();
  for (int attempt = 0; attempt < 8; ++attempt) {
    long fd = ::syscall(SYS_openat2, root, path, &how, sizeof(how));
    if (fd >= 0) return Opened{UniqueFd(static_cast<int>(fd)), 0};
    // EAGAIN: a rename raced the lookup, which RESOLVE_BENEATH then cannot vouch for; try again.
    if (errno != EAGAIN && errno != EINTR) return failed(errno);
  }
  return failed(EAGAIN);
}

std::vector<std::string> components(const std::string& rel) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= rel.size()) {
    std::size_t slash = rel.find('/', start);
    if (slash == std::string::npos) slash = rel.size();
    if (slash > start) out.push_back(rel.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

}  // namespace

Result<BeneathRoot> BeneathRoot::open(const std::string& root, bool force_fallback) {
  UniqueFd fd(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return make_error(ErrorCode::kIo, fmt::format("cannot open {}: {}", root, std::strerror(errno)));
  bool openat2 = !force_fallback;
  if (openat2) {
    Opened probe = openat2_beneath(fd.get(), "", O_PATH | O_DIRECTORY);
    // ENOSYS: an old kernel; EPERM: a seccomp filter that blocks openat2.
    if (!probe.fd.valid() && (probe.error == ENOSYS || probe.error == EPERM)) openat2 = false;
  }
  return BeneathRoot(std::move(fd), openat2);
}

Opened BeneathRoot::open(const std::string& rel, int flags) const {
  return openat2_ ? openat2_beneath(fd_.get(), rel, flags) : open_walk(rel, flags);
}

Opened BeneathRoot::open_walk(const std::string& rel, int flags) const {
  // Each folder on the way is opened with O_NOFOLLOW | O_DIRECTORY relative to the one before:
  // a symlink there fails (ELOOP or ENOTDIR) instead of being followed.
  std::vector<std::string> parts = components(rel);
  UniqueFd cur(::openat(fd_.get(), ".", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!cur.valid()) return failed(errno);
  if (parts.empty()) {
    UniqueFd self(::openat(fd_.get(), ".", flags | O_CLOEXEC));
    return self.valid() ? Opened{std::move(self), 0} : failed(errno);
  }
  for (std::size_t i = 0; i < parts.size(); ++i) {
    bool last = i + 1 == parts.size();
    int f = last ? (flags | O_NOFOLLOW | O_CLOEXEC) : (O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int next = ::openat(cur.get(), parts[i].c_str(), f);
    if (next < 0) return failed(errno);
    cur.reset(next);
  }
  return Opened{std::move(cur), 0};
}

Entry BeneathRoot::look(const std::string& rel) const { return BeneathLooker(*this).look(rel); }

namespace {

// The symlink `name` in `dir` and where it points, read from the link itself (O_PATH |
// O_NOFOLLOW opens a symlink), so the stat and the target are of one link. nullopt: it is not
// a symlink (any more), look again.
std::optional<Entry> read_symlink(int dir, const char* name) {
  Entry e;
  UniqueFd link(::openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC));
  if (!link.valid() || ::fstat(link.get(), &e.st) != 0) {
    if (is_gone(errno)) return std::nullopt;
    e.kind = Entry::Kind::kUnreadable;
    e.error = errno;
    return e;
  }
  if (!S_ISLNK(e.st.st_mode)) return std::nullopt;
  std::vector<char> buf(static_cast<std::size_t>(e.st.st_size) + 1);
  ssize_t n = ::readlinkat(link.get(), "", buf.data(), buf.size());
  if (n < 0) {
    e.kind = Entry::Kind::kUnreadable;
    e.error = errno;
    return e;
  }
  if (static_cast<std::size_t>(n) == buf.size()) return std::nullopt;  // grew meanwhile
  e.kind = Entry::Kind::kSymlink;
  e.target.assign(buf.data(), static_cast<std::size_t>(n));
  return e;
}

}  // namespace

Entry BeneathRoot::look_in(int dir, const char* name) {
  Entry e;
  for (int attempt = 0; attempt < 4; ++attempt) {
    // Opened for reading straight away, and what was opened is then asked what it is: one path
    // lookup, and nothing can be swapped in between. O_NOFOLLOW refuses a symlink (ELOOP);
    // O_NONBLOCK keeps a FIFO from blocking the open and O_NOCTTY a terminal from becoming ours.
    // A FIFO or device met here is closed unread: the walk found a regular file there, so it was
    // swapped in since.
    UniqueFd file(::openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    if (!file.valid()) {
      int error = errno;
      if (is_gone(error) && error != ELOOP) {
        e.kind = Entry::Kind::kGone;
        return e;
      }
      // A symlink (ELOOP), or something that cannot be opened: a socket (ENXIO), a file or FIFO
      // we may not read (EACCES). Only a regular file or a symlink can be unreadable.
      if (::fstatat(dir, name, &e.st, AT_SYMLINK_NOFOLLOW) != 0) {
        e.kind = is_gone(errno) ? Entry::Kind::kGone : Entry::Kind::kUnreadable;
        e.error = errno;
        return e;
      }
      if (S_ISLNK(e.st.st_mode)) {
        if (auto link = read_symlink(dir, name)) return std::move(*link);
        continue;  // swapped meanwhile: look again
      }
      if (!S_ISREG(e.st.st_mode)) {
        e.kind = Entry::Kind::kGone;
        return e;
      }
      if (error == ELOOP) continue;  // a symlink then, a file now: look again
      e.kind = Entry::Kind::kUnreadable;
      e.error = error;
      return e;
    }
    if (::fstat(file.get(), &e.st) != 0) {
      e.kind = Entry::Kind::kUnreadable;
      e.error = errno;
      return e;
    }
    if (!S_ISREG(e.st.st_mode)) {
      e.kind = Entry::Kind::kGone;  // a folder, a FIFO, a device: not a file git can hold there
      return e;
    }
    e.kind = Entry::Kind::kFile;
    e.fd = std::move(file);
    return e;
  }
  e.kind = Entry::Kind::kGone;  // it kept changing under us; the next scan looks again
  return e;
}

Entry BeneathLooker::look(std::string_view rel) {
  std::size_t slash = rel.rfind('/');
  std::string_view dir = slash == std::string_view::npos ? std::string_view() : rel.substr(0, slash);
  std::string name(slash == std::string_view::npos ? rel : rel.substr(slash + 1));
  Entry e;
  if (!dir_fd_.valid() || dir != dir_) {
    Opened opened = root_.open(std::string(dir), O_PATH | O_DIRECTORY);
    dir_fd_ = std::move(opened.fd);
    dir_.assign(dir);
    if (!dir_fd_.valid()) {  // not kept: the next path of this folder tries again
      e.kind = is_gone(opened.error) ? Entry::Kind::kGone : Entry::Kind::kUnreadable;
      e.error = opened.error;
      return e;
    }
  }
  if (name.empty()) return e;  // the root, or a path ending in '/': not a file
  return BeneathRoot::look_in(dir_fd_.get(), name.c_str());
}

bool read_to_end(int fd, std::string& out) {
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) return true;
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    out.append(buf, static_cast<std::size_t>(n));
  }
}

bool read_size(int fd, std::size_t size, std::string& out) {
  out.resize(size);
  std::size_t got = 0;
  while (got < size) {
    ssize_t n = ::read(fd, out.data() + got, size - got);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    got += static_cast<std::size_t>(n);
  }
  out.resize(got);
  return true;
}

}  // namespace candor::snapshot
