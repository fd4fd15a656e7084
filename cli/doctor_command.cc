// `candor doctor`: which protections of the process sandbox this kernel gives this user.
#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "cli/commands.h"
#include "sandbox/pids_cgroup.h"
#include "sandbox/process_sandbox.h"

namespace candor::cli {
namespace {

struct Line {
  std::string name;
  bool on;
  std::string detail;
};

std::vector<Line> lines_for(const sandbox::Protections& p) {
  bool root = ::geteuid() == 0;
  auto cgroup = sandbox::pids_cgroup_parent();
  return {
      {"landlock", p.filesystem,
       p.filesystem ? fmt::format("ABI {}: writes only beneath the workspace and a private temporary folder; "
                                  "reads only system folders and PATH; no signals to candor",
                                  p.landlock_abi)
                    : "missing (kernel < 5.13 or Landlock not enabled): shell steps can write wherever you can"},
      {"namespaces", p.read_only_dirs,
       p.read_only_dirs ? std::string("network namespace (no network), mount namespace (.git, .candor and the store "
                                      "read-only; credential files read as empty), IPC namespace")
                        : std::string("missing (unprivileged user namespaces disabled): the network is closed by "
                                      "seccomp instead; .git and .candor are writable by shell steps")},
      {"pid-ns", p.pid_namespace,
       p.pid_namespace ? std::string("a PID namespace per step with its own /proc: everything a step starts dies with it, "
                                     "and with candor if candor is killed")
                       : std::string("missing: a step's processes are found through the cgroup only, and one that "
                                     "escaped it survives candor being killed")},
      {"sockets", p.unix_sockets != "none",
       p.unix_sockets == "landlock" ? std::string("Landlock: unix sockets outside the workspace cannot be connected to")
       : p.unix_sockets == "masked"
           ? std::string("unix sockets listening outside the workspace when a step starts are hidden from it (Landlock "
                         "ABI 9 would close the rest)")
           : std::string("missing: a step can connect to any unix socket the user can (a Docker or D-Bus socket)")},
      {"seccomp", p.seccomp,
       p.seccomp ? "kernel administration, io_uring and mount calls refused; socket families filtered without a "
                   "network namespace"
                 : "missing: no system-call filter"},
      {"network", p.network != "none", p.network == "none" ? "open: neither a namespace nor seccomp can close it" : "closed by " + p.network},
      {"processes", p.processes != "none",
       p.processes == "cgroup" ? fmt::format("pids cgroup under {}: a fork bomb stops at pids.max; no process outlives its step",
                                             cgroup.ok() ? *cgroup : std::string("?"))
       : p.processes == "rlimit"
           ? fmt::format("RLIMIT_NPROC only ({}); a process that calls setsid can outlive its step",
                         cgroup.ok() ? "" : cgroup.error().message)
           : fmt::format("none: root ignores RLIMIT_NPROC and {}", cgroup.ok() ? "?" : cgroup.error().message)},
      {"rlimits", p.rlimits, "CPU time, address space, file size, open files"},
      {"environment", p.env_scrubbed, "API keys and *_KEY/*_TOKEN/*_SECRET variables removed"},
      {"privileges", p.privileges_dropped,
       root ? "no_new_privs; running as root: capabilities cut to a small set (no CAP_SYS_ADMIN, CAP_SYS_RESOURCE, ...)"
            : "no_new_privs: setuid programs do not gain privileges"},
  };
}

}  // namespace

int doctor_command(bool json) {
  sandbox::Protections p = sandbox::probe_protections(sandbox::mechanisms_from_environment());
  auto lines = lines_for(p);
  if (json) {
    nlohmann::json j = p.to_json();
    nlohmann::json details = nlohmann::json::object();
    for (const auto& l : lines) details[l.name] = l.detail;
    j["details"] = details;
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("the process sandbox for shell steps and external evaluators, on this machine:\n\n");
    for (const auto& l : lines) std::printf("  %-12s %-4s %s\n", l.name.c_str(), l.on ? "yes" : "NO", l.detail.c_str());
    auto missing = p.missing();
    if (missing.empty()) {
      std::printf("\nevery protection is available: --require-sandbox will run\n");
    } else {
      std::string names;
      for (const auto& m : missing) names += (names.empty() ? "" : ", ") + m;
      std::printf("\nmissing: %s; runs say so in their report, and --require-sandbox refuses to run\n", names.c_str());
    }
  }
  return p.missing().empty() ? kExitSuccess : kExitPartial;
}

}  // namespace candor::cli
