#include "app/doctor.h"

#include <unistd.h>

#include <filesystem>

#include <fmt/format.h>

#include "core/disk_usage.h"
#include "sandbox/pids_cgroup.h"
#include "sandbox/process_sandbox.h"
#include "snapshot/gc.h"
#include "store/run_store.h"

namespace candor::app {
namespace {

std::vector<Protection> lines_for(const sandbox::Protections& p) {
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
       p.pid_namespace
           ? std::string("a PID namespace per step with its own /proc: everything a step starts dies with it, "
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
      {"network", p.network != "none",
       p.network == "none" ? "open: neither a namespace nor seccomp can close it" : "closed by " + p.network},
      {"processes", p.processes != "none",
       p.processes == "cgroup"
           ? fmt::format("pids cgroup under {}: a fork bomb stops at pids.max; no process outlives its step",
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
  if (store::StoreLocation where = store::store_location(given); !where.url.empty()) {
    // The team store: what it holds is the server's to say; the snapshots are in the folder here.
    nlohmann::json j = {{"url", store::masked_store_url(where.url)}, {"snapshots", where.dir}};
    auto opened = store::RunStore::open(given);
    auto runs = opened.ok() ? (*opened)->count_runs() : Result<std::int64_t>(opened.error());
    j["exists"] = runs.ok();
    j["runs"] = runs.ok() ? nlohmann::json(*runs) : nlohmann::json(nullptr);
    if (!runs.ok()) j["error"] = runs.error().message;
    return j;
  }
  std::string dir = given.empty() ? store::default_store_dir() : given;
  nlohmann::json j = {{"path", dir}, {"exists", std::filesystem::exists(dir + "/candor.db")}};
  if (!j["exists"].get<bool>()) return j;
  snapshot::SnapshotUsage snapshots = snapshot::snapshot_usage(dir);
  DiskUsage database{};
  for (const char* name : {"/candor.db", "/candor.db-wal", "/candor.db-shm"})
    database.bytes += disk_usage(dir + name).bytes;
  j["bytes"] = disk_usage(dir).bytes;
  j["database_bytes"] = database.bytes;
  j["snapshot_repositories"] = snapshots.repositories;
  j["snapshot_bytes"] = snapshots.bytes;
  j["stale_index_locks"] = snapshots.stale_index_locks;
  snapshot::WorktreeRecordsUsage records = snapshot::worktree_records_usage(dir);
  j["worktree_records"] = records.records;
  j["worktree_record_bytes"] = records.bytes;
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

}  // namespace

DoctorReport doctor(const DoctorRequest& request) {
  sandbox::Protections p = sandbox::probe_protections(sandbox::mechanisms_from_environment());
  return {lines_for(p), p.missing(), p.to_json(), store_facts(request.store_dir)};
}

nlohmann::json to_json(const DoctorReport& report) {
  nlohmann::json j = report.probe;
  nlohmann::json details = nlohmann::json::object();
  for (const auto& l : report.protections) details[l.name] = l.detail;
  j["details"] = details;
  j["store"] = report.store;
  return j;
}

}  // namespace candor::app
