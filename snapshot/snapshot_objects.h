// Where the snapshot repository's objects come from and go to (store.cc; the workspace's
// objects and its index's stat cache also serve worktree_tree.cc, `verify --git BASE..`):
// - the workspace's own object database, attached read-only in memory, so a first snapshot can
//   name the blobs the workspace's index vouches for instead of hashing every file again;
// - packs instead of a loose file per object: new objects collect in memory and are written as
//   one pack at a time, marked as a promisor pack (git's partial-clone convention), so trees that
//   name blobs the store never copied still make a repository `git fsck` accepts.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <string_view>

#include "core/result.h"
#include "snapshot/git_ptr.h"
#include "snapshot/stat_index.h"
#include "snapshot/workdir_walk.h"

namespace candor::snapshot {

// The settings that make the repository at `repo` a partial clone of a promisor remote named
// "workspace" (without a URL: nothing is ever fetched), as key/value pairs for its config.
inline constexpr std::pair<const char*, const char*> kPromisorSettings[] = {
    {"extensions.partialclone", "workspace"},
    {"remote.workspace.promisor", "true"},
};

// Adds the objects of the repository whose git folder is `git_dir` to `odb` as a read-only
// alternate: reads fall through to it, writes never reach it (not even the mtime refresh libgit2
// gives an object it finds it already has), and an object only it holds counts as missing for a
// write, so every blob candor hashes lands in the store. False when `git_dir` has no objects.
bool attach_workspace_objects(git_odb* odb, const std::string& git_dir);

struct MemoryObjects;

// New objects, held in memory until write_pack(). Not thread-safe. Movable, not copyable.
class PackedWrites {
 public:
  // Puts a memory backend in front of `repo`'s object database: every write goes there.
  // REQUIRES: `repo` outlives this object.
  static Result<PackedWrites> attach(git_repository* repo, const std::string& repo_path);
  PackedWrites() = default;

  // Adds a blob whose id the caller computed (git_odb_hash), without the existence checks a write
  // through the object database makes (a path lookup and a rescan of the packs per object). A
  // blob the store already holds is then packed once more: harmless to git.
  void add_blob(const git_oid& id, std::string content) { add(id, GIT_OBJECT_BLOB, std::move(content)); }
  // ... an object of any type, the same way.
  void add(const git_oid& id, git_object_t type, std::string content);

  // Writes what is in memory as one promisor pack under objects/pack and empties the memory. A
  // no-op when nothing was written.
  Status write_pack();

 private:
  git_repository* repo_ = nullptr;
  MemoryObjects* memory_ = nullptr;  // owned by the repository's object database
  std::string pack_dir_;
};

// The workspace's index as a seed for an empty stat cache: the entries git itself would trust
// without reading the file (stage 0, a regular file or symlink, not assume-valid, skip-worktree
// or intent-to-add), added to `index`. `racy` receives the paths whose stat git's racy-timestamp
// rule does not let vouch for the content (saved no earlier than a second before the index file
// was): the first scan hashes them; null when the caller uses no stat (only the paths). `keep(path)`
// says which paths a snapshot may hold. A path the index names twice is seeded once, racy. Returns
// how many entries were added; 0 when the workspace has no readable index, or one larger than 1 GiB.
std::size_t seed_from_index(StatIndex& index, const std::string& index_file, std::set<std::string>* racy,
                            const std::function<bool(std::string_view)>& keep);

}  // namespace candor::snapshot
