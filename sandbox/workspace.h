// Path confinement: every tool path is resolved beneath the workspace root by the kernel
// (openat2 RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) on a directory fd, never by string
// concatenation. Where openat2 is missing, a component-by-component O_NOFOLLOW walk is used that
// refuses symlinks altogether. A path is opened once: the credential check (sandbox/secret_files.h)
// is made on where that descriptor really leads (/proc/self/fd) and on what it is (the inode and
// the content of a credential file of the run's start: sandbox/credential_registry.h), and the
// read goes through the same descriptor, so a symlink swapped in between cannot win.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"
#include "sandbox/secret_files.h"
#include "sandbox/unique_fd.h"

namespace candor::sandbox {

class CredentialRegistry;

enum class EntryKind { kFile, kDirectory, kSymlink, kOther };

struct EntryInfo {
  EntryKind kind = EntryKind::kOther;
  std::int64_t size = 0;
  unsigned mode = 0;  // permission bits
  // The path names, or its descriptor leads to, a credential file the config does not allow; or the
  // descriptor is one by identity (an inode of a credential file of the run's start). Regular files
  // opened for reading are also checked by content (Workspace::open_regular_file).
  bool credential = false;
};

struct FileContent {
  std::string bytes;
  bool credential = false;  // as EntryInfo::credential, for the descriptor these bytes came from
};

struct WalkEntry {
  std::string path;  // relative to the workspace root
  EntryKind kind = EntryKind::kOther;
  std::int64_t size = 0;
  int depth = 1;                   // 1 for a direct child of the walk's start
  std::uint64_t dev = 0, ino = 0;  // its identity (lstat)
  bool identified = true;          // size, dev and ino were read (see Workspace::walk's `identify`)
};

// `path` (workspace-relative) is a `.candor` (a folder, or a link standing for one) or lies beneath
// one, at any depth: what no step may create and every run and turn reports as protected.
bool in_candor_folder(std::string_view path);

// Which entries a walk reads the size and identity of (an lstat each); for the others the kind
// comes from the folder's listing and size, dev and ino are 0. Called with the relative path.
using WalkIdentify = std::function<bool(std::string_view path)>;

struct WorkspaceOptions {
  bool force_fallback = false;  // use the O_NOFOLLOW walk even where openat2 exists (tests)
  // Absolute paths of directories tools must never write beneath, besides the workspace's own
  // .git and .candor (the run store, which candor keeps outside the workspace anyway).
  std::vector<std::string> protected_dirs;
  // Credential files tools refuse to read (`.env`, `*.pem`, ...), less what the config allows.
  SecretFilter secrets;
};

// Thread-compatible; immutable once its credentials are set (before anything reads through it)
// apart from the filesystem it points at.
class Workspace {
 public:
  static Result<std::unique_ptr<Workspace>> open(const std::string& root, WorkspaceOptions options = {});

  const std::string& root() const { return root_; }  // absolute, canonical
  bool uses_openat2() const { return use_openat2_; }
  const std::vector<std::string>& protected_dirs() const { return protected_dirs_; }  // absolute
  // The identity (lstat dev, ino) of the workspace's .git when open() ran, if there was one: a
  // repository that appears or is replaced later came from a step, not from the user.
  const std::optional<std::pair<std::uint64_t, std::uint64_t>>& git_at_open() const { return git_at_open_; }
  // Which names are credential files here: what every check (stat, reads, the shell mask, the
  // pre-run snapshot's file source, the git tools) asks.
  const SecretFilter& secrets() const { return secrets_; }
  const SecretFilter& secret_filter() const { return secrets_; }
  // The credential files of the run's start, by identity and content, and the masker of their
  // values. REQUIRES: called once, when the run starts, before any tool or assertion reads through
  // this workspace. Without it, credentials are known by name only.
  void set_credentials(std::shared_ptr<const CredentialRegistry> credentials) { credentials_ = std::move(credentials); }
  // Null until set_credentials.
  const CredentialRegistry* credentials() const { return credentials_.get(); }
  const std::shared_ptr<const CredentialRegistry>& shared_credentials() const { return credentials_; }

  // Checks a tool path (no NUL, not absolute, not escaping by `..`) and returns it normalised.
  static Result<std::string> check_relative(const std::string& path);

  // Regular files only: directories, devices, FIFOs and sockets are refused. `info`, when given,
  // receives what the returned descriptor is, `credential` included: by name, by where it leads,
  // by its inode, and by its content (a file the size of a credential file of the run's start is
  // hashed through the returned descriptor, with pread, before the caller reads a byte).
  // Credential files are opened: the caller decides.
  Result<UniqueFd> open_regular_file(const std::string& path, EntryInfo* info = nullptr) const;
  // What tools read through: a credential file is refused (kRefused, secret_refusal) before a byte
  // of it is read.
  Result<std::string> read_file(const std::string& path, std::size_t max_bytes) const;
  // Reads a credential file too and says so. Only for callers that never show the bytes
  // (assertions, whose message is then withheld; undo's comparison).
  Result<FileContent> read_file_flagged(const std::string& path, std::size_t max_bytes) const;
  Result<UniqueFd> open_directory(const std::string& path) const;
  // kNotFound when nothing is there. Symlinks beneath the workspace are followed.
  Result<EntryInfo> stat(const std::string& path) const;
  // The directory entry itself: a symlink is kSymlink (wherever it points, even nowhere), never
  // what it points at. Its folders are resolved beneath the workspace as stat's are.
  Result<EntryInfo> lstat(const std::string& path) const;

  // Atomic: a temporary file in the same directory, then rename. Missing parent directories are
  // created. Refused beneath .git/, .candor/ and protected directories, and over a symlink.
  // `mode` (permission bits) when given; else an existing file's mode is kept, a new one is 0644.
  Status write_file(const std::string& path, const std::string& content,
                    std::optional<unsigned> mode = std::nullopt) const;
  Status delete_file(const std::string& path) const;
  // chmod of a file or folder (".", "dir" or "dir/") to `mode` (the permission bits of it, setuid,
  // setgid and sticky included), never through a symlink. Refused beneath .git/, .candor/ and
  // protected directories.
  Status set_mode(const std::string& path, unsigned mode) const;
  // chown of a file, folder or link itself (never what a link points at), as set_mode.
  Status set_owner(const std::string& path, unsigned uid, unsigned gid) const;

  // Walks a directory without following symlinks, skipping .git and .candor. `visit` returns false
  // to stop the walk. Entries come sorted by name within each directory. Every entry is lstat'ed,
  // unless `identify` is given: then only those it names are, and those whose kind the listing
  // does not tell (a walk of a large tree then costs a listing per folder, not a stat per file).
  Status walk(const std::string& path, int max_depth, const std::function<bool(const WalkEntry&)>& visit,
              const WalkIdentify& identify = nullptr) const;

 private:
  Workspace(std::string root, UniqueFd root_fd, bool use_openat2);

  Result<UniqueFd> open_beneath(const std::string& normalized, int flags) const;
  Result<UniqueFd> open_beneath_walk(const std::string& normalized, int flags) const;
  // An O_PATH descriptor for `normalized` and what it is, the credential check made on it.
  Result<std::pair<UniqueFd, EntryInfo>> open_checked(const std::string& normalized) const;
  Result<bool> leads_to_secret(int fd, const std::string& normalized, dev_t dev, ino_t ino) const;
  Result<std::pair<UniqueFd, std::string>> open_parent_for_write(const std::string& path) const;
  Status check_not_protected(int dir_fd, const std::string& path) const;
  Status walk_dir(int dir_fd, const std::string& rel, int depth, int max_depth,
                  const std::function<bool(const WalkEntry&)>& visit, const WalkIdentify& identify, bool& stop) const;

  std::string root_;
  UniqueFd root_fd_;
  bool use_openat2_;
  dev_t root_dev_ = 0;
  ino_t root_ino_ = 0;
  std::vector<std::pair<dev_t, ino_t>> protected_;
  std::vector<std::string> protected_dirs_;  // .git, .candor and the options' own
  std::optional<std::pair<std::uint64_t, std::uint64_t>> git_at_open_;
  SecretFilter secrets_;
  std::shared_ptr<const CredentialRegistry> credentials_;
};

}  // namespace candor::sandbox
