#include "tests/kernel_facts.h"

#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <string>

namespace candor::testing {
namespace {

template <typename Body>
bool in_child(const Body& body) {
  pid_t pid = ::fork();
  if (pid < 0) return false;
  if (pid == 0) ::_exit(body() ? 0 : 1);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

bool allow_all_filter_installs() {
  sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  sock_fprog prog{1, &allow};
  return ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
}

// The folder of this process's cgroup in the hierarchy that has the pids controller: a v1
// hierarchy mounted with "pids", else the v2 one when it offers pids.
std::string own_pids_cgroup_dir() {
  std::string v1_path, v2_path;
  std::ifstream cgroups("/proc/self/cgroup");
  for (std::string line; std::getline(cgroups, line);) {
    std::size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    std::string controllers = "," + line.substr(a + 1, b - a - 1) + ",";
    if (controllers.find(",pids,") != std::string::npos) v1_path = line.substr(b + 1);
    if (line.compare(0, a, "0") == 0 && controllers == ",,") v2_path = line.substr(b + 1);
  }
  std::ifstream mounts("/proc/self/mountinfo");
  std::string v2_dir;
  for (std::string line; std::getline(mounts, line);) {
    std::size_t dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    std::istringstream head(line.substr(0, dash)), tail(line.substr(dash + 3));
    std::string id, parent, devno, root, point, fstype, source, options;
    head >> id >> parent >> devno >> root >> point;
    tail >> fstype >> source >> options;
    if (fstype == "cgroup" && ("," + options + ",").find(",pids,") != std::string::npos && !v1_path.empty()) {
      return point + (v1_path == "/" ? "" : v1_path);
    }
    if (fstype == "cgroup2" && !v2_path.empty()) {
      std::ifstream controllers(point + "/cgroup.controllers");
      std::string word;
      while (controllers >> word) {
        if (word == "pids") v2_dir = point + (v2_path == "/" ? "" : v2_path);
      }
    }
  }
  return v2_dir;
}

// Whether a child cgroup with a pids limit can really be made in `dir` (write access alone can
// be refused by a read-only mount).
bool can_make_child_cgroup(const std::string& dir) {
  std::string child = dir + "/candor-test-probe-" + std::to_string(::getpid());
  if (::mkdir(child.c_str(), 0755) != 0) return false;
  std::ofstream max(child + "/pids.max");
  max << 8;
  max.close();
  bool limited = !max.fail();
  ::rmdir(child.c_str());
  return limited;
}

KernelFacts find_facts() {
  KernelFacts f;
  long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  f.landlock_abi = abi > 0 ? static_cast<int>(abi) : 0;
  f.network_namespace =
      in_child([] { return ::unshare(CLONE_NEWNET | CLONE_NEWNS | (::geteuid() == 0 ? 0 : CLONE_NEWUSER)) == 0; });
  f.seccomp_filter = in_child(allow_all_filter_installs);
  std::string dir = own_pids_cgroup_dir();
  if (!dir.empty() && can_make_child_cgroup(dir)) f.pids_cgroup = dir;
  return f;
}

}  // namespace

const KernelFacts& kernel_facts() {
  static const KernelFacts facts = find_facts();
  return facts;
}

void needs::fill(doctest::detail::TestCase& tc) const {
  if (available) return;
  tc.m_skip = true;
  tc.m_description = feature;
}

void needs::fill(doctest::detail::TestSuite& ts) const {
  if (available) return;
  ts.m_skip = true;
  ts.m_description = feature;
}

}  // namespace candor::testing
