#include "sandbox/workspace_policy.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace candor::sandbox {
namespace {

struct SecretScan {
  std::vector<std::string> paths;        // absolute
  std::vector<FileIdentity> identities;  // of `paths`, in order
  std::set<FileIdentity> known_found;    // the `known` identities seen
  std::string incomplete;                // why the walk did not see everything, "" when it did
};

// Every file named like a credential file and every file whose identity is in `known`. With
// nothing known, only the files named so need an identity: the walk reads the others' kinds from
// the folder listings instead of a stat per file (the start of every run walks the whole tree).
SecretScan scan_secrets(const Workspace& workspace, const std::set<FileIdentity>& known) {
  SecretScan scan;
  int seen = 0;
  WalkIdentify identify;
  if (known.empty()) identify = [&workspace](std::string_view path) { return workspace.secret_filter().refused(path); };
  Status walked = workspace.walk(
      ".", kMaxSecretDepth,
      [&](const WalkEntry& e) {
        if (++seen > kMaxSecretScan) {
          scan.incomplete = fmt::format("the workspace has more than {} entries", kMaxSecretScan);
          return false;
        }
        if (e.kind == EntryKind::kDirectory && e.depth >= kMaxSecretDepth && scan.incomplete.empty()) {
          scan.incomplete = fmt::format("{} is deeper than {} folders", e.path, kMaxSecretDepth);
        }
        // Not identified: `identify` said it is not named like a credential file, and nothing is known.
        if (e.kind != EntryKind::kFile || !e.identified) return true;
        FileIdentity id{e.dev, e.ino};
        bool was_secret = known.count(id) != 0;
        if (was_secret) scan.known_found.insert(id);
        if (was_secret || workspace.secret_filter().refused(e.path)) {
          scan.paths.push_back(workspace.root() + "/" + e.path);
          scan.identities.push_back(id);
        }
        return true;
      },
      identify);
  if (!walked.ok() && scan.incomplete.empty()) scan.incomplete = walked.error().message;
  return scan;
}

}  // namespace

SandboxPolicy make_sandbox_policy(const Workspace& workspace, SandboxPolicy base) {
  base.workspace = workspace.root();
  base.read_only_dirs = workspace.protected_dirs();
  SecretScan scan = scan_secrets(workspace, {});
  base.secret_files = std::move(scan.paths);
  base.secret_identities = std::move(scan.identities);
  base.secret_scan_error = scan.incomplete;
  return base;
}

Status refresh_secret_files(const Workspace& workspace, SandboxPolicy& policy) {
  auto refused = [](const std::string& why) {
    return make_error(ErrorCode::kRefused,
                      fmt::format("credential files cannot all be masked ({}): the step does not run", why));
  };
  if (!policy.secret_scan_error.empty()) return refused(policy.secret_scan_error);
  std::set<FileIdentity> known(policy.secret_identities.begin(), policy.secret_identities.end());
  SecretScan scan = scan_secrets(workspace, known);
  if (!scan.incomplete.empty() && scan.known_found.size() < known.size()) return refused(scan.incomplete);
  policy.secret_files = std::move(scan.paths);
  return ok_status();
}

}  // namespace candor::sandbox
