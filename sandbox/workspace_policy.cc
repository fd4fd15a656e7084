#include "sandbox/workspace_policy.h"

#include <limits>

namespace candor::sandbox {

SandboxPolicy make_sandbox_policy(const Workspace& workspace, SandboxPolicy base) {
  base.workspace = workspace.root();
  base.read_only_dirs = workspace.protected_dirs();
  base.secret_files.clear();
  int seen = 0;
  // At any depth: a credential file beneath 32 folders is as much one as at the top. The walk does
  // not follow symlinks, so each file is judged by its own name (a symlink to it reads the mask).
  (void)workspace.walk(".", std::numeric_limits<int>::max(), [&](const WalkEntry& e) {
    if (e.kind == EntryKind::kFile && workspace.secrets().refused(e.path)) base.secret_files.push_back(workspace.root() + "/" + e.path);
    return ++seen < kMaxSecretScan;
  });
  return base;
}

}  // namespace candor::sandbox
