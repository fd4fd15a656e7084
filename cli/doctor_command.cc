// `candor doctor`: which protections of the process sandbox this kernel gives this user, and where
// the run store is and how much it holds.
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "core/disk_usage.h"
#include "sandbox/pids_cgroup.h"
#include "sandbox/process_sandbox.h"
#include "snapshot/gc.h"
#include "store/run_store.h"

namespace candor::cli {
namespace {

struct DoctorArgs {
  std::string store_dir;
  bool json = false;
};

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

// The store as it is: never created or written by looking at it.
nlohmann::json store_facts(const std::string& given) {
  std::string dir = given.empty() ? store::default_store_dir() : given;
  nlohmann::json j = {{"path", dir}, {"exists", std::filesystem::exists(dir + "/candor.db")}};
  if (!j["exists"].get<bool>()) return j;
  snapshot::SnapshotUsage snapshots = snapshot::snapshot_usage(dir);
  DiskUsage database{};
  for (const char* name : {"/candor.db", "/candor.db-wal", "/candor.db-shm"}) database.bytes += disk_usage(dir + name).bytes;
  j["bytes"] = disk_usage(dir).bytes;
  j["database_bytes"] = database.bytes;
  j["snapshot_repositories"] = snapshots.repositories;
  j["snapshot_bytes"] = snapshots.bytes;
  j["stale_index_locks"] = snapshots.stale_index_locks;
  auto opened = store::RunStore::open(dir);
  auto runs = opened.ok() ? (*opened)->count_runs() : Result<std::int64_t>(opened.error());
  if (runs.ok()) {
    j["runs"] = *runs;
  } else {
    j["runs"] = nullptr;
    j["error"] = runs.error().message;
  }
  return j;
}

void print_store(const nlohmann::json& s) {
  std::printf("\nthe run store:\n\n  %-12s %s\n", "location", s["path"].get<std::string>().c_str());
  if (!s["exists"].get<bool>()) {
    std::printf("  %-12s none yet (the first run creates it)\n", "size");
    return;
  }
  std::printf("  %-12s %s on disk: database %s, %zu snapshot repositor%s %s\n", "size",
              human_bytes(s["bytes"].get<std::uint64_t>()).c_str(), human_bytes(s["database_bytes"].get<std::uint64_t>()).c_str(),
              s["snapshot_repositories"].get<std::size_t>(), s["snapshot_repositories"].get<std::size_t>() == 1 ? "y" : "ies",
              human_bytes(s["snapshot_bytes"].get<std::uint64_t>()).c_str());
  if (std::size_t stale = s["stale_index_locks"].size(); stale > 0) {
    std::printf("  %-12s %zu snapshot repositor%s keep%s the index.lock of a run killed while saving: runs there no longer\n"
                "  %-12s save their stat cache and re-hash what changed (slower, not wrong); candor gc removes it\n",
                "index", stale, stale == 1 ? "y" : "ies", stale == 1 ? "s" : "", "");
  }
  if (s["runs"].is_null()) {
    std::printf("  %-12s unknown: %s\n", "runs", s.value("error", "?").c_str());
  } else {
    std::printf("  %-12s %lld (candor gc --keep N or --older-than AGE removes old ones)\n", "runs", s["runs"].get<long long>());
  }
}

int doctor_command(const DoctorArgs& args) {
  bool json = args.json;
  sandbox::Protections p = sandbox::probe_protections(sandbox::mechanisms_from_environment());
  auto lines = lines_for(p);
  if (json) {
    nlohmann::json j = p.to_json();
    nlohmann::json details = nlohmann::json::object();
    for (const auto& l : lines) details[l.name] = l.detail;
    j["details"] = details;
    j["store"] = store_facts(args.store_dir);
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
    print_store(store_facts(args.store_dir));
  }
  return p.missing().empty() ? kExitSuccess : kExitPartial;
}

}  // namespace

Subcommand add_doctor_command(CLI::App& app) {
  auto args = std::make_shared<DoctorArgs>();
  auto* cmd = app.add_subcommand("doctor", "which sandbox protections this machine gives shell steps, and the run store's size");
  cmd->add_option("--store", args->store_dir, "run store folder");
  cmd->add_flag("--json", args->json, "print JSON");
  cmd->footer(examples("candor doctor", "candor doctor --json"));
  return {cmd, [args] { return doctor_command(*args); }, nullptr};
}

}  // namespace candor::cli
