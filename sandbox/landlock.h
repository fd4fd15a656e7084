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

// From this ABI on, connecting to a pathname unix socket is a right like any other: a sandboxed
// process reaches only sockets beneath its writable folders (or made in its own domain).
inline constexpr int kLandlockAbiUnixSockets = 9;

// A ruleset (not yet enforced) that lets a process read and execute beneath `read_paths`, do
// anything beneath `write_dirs`, read and write the harmless character devices (/dev/null, ...),
// and, from ABI 6, neither signal nor reach abstract sockets of processes outside its domain; from
// ABI 9, it connects only to pathname unix sockets beneath `write_dirs`.
// Paths that do not exist are skipped.
Result<UniqueFd> build_landlock_ruleset(int abi, const std::vector<std::string>& read_paths,
                                        const std::vector<std::string>& write_dirs);

// In the child, before enforcing: let it read and execute beneath `path` too (a mount made in the
// child, such as its own /proc, is a new file hierarchy the parent's rules do not cover). The
// ruleset object is shared with the parent; each process start builds its own. 0 or errno.
int landlock_allow_read_in_child(int ruleset_fd, const char* path);

// In the child: enforce the ruleset on the calling thread (no_new_privs must be set). 0 or errno.
int landlock_enforce(int ruleset_fd);

}  // namespace candor::sandbox
