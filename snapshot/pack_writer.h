// Writes objects as a git pack (version 2, no deltas) and its index (version 2), as git's own
// pack-objects would lay them out, compressing in parallel. libgit2's pack writer goes through its
// indexer, which maps and unmaps the pack once per object: on a 100,000-object first snapshot that
// cost more than hashing the files.
#pragma once

#include <git2/oid.h>
#include <git2/types.h>

#include <string>
#include <vector>

#include "core/result.h"

namespace candor::snapshot {

struct PackObject {
  git_oid id;  // the caller's: git_odb_hash of `type` and `data`
  git_object_t type;
  const std::string* data;
};

// Writes pack-<checksum>.pack, then an empty pack-<checksum>.<marker> when `marker` is not empty,
// then pack-<checksum>.idx (readers find a pack by its index, so it is complete and marked before
// anyone sees it) in `pack_dir`. Returns the checksum (hex). REQUIRES: ids unique, not empty.
Result<std::string> write_pack_files(const std::string& pack_dir, std::vector<PackObject> objects,
                                     const std::string& marker);

// Writes `dir`/`name` (read-only) through a temporary file renamed over it: a reader sees the old
// content or the new, never part of it.
// `content` written to a temporary file, fsynced, renamed to `name`; the folder fsynced after the
// rename unless `sync_dir` is false (the caller syncs it after a last file).
Status write_file_atomically(const std::string& dir, const std::string& name, const std::string& content,
                             bool sync_dir = true);
// write_file_atomically() for several files of one folder, written and synced together before any
// is renamed, then renamed in the order given (the last can be the one that makes the others
// visible), the folder synced once after the last rename unless `sync_dir` is false. On failure
// the files not yet renamed are removed.
struct NamedContent {
  std::string name;
  const std::string* content;  // borrowed
};
Status write_files_atomically(const std::string& dir, const std::vector<NamedContent>& files, bool sync_dir = true);
// fsync of a folder: the names renamed into it are on disk.
Status sync_folder(const std::string& dir);

}  // namespace candor::snapshot
