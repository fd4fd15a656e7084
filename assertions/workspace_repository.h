// The one way candor opens the workspace's git repository (git tools, git_clean). libgit2 runs in
// candor itself, unsandboxed, so what it opens must be the user's repository and nothing a step
// arranged: only a repository whose work tree is the workspace root (no search upward: with the
// workspace a folder of a larger repository, `git_commit` would stage `../.env` into it), whose
// .git is the one that was there when the run started, and whose git folder holds no symbolic link
// leading out of it (a reflog linked to a file elsewhere would be appended to).
#pragma once

#include <string>

#include "sandbox/workspace.h"
#include "snapshot/git_ptr.h"

namespace candor::assertions {

// Opens it into `repo`. Returns "" on success, else a sentence saying why it was refused.
std::string open_workspace_repository(const sandbox::Workspace& workspace, GitRepo& repo);

}  // namespace candor::assertions
