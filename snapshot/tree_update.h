// The tree of an index built from the tree of an earlier state of it: only the folders holding a
// path that changed since are written again, the others are taken from the earlier tree. A warm run
// whose steps changed a few files of a large workspace then writes a few trees, not every one
// (libgit2's git_index_write_tree writes them all when its cache is stale, then reads every tree
// back to refill that cache).
#pragma once

#include <git2.h>

#include <functional>
#include <set>
#include <string>

#include "core/result.h"
#include "snapshot/stat_index.h"

namespace candor::snapshot {

// Where a tree's bytes go, under the id their hash gives: the store's packs in memory
// (PackedWrites::add), or the object database (odb_tree_sink).
using TreeSink = std::function<Status(const git_oid& id, std::string tree)>;
TreeSink odb_tree_sink(git_repository* repo);

// The tree `index` makes, given `base`: the tree it made before `changed` (every path added,
// modified, deleted or whose mode changed since) changed. kNotFound when `base` does not hold a
// folder it should (the caller then builds the tree from scratch). The trees are written through
// `sink`, without checking that the objects the entries name exist (they come from hashing or
// from an index git trusts; a check would read every blob's header). Earlier trees are read
// through `repo`.
Result<git_oid> update_tree(git_repository* repo, const StatIndex& index, const git_oid& base,
                            const std::set<std::string>& changed, const TreeSink& sink);

// The tree `index` makes, every folder written (what git_index_write_tree does, without reading
// every tree back afterwards to fill the index's cache).
Result<git_oid> build_tree(git_repository* repo, const StatIndex& index, const TreeSink& sink);

}  // namespace candor::snapshot
