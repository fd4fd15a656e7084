// BASE's tree for `verify --git BASE..` (worktree_tree.cc), read once into one sorted list: what
// BASE tracks, with each entry's id and mode. libgit2's index read of a tree allocates every
// entry and hashes every path (~60 ms at 100,000 files); this holds the paths in one buffer.
#pragma once

#include <git2/oid.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

struct git_repository;

namespace candor::snapshot {

inline constexpr std::uint32_t kGitlinkMode = 0160000;

struct BaseEntry {
  std::string_view path;  // owned by the BaseTree
  git_oid id{};
  std::uint32_t mode = 0;  // a file's, a symlink's, or a submodule's (kGitlinkMode)
};

class BaseTree {
 public:
  // Every entry beneath tree `tree_id` but folders. The empty tree's id (a root commit's parent)
  // need not be in the repository. kIo when a tree cannot be read.
  static Result<BaseTree> read(git_repository* repo, const std::string& tree_id);

  std::size_t size() const { return entries_.size(); }
  const BaseEntry& at(std::size_t i) const { return entries_[i]; }
  // The entry at `path`, or null.
  const BaseEntry* find(std::string_view path) const;
  // Whether `path` ("a/b") is a submodule of BASE's, or lies in one.
  bool in_submodule(std::string_view path) const;

 private:
  // Every path, back to back; held by pointer, so that moving the BaseTree moves no byte the
  // entries' views point at.
  std::unique_ptr<std::string> names_ = std::make_unique<std::string>();
  std::vector<BaseEntry> entries_;  // sorted by path (bytes, unsigned), as git sorts an index
};

}  // namespace candor::snapshot
