// A pids cgroup per sandboxed process: a ceiling on how many processes it may have (which, unlike
// RLIMIT_NPROC, also binds root), and a list of every one of them, so that none outlives the step
// even after leaving the process group. cgroup v2 where it has the pids controller, else v1's.
#pragma once

#include <string>

#include "core/result.h"

namespace candor::sandbox {

// The folder new pids cgroups are made in (candor's own cgroup in the pids hierarchy), or an error
// saying why there is none (no pids controller, not writable).
Result<std::string> pids_cgroup_parent();

// Creates `parent`/candor-PID-N with pids.max = `max_pids`; returns its path.
Result<std::string> create_pids_cgroup(const std::string& parent, unsigned long long max_pids);

// SIGKILLs every process in the cgroup until it is empty (a fork bomb refills it while it is being
// emptied). Returns how many kill()s hit a process.
int kill_cgroup(const std::string& dir);

// rmdir, after kill_cgroup(); retried briefly while the last processes are being reaped.
void remove_cgroup(const std::string& dir);

}  // namespace candor::sandbox
