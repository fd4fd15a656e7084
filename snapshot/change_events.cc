#include "snapshot/change_events.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "snapshot/beneath.h"
#include "snapshot/workdir_walk.h"

namespace candor::snapshot {
namespace {

using sandbox::UniqueFd;

// What changes a folder's entries, or the folder itself. IN_CLOSE_WRITE beside IN_MODIFY: a write
// through a descriptor opened before the watch was placed still closes after it.
constexpr std::uint32_t kMask = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_DELETE_SELF |
                                IN_MOVE_SELF | IN_MOVED_FROM | IN_MOVED_TO | IN_ONLYDIR;

// How a reason names a folder: "a/b/", the root "./".
std::string folder_name(const std::string& rel) { return rel.empty() ? "./" : rel; }

// Keeps the first reason of its kind: the report names one, and the walk answers all of them.
void note(std::string& slot, std::string reason) {
  if (slot.empty()) slot = std::move(reason);
}

// Whether no walk ever enters `rel` ("a/b/"): a `.git` at any depth, the root's `.candor`.
bool never_walked(std::string_view rel, bool skip_candor_files) {
  if (skip_candor_files && rel.substr(0, 8) == ".candor/") return true;
  for (std::size_t start = 0; start < rel.size();) {
    std::size_t end = rel.find('/', start);
    if (end == std::string_view::npos) end = rel.size();
    if (rel.substr(start, end - start) == ".git") return true;
    start = end + 1;
  }
  return false;
}

bool beneath(std::string_view path, std::string_view folder) {
  return path.size() >= folder.size() && path.substr(0, folder.size()) == folder;
}

// The mount points beneath `root` ("/ws/sub", not `root` itself) in a /proc/self/mountinfo text:
// its fifth field, with git-style octal escapes ("\\040" for a space) undone.
std::set<std::string> mounts_beneath(const std::string& mountinfo, const std::string& root) {
  std::set<std::string> out;
  std::size_t line_start = 0;
  while (line_start < mountinfo.size()) {
    std::size_t line_end = mountinfo.find('\n', line_start);
    if (line_end == std::string::npos) line_end = mountinfo.size();
    std::string_view line(mountinfo.data() + line_start, line_end - line_start);
    line_start = line_end + 1;
    std::size_t field = 0, at = 0;
    for (; field < 4 && at != std::string_view::npos; ++field) {
      at = line.find(' ', at);
      if (at != std::string_view::npos) ++at;
    }
    if (at == std::string_view::npos) continue;
    std::string_view escaped = line.substr(at, line.find(' ', at) - at);
    std::string point;
    for (std::size_t i = 0; i < escaped.size(); ++i) {
      if (escaped[i] == '\\' && i + 3 < escaped.size()) {
        point +=
            static_cast<char>(((escaped[i + 1] - '0') << 6) | ((escaped[i + 2] - '0') << 3) | (escaped[i + 3] - '0'));
        i += 3;
      } else {
        point += escaped[i];
      }
    }
    if (point.size() > root.size() && point.compare(0, root.size(), root) == 0 && point[root.size()] == '/')
      out.insert(std::move(point));
  }
  return out;
}

// The whole of a /proc file read from its start ("" when it cannot be read).
std::string read_from_start(int fd) {
  std::string text;
  char chunk[16 * 1024];
  for (off_t at = 0;;) {
    ssize_t n = ::pread(fd, chunk, sizeof chunk, at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return text;
    text.append(chunk, static_cast<std::size_t>(n));
    at += n;
  }
}

}  // namespace

bool covers(const std::set<std::string>& changed, std::string_view path) {
  if (changed.count(std::string(path)) != 0) return true;
  for (std::size_t slash = path.find('/'); slash != std::string_view::npos; slash = path.find('/', slash + 1)) {
    if (changed.count(std::string(path.substr(0, slash + 1))) != 0) return true;
  }
  return false;
}

std::optional<std::set<std::string>> mounts_beneath_now(const std::string& root) {
  std::string canonical = root;
  if (char* real = ::realpath(root.c_str(), nullptr); real != nullptr) {
    canonical = real;
    std::free(real);
  }
  UniqueFd mountinfo(::open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC));
  if (!mountinfo.valid()) return std::nullopt;
  return mounts_beneath(read_from_start(mountinfo.get()), canonical);
}

const char* file_system_without_events(long fs_type) {
  struct Row {
    std::uint32_t magic;
    const char* name;
  };
  // Changes made by another client, a FUSE daemon or the host reach no inotify watch here.
  static constexpr Row kRows[] = {
      {0x6969, "nfs"},        {0x517B, "smb"},       {0xFF534D42, "cifs"},     {0xFE534D42, "smb2"},
      {0x65735546, "fuse"},   {0x01021997, "9p"},    {0x00C36400, "ceph"},     {0x5346414F, "afs"},
      {0x6B414653, "afs"},    {0x73757245, "coda"},  {0x01161970, "gfs2"},     {0x7461636F, "ocfs2"},
      {0x0BD00BD0, "lustre"}, {0x564C, "ncp"},       {0x19830326, "orangefs"}, {0x786F4256, "vboxsf"},
      {0x9FA0, "proc"},       {0x62656572, "sysfs"},
  };
  auto magic = static_cast<std::uint32_t>(fs_type);
  for (const Row& row : kRows) {
    if (row.magic == magic) return row.name;
  }
  return nullptr;
}

struct ChangeEvents::Impl {
  Impl(std::string path, BeneathRoot r, UniqueFd f, ChangeEventsOptions o)
      : root_path(std::move(path)), root(std::move(r)), inotify(std::move(f)), options(std::move(o)) {}

  std::string root_path;
  BeneathRoot root;
  UniqueFd inotify;
  ChangeEventsOptions options;
  // A mount over a watched folder is no event: the mount table, polled (POLLPRI says it changed),
  // and the mount points beneath the root as last read.
  UniqueFd mountinfo;
  std::set<std::string> mounts;

  std::mutex mu;                                 // what follows: add_watch() runs on a walk's threads
  std::unordered_map<int, std::string> folders;  // watch -> folder ("" the root, "a/b/")
  int root_watch = -1;
  std::set<dev_t> devices_checked;
  std::set<int> placed;  // watches placed or placed again by the drain under way
  // Why no drain can be complete any more (a folder not watched, a file system without events),
  // and why this one is not (the queue overflowed).
  std::string lasting_reason, reason_now;
  std::set<std::string> changed;

  bool watched_folder(std::string_view rel) const {
    if (never_walked(rel, options.skip_candor_files)) return false;
    return !options.enter || rel.empty() || options.enter(rel);
  }

  void check_file_system(int dir_fd, const std::string& rel);
  void place(int dir_fd, const std::string& rel);
  void watch_tree(const std::string& start);
  void read_events(std::vector<std::string>& appeared, std::vector<std::string>& went, bool& rewatch);
  void take(const struct inotify_event& ev, std::vector<std::string>& appeared, std::vector<std::string>& went,
            bool& rewatch);
  void forget_beneath(const std::vector<std::string>& went);
  bool mounts_changed();
};

// Whether a file system was mounted or unmounted beneath the root since the last look: what was
// watched is hidden, or what the mount hid is back, unwatched. Without /proc: the drain cannot tell.
bool ChangeEvents::Impl::mounts_changed() {
  if (!mountinfo.valid()) {
    note(reason_now, "the mount table (/proc/self/mountinfo) cannot be read");
    return true;
  }
  struct pollfd p {};
  p.fd = mountinfo.get();
  p.events = POLLPRI;
  if (::poll(&p, 1, 0) <= 0 || (p.revents & (POLLPRI | POLLERR)) == 0) return false;
  std::set<std::string> now = mounts_beneath(read_from_start(mountinfo.get()), root_path);
  if (now == mounts) return false;
  std::set<std::string> differ;
  std::set_symmetric_difference(now.begin(), now.end(), mounts.begin(), mounts.end(),
                                std::inserter(differ, differ.begin()));
  note(reason_now, fmt::format("a file system was mounted or unmounted at `{}`",
                               differ.begin()->substr(root_path.size() + 1) + "/"));
  mounts = std::move(now);
  return true;
}

void ChangeEvents::Impl::check_file_system(int dir_fd, const std::string& rel) {
  struct stat st {};
  if (::fstat(dir_fd, &st) != 0) return;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (!devices_checked.insert(st.st_dev).second) return;
  }
  long type = 0;
  if (options.fs_type) {
    type = options.fs_type(dir_fd);
  } else if (struct statfs fs{}; ::fstatfs(dir_fd, &fs) == 0) {
    type = static_cast<long>(fs.f_type);
  }
  if (const char* name = file_system_without_events(type)) {
    std::lock_guard<std::mutex> lock(mu);
    note(lasting_reason, fmt::format("`{}` is on a file system without change events ({})", folder_name(rel), name));
  }
}

void ChangeEvents::Impl::place(int dir_fd, const std::string& rel) {
  check_file_system(dir_fd, rel);
  // Through the descriptor: the folder the walk opened without following a symlink, not whatever
  // the path names by now.
  std::string self = fmt::format("/proc/self/fd/{}", dir_fd);
  std::lock_guard<std::mutex> lock(mu);
  if (options.max_watches != 0 && folders.size() >= options.max_watches) {
    note(lasting_reason,
         fmt::format("the limit of {} inotify watches was reached at `{}`", options.max_watches, folder_name(rel)));
    return;
  }
  int wd = ::inotify_add_watch(inotify.get(), self.c_str(), kMask);
  if (wd < 0) {
    if (errno == ENOSPC) {
      note(lasting_reason,
           fmt::format("the inotify watch limit (fs.inotify.max_user_watches) was reached at `{}`", folder_name(rel)));
    } else {
      note(lasting_reason, fmt::format("`{}` could not be watched: {}", folder_name(rel), std::strerror(errno)));
    }
    return;
  }
  folders[wd] = rel;  // placed again (a folder moved): its new path
  placed.insert(wd);
  if (rel.empty()) root_watch = wd;
}

void ChangeEvents::Impl::watch_tree(const std::string& start) {
  if (!watched_folder(start)) return;
  WalkOptions walk;
  walk.skip_candor_files = options.skip_candor_files;
  walk.stat_files_in = [](std::string_view) { return false; };  // the listing is all a watch needs
  walk.on_folder = [this](int dir_fd, const std::string& rel) { place(dir_fd, rel); };
  auto enter = [this](std::string_view dir) { return watched_folder(dir); };
  FileVisitor ignore_files = [](unsigned, const FileStat&) {};
  WalkResult walked = walk_workdir(root, start, enter, ignore_files, 2, walk);
  for (const auto& path : walked.unread) {
    if (path.empty() || path.back() != '/') continue;  // a file: the scan's own walk names it
    std::lock_guard<std::mutex> lock(mu);
    note(lasting_reason, fmt::format("`{}` could not be listed to watch it", path));
  }
}

void ChangeEvents::Impl::take(const struct inotify_event& ev, std::vector<std::string>& appeared,
                              std::vector<std::string>& went, bool& rewatch) {
  if (ev.mask & IN_Q_OVERFLOW) {
    note(reason_now, "the inotify queue overflowed");
    rewatch = true;  // a folder made meanwhile has no watch: place them all again
    return;
  }
  auto it = folders.find(ev.wd);
  if (it == folders.end()) return;  // a watch removed since: its folder's path is named already
  const std::string folder = it->second;
  if (ev.mask & IN_IGNORED) {
    folders.erase(it);
    if (ev.wd == root_watch) note(lasting_reason, "the workspace folder itself was removed or moved");
    return;
  }
  if (ev.mask & IN_UNMOUNT) {
    note(reason_now, fmt::format("a file system at `{}` was unmounted", folder_name(folder)));
    rewatch = true;  // what the mount hid is there now, unwatched
    return;
  }
  if (ev.len == 0 || ev.name[0] == '\0') {
    // The folder itself: its parent's watch names it, but nothing watches the root's parent.
    if (ev.wd != root_watch) return;
    if (ev.mask & (IN_DELETE_SELF | IN_MOVE_SELF))
      note(lasting_reason, "the workspace folder itself was removed or moved");
    if (ev.mask & IN_ATTRIB) note(reason_now, "the workspace folder's own mode or owner changed");
    return;
  }
  std::string path = folder + ev.name;
  if (options.skip_candor_files && path == ".candor") return;  // fingerprinted apart
  if (!(ev.mask & IN_ISDIR) || std::strcmp(ev.name, ".git") == 0) {
    changed.insert(std::move(path));  // a `.git` too: the caller fingerprints each it meets
    return;
  }
  path += '/';
  changed.insert(path);
  if (ev.mask & (IN_CREATE | IN_MOVED_TO)) appeared.push_back(path);
  if (ev.mask & (IN_DELETE | IN_MOVED_FROM)) went.push_back(path);
}

void ChangeEvents::Impl::read_events(std::vector<std::string>& appeared, std::vector<std::string>& went,
                                     bool& rewatch) {
  alignas(struct inotify_event) char buffer[64 * 1024];
  for (;;) {
    ssize_t n = ::read(inotify.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n <= 0) {
      note(reason_now, fmt::format("reading inotify events failed: {}", n < 0 ? std::strerror(errno) : "end of file"));
      rewatch = true;
      return;
    }
    std::lock_guard<std::mutex> lock(mu);
    for (ssize_t at = 0; at < n;) {
      const auto* ev = reinterpret_cast<const struct inotify_event*>(buffer + at);
      take(*ev, appeared, went, rewatch);
      at += static_cast<ssize_t>(sizeof(struct inotify_event) + ev->len);
    }
  }
}

// A folder gone from where it was watched keeps its watches (a watch follows the folder, not its
// path): those this drain did not place again (at a new path in the tree, or a new folder at the
// old path) are removed, or their events would name paths that no longer hold it.
void ChangeEvents::Impl::forget_beneath(const std::vector<std::string>& went) {
  if (went.empty()) return;
  std::lock_guard<std::mutex> lock(mu);
  for (auto it = folders.begin(); it != folders.end();) {
    bool stale = placed.count(it->first) == 0 &&
                 std::any_of(went.begin(), went.end(), [&](const std::string& w) { return beneath(it->second, w); });
    if (stale) {
      ::inotify_rm_watch(inotify.get(), it->first);  // fails harmlessly for a folder removed
      it = folders.erase(it);
    } else {
      ++it;
    }
  }
}

ChangeEvents::ChangeEvents(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ChangeEvents::~ChangeEvents() = default;

Result<std::unique_ptr<ChangeEvents>> ChangeEvents::start(const std::string& root, ChangeEventsOptions options) {
  TRY(BeneathRoot opened, BeneathRoot::open(root));
  UniqueFd fd(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
  if (!fd.valid()) {
    return make_error(ErrorCode::kUnavailable, fmt::format("no inotify instance: {}", std::strerror(errno)));
  }
  // The mount table names folders by their canonical path.
  std::string canonical = root;
  if (char* real = ::realpath(root.c_str(), nullptr); real != nullptr) {
    canonical = real;
    std::free(real);
  }
  auto impl = std::make_unique<Impl>(canonical, std::move(opened), std::move(fd), std::move(options));
  impl->mountinfo = UniqueFd(::open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC));
  if (impl->mountinfo.valid()) impl->mounts = mounts_beneath(read_from_start(impl->mountinfo.get()), canonical);
  return std::unique_ptr<ChangeEvents>(new ChangeEvents(std::move(impl)));
}

void ChangeEvents::add_watch(int dir_fd, const std::string& rel) { impl_->place(dir_fd, rel); }

void ChangeEvents::watch_tree(const std::string& start) { impl_->watch_tree(start); }

ChangeSet ChangeEvents::drain() {
  Impl& m = *impl_;
  std::vector<std::string> appeared, went;
  bool rewatch = false;
  {
    std::lock_guard<std::mutex> lock(m.mu);
    m.placed.clear();  // from here: placed by this drain, at the paths its events name
  }
  m.read_events(appeared, went, rewatch);
  if (m.mounts_changed()) rewatch = true;
  // A folder that appeared is watched now, and named whole: what was written in it before its watch
  // is for the caller's walk of it, which comes after this.
  if (rewatch) {
    m.watch_tree("");
  } else {
    for (const auto& dir : appeared) m.watch_tree(dir);
  }
  m.forget_beneath(went);

  std::lock_guard<std::mutex> lock(m.mu);
  ChangeSet out;
  out.changed_paths = std::move(m.changed);
  m.changed.clear();
  out.reason = m.lasting_reason;
  if (!m.reason_now.empty()) out.reason += (out.reason.empty() ? "" : "; ") + m.reason_now;
  m.reason_now.clear();
  out.complete = out.reason.empty();
  return out;
}

std::optional<ChangeEvents::WatchList> ChangeEvents::watch_list() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (!impl_->lasting_reason.empty() || !impl_->mountinfo.valid()) return std::nullopt;
  WatchList out;
  out.folders.reserve(impl_->folders.size());
  for (const auto& [wd, rel] : impl_->folders) out.folders.push_back(rel);
  std::sort(out.folders.begin(), out.folders.end());
  out.mounts = impl_->mounts;
  return out;
}

std::string ChangeEvents::watch_folders(const WatchList& list) {
  Impl& m = *impl_;
  if (!m.mountinfo.valid()) return "the mount table (/proc/self/mountinfo) cannot be read";
  if (m.mounts != list.mounts) return "a file system was mounted or unmounted beneath the workspace since";
  for (const auto& rel : list.folders) {
    if (!m.watched_folder(rel)) continue;
    std::string path = rel.empty() ? rel : rel.substr(0, rel.size() - 1);
    Opened dir = m.root.open(path, O_RDONLY | O_DIRECTORY);
    if (!dir.fd.valid()) {
      if (is_gone(dir.error)) continue;
      std::lock_guard<std::mutex> lock(m.mu);
      note(m.lasting_reason, fmt::format("`{}` could not be watched: {}", folder_name(rel), std::strerror(dir.error)));
      continue;
    }
    m.place(dir.fd.get(), rel);
  }
  std::lock_guard<std::mutex> lock(m.mu);
  return m.lasting_reason;
}

std::size_t ChangeEvents::watch_count() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->folders.size();
}

}  // namespace candor::snapshot
