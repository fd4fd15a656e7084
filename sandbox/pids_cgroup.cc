#include "sandbox/pids_cgroup.h"

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
#include <vector>

#include <fmt/format.h>

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

// A zombie is dead already: killing it "succeeds" forever, and only its parent can reap it.
bool is_zombie(pid_t pid) {
  std::ifstream stat(fmt::format("/proc/{}/stat", pid));
  std::string line;
  std::getline(stat, line);
  std::size_t paren = line.rfind(')');
  return paren == std::string::npos || paren + 2 >= line.size() || line[paren + 2] == 'Z' || line[paren + 2] == 'X';
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

Result<std::string> create_pids_cgroup(const std::string& parent, unsigned long long max_pids) {
  static std::atomic<unsigned> counter{0};
  std::string dir = fmt::format("{}/candor-{}-{}", parent, ::getpid(), counter++);
  if (::mkdir(dir.c_str(), 0755) != 0)
    return make_error(ErrorCode::kUnavailable, fmt::format("cgroup: mkdir {}: {}", dir, std::strerror(errno)));
  std::ofstream max(dir + "/pids.max");
  max << max_pids;
  max.close();
  if (!max) {
    ::rmdir(dir.c_str());
    return make_error(ErrorCode::kUnavailable, fmt::format("cgroup: cannot set {}/pids.max", dir));
  }
  return dir;
}

int kill_cgroup(const std::string& dir) {
  int killed = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream procs(dir + "/cgroup.procs");
    if (!procs) break;
    bool any = false;
    pid_t pid;
    while (procs >> pid) {
      if (is_zombie(pid)) continue;
      any = true;
      if (::kill(pid, SIGKILL) == 0) ++killed;
    }
    if (!any) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return killed;
}

void remove_cgroup(const std::string& dir) {
  for (int i = 0; i < 200; ++i) {
    if (::rmdir(dir.c_str()) == 0 || errno == ENOENT) return;
    if (errno != EBUSY) return;
    kill_cgroup(dir);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace candor::sandbox
