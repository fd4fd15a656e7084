#include "verify/beneath.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include <fmt/format.h>

namespace candor::verify {
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

Entry BeneathRoot::look(const std::string& rel) const {
  Entry e;
  for (int attempt = 0; attempt < 4; ++attempt) {
    // O_PATH | O_NOFOLLOW opens a trailing symlink itself (even under RESOLVE_NO_SYMLINKS), and
    // opening by O_PATH has no side effects on FIFOs or devices.
    Opened probe = open(rel, O_PATH | O_NOFOLLOW);
    if (!probe.fd.valid()) {
      e.kind = is_gone(probe.error) ? Entry::Kind::kGone : Entry::Kind::kUnreadable;
      e.error = probe.error;
      return e;
    }
    if (::fstat(probe.fd.get(), &e.st) != 0) {
      e.kind = Entry::Kind::kUnreadable;
      e.error = errno;
      return e;
    }
    if (S_ISLNK(e.st.st_mode)) {
      std::vector<char> buf(static_cast<std::size_t>(e.st.st_size) + 1);
      ssize_t n = ::readlinkat(probe.fd.get(), "", buf.data(), buf.size());
      if (n < 0) {
        e.kind = Entry::Kind::kUnreadable;
        e.error = errno;
        return e;
      }
      if (static_cast<std::size_t>(n) == buf.size()) continue;  // grew meanwhile: look again
      e.kind = Entry::Kind::kSymlink;
      e.target.assign(buf.data(), static_cast<std::size_t>(n));
      return e;
    }
    if (!S_ISREG(e.st.st_mode)) {
      e.kind = Entry::Kind::kGone;
      return e;
    }
    Opened file = open(rel, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (!file.fd.valid()) {
      if (file.error == ELOOP || is_gone(file.error)) continue;  // swapped meanwhile: look again
      e.kind = Entry::Kind::kUnreadable;
      e.error = file.error;
      return e;
    }
    struct stat now {};
    if (::fstat(file.fd.get(), &now) != 0 || now.st_dev != e.st.st_dev || now.st_ino != e.st.st_ino) continue;
    e.st = now;
    e.kind = Entry::Kind::kFile;
    e.fd = std::move(file.fd);
    return e;
  }
  e.kind = Entry::Kind::kGone;  // it kept changing under us; the next scan looks again
  return e;
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

}  // namespace candor::verify
