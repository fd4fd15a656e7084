// What candor's own sandbox refused a command, read from what the command printed: a check that
// fails because Landlock kept it from a path outside the workspace is not the work's failure, and
// the person who can widen `sandbox.read_paths` is told so (docs/sandbox.md, "When the sandbox refuses a check").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sandbox/process_sandbox.h"

namespace candor::sandbox {

// At most this many paths are named.
inline constexpr std::size_t kMaxRefusedPaths = 5;

// The absolute paths on lines of `output` that say "Permission denied" or "Operation not permitted"
// which `policy` lets no process read: outside the workspace, the step's temporary folder and every
// read root (readable_roots), and not a path candor hides on purpose (the store). A bare command
// name that the shell could not run ("sh: 1: pyenv: Permission denied") is looked up on `path_env`.
// Empty when the sandbox's Landlock is off, or when the output names no such path: a file's own
// mode refuses reads inside the read roots too, and that is not the sandbox's doing.
std::vector<std::string> refused_paths(std::string_view output, const SandboxPolicy& policy,
                                       const std::vector<std::string>& readable, std::string_view path_env);

// refused_paths with this process's PATH and the policy's readable roots.
std::vector<std::string> refused_paths(std::string_view output, const SandboxPolicy& policy);

// "candor's sandbox refused it /root/.pyenv/version (...); to let the check read it, add it to
// sandbox.read_paths in .candor/config.json": what a failed check's message says first.
std::string refusal_sentence(const std::vector<std::string>& paths);

}  // namespace candor::sandbox
