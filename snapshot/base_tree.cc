#include "snapshot/base_tree.h"

#include <git2.h>

#include <algorithm>

#include <fmt/format.h>

#include "snapshot/git_ptr.h"
#include "snapshot/trees.h"

namespace candor::snapshot {
namespace {

struct Walk {
  std::string* names;
  struct Pending {
    std::size_t at, size;
    git_oid id;
    std::uint32_t mode;
  };
  std::vector<Pending> pending;
};

int visit(const char* root, const git_tree_entry* entry, void* payload) {
  if (git_tree_entry_type(entry) == GIT_OBJECT_TREE) return 0;  // entered: its entries come next
  auto* walk = static_cast<Walk*>(payload);
  const std::size_t at = walk->names->size();
  walk->names->append(root);
  walk->names->append(git_tree_entry_name(entry));
  walk->pending.push_back({at, walk->names->size() - at, *git_tree_entry_id(entry),
                           static_cast<std::uint32_t>(git_tree_entry_filemode(entry))});
  return 0;
}

}  // namespace

Result<BaseTree> BaseTree::read(git_repository* repo, const std::string& tree_id) {
  BaseTree base;
  git_oid oid;
  if (git_oid_fromstr(&oid, tree_id.c_str()) != 0)
    return make_error(ErrorCode::kInvalidInput, "git: bad tree id \"" + tree_id + "\"");
  GitTree tree;
  if (git_tree_lookup(tree.out(), repo, &oid) != 0) {
    if (tree_id == kEmptyTree) return base;  // a root commit's "parent": nothing tracked
    return make_error(ErrorCode::kIo,
                      fmt::format("git: working tree: look up BASE's tree {}: {}", tree_id, git_last_error()));
  }
  Walk walk{base.names_.get(), {}};
  if (git_tree_walk(tree.get(), GIT_TREEWALK_PRE, visit, &walk) != 0)
    return make_error(ErrorCode::kIo, fmt::format("git: working tree: read BASE's tree: {}", git_last_error()));
  base.entries_.reserve(walk.pending.size());
  for (const auto& p : walk.pending)
    base.entries_.push_back({std::string_view(*base.names_).substr(p.at, p.size), p.id, p.mode});
  // A tree's order (a folder sorts as its name and '/') makes the paths' byte order already.
  auto by_path = [](const BaseEntry& a, const BaseEntry& b) { return a.path < b.path; };
  if (!std::is_sorted(base.entries_.begin(), base.entries_.end(), by_path))
    std::sort(base.entries_.begin(), base.entries_.end(), by_path);
  return base;
}

const BaseEntry* BaseTree::find(std::string_view path) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), path,
                             [](const BaseEntry& e, std::string_view p) { return e.path < p; });
  return it != entries_.end() && it->path == path ? &*it : nullptr;
}

bool BaseTree::in_submodule(std::string_view path) const {
  for (std::size_t slash = 0;; ++slash) {
    slash = path.find('/', slash);
    std::string_view prefix = path.substr(0, slash);
    if (const BaseEntry* e = find(prefix); e != nullptr && e->mode == kGitlinkMode) return true;
    if (slash == std::string_view::npos) return false;
  }
}

}  // namespace candor::snapshot
