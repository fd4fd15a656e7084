// A pids cgroup per sandboxed process: a ceiling on how many processes it may have (which, unlike
// RLIMIT_NPROC, also binds root), and a list of every one of them, threads included, so that none
// outlives the step even after leaving the process group. cgroup v2 where it has the pids
// controller, else v1's.
#pragma once

#include <string>

#include "core/result.h"
#include "sandbox/unique_fd.h"

namespace candor::sandbox {

// The folder new pids cgroups are made in (candor's own cgroup in the pids hierarchy), or an error
// saying why there is none (no pids controller, not writable).
Result<std::string> pids_cgroup_parent();

// SIGKILLs everything in the cgroup and returns once nothing in it runs: through cgroup.kill where
// the kernel has it (v2), else by killing every thread listed in `tasks` (a process whose main
// thread ended shows as a zombie in cgroup.procs while its other threads run on) until only the
// dead are left; a fork bomb that refills it meanwhile is killed too. Returns how many processes
// or threads it found alive.
int kill_cgroup(const std::string& dir);

// rmdir, after kill_cgroup(); retried briefly while the last processes are being reaped. False
// (errno set) when it is still there.
bool remove_cgroup(const std::string& dir);

// One step's cgroup, `parent`/candor-PID-N (see leftovers.h), locked while it lives. Owns it: the
// destructor kills what is in it and removes it.
class PidsCgroup {
 public:
  static Result<PidsCgroup> create(const std::string& parent, unsigned long long max_pids);
  PidsCgroup() = default;
  PidsCgroup(PidsCgroup&& other) noexcept;
  PidsCgroup& operator=(PidsCgroup&& other) noexcept;
  PidsCgroup(const PidsCgroup&) = delete;
  PidsCgroup& operator=(const PidsCgroup&) = delete;
  ~PidsCgroup() { reset(); }

  bool valid() const { return !dir_.empty(); }
  const std::string& dir() const { return dir_; }
  int procs_fd() const { return procs_.get(); }  // cgroup.procs, open for writing: a child joins by its pid
  int kill_all() const { return valid() ? kill_cgroup(dir_) : 0; }

 private:
  void reset();

  std::string dir_;
  UniqueFd procs_;
  UniqueFd lock_;
};

}  // namespace candor::sandbox
