// The process sandbox for one workspace: what the config asked for, plus what the workspace
// itself says must be protected (.git, .candor, a store inside it, its credential files).
#pragma once

#include "sandbox/process_sandbox.h"
#include "sandbox/workspace.h"

namespace candor::sandbox {

// `base` carries the config's choices (network, environment, read paths, limits). Credential files
// are looked for once, now, by a walk bounded in entries (kMaxSecretScan), not in depth: a file a
// step creates later came from the agent, not from the user.
SandboxPolicy make_sandbox_policy(const Workspace& workspace, SandboxPolicy base = {});

inline constexpr int kMaxSecretScan = 100000;

}  // namespace candor::sandbox
