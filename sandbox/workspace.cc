#include "sandbox/workspace.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <random>
#include <string_view>

#include <fmt/format.h>

#include "core/run_record.h"
#include "sandbox/blob_id.h"
#include "sandbox/credential_registry.h"

namespace candor::sandbox {
namespace {

Error refused(const std::string& path, const std::string& why) {
  return make_error(ErrorCode::kRefused, fmt::format("{}: {}", path, why));
}

Error from_errno(const std::string& path, int err, const char* what) {
  switch (err) {
    case ENOENT:
      return make_error(ErrorCode::kNotFound, fmt::format("{}: no such file or directory", path));
    case EXDEV:
      return refused(path, "resolves outside the workspace");
    case ELOOP:
      return refused(path, "symbolic link loop, or a link the sandbox does not follow");
    case ENOTDIR:
      return make_error(ErrorCode::kNotFound, fmt::format("{}: a component is not a directory", path));
    case EACCES:
    case EPERM:
      return make_error(ErrorCode::kIo, fmt::format("{}: permission denied ({})", path, what));
    case ENOSPC:
      return make_error(ErrorCode::kIo, fmt::format("{}: no space left on device ({})", path, what));
    default:
      return make_error(ErrorCode::kIo, fmt::format("{}: {} failed: {}", path, what, std::strerror(err)));
  }
}

EntryKind kind_of(mode_t mode) {
  if (S_ISREG(mode)) return EntryKind::kFile;
  if (S_ISDIR(mode)) return EntryKind::kDirectory;
  if (S_ISLNK(mode)) return EntryKind::kSymlink;
  return EntryKind::kOther;
}

std::vector<std::string> split_components(const std::string& normalized) {
  std::vector<std::string> parts;
  if (normalized == ".") return parts;
  std::size_t i = 0;
  while (i <= normalized.size()) {
    std::size_t j = normalized.find('/', i);
    if (j == std::string::npos) j = normalized.size();
    parts.push_back(normalized.substr(i, j - i));
    i = j + 1;
  }
  return parts;
}

bool is_reserved_component(const std::string& c) { return c == ".git" || c == ".candor"; }

std::string temp_name() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  return fmt::format(".candor-tmp-{:016x}", rng());
}

Status write_all(int fd, const std::string& content, const std::string& path) {
  std::size_t off = 0;
  while (off < content.size()) {
    ssize_t n = ::write(fd, content.data() + off, content.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return from_errno(path, errno, "write");
    }
    off += static_cast<std::size_t>(n);
  }
  return ok_status();
}

}  // namespace

bool in_candor_folder(std::string_view path) {
  for (std::size_t start = 0; start <= path.size();) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (path.substr(start, end - start) == ".candor") return true;
    start = end + 1;
  }
  return false;
}

Workspace::Workspace(std::string root, UniqueFd root_fd, bool use_openat2)
    : root_(std::move(root)), root_fd_(std::move(root_fd)), use_openat2_(use_openat2) {}

Result<std::unique_ptr<Workspace>> Workspace::open(const std::string& root, WorkspaceOptions options) {
  char resolved[PATH_MAX];
  if (::realpath(root.c_str(), resolved) == nullptr) {
    return make_error(ErrorCode::kNotFound, fmt::format("workspace {}: {}", root, std::strerror(errno)));
  }
  int fd = ::open(resolved, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return make_error(ErrorCode::kNotFound, fmt::format("workspace {} is not a directory", root));
  UniqueFd root_fd(fd);

  bool use_openat2 = !options.force_fallback;
  if (use_openat2) {
    struct open_how how {};
    how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
    long probe = ::syscall(SYS_openat2, root_fd.get(), ".", &how, sizeof(how));
    if (probe >= 0) {
      ::close(static_cast<int>(probe));
    } else if (errno == ENOSYS || errno == EPERM) {
      use_openat2 = false;  // old kernel, or a seccomp filter that blocks it
    }
  }

  std::unique_ptr<Workspace> ws(new Workspace(resolved, std::move(root_fd), use_openat2));
  struct stat st {};
  if (::fstat(ws->root_fd_.get(), &st) != 0) return from_errno(root, errno, "fstat");
  ws->root_dev_ = st.st_dev;
  ws->root_ino_ = st.st_ino;
  for (const char* name : {".git", ".candor"}) {
    if (::fstatat(ws->root_fd_.get(), name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
      if (S_ISDIR(st.st_mode)) ws->protected_.emplace_back(st.st_dev, st.st_ino);
      if (std::string_view(name) == ".git") ws->git_at_open_.emplace(st.st_dev, st.st_ino);
    }
    ws->protected_dirs_.push_back(ws->root_ + "/" + name);
  }
  for (const auto& dir : options.protected_dirs) {
    if (::stat(dir.c_str(), &st) == 0) ws->protected_.emplace_back(st.st_dev, st.st_ino);
    ws->protected_dirs_.push_back(dir);
  }
  ws->secrets_ = std::move(options.secrets);
  return ws;
}

Result<std::string> Workspace::check_relative(const std::string& path) {
  if (path.empty()) return refused("\"\"", "empty path");
  if (path.find('\0') != std::string::npos)
    return refused(path.substr(0, path.find('\0')) + "\\0...", "path contains a NUL byte");
  if (path.size() >= PATH_MAX) return refused(path.substr(0, 40) + "...", "path is too long");
  if (path.front() == '/')
    return refused(path, "absolute paths are not allowed; give a path relative to the workspace");
  std::string normalized = normalize_relative_path(path);
  if (normalized == ".." || normalized.rfind("../", 0) == 0) {
    return refused(path, "escapes the workspace");
  }
  return normalized;
}

Result<UniqueFd> Workspace::open_beneath(const std::string& normalized, int flags) const {
  if (!use_openat2_) return open_beneath_walk(normalized, flags);
  struct open_how how {};
  how.flags = static_cast<std::uint64_t>(flags | O_CLOEXEC);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  for (int attempt = 0; attempt < 8; ++attempt) {
    long fd = ::syscall(SYS_openat2, root_fd_.get(), normalized.c_str(), &how, sizeof(how));
    if (fd >= 0) return UniqueFd(static_cast<int>(fd));
    if (errno != EAGAIN && errno != EINTR) return from_errno(normalized, errno, "open");
  }
  return make_error(ErrorCode::kIo, fmt::format("{}: open kept being interrupted by renames", normalized));
}

Result<UniqueFd> Workspace::open_beneath_walk(const std::string& normalized, int flags) const {
  // The path is normalised and has no "..": each component is opened with O_NOFOLLOW relative to
  // the previous one, and symlinks are refused rather than resolved.
  std::vector<std::string> parts = split_components(normalized);
  UniqueFd cur(::openat(root_fd_.get(), ".", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!cur.valid()) return from_errno(".", errno, "open");
  for (std::size_t i = 0; i < parts.size(); ++i) {
    bool last = i + 1 == parts.size();
    struct stat st {};
    if (::fstatat(cur.get(), parts[i].c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      return from_errno(normalized, errno, "stat");
    }
    if (S_ISLNK(st.st_mode)) return refused(normalized, "symbolic links are not followed on this kernel (no openat2)");
    int f = last ? (flags | O_NOFOLLOW | O_CLOEXEC) : (O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int next = ::openat(cur.get(), parts[i].c_str(), f);
    if (next < 0) return from_errno(normalized, errno, "open");
    cur.reset(next);
  }
  if (parts.empty()) {
    int fd = ::openat(root_fd_.get(), ".", flags | O_CLOEXEC);
    if (fd < 0) return from_errno(".", errno, "open");
    cur.reset(fd);
  }
  return cur;
}

Result<bool> Workspace::leads_to_secret(int fd, const std::string& normalized, dev_t dev, ino_t ino) const {
  if (secrets_.refused(normalized)) return true;
  // A credential file of the run's start under any name: renamed, its folder moved, hard-linked.
  if (credentials_ != nullptr && credentials_->has_identity(dev, ino)) return true;
  char target[PATH_MAX];
  std::string link = "/proc/self/fd/" + std::to_string(fd);
  ssize_t n = ::readlink(link.c_str(), target, sizeof(target));
  if (n <= 0 || static_cast<std::size_t>(n) >= sizeof(target)) {
    // Without /proc (or past PATH_MAX) there is no telling where a symlink led: refuse, not guess.
    return make_error(
        ErrorCode::kRefused,
        fmt::format("{}: cannot tell whether it leads to a credential file ({} is unreadable)", normalized, link));
  }
  std::string resolved(target, static_cast<std::size_t>(n));
  if (resolved == root_) return false;
  constexpr std::string_view kDeleted = " (deleted)";  // unlinked since it was opened: judge the name it had
  if (resolved.size() > kDeleted.size() &&
      resolved.compare(resolved.size() - kDeleted.size(), kDeleted.size(), kDeleted) == 0) {
    resolved.resize(resolved.size() - kDeleted.size());
  }
  if (resolved.size() > root_.size() + 1 && resolved.compare(0, root_.size() + 1, root_ + "/") == 0) {
    return secrets_.refused(resolved.substr(root_.size() + 1));
  }
  // Not beneath the root as candor sees it (a bind mount, a moved folder): every component counts.
  std::size_t first = resolved.find_first_not_of('/');
  return looks_secret(first == std::string::npos ? std::string_view() : std::string_view(resolved).substr(first));
}

Result<std::pair<UniqueFd, EntryInfo>> Workspace::open_checked(const std::string& normalized) const {
  TRY(UniqueFd fd, open_beneath(normalized, O_PATH));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return from_errno(normalized, errno, "fstat");
  EntryInfo info{kind_of(st.st_mode), static_cast<std::int64_t>(st.st_size), static_cast<unsigned>(st.st_mode & 07777)};
  TRY(info.credential, leads_to_secret(fd.get(), normalized, st.st_dev, st.st_ino));
  return std::make_pair(std::move(fd), info);
}

Result<UniqueFd> Workspace::open_regular_file(const std::string& path, EntryInfo* info) const {
  TRY(std::string rel, check_relative(path));
  // Look before opening for real: opening a device or a FIFO can block or have side effects.
  TRY(auto opened, open_checked(rel));
  auto& [probe, what] = opened;
  if (what.kind == EntryKind::kDirectory) return refused(rel, "is a directory, not a file");
  if (what.kind != EntryKind::kFile) return refused(rel, "is not a regular file (device, FIFO or socket)");
  // Reopen the checked descriptor itself, not the path: the file read is the file checked.
  std::string self = "/proc/self/fd/" + std::to_string(probe.get());
  UniqueFd fd(::open(self.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!fd.valid()) return from_errno(rel, errno, "open");
  struct stat before {
  }, after{};
  if (::fstat(probe.get(), &before) != 0 || ::fstat(fd.get(), &after) != 0) return from_errno(rel, errno, "fstat");
  if (after.st_dev != before.st_dev || after.st_ino != before.st_ino || !S_ISREG(after.st_mode)) {
    return refused(rel, "changed while being opened");
  }
  // A copy of a credential file of the run's start, by its bytes: hashed only when its size is one
  // of theirs, through this descriptor, so the bytes checked are the bytes the caller reads.
  if (!what.credential && credentials_ != nullptr &&
      credentials_->has_size(static_cast<std::uint64_t>(after.st_size))) {
    auto id = git_blob_id_of(fd.get(), static_cast<std::size_t>(after.st_size));
    if (!id.ok()) return refused(rel, "changed while being opened");
    what.credential = credentials_->has_content_id(*id);
  }
  if (info != nullptr) *info = what;
  return fd;
}

namespace {

Result<std::string> read_all(int fd, const std::string& path, std::size_t max_bytes) {
  std::string out;
  char buf[65536];
  while (out.size() < max_bytes) {
    ssize_t n = ::read(fd, buf, std::min(sizeof(buf), max_bytes - out.size()));
    if (n < 0) {
      if (errno == EINTR) continue;
      return from_errno(path, errno, "read");
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace

Result<std::string> Workspace::read_file(const std::string& path, std::size_t max_bytes) const {
  EntryInfo info;
  TRY(UniqueFd fd, open_regular_file(path, &info));
  if (info.credential) return make_error(ErrorCode::kRefused, secret_refusal(path));
  return read_all(fd.get(), path, max_bytes);
}

Result<FileContent> Workspace::read_file_flagged(const std::string& path, std::size_t max_bytes) const {
  EntryInfo info;
  TRY(UniqueFd fd, open_regular_file(path, &info));
  TRY(std::string bytes, read_all(fd.get(), path, max_bytes));
  return FileContent{std::move(bytes), info.credential};
}

Result<UniqueFd> Workspace::open_directory(const std::string& path) const {
  TRY(std::string rel, check_relative(path));
  TRY(UniqueFd fd, open_beneath(rel, O_RDONLY | O_DIRECTORY));
  return fd;
}

Result<EntryInfo> Workspace::stat(const std::string& path) const {
  TRY(std::string rel, check_relative(path));
  TRY(auto opened, open_checked(rel));
  return opened.second;
}

Result<EntryInfo> Workspace::lstat(const std::string& path) const {
  TRY(std::string rel, check_relative(path));
  std::size_t slash = rel.rfind('/');
  if (rel == ".") return stat(rel);
  std::string parent = slash == std::string::npos ? "." : rel.substr(0, slash);
  std::string name = slash == std::string::npos ? rel : rel.substr(slash + 1);
  TRY(UniqueFd dir, open_beneath(parent, O_PATH | O_DIRECTORY));
  struct stat st {};
  if (::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return from_errno(rel, errno, "stat");
  if (!S_ISLNK(st.st_mode)) return stat(rel);
  EntryInfo info{EntryKind::kSymlink, static_cast<std::int64_t>(st.st_size), static_cast<unsigned>(st.st_mode & 07777)};
  info.credential = secrets_.refused(rel);
  return info;
}

Status Workspace::check_not_protected(int dir_fd, const std::string& path) const {
  // Walk up from the directory to the root: a symlinked directory cannot smuggle a write into
  // .git/ or the store, because the check is on inodes, not names.
  UniqueFd cur(::openat(dir_fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC));
  for (int depth = 0; cur.valid() && depth < 4096; ++depth) {
    struct stat st {};
    if (::fstat(cur.get(), &st) != 0) return from_errno(path, errno, "fstat");
    for (const auto& [dev, ino] : protected_) {
      if (st.st_dev == dev && st.st_ino == ino) {
        return refused(path, "is inside a protected directory (.git, .candor or the run store)");
      }
    }
    if (st.st_dev == root_dev_ && st.st_ino == root_ino_) return ok_status();
    cur.reset(::openat(cur.get(), "..", O_PATH | O_DIRECTORY | O_CLOEXEC));
  }
  return refused(path, "is not beneath the workspace");
}

Result<std::pair<UniqueFd, std::string>> Workspace::open_parent_for_write(const std::string& path) const {
  TRY(std::string rel, check_relative(path));
  if (rel == ".") return refused(path, "names the workspace itself, not a file");
  std::vector<std::string> parts = split_components(rel);
  for (const auto& p : parts) {
    if (is_reserved_component(p)) {
      return refused(rel, fmt::format("writes beneath {}/ are not allowed", p));
    }
  }
  std::string name = parts.back();
  parts.pop_back();
  std::string prefix = ".";
  TRY(UniqueFd dir, open_beneath(".", O_PATH | O_DIRECTORY));
  for (const auto& p : parts) {
    std::string next = prefix == "." ? p : prefix + "/" + p;
    auto opened = open_beneath(next, O_PATH | O_DIRECTORY);
    if (!opened.ok() && opened.error().code == ErrorCode::kNotFound) {
      // Create the missing directory in its (already confined) parent: a single name, no slash.
      if (::mkdirat(dir.get(), p.c_str(), 0755) != 0 && errno != EEXIST) return from_errno(next, errno, "mkdir");
      opened = open_beneath(next, O_PATH | O_DIRECTORY);
    }
    if (!opened.ok()) {
      // Name the path the caller gave, not the prefix that failed.
      const std::string& msg = opened.error().message;
      std::string why = msg.rfind(next + ": ", 0) == 0 ? msg.substr(next.size() + 2) : msg;
      return make_error(opened.error().code, fmt::format("{}: {}", rel, why));
    }
    dir = std::move(opened.value());
    prefix = next;
  }
  TRY_STATUS(check_not_protected(dir.get(), rel));
  return std::make_pair(std::move(dir), name);
}

Status Workspace::write_file(const std::string& path, const std::string& content,
                             std::optional<unsigned> wanted_mode) const {
  TRY(auto parent, open_parent_for_write(path));
  auto& [dir, name] = parent;
  // O_PATH fds cannot create files; reopen the same directory for real.
  UniqueFd real_dir(::openat(dir.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!real_dir.valid()) return from_errno(path, errno, "open directory");

  mode_t mode = 0644;
  struct stat st {};
  if (::fstatat(real_dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISLNK(st.st_mode)) return refused(path, "is a symbolic link; write to its target instead");
    if (S_ISDIR(st.st_mode)) return refused(path, "is a directory, not a file");
    if (!S_ISREG(st.st_mode)) return refused(path, "is not a regular file (device, FIFO or socket)");
    mode = st.st_mode & 07777;
  }
  if (wanted_mode) mode = static_cast<mode_t>(*wanted_mode & 07777);
  std::string tmp = temp_name();
  UniqueFd out(::openat(real_dir.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!out.valid()) return from_errno(path, errno, "create temporary file");
  Status written = write_all(out.get(), content, path);
  if (written.ok() && ::fchmod(out.get(), mode) != 0) written = from_errno(path, errno, "chmod");
  if (written.ok() && ::fdatasync(out.get()) != 0) written = from_errno(path, errno, "fdatasync");
  out.reset();
  if (written.ok() && ::renameat(real_dir.get(), tmp.c_str(), real_dir.get(), name.c_str()) != 0) {
    written = from_errno(path, errno, "rename");
  }
  if (!written.ok()) ::unlinkat(real_dir.get(), tmp.c_str(), 0);
  return written;
}

Status Workspace::delete_file(const std::string& path) const {
  TRY(auto parent, open_parent_for_write(path));
  auto& [dir, name] = parent;
  UniqueFd real_dir(::openat(dir.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!real_dir.valid()) return from_errno(path, errno, "open directory");
  struct stat st {};
  if (::fstatat(real_dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return from_errno(path, errno, "stat");
  if (S_ISDIR(st.st_mode)) return refused(path, "is a directory; file_delete removes files only");
  if (::unlinkat(real_dir.get(), name.c_str(), 0) != 0) return from_errno(path, errno, "unlink");
  return ok_status();
}

Status Workspace::set_mode(const std::string& path, unsigned mode) const {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  if (p == "." || p.empty()) {
    UniqueFd root(::openat(root_fd_.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!root.valid() || ::fchmod(root.get(), mode & 07777) != 0) return from_errno(".", errno, "chmod");
    return ok_status();
  }
  TRY(auto parent, open_parent_for_write(p));
  auto& [dir, name] = parent;
  UniqueFd real_dir(::openat(dir.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!real_dir.valid()) return from_errno(p, errno, "open directory");
  struct stat st {};
  if (::fstatat(real_dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return from_errno(p, errno, "stat");
  if (S_ISLNK(st.st_mode)) return refused(p, "is a symbolic link; its mode is not its own");
  // fchmodat cannot refuse a link on Linux: the stat above did, and nothing of a run is running.
  if (::fchmodat(real_dir.get(), name.c_str(), mode & 07777, 0) != 0) return from_errno(p, errno, "chmod");
  return ok_status();
}

Status Workspace::set_owner(const std::string& path, unsigned uid, unsigned gid) const {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  if (p == "." || p.empty()) {
    if (::fchownat(root_fd_.get(), "", uid, gid, AT_EMPTY_PATH) != 0) return from_errno(".", errno, "chown");
    return ok_status();
  }
  TRY(auto parent, open_parent_for_write(p));
  auto& [dir, name] = parent;
  if (::fchownat(dir.get(), name.c_str(), uid, gid, AT_SYMLINK_NOFOLLOW) != 0) return from_errno(p, errno, "chown");
  return ok_status();
}

Status Workspace::walk(const std::string& path, int max_depth, const std::function<bool(const WalkEntry&)>& visit,
                       const WalkIdentify& identify) const {
  TRY(std::string rel, check_relative(path));
  TRY(UniqueFd dir, open_directory(rel));
  bool stop = false;
  return walk_dir(dir.get(), rel == "." ? "" : rel, 1, max_depth, visit, identify, stop);
}

namespace {

// The kind a listing gives (d_type); nullopt when it does not say (DT_UNKNOWN: some file systems).
std::optional<EntryKind> listed_kind(unsigned char d_type) {
  switch (d_type) {
    case DT_REG:
      return EntryKind::kFile;
    case DT_DIR:
      return EntryKind::kDirectory;
    case DT_LNK:
      return EntryKind::kSymlink;
    case DT_UNKNOWN:
      return std::nullopt;
    default:
      return EntryKind::kOther;
  }
}

}  // namespace

Status Workspace::walk_dir(int dir_fd, const std::string& rel, int depth, int max_depth,
                           const std::function<bool(const WalkEntry&)>& visit, const WalkIdentify& identify,
                           bool& stop) const {
  int dup_fd = ::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dup_fd < 0) return from_errno(rel.empty() ? "." : rel, errno, "open directory");
  DIR* d = ::fdopendir(dup_fd);
  if (d == nullptr) {
    ::close(dup_fd);
    return from_errno(rel, errno, "opendir");
  }
  std::vector<std::pair<std::string, std::optional<EntryKind>>> names;
  while (struct dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n == "." || n == ".." || is_reserved_component(n)) continue;
    names.emplace_back(std::move(n), listed_kind(e->d_type));
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  for (const auto& [n, listed] : names) {
    if (stop) break;
    WalkEntry entry;
    entry.path = rel.empty() ? n : rel + "/" + n;
    entry.depth = depth;
    if (!identify || !listed || identify(entry.path)) {
      struct stat st {};
      if (::fstatat(dir_fd, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // vanished meanwhile
      entry.kind = kind_of(st.st_mode);
      entry.size = static_cast<std::int64_t>(st.st_size);
      entry.dev = static_cast<std::uint64_t>(st.st_dev);
      entry.ino = static_cast<std::uint64_t>(st.st_ino);
    } else {
      entry.kind = *listed;
      entry.identified = false;
    }
    if (!visit(entry)) {
      stop = true;
      break;
    }
    if (entry.kind == EntryKind::kDirectory && depth < max_depth) {
      UniqueFd child(::openat(dir_fd, n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (child.valid()) {
        TRY_STATUS(walk_dir(child.get(), entry.path, depth + 1, max_depth, visit, identify, stop));
      } else if (errno == EACCES && ::geteuid() != 0) {
        // A folder of another user's that this one cannot open is as closed to a step; but this
        // user's own can be chmod'ed open by a step, and what it holds was never seen.
        struct stat st {};
        if (::fstatat(dir_fd, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_uid == ::geteuid())
          return from_errno(entry.path, EACCES, "open directory (it is this user's: a step could open it)");
      }
    }
  }
  return ok_status();
}

}  // namespace candor::sandbox
