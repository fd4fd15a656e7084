// The process sandbox for one workspace: what the config asked for, plus what the workspace
// itself says must be protected (.git, .candor, the protected folders it was opened with, its
// credential files).
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sandbox/process_sandbox.h"
#include "sandbox/workspace.h"

namespace candor::sandbox {

// `base` carries the config's choices (network, environment, read paths, limits). Credential files
// are looked for now, when the run starts, by a walk of the whole workspace (bounded: see below),
// and remembered by identity as well as by path.
SandboxPolicy make_sandbox_policy(const Workspace& workspace, SandboxPolicy base = {});

// make_sandbox_policy() without its walk, between processes: from the credential files an earlier
// start found (`files` workspace-relative, with the identities it knew), when only `changed` (an
// fsmonitor's complete answer since: files "a/b.env", folders "a/" to look through) can differ.
// O(what changed); where refresh_secret_files_at() cannot tell, the walk.
SandboxPolicy make_sandbox_policy_from(const Workspace& workspace, SandboxPolicy base,
                                       const std::vector<std::string>& files,
                                       const std::vector<FileIdentity>& identities,
                                       const std::set<std::string>& changed);

// Before every process: the files to show empty are found again, as every file that was a
// credential file when the run started (by identity: renaming it or its folder changes nothing)
// plus every file named like a credential file now. Fails, and the process must not start, when the
// walk could not see the whole workspace (more than kMaxSecretScan entries, or folders deeper than
// kMaxSecretDepth) and a credential file could be hidden where it did not look.
Status refresh_secret_files(const Workspace& workspace, SandboxPolicy& policy);

// refresh_secret_files() when only `changed` (workspace-relative: files "a/b.env", folders "a/" to
// look through whole) can differ from what `policy.secret_files` says now: each is looked at again
// as the walk would, and what it held dropped first. `changed` must be complete (change events that
// proved it); O(what changed), not a walk of the workspace. Falls back to refresh_secret_files()
// where it cannot tell (a folder that cannot be listed, one too deep, a start whose walk was
// incomplete), so it fails where that does.
Status refresh_secret_files_at(const Workspace& workspace, SandboxPolicy& policy, const std::set<std::string>& changed);

// What a run keeps between the processes it starts so that each refresh looks only where the
// change events said: the credential files the last refresh found, and what changed since it
// (nullopt: look everywhere). Both unset: every refresh walks.
struct SecretRefresh {
  std::optional<std::vector<std::string>>* files_now = nullptr;  // borrowed
  std::function<std::optional<std::set<std::string>>()> changes_since_last = nullptr;
};
// The refresh before a process: refresh_secret_files_at() when `refresh` knows what changed since
// the last one and what that one found, else refresh_secret_files(); what it finds is kept.
Status refresh_secret_files_for(const Workspace& workspace, SandboxPolicy& policy, const SecretRefresh& refresh);

inline constexpr int kMaxSecretScan = 1000000;
inline constexpr int kMaxSecretDepth = 512;

}  // namespace candor::sandbox
