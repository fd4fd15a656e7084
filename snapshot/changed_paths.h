// The paths at which two git trees differ, found without entering a folder whose tree is the same on
// both sides: libgit2's tree diff walks every tree of both, which on a 100,000-file snapshot costs
// more than the scan that found the change. Private to snapshot/ (trees.cc, store_resume.cc).
#pragma once

#include <string>
#include <vector>

#include <git2.h>

#include "core/result.h"

namespace candor::snapshot {

// Every file path (blob, link or submodule entry) that differs between `from` and `to` (null: the
// empty tree): added, removed, changed in content or mode, or a file on one side where the other
// has a folder (then the folder's files are listed too), in no particular order.
Result<std::vector<std::string>> changed_paths(git_repository* repo, git_tree* from, git_tree* to);

}  // namespace candor::snapshot
