#include "verify/tree_update.h"

#include <fmt/format.h>

#include "core/git_ptr.h"
#include "verify/index_view.h"

namespace candor::verify {
namespace {

using Tree = GitPtr<git_tree, git_tree_free>;
using TreeBuilder = GitPtr<git_treebuilder, git_treebuilder_free>;

Error git_failure(const std::string& what) {
  return make_error(ErrorCode::kIo, fmt::format("snapshot: {}: {}", what, git_last_error()));
}

class Updater {
 public:
  // Every folder is written.
  Updater(git_repository* repo, git_index* index) : repo_(repo), view_(index), all_dirty_(true) {}
  Updater(git_repository* repo, git_index* index, const std::set<std::string>& changed) : repo_(repo), view_(index) {
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
    for (std::size_t i = view_.lower_bound(prefix); i < view_.size() && view_.path(i).substr(0, prefix.size()) == prefix;) {
      std::string_view rest = view_.path(i).substr(prefix.size());
      std::size_t slash = rest.find('/');
      if (slash == std::string_view::npos) {
        const git_index_entry* e = view_.at(i);
        if (git_treebuilder_insert(nullptr, builder.get(), std::string(rest).c_str(), &e->id, static_cast<git_filemode_t>(e->mode)) != 0) {
          return git_failure("add " + std::string(view_.path(i)) + " to its tree");
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
      i = view_.lower_bound(sub + "0");
    }
    git_oid out;
    if (git_treebuilder_write(&out, builder.get()) != 0) return git_failure("write the tree of " + prefix);
    return out;
  }

 private:
  git_repository* repo_;
  IndexView view_;
  std::set<std::string> dirty_;
  bool all_dirty_ = false;
};

}  // namespace

Result<git_oid> update_tree(git_repository* repo, git_index* index, const git_oid& base, const std::set<std::string>& changed) {
  Tree before;
  if (git_tree_lookup(before.out(), repo, &base) != 0) return make_error(ErrorCode::kNotFound, "snapshot: the earlier tree is not in the store");
  return Updater(repo, index, changed).build("", before.get());
}

Result<git_oid> build_tree(git_repository* repo, git_index* index) { return Updater(repo, index).build("", nullptr); }

}  // namespace candor::verify
