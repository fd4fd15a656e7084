#include "sandbox/workspace_policy.h"

namespace candor::sandbox {

SandboxPolicy make_sandbox_policy(const Workspace& workspace, SandboxPolicy base) {
  base.workspace = workspace.root();
  base.read_only_dirs = workspace.protected_dirs();
  base.secret_files.clear();
  int seen = 0;
  (void)workspace.walk(".", 32, [&](const WalkEntry& e) {
    if (e.kind == EntryKind::kFile && workspace.is_secret(e.path)) base.secret_files.push_back(workspace.root() + "/" + e.path);
    return ++seen < kMaxSecretScan;
  });
  return base;
}

}  // namespace candor::sandbox
