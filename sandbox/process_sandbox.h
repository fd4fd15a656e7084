// The process sandbox every shell step and external evaluator runs in: Landlock (write only beneath
// the workspace and a private temporary directory), a PID namespace whose init dies with candor, a
// mount namespace that makes .git, .candor and the store read-only and credential files and unix
// sockets outside the workspace unreachable, an IPC namespace, no network (a network namespace, else
// a seccomp filter on socket families), rlimits, a pids cgroup, a scrubbed environment and no
// privileges.
//
// Split in two because the child of a multithreaded fork may only make system calls: prepare()
// runs in the parent and allocates everything; apply_in_child() runs between fork and exec.
#pragma once

#include <sys/types.h>

#include <compare>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "sandbox/pids_cgroup.h"
#include "sandbox/secret_files.h"
#include "sandbox/step_temp_dir.h"
#include "sandbox/unique_fd.h"

namespace candor::sandbox {

struct ProcessLimits {
  std::uint64_t cpu_seconds = 0;               // RLIMIT_CPU; 0: the timeout, rounded up, plus one
  std::uint64_t memory_bytes = 4ULL << 30;     // RLIMIT_AS
  std::uint64_t file_size_bytes = 1ULL << 30;  // RLIMIT_FSIZE
  std::uint64_t processes = 256;               // pids.max, and RLIMIT_NPROC above the user's count
  std::uint64_t open_files = 1024;             // RLIMIT_NOFILE
};

// Which mechanisms to try. All on in production; tests turn one off to exercise a fallback.
struct Mechanisms {
  bool landlock = true;
  bool namespaces = true;  // network, mount, IPC and PID namespaces (with a user namespace when not root)
  bool seccomp = true;
  bool cgroup = true;
};

struct FileIdentity {
  std::uint64_t dev = 0;
  std::uint64_t ino = 0;
  auto operator<=>(const FileIdentity&) const = default;
};

struct SandboxPolicy {
  bool enabled = true;                      // false: only the process group, timeout and output cap
  std::string workspace;                    // absolute
  bool workspace_writable = true;           // false: readable only (external evaluators)
  std::vector<std::string> read_only_dirs;  // absolute: .git, .candor (beneath the workspace), the store
  std::vector<std::string> secret_files;    // absolute, beneath the workspace: shown empty
  // The credential files found when the run started, by identity: wherever a step moves one, it is
  // masked again before the next (refresh_secret_files in workspace_policy.h).
  std::vector<FileIdentity> secret_identities;
  std::string secret_scan_error;        // the walk that found them could not see everything: no step runs
  std::vector<std::string> read_paths;  // readable and executable besides the defaults
  // Never readable, whatever the read paths: the run store (snapshots hold the workspace's .env),
  // the reviewer's criterion file. Absolute, outside the workspace (callers refuse one inside it:
  // a write rule cannot be narrowed).
  std::vector<std::string> hidden_paths;
  bool allow_network = false;
  ProcessLimits limits;
  std::vector<std::string> pass_env;  // variable names kept even when they look like credentials
  Mechanisms mechanisms;
  bool require_all = false;  // --require-sandbox: prepare() fails when any protection is missing
};

// What protects a process: offered by the kernel (probe) or active for one run.
struct Protections {
  int landlock_abi = 0;         // 0: no Landlock
  bool filesystem = false;      // Landlock confines writes
  bool read_only_dirs = false;  // mount and IPC namespaces: .git/.candor/store read-only, secrets empty
  bool pid_namespace = false;   // its own /proc; everything in it dies with the step, and with candor
  std::string unix_sockets;     // pathname sockets outside the workspace: "landlock", "masked" or "none"
  std::string network;          // "namespace", "seccomp", "allowed" or "none"
  bool seccomp = false;         // the syscall filter (kernel-administration calls, socket families)
  std::string processes;        // "cgroup", "rlimit" or "none" (root ignores RLIMIT_NPROC)
  bool rlimits = false;         // CPU, AS, FSIZE, NOFILE
  bool env_scrubbed = false;
  bool privileges_dropped = false;  // no_new_privs, and a root caller's capabilities bounded

  // Names of the protections that are missing ("landlock", "namespaces", ...); empty when all are on.
  std::vector<std::string> missing() const;
  nlohmann::json to_json() const;
};

// CANDOR_SANDBOX_DISABLE=landlock,namespaces,seccomp,cgroup: mechanisms to pretend this kernel
// lacks, to see what a run looks like on an older machine. It can only take protection away.
Mechanisms mechanisms_from_environment();

// What this kernel offers to this user. Forks short-lived children to try namespaces and seccomp
// (20-40 ms); they call only async-signal-safe functions, so the probe may run on a thread beside
// others (a run's start probes while it opens the workspace and the snapshot store).
Protections probe_protections(const Mechanisms& mechanisms = {});

// What a process run under `policy` will have on this kernel (the probe, less what the policy
// turns off): recorded once per run.
Protections expected_protections(const SandboxPolicy& policy);
// The same from a probe already made: `probed` is probe_protections(policy.mechanisms).
Protections expected_protections(const SandboxPolicy& policy, const Protections& probed);

// The environment a sandboxed process gets: candor's own, without credentials (by name or by value:
// looks_like_credential_variable, looks_like_credential_value in secret_files.h) unless named in
// `pass_env`; TMPDIR set to `tmp_dir`.
std::vector<std::string> scrubbed_environment(char** environ_in, const std::vector<std::string>& pass_env,
                                              const std::string& tmp_dir);

// The read rules for `paths` that reach nothing of `hidden`. Landlock can only grant access, so a
// path containing a hidden one is replaced by its entries that do not contain one (recursively:
// ~/.local becomes ~/.local/bin, ~/.local/lib, ..., ~/.local/state/<everything but candor>); a
// path that is or lies beneath a hidden one is dropped. Symlinks are resolved first (a rule
// follows them too); paths that do not resolve are dropped (add_rule would skip them anyway).
std::vector<std::string> read_rules_around(const std::vector<std::string>& paths,
                                           const std::vector<std::string>& hidden);

// The folders a process run under `policy` may read and execute beside its workspace and its own
// temporary folder: the read rules Landlock is given (resolved, around the hidden paths).
std::vector<std::string> readable_roots(const SandboxPolicy& policy);

// Everything apply_in_child() needs, built in the parent. Owns a private temporary directory and a
// pids cgroup, both removed when it goes (the cgroup emptied first). Every member moves itself.
class PreparedSandbox {
 public:
  static Result<PreparedSandbox> prepare(const SandboxPolicy& policy, std::uint64_t timeout_s);

  const std::vector<std::string>& environment() const { return env_; }
  const Protections& active() const { return active_; }
  const std::string& tmp_dir() const { return tmp_dir_.path(); }

  // The namespaces (CLONE_NEW* flags) the child must be created in, 0 for none. With CLONE_NEWPID
  // the child is the namespace's init: it applies the sandbox, starts the command as its own child
  // and ends when that ends, and the kernel then kills everything left in the namespace.
  int clone_flags() const { return namespaces_; }
  bool pid_namespace() const;

  // In the child, after fork, before exec. Only system calls. Returns 0, or an errno with `what`
  // naming the failed step.
  int apply_in_child(const char** what) const;
  // The rlimits, which apply_in_child() leaves to the command itself when it runs as the child of
  // a PID namespace's init. Only system calls; 0 or an errno.
  int apply_limits_in_child(const char** what) const;

  // In the parent, after the child ended: kills what is left in the cgroup (a process that left
  // the process group with setsid, a thread of a process whose main thread ended). Returns how
  // many it killed.
  int kill_all() const { return cgroup_.kill_all(); }

  // In the parent, once nothing of the process is left: removes the protected folders (.git,
  // .candor) that did not exist when it started and exist now, and returns their names relative
  // to the workspace. A step may not create them: the next run would read a planted config.
  std::vector<std::string> remove_created_protected() const;

 private:
  struct Rlimit {
    int resource;
    std::uint64_t value;
  };

  PreparedSandbox() = default;

  // prepare()'s parts, in its order; each records in active_ what it could set up.
  void private_cache(const SandboxPolicy& policy);
  Status prepare_landlock(const SandboxPolicy& policy);  // sets active_.landlock_abi
  void prepare_namespaces(const SandboxPolicy& policy);
  void prepare_seccomp(const SandboxPolicy& policy);
  void prepare_limits(const SandboxPolicy& policy, std::uint64_t timeout_s);  // the cgroup and the rlimits
  void prepare_capabilities();

  Protections active_;
  std::vector<std::string> env_;
  StepTempDir tmp_dir_;
  PidsCgroup cgroup_;  // after tmp_dir_: emptied before the folder goes
  UniqueFd landlock_ruleset_;
  std::vector<unsigned char> seccomp_program_;  // struct sock_filter[]
  int namespaces_ = 0;
  int shared_network_ = -1;        // borrowed: a network namespace to join instead of CLONE_NEWNET
  std::string uid_map_, gid_map_;  // with a user namespace
  std::vector<std::pair<std::string, unsigned long>> read_only_binds_;  // with the flags to keep
  std::vector<std::string> masked_;  // credential files and unix sockets: /dev/null bound over each, read-only
  unsigned long mask_flags_ = 0;     // the flags of /dev/null's mount, kept by the read-only remount
  bool private_dev_shm_ = false;     // an empty /dev/shm: no other process's shared memory
  std::string workspace_;
  std::vector<std::string> absent_protected_;  // protected folders that did not exist at prepare()
  std::vector<int> caps_to_drop_;
  std::vector<Rlimit> rlimits_;
};

}  // namespace candor::sandbox
