#include "snapshot/store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <string_view>

#include <fmt/format.h>

#include "sandbox/unique_fd.h"

namespace candor::snapshot {
namespace {

using sandbox::UniqueFd;

// A repository's objects folder, the root's or a nested one's.
bool is_objects(std::string_view path) {
  constexpr std::string_view kObjects = ".git/objects";
  return path == kObjects ||
         (path.size() > kObjects.size() && path.substr(path.size() - kObjects.size() - 1) == "/.git/objects");
}

StatFingerprint fingerprint(const struct stat& st) {
  StatFingerprint f;
  f.type = S_ISREG(st.st_mode) ? 'f' : S_ISDIR(st.st_mode) ? 'd' : S_ISLNK(st.st_mode) ? 'l' : 'o';
  f.size = static_cast<std::int64_t>(st.st_size);
  f.mode = st.st_mode & 07777;
  f.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  f.ctime_ns = static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1'000'000'000 + st.st_ctim.tv_nsec;
  f.inode = static_cast<std::uint64_t>(st.st_ino);
  return f;
}

// Records `name` (relative `path`) in the folder `dir_fd`, and everything beneath it.
void capture(int dir_fd, const char* name, const std::string& path, ProtectedState& out) {
  struct stat st {};
  if (::fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno != ENOENT) out.unread.push_back(path);
    return;
  }
  bool objects = is_objects(path) && S_ISDIR(st.st_mode);
  // Of .git/objects only that it is still a folder: objects come with every commit and alone
  // change nothing. Its info/ folder is watched: info/alternates points git at other objects.
  out.entries[path] = objects ? StatFingerprint{.type = 'd'} : fingerprint(st);
  if (!S_ISDIR(st.st_mode)) return;
  UniqueFd fd(::openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  DIR* d = fd.valid() ? ::fdopendir(fd.get()) : nullptr;
  if (d == nullptr) {
    out.unread.push_back(path + "/");
    return;
  }
  fd.release();  // the DIR owns it now
  errno = 0;
  while (struct dirent* e = ::readdir(d)) {
    bool wanted = objects ? std::strcmp(e->d_name, "info") == 0
                          : std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0;
    if (wanted) capture(::dirfd(d), e->d_name, path + "/" + e->d_name, out);
    errno = 0;
  }
  if (errno != 0) out.unread.push_back(path + "/");
  ::closedir(d);
}

bool beneath(std::string_view path, std::string_view dir) {
  return path.size() > dir.size() && path.substr(0, dir.size()) == dir && path[dir.size()] == '/';
}

// What recording a commit legitimately changes.
bool commit_may_change(const std::string& path) {
  for (std::string_view exact :
       {".git/index", ".git/COMMIT_EDITMSG", ".git/ORIG_HEAD", ".git/packed-refs", ".git/logs", ".git/refs/heads"}) {
    if (path == exact) return true;
  }
  return beneath(path, ".git/logs") || beneath(path, ".git/refs/heads");
}

const char* type_word(char type) {
  switch (type) {
    case 'f':
      return "a file";
    case 'd':
      return "a folder";
    case 'l':
      return "a symlink";
    default:
      return "a special file";
  }
}

// The sentence for a change of `path` from `a` to `b`; empty when nothing a person cares about
// changed. A folder's times and size move whenever an entry in it comes or goes; those entries
// are reported themselves.
std::string describe(const std::string& path, const StatFingerprint& a, const StatFingerprint& b) {
  if (a.type != b.type) return fmt::format("`{}` was replaced by {}", path, type_word(b.type));
  bool content = a.size != b.size || a.mtime_ns != b.mtime_ns || a.inode != b.inode;
  if (a.type == 'd') content = a.inode != b.inode;
  if (content) return fmt::format("`{}` was modified", path);
  if (a.mode != b.mode) return fmt::format("`{}` had its permissions changed", path);
  if (a.type != 'd' && a.ctime_ns != b.ctime_ns) return fmt::format("`{}` was modified", path);
  return "";
}

// Whether `path`'s parent, present in `from`, is absent from `to` or of another type there: one
// sentence for the parent then says it for the whole subtree.
bool parent_reported(const std::string& path, const std::map<std::string, StatFingerprint>& from,
                     const std::map<std::string, StatFingerprint>& to) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return false;
  std::string parent = path.substr(0, slash);
  auto in_from = from.find(parent);
  auto in_to = to.find(parent);
  return in_from != from.end() && (in_to == to.end() || in_to->second.type != in_from->second.type);
}

}  // namespace

Result<ProtectedState> capture_protected_state(const std::string& workspace_root,
                                               const std::set<std::string>& nested_git) {
  UniqueFd root(::open(workspace_root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!root.valid()) {
    return make_error(ErrorCode::kIo, fmt::format("cannot open {}: {}", workspace_root, std::strerror(errno)));
  }
  ProtectedState state;
  capture(root.get(), ".git", ".git", state);
  capture(root.get(), ".candor", ".candor", state);
  for (const auto& path : nested_git) {
    std::size_t slash = path.rfind('/');
    if (slash == std::string::npos || path.substr(slash + 1) != ".git") continue;
    // The folder holding it, opened a component at a time without following a link: one swapped
    // for a link since the scan leads elsewhere, and what is there is not this workspace's.
    UniqueFd dir(::dup(root.get()));
    bool reached = dir.valid();
    std::string_view rest(path.data(), slash);
    while (reached && !rest.empty()) {
      std::size_t next = rest.find('/');
      std::string part(rest.substr(0, next));
      dir.reset(::openat(dir.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      reached = dir.valid();
      rest = next == std::string_view::npos ? std::string_view() : rest.substr(next + 1);
    }
    if (reached) capture(dir.get(), ".git", path, state);  // else gone with its folder: absent
  }
  return state;
}

namespace {

std::vector<std::string> changes_between(const ProtectedState& before, const ProtectedState& after,
                                         const std::function<bool(const std::string&)>& allowed) {
  std::map<std::string, std::string> sentences;  // by path, so they come out in path order
  for (const auto& [path, b] : after.entries) {
    auto it = before.entries.find(path);
    if (allowed(path)) continue;
    if (it == before.entries.end()) {
      if (!parent_reported(path, after.entries, before.entries))
        sentences[path] = fmt::format("`{}` was created during the run", path);
    } else if (std::string s = describe(path, it->second, b); !s.empty()) {
      sentences[path] = s;
    }
  }
  for (const auto& [path, a] : before.entries) {
    if (after.entries.count(path) != 0 || allowed(path) || parent_reported(path, before.entries, after.entries))
      continue;
    sentences[path] = fmt::format("`{}` was deleted during the run", path);
  }
  for (const auto& path : after.unread) {
    sentences[path] = fmt::format("`{}` could not be read, so a change to it cannot be ruled out", path);
  }
  std::vector<std::string> out;
  for (auto& [path, s] : sentences) out.push_back(std::move(s));
  return out;
}

// What an agent's own git commands record as a matter of course, beyond a commit's changes.
bool agent_git_may_change(const std::string& path) {
  if (commit_may_change(path)) return true;
  for (std::string_view exact :
       {".git/FETCH_HEAD", ".git/refs/remotes", ".git/refs/tags", ".git/refs/stash", ".git/MERGE_HEAD",
        ".git/MERGE_MSG", ".git/MERGE_MODE", ".git/AUTO_MERGE", ".git/CHERRY_PICK_HEAD", ".git/REVERT_HEAD",
        ".git/HEAD", ".git/rebase-merge", ".git/rebase-apply", ".git/index.lock"}) {
    if (path == exact) return true;
  }
  return beneath(path, ".git/refs/remotes") || beneath(path, ".git/refs/tags") || beneath(path, ".git/rebase-merge") ||
         beneath(path, ".git/rebase-apply");
}

}  // namespace

std::vector<std::string> protected_changes(const ProtectedState& before, const ProtectedState& after,
                                           bool history_recorded) {
  return changes_between(before, after,
                         [&](const std::string& path) { return history_recorded && commit_may_change(path); });
}

std::vector<std::string> protected_changes_by_agent(const ProtectedState& before, const ProtectedState& after) {
  return changes_between(before, after, agent_git_may_change);
}

nlohmann::json to_json(const ProtectedState& state) {
  nlohmann::json entries = nlohmann::json::object();
  for (const auto& [path, f] : state.entries) {
    entries[path] = {std::string(1, f.type), f.size, f.mode, f.mtime_ns, f.ctime_ns, f.inode};
  }
  return {{"entries", entries}, {"unread", state.unread}};
}

ProtectedState protected_state_from_json(const nlohmann::json& j) {
  ProtectedState state;
  if (!j.is_object()) return state;
  if (j.contains("entries") && j["entries"].is_object()) {
    for (const auto& [path, v] : j["entries"].items()) {
      if (!v.is_array() || v.size() != 6 || !v[0].is_string() || v[0].get_ref<const std::string&>().size() != 1)
        continue;
      bool numbers = true;
      for (std::size_t i = 1; i < 6; ++i) numbers = numbers && v[i].is_number_integer();
      if (!numbers) continue;
      StatFingerprint f;
      f.type = v[0].get_ref<const std::string&>()[0];
      f.size = v[1].get<std::int64_t>();
      f.mode = v[2].get<std::uint32_t>();
      f.mtime_ns = v[3].get<std::int64_t>();
      f.ctime_ns = v[4].get<std::int64_t>();
      f.inode = v[5].get<std::uint64_t>();
      state.entries[path] = f;
    }
  }
  if (j.contains("unread") && j["unread"].is_array()) {
    for (const auto& u : j["unread"]) {
      if (u.is_string()) state.unread.push_back(u.get<std::string>());
    }
  }
  return state;
}

}  // namespace candor::snapshot
