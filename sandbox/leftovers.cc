#include "sandbox/leftovers.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "sandbox/pids_cgroup.h"

namespace candor::sandbox {
namespace {

namespace fs = std::filesystem;

// The pid in "PREFIX-PID-...", or 0 when the name is not of that form.
pid_t owner_of(const std::string& name, const std::string& prefix) {
  if (name.compare(0, prefix.size() + 1, prefix + "-") != 0) return 0;
  std::size_t start = prefix.size() + 1, end = name.find('-', start);
  if (end == std::string::npos || end == start || end - start > 9) return 0;
  std::string digits = name.substr(start, end - start);
  if (digits.find_first_not_of("0123456789") != std::string::npos) return 0;
  return static_cast<pid_t>(std::stol(digits));
}

bool alive(pid_t pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

// Leftovers in `dir` named PREFIX-PID-...: each is handed to `remove` when its candor is gone.
template <typename Remove>
void sweep(const std::string& dir, const std::string& prefix, LeftoverReport& report, const Remove& remove) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    pid_t pid = owner_of(name, prefix);
    if (pid <= 0 || alive(pid) || !entry.is_directory(ec) || entry.is_symlink(ec)) continue;
    auto lock = hold_folder_lock(entry.path().string());
    if (!lock.ok()) continue;  // held: a live candor this PID namespace cannot see
    if (std::string why = remove(entry.path().string()); why.empty()) {
      report.removed.push_back(entry.path().string());
    } else {
      report.errors.push_back(fmt::format("{}: {}", entry.path().string(), why));
    }
  }
}

}  // namespace

std::string owned_prefix(const std::string& prefix) { return fmt::format("{}-{}-", prefix, ::getpid()); }

Result<UniqueFd> hold_folder_lock(const std::string& dir) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return make_error(ErrorCode::kIo, fmt::format("{}: {}", dir, std::strerror(errno)));
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0)
    return make_error(ErrorCode::kIo, fmt::format("{}: locked: {}", dir, std::strerror(errno)));
  return fd;
}

LeftoverReport remove_leftovers() {
  LeftoverReport report;
  std::error_code ec;
  fs::path tmp = fs::temp_directory_path(ec);
  if (!ec) {
    sweep(tmp.string(), "candor-step", report, [](const std::string& path) {
      std::error_code rm;
      fs::remove_all(path, rm);
      return rm ? rm.message() : std::string();
    });
  }
  if (auto parent = pids_cgroup_parent(); parent.ok()) {
    sweep(*parent, "candor", report, [](const std::string& path) {
      kill_cgroup(path);
      return remove_cgroup(path) ? std::string() : std::string(std::strerror(errno));
    });
  }
  return report;
}

}  // namespace candor::sandbox
