#include "sandbox/pids_cgroup.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/deadline.h"
#include "sandbox/leftovers.h"

namespace candor::sandbox {
namespace {

struct Mount {
  std::string point;
  std::string fstype;
  std::string super_options;
};

std::vector<Mount> cgroup_mounts() {
  std::vector<Mount> out;
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    // id parent major:minor root point options [optional...] - fstype source super_options
    std::size_t dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    std::istringstream head(line.substr(0, dash)), tail(line.substr(dash + 3));
    std::string id, parent, devno, root, point;
    head >> id >> parent >> devno >> root >> point;
    Mount m;
    std::string source;
    tail >> m.fstype >> source >> m.super_options;
    if (m.fstype != "cgroup" && m.fstype != "cgroup2") continue;
    m.point = point;
    out.push_back(std::move(m));
  }
  return out;
}

// Our path in the v1 hierarchy with `controller`, or in v2 ("0::/path").
std::string own_cgroup(const std::string& controller) {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    std::size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    std::string controllers = line.substr(a + 1, b - a - 1);
    bool match = controller.empty() ? (line.substr(0, a) == "0" && controllers.empty())
                                    : ("," + controllers + ",").find("," + controller + ",") != std::string::npos;
    if (match) return line.substr(b + 1);
  }
  return {};
}

bool has_word(const std::string& list, const std::string& word, char sep) {
  std::string padded = sep + list + sep;
  return padded.find(sep + word + sep) != std::string::npos;
}

std::string read_small(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

Result<std::string> pids_cgroup_parent() {
  std::string reason = "no cgroup hierarchy with the pids controller is mounted";
  for (const auto& m : cgroup_mounts()) {
    std::string dir;
    if (m.fstype == "cgroup2") {
      std::string controllers = read_small(m.point + "/cgroup.controllers");
      if (!controllers.empty() && controllers.back() == '\n') controllers.pop_back();
      if (!has_word(controllers, "pids", ' ')) continue;
      dir = m.point + own_cgroup("");
    } else if (has_word(m.super_options, "pids", ',')) {
      dir = m.point + own_cgroup("pids");
    } else {
      continue;
    }
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    if (::access(dir.c_str(), W_OK) == 0) return dir;
    reason = fmt::format("{} is not writable by this user", dir);
  }
  return make_error(ErrorCode::kUnavailable, reason);
}

namespace {

// How long killing a cgroup's processes may wait for them to be gone (a kill is not instant).
constexpr int kKillWaitS = 10;

// The state letter of a thread or process ('R', 'S', 'Z', ...), '?' when it is gone.
char state_of(const std::string& tid) {
  std::ifstream stat("/proc/" + tid + "/stat");
  std::string line;
  std::getline(stat, line);
  std::size_t paren = line.rfind(')');
  return paren == std::string::npos || paren + 2 >= line.size() ? '?' : line[paren + 2];
}

// cgroup v2: one write kills everything in it, threads included; then wait until it is empty.
int kill_with_cgroup_kill(const std::string& dir) {
  int alive = 0;
  {
    std::ifstream procs(dir + "/cgroup.procs");
    std::string pid;
    while (procs >> pid) ++alive;
  }
  std::ofstream(dir + "/cgroup.kill") << "1";
  const Deadline deadline = Deadline::in_seconds(system_clock(), kKillWaitS);
  while (!deadline.passed()) {
    if (read_small(dir + "/cgroup.events").find("populated 0") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return alive;
}

// cgroup v1: every thread in `tasks` (kill() on a thread's id signals its whole process, even when
// the main thread is a zombie), again until only zombies are left: they run no code.
int kill_every_task(const std::string& dir) {
  int killed = 0;
  const Deadline deadline = Deadline::in_seconds(system_clock(), kKillWaitS);
  while (!deadline.passed()) {
    std::ifstream tasks(dir + "/tasks");
    if (!tasks) break;
    bool any = false;
    std::string tid;
    while (tasks >> tid) {
      char state = state_of(tid);
      if (state == 'Z' || state == 'X' || state == '?') continue;
      any = true;
      if (::kill(static_cast<pid_t>(std::stol(tid)), SIGKILL) == 0) ++killed;
    }
    if (!any) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return killed;
}

}  // namespace

int kill_cgroup(const std::string& dir) {
  if (::access((dir + "/cgroup.kill").c_str(), W_OK) == 0) return kill_with_cgroup_kill(dir);
  return kill_every_task(dir);
}

bool remove_cgroup(const std::string& dir) {
  for (int i = 0; i < 200; ++i) {
    if (::rmdir(dir.c_str()) == 0 || errno == ENOENT) return true;
    if (errno != EBUSY) return false;
    kill_cgroup(dir);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

Result<PidsCgroup> PidsCgroup::create(const std::string& parent, unsigned long long max_pids) {
  static std::atomic<unsigned> counter{0};
  PidsCgroup c;
  std::string dir = fmt::format("{}/{}{}", parent, owned_prefix("candor"), counter++);
  if (::mkdir(dir.c_str(), 0755) != 0)
    return make_error(ErrorCode::kUnavailable, fmt::format("cgroup: mkdir {}: {}", dir, std::strerror(errno)));
  c.dir_ = dir;  // from here on, c removes it
  std::ofstream max(dir + "/pids.max");
  max << max_pids;
  max.close();
  if (!max) return make_error(ErrorCode::kUnavailable, fmt::format("cgroup: cannot set {}/pids.max", dir));
  c.procs_.reset(::open((dir + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC));
  if (!c.procs_.valid())
    return make_error(ErrorCode::kUnavailable, fmt::format("cgroup: {}/cgroup.procs: {}", dir, std::strerror(errno)));
  TRY(c.lock_, hold_folder_lock(dir));
  return c;
}

PidsCgroup::PidsCgroup(PidsCgroup&& other) noexcept
    : dir_(std::exchange(other.dir_, {})), procs_(std::move(other.procs_)), lock_(std::move(other.lock_)) {}

PidsCgroup& PidsCgroup::operator=(PidsCgroup&& other) noexcept {
  if (this != &other) {
    reset();
    dir_ = std::exchange(other.dir_, {});
    procs_ = std::move(other.procs_);
    lock_ = std::move(other.lock_);
  }
  return *this;
}

void PidsCgroup::reset() {
  if (dir_.empty()) return;
  kill_cgroup(dir_);
  procs_.reset();
  remove_cgroup(dir_);
  lock_.reset();
  dir_.clear();
}

}  // namespace candor::sandbox
