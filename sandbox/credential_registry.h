// What a run knows to be credentials from its start (docs/design.md, Trust boundary, Secrets): a file
// that was a credential file when the run started stays one under any name — by identity (its
// device and inode: a rename, a hard link, its folder moved) and by content (git's blob id of its
// bytes: a copy) — and the secret values it and the scrubbed variables held are masked wherever
// text leaves candor. Built once, when the run starts, from the walk that builds the sandbox policy;
// immutable afterwards and shared (the workspace asks it on every read, the masker goes to every
// place text leaves through).
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/credentials.h"
#include "core/secret_masker.h"
#include "sandbox/process_sandbox.h"

namespace candor::sandbox {

class Workspace;

// Content identity is kept for credential files up to this size (Terraform state can be a few
// MiB); a larger one is a credential by its name and inode only.
inline constexpr std::size_t kMaxContentIdentity = 16 << 20;

// Thread-compatible; const after it is built but for learn(), which the run's own thread calls (the
// one that masks). What the judge asks of it is core's CredentialLookup.
class CredentialRegistry final : public CredentialLookup {
 public:
  CredentialRegistry() : masker_(std::make_shared<SecretMasker>()) {}

  // A credential file as the run found it: `rel_path` (workspace-relative) was `id` holding
  // `content` (all of it). Empty or blank content gives no content identity: every empty file would
  // be "a copy".
  void add_file(const std::string& rel_path, FileIdentity id, std::string_view content);
  // The same without an inode: a credential file read back from a snapshot, after the run.
  void add_content(const std::string& rel_path, std::string_view content);
  // One known by its name and inode only: over kMaxContentIdentity, or unreadable (then `why` is
  // said by unread(): its values are not masked).
  void add_identity(const std::string& rel_path, FileIdentity id, const std::string& why = "");
  // The values of a variable scrubbed for its name or value (sandbox::credential_variable_values).
  void add_variable(std::string_view value);
  // add_variable for every variable of `environ_in` whose name says it holds a secret or whose value
  // is one (names_a_secret, looks_like_credential_value), less those named in `passed` (--pass-env:
  // the user gives them to steps, whose output may then show them).
  void add_environment(char** environ_in, const std::vector<std::string>& passed);

  // A credential file the run or turn made or changed (docs/design.md: secrets made during a turn or run
  // are secrets): its values are masked from now on, wherever the registry's masker masks, and its
  // content is a credential's under any name. Called between steps, on the thread that masks.
  void learn(const std::string& rel_path, std::string_view content) const;

  bool has_identity(std::uint64_t dev, std::uint64_t ino) const {
    return identities_.count(FileIdentity{dev, ino}) != 0;
  }
  // Whether a content of `size` bytes could be a credential's: the test before any hashing.
  bool has_size(std::uint64_t size) const { return sizes_.count(size) != 0; }
  bool has_content_id(const std::string& blob_id) const { return content_ids_.count(blob_id) != 0; }
  bool has_content(std::string_view bytes) const override;

  // The credential files' paths at run start, sorted (names are no secret: reports show them).
  const std::set<std::string>& paths() const { return paths_; }
  // "PATH: why" for each credential file whose content could not be read: its values are not masked.
  const std::vector<std::string>& unread() const { return unread_; }
  std::shared_ptr<const SecretMasker> masker() const override { return masker_; }

 private:
  std::set<FileIdentity> identities_;
  mutable std::set<std::uint64_t> sizes_;  // learn() adds to these and to the masker
  mutable std::set<std::string> content_ids_;
  std::set<std::string> paths_;
  std::vector<std::string> unread_;
  std::shared_ptr<SecretMasker> masker_;
};

// The registry of a run's start: every credential file `policy` found (make_sandbox_policy's walk)
// read through `workspace` (beneath its root, by descriptor; the identity recorded is the
// descriptor's), and the variables of `environ` scrubbed for what their name or value says
// (names_a_secret, looks_like_credential_value), less those `policy.pass_env` passes to steps.
// Variables scrubbed only for their namespace (`AWS_REGION`) are not secrets and are not masked.
std::shared_ptr<const CredentialRegistry> read_credentials(const Workspace& workspace, const SandboxPolicy& policy,
                                                           char** environ_in);
// The files part of read_credentials(), into `registry`.
void read_credential_files(const Workspace& workspace, const SandboxPolicy& policy, CredentialRegistry& registry);

}  // namespace candor::sandbox
