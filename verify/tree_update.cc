#include "verify/tree_update.h"

#include <fmt/format.h>

#include "core/git_ptr.h"

namespace candor::verify {
namespace {

using Tree = GitPtr<git_tree, git_tree_free>;
using TreeBuilder = GitPtr<git_treebuilder, git_treebuilder_free>;

// libgit2 checks that every object a tree names exists (it reads its header) unless told not to.
// Process-wide, so only for the scope.
class UncheckedObjectIds {
 public:
  UncheckedObjectIds() { git_libgit2_opts(GIT_OPT_ENABLE_STRICT_OBJECT_CREATION, 0); }
  ~UncheckedObjectIds() { git_libgit2_opts(GIT_OPT_ENABLE_STRICT_OBJECT_CREATION, 1); }
  UncheckedObjectIds(const UncheckedObjectIds&) = delete;
  UncheckedObjectIds& operator=(const UncheckedObjectIds&) = delete;
};

Error git_failure(const std::string& what) {
  return make_error(ErrorCode::kIo, fmt::format("snapshot: {}: {}", what, git_last_error()));
}

class Updater {
 public:
  // Every folder is written.
  Updater(git_repository* repo, const StatIndex& index) : repo_(repo), index_(index), all_dirty_(true) {}
  Updater(git_repository* repo, const StatIndex& index, const std::set<std::string>& changed) : repo_(repo), index_(index) {
    // Every folder holding a changed path, up to the root (""), is written again.
    dirty_.insert("");
    for (const auto& path : changed) {
      for (std::size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1)) {
        dirty_.insert(path.substr(0, slash));
      }
    }
  }

  // The tree of folder `dir` ("" is the root; else "a/b"), whose tree in the base is `before`
  // (null when it had none).
  Result<git_oid> build(const std::string& dir, git_tree* before) {
    const std::string prefix = dir.empty() ? "" : dir + "/";
    TreeBuilder builder;
    if (git_treebuilder_new(builder.out(), repo_, nullptr) != 0) return git_failure("start the tree of " + prefix);
    for (std::size_t i = index_.lower_bound(prefix); i < index_.size() && index_.at(i).path.substr(0, prefix.size()) == prefix;) {
      std::string_view rest = index_.at(i).path.substr(prefix.size());
      std::size_t slash = rest.find('/');
      if (slash == std::string_view::npos) {
        const StatEntry& e = index_.at(i);
        if (git_treebuilder_insert(nullptr, builder.get(), std::string(rest).c_str(), &e.id, static_cast<git_filemode_t>(e.mode)) != 0) {
          return git_failure("add " + std::string(e.path) + " to its tree");
        }
        ++i;
        continue;
      }
      std::string name(rest.substr(0, slash));
      std::string sub = prefix + name;
      const git_tree_entry* was = before != nullptr ? git_tree_entry_byname(before, name.c_str()) : nullptr;
      if (was != nullptr && git_tree_entry_type(was) != GIT_OBJECT_TREE) was = nullptr;
      git_oid id;
      if (all_dirty_ || dirty_.count(sub) != 0) {
        Tree sub_before;
        if (was != nullptr && git_tree_lookup(sub_before.out(), repo_, git_tree_entry_id(was)) != 0) return git_failure("read the tree of " + sub);
        TRY(id, build(sub, sub_before.get()));
      } else if (was != nullptr) {
        id = *git_tree_entry_id(was);  // nothing beneath it changed
      } else {
        return make_error(ErrorCode::kNotFound, fmt::format("snapshot: the earlier tree has no folder {}", sub));
      }
      if (git_treebuilder_insert(nullptr, builder.get(), name.c_str(), &id, GIT_FILEMODE_TREE) != 0) {
        return git_failure("add " + sub + " to its tree");
      }
      // On past every entry beneath sub/: '0' is the byte after '/'.
      i = index_.lower_bound(sub + "0");
    }
    git_oid out;
    if (git_treebuilder_write(&out, builder.get()) != 0) return git_failure("write the tree of " + prefix);
    return out;
  }

 private:
  git_repository* repo_;
  const StatIndex& index_;
  std::set<std::string> dirty_;
  bool all_dirty_ = false;
};

}  // namespace

Result<git_oid> update_tree(git_repository* repo, const StatIndex& index, const git_oid& base, const std::set<std::string>& changed) {
  UncheckedObjectIds unchecked;
  Tree before;
  if (git_tree_lookup(before.out(), repo, &base) != 0) return make_error(ErrorCode::kNotFound, "snapshot: the earlier tree is not in the store");
  return Updater(repo, index, changed).build("", before.get());
}

Result<git_oid> build_tree(git_repository* repo, const StatIndex& index) {
  UncheckedObjectIds unchecked;
  return Updater(repo, index).build("", nullptr);
}

}  // namespace candor::verify
