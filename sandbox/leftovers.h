// Folders a step needs outside the workspace (its temporary folder, its pids cgroup) are named
// `PREFIX-PID-...` after the candor that made them, which holds a flock on each while it lives. A
// candor that was killed cannot remove them; the next one does, at start: a folder whose candor is
// gone (no such pid here, and nobody holds its lock) is a leftover. A live run's folders are never
// touched, even one of a candor in another PID namespace (its lock is held).
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "sandbox/unique_fd.h"

namespace candor::sandbox {

// "PREFIX-PID-" for this process.
std::string owned_prefix(const std::string& prefix);

// Opens `dir` and takes its flock, held while the descriptor is open (not inherited across exec).
Result<UniqueFd> hold_folder_lock(const std::string& dir);

struct LeftoverReport {
  std::vector<std::string> removed;  // absolute paths
  std::vector<std::string> errors;   // what could not be removed, and why
};

// Removes the step temporary folders (in the temporary directory) and pids cgroups (in
// pids_cgroup_parent()) of candors that are gone, killing what is left in such a cgroup first.
LeftoverReport remove_leftovers();

}  // namespace candor::sandbox
