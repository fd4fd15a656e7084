// The process sandbox every shell step and external evaluator runs in: Landlock (write only beneath
// the workspace and a private temporary directory), a mount namespace that makes .git, .candor and
// the store read-only and credential files empty, no network (a network namespace, else a seccomp
// filter on socket families), rlimits, a pids cgroup, a scrubbed environment and no privileges.
//
// Split in two because the child of a multithreaded fork may only make system calls: prepare()
// runs in the parent and allocates everything; apply_in_child() runs between fork and exec.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "sandbox/secret_files.h"
#include "sandbox/unique_fd.h"

namespace candor::sandbox {

struct ProcessLimits {
  std::uint64_t cpu_seconds = 0;                    // RLIMIT_CPU; 0: the timeout, rounded up, plus one
  std::uint64_t memory_bytes = 4ULL << 30;          // RLIMIT_AS
  std::uint64_t file_size_bytes = 1ULL << 30;       // RLIMIT_FSIZE
  std::uint64_t processes = 256;                    // pids.max, and RLIMIT_NPROC above the user's count
  std::uint64_t open_files = 1024;                  // RLIMIT_NOFILE
};

// Which mechanisms to try. All on in production; tests turn one off to exercise a fallback.
struct Mechanisms {
  bool landlock = true;
  bool namespaces = true;  // network and mount namespaces (with a user namespace when not root)
  bool seccomp = true;
  bool cgroup = true;
};

struct SandboxPolicy {
  bool enabled = true;  // false: only the process group, timeout and output cap
  std::string workspace;                    // absolute
  bool workspace_writable = true;           // false: readable only (external evaluators)
  std::vector<std::string> read_only_dirs;  // absolute, beneath the workspace: .git, .candor, a store
  std::vector<std::string> secret_files;    // absolute, beneath the workspace: shown empty
  std::vector<std::string> read_paths;      // readable and executable besides the defaults
  bool allow_network = false;
  ProcessLimits limits;
  std::vector<std::string> pass_env;  // variable names kept even when they look like credentials
  Mechanisms mechanisms;
  bool require_all = false;  // --require-sandbox: prepare() fails when any protection is missing
};

// What protects a process: offered by the kernel (probe) or active for one run.
struct Protections {
  int landlock_abi = 0;          // 0: no Landlock
  bool filesystem = false;       // Landlock confines writes
  bool read_only_dirs = false;   // mount namespace: .git/.candor/store read-only, secrets empty
  std::string network;           // "namespace", "seccomp", "allowed" or "none"
  bool seccomp = false;          // the syscall filter (kernel-administration calls, socket families)
  std::string processes;         // "cgroup", "rlimit" or "none" (root ignores RLIMIT_NPROC)
  bool rlimits = false;          // CPU, AS, FSIZE, NOFILE
  bool env_scrubbed = false;
  bool privileges_dropped = false;  // no_new_privs, and a root caller's capabilities bounded

  // Names of the protections that are missing ("landlock", "namespaces", ...); empty when all are on.
  std::vector<std::string> missing() const;
  nlohmann::json to_json() const;
};

// CANDOR_SANDBOX_DISABLE=landlock,namespaces,seccomp,cgroup: mechanisms to pretend this kernel
// lacks, to see what a run looks like on an older machine. It can only take protection away.
Mechanisms mechanisms_from_environment();

// What this kernel offers to this user. Forks short-lived children to try namespaces and seccomp.
Protections probe_protections(const Mechanisms& mechanisms = {});

// What a process run under `policy` will have on this kernel (the probe, less what the policy
// turns off): recorded once per run.
Protections expected_protections(const SandboxPolicy& policy);

// The environment a sandboxed process gets: candor's own, without credentials (by name or by value:
// looks_like_credential_variable, looks_like_credential_value in secret_files.h) unless named in
// `pass_env`; TMPDIR set to `tmp_dir`.
std::vector<std::string> scrubbed_environment(char** environ_in, const std::vector<std::string>& pass_env,
                                              const std::string& tmp_dir);

// Everything apply_in_child() needs, built in the parent. Owns a private temporary directory and a
// pids cgroup, both removed by the destructor (after kill_all()).
class PreparedSandbox {
 public:
  static Result<PreparedSandbox> prepare(const SandboxPolicy& policy, std::uint64_t timeout_s);
  PreparedSandbox(PreparedSandbox&&) noexcept;
  PreparedSandbox& operator=(PreparedSandbox&&) noexcept;
  ~PreparedSandbox();

  const std::vector<std::string>& environment() const { return env_; }
  const Protections& active() const { return active_; }
  const std::string& tmp_dir() const { return tmp_dir_; }

  // In the child, after fork, before exec. Only system calls. Returns 0, or an errno with `what`
  // naming the failed step.
  int apply_in_child(const char** what) const;

  // In the parent, after the child ended: kills what is left in the cgroup (a process that left
  // the process group with setsid). Returns how many processes it killed.
  int kill_all() const;

 private:
  PreparedSandbox() = default;
  void release();

  Protections active_;
  std::vector<std::string> env_;
  std::string tmp_dir_;
  UniqueFd landlock_ruleset_;
  std::string cgroup_dir_;
  UniqueFd cgroup_procs_;
  std::vector<unsigned char> seccomp_program_;  // struct sock_filter[]
  bool unshare_user_ = false;
  bool unshare_net_ = false;
  bool unshare_mount_ = false;
  std::string uid_map_, gid_map_;
  std::vector<std::pair<std::string, unsigned long>> read_only_binds_;  // with the flags to keep
  std::vector<std::string> masked_files_;
  std::vector<int> caps_to_drop_;
  struct Rlimit {
    int resource;
    std::uint64_t value;
  };
  std::vector<Rlimit> rlimits_;
};

}  // namespace candor::sandbox
