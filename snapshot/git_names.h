// The paths git refuses to hold in an index or a tree: `.git` in any case or NTFS spelling
// (`.GIT`, `git~1`, `.git.`), `.`, `..`, empty components. Checking one out could turn a folder
// into a repository, so libgit2 refuses to add such an entry or write such a tree.
#pragma once

#include <cstddef>
#include <string_view>

#include "snapshot/git_ptr.h"

namespace candor::snapshot {

class GitNameCheck {
 public:
  GitNameCheck();
  // Whether git would hold `path` ("a/b/c") in a tree. A path with an empty component is refused
  // here; for one with a component beginning with '.', 'g' or 'G', libgit2 decides (adding it to an
  // index of no repository: the rules of core.protectNTFS's default, which the store's repository
  // keeps). Every other path is held.
  bool holds(std::string_view path);

 private:
  GitIndex scratch_;
  std::size_t added_ = 0;
};

}  // namespace candor::snapshot
