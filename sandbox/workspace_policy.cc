#include "sandbox/workspace_policy.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
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

SandboxPolicy make_sandbox_policy_from(const Workspace& workspace, SandboxPolicy base,
                                       const std::vector<std::string>& files,
                                       const std::vector<FileIdentity>& identities,
                                       const std::set<std::string>& changed) {
  SandboxPolicy policy = base;
  policy.workspace = workspace.root();
  policy.read_only_dirs = workspace.protected_dirs();
  policy.secret_files.clear();
  for (const auto& f : files) policy.secret_files.push_back(workspace.root() + "/" + f);
  policy.secret_identities = identities;
  policy.secret_scan_error.clear();
  if (!refresh_secret_files_at(workspace, policy, changed).ok()) return make_sandbox_policy(workspace, std::move(base));
  // Known by identity from here, as the walk's finds are: the files found now, and those the
  // earlier start knew (one renamed since is still a credential file).
  std::set<FileIdentity> known(identities.begin(), identities.end());
  for (const auto& path : policy.secret_files) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode))
      known.insert({static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)});
  }
  policy.secret_identities.assign(known.begin(), known.end());
  return policy;
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

Status refresh_secret_files_at(const Workspace& workspace, SandboxPolicy& policy,
                               const std::set<std::string>& changed) {
  if (!policy.secret_scan_error.empty()) return refresh_secret_files(workspace, policy);
  const std::set<FileIdentity> known(policy.secret_identities.begin(), policy.secret_identities.end());
  const std::string prefix = workspace.root() + "/";
  std::set<std::string> files(policy.secret_files.begin(), policy.secret_files.end());  // absolute
  auto secret = [&](const std::string& rel, FileIdentity id) {
    return known.count(id) != 0 || workspace.secret_filter().refused(rel);
  };
  auto forget_beneath = [&files](const std::string& abs_dir) {
    files.erase(files.lower_bound(abs_dir), files.lower_bound(abs_dir + '\xff'));
  };
  int seen = 0;
  for (const auto& path : changed) {
    if (path.empty() || path == "./" || path.front() == '/') return refresh_secret_files(workspace, policy);
    int depth = static_cast<int>(std::count(path.begin(), path.end(), '/'));
    if (depth >= kMaxSecretDepth) return refresh_secret_files(workspace, policy);
    if (path.back() == '/') {
      forget_beneath(prefix + path);
      WalkIdentify identify;
      if (known.empty()) identify = [&workspace](std::string_view p) { return workspace.secret_filter().refused(p); };
      bool too_much = false;
      Status walked = workspace.walk(
          path.substr(0, path.size() - 1), kMaxSecretDepth - depth,
          [&](const WalkEntry& e) {
            if (++seen > kMaxSecretScan || (e.kind == EntryKind::kDirectory && e.depth >= kMaxSecretDepth - depth)) {
              too_much = true;
              return false;
            }
            if (e.kind == EntryKind::kFile && e.identified && secret(e.path, {e.dev, e.ino}))
              files.insert(prefix + e.path);
            return true;
          },
          identify);
      if (too_much) return refresh_secret_files(workspace, policy);
      // Gone, or no folder any more (its own name is then looked at by the event that named it).
      if (!walked.ok() && walked.error().code != ErrorCode::kNotFound) return refresh_secret_files(workspace, policy);
      continue;
    }
    files.erase(prefix + path);
    std::size_t slash = path.rfind('/');
    std::string parent = slash == std::string::npos ? "." : path.substr(0, slash);
    std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    auto dir = workspace.open_directory(parent);
    if (!dir.ok()) {
      if (dir.error().code == ErrorCode::kNotFound) continue;  // its folder went: so did it
      return refresh_secret_files(workspace, policy);
    }
    struct stat st {};
    if (::fstatat(dir->get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) continue;
      return refresh_secret_files(workspace, policy);
    }
    if (S_ISREG(st.st_mode) &&
        secret(path, {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)}))
      files.insert(prefix + path);
  }
  policy.secret_files.assign(files.begin(), files.end());
  return ok_status();
}

Status refresh_secret_files_for(const Workspace& workspace, SandboxPolicy& policy, const SecretRefresh& refresh) {
  // Asked before the refresh looks: what changes meanwhile is for the next one.
  std::optional<std::set<std::string>> changed;
  if (refresh.changes_since_last) changed = refresh.changes_since_last();
  bool incremental = changed && refresh.files_now != nullptr && refresh.files_now->has_value();
  if (incremental) policy.secret_files = **refresh.files_now;
  Status done =
      incremental ? refresh_secret_files_at(workspace, policy, *changed) : refresh_secret_files(workspace, policy);
  if (refresh.files_now != nullptr) {
    if (done.ok())
      *refresh.files_now = policy.secret_files;
    else
      refresh.files_now->reset();
  }
  return done;
}

}  // namespace candor::sandbox
