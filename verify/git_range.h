// A change in a repository, named as git names ranges: what `candor verify --git` verifies.
#pragma once

#include <memory>
#include <string>

#include "core/result.h"
#include "verify/git_trees.h"

struct git_repository;

namespace candor::verify {

struct GitRange {
  std::string spec;         // as given: "A..B", "A...B", "C"
  std::string base_commit;  // full ids
  std::string head_commit;
  std::string base_tree;
  std::string head_tree;
};

// The repository whose root is `root` (no search above it: DESIGN.md, Trust boundary: Git),
// opened read-only in the sense that nothing here writes to it.
class GitRepository {
 public:
  static Result<std::unique_ptr<GitRepository>> open(const std::string& root);
  ~GitRepository();
  GitRepository(const GitRepository&) = delete;
  GitRepository& operator=(const GitRepository&) = delete;

  // `A..B`: the tree of A to the tree of B. `A...B`: the merge base of A and B to B. `C`: C's first
  // parent to C (a root commit: the empty tree to C). `BASE..` (the working tree) is refused with
  // the reason: commit the change first. Errors are kUsage naming the part that did not resolve.
  Result<GitRange> resolve(const std::string& spec) const;

  GitTrees trees() const { return GitTrees(repo_); }
  const std::string& root() const { return root_; }

 private:
  GitRepository(git_repository* repo, std::string root) : repo_(repo), root_(std::move(root)) {}
  git_repository* repo_;
  std::string root_;
};

}  // namespace candor::verify
