// Landlock through its raw system calls (glibc has no wrappers); the ABI is detected at run time and
// only the rights that ABI knows are asked for.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "sandbox/unique_fd.h"

namespace candor::sandbox {

// The Landlock ABI version of this kernel, 0 when Landlock is missing or disabled.
int landlock_abi();

// A ruleset (not yet enforced) that lets a process read and execute beneath `read_paths`, do
// anything beneath `write_dirs`, read and write the harmless character devices (/dev/null, ...),
// and, from ABI 6, neither signal nor reach abstract sockets of processes outside its domain.
// Paths that do not exist are skipped.
Result<UniqueFd> build_landlock_ruleset(int abi, const std::vector<std::string>& read_paths,
                                        const std::vector<std::string>& write_dirs);

// In the child: enforce the ruleset on the calling thread (no_new_privs must be set). 0 or errno.
int landlock_enforce(int ruleset_fd);

}  // namespace candor::sandbox
