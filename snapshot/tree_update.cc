#include "snapshot/tree_update.h"

#include <charconv>
#include <string_view>

#include <fmt/format.h>

#include "snapshot/git_ptr.h"

namespace candor::snapshot {
namespace {

Error git_failure(const std::string& what) {
  return make_error(ErrorCode::kIo, fmt::format("snapshot: {}: {}", what, git_last_error()));
}

// Appends a tree entry as git writes it: the mode in octal ("40000" for a folder), a space, the
// name, a NUL, the 20 bytes of the id.
void append_entry(std::string& tree, std::uint32_t mode, std::string_view name, const git_oid& id) {
  char digits[8];
  auto end = std::to_chars(digits, digits + sizeof digits, mode, 8).ptr;
  tree.append(digits, end);
  tree += ' ';
  tree.append(name);
  tree += '\0';
  tree.append(reinterpret_cast<const char*>(id.id), GIT_OID_RAWSZ);
}

// A submodule (a gitlink) is one only in a working tree's tree (worktree_tree.cc, BASE's standing).
bool is_blob_mode(std::uint32_t mode) {
  return mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE || mode == GIT_FILEMODE_LINK ||
         mode == GIT_FILEMODE_COMMIT;
}

class Updater {
 public:
  // Every folder is written.
  Updater(git_repository* repo, const StatIndex& index, const TreeSink& sink)
      : repo_(repo), index_(index), sink_(sink), all_dirty_(true) {}
  Updater(git_repository* repo, const StatIndex& index, const TreeSink& sink, const std::set<std::string>& changed)
      : repo_(repo), index_(index), sink_(sink) {
    // Every folder holding a changed path, up to the root (""), is written again.
    dirty_.insert("");
    for (const auto& path : changed) {
      for (std::size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1)) {
        dirty_.insert(path.substr(0, slash));
      }
    }
  }

  // The tree of folder `dir` ("" is the root; else "a/b"), whose tree in the base is `before`
  // (null when it had none). Entries come in the index's order, which is git's tree order (a
  // folder sorts as its name followed by '/'), so the tree is written as it is read, without
  // libgit2's tree builder (a map insert and a name check per entry: ~90 ms at 100,000 files).
  // The names were checked when they entered the index (git_names.h).
  Result<git_oid> build(const std::string& dir, git_tree* before) {
    const std::string prefix = dir.empty() ? "" : dir + "/";
    std::string tree;
    std::string_view last;  // the last name written: a file and a folder of one name make no tree
    for (std::size_t i = index_.lower_bound(prefix);
         i < index_.size() && index_.at(i).path.substr(0, prefix.size()) == prefix;) {
      std::string_view rest = index_.at(i).path.substr(prefix.size());
      std::size_t slash = rest.find('/');
      if (slash == std::string_view::npos) {
        const StatEntry& e = index_.at(i);
        if (!is_blob_mode(e.mode))
          return make_error(ErrorCode::kInternal,
                            fmt::format("snapshot: {} has mode {:o} in the index", e.path, e.mode));
        append_entry(tree, e.mode, rest, e.id);
        last = rest;
        ++i;
        continue;
      }
      std::string_view name = rest.substr(0, slash);
      std::string sub = prefix + std::string(name);
      // A file and a folder of one name make no tree. The file need not be the entry just before:
      // "a", "a-b", "a/c" is index order.
      if (name == last || index_.find(sub) != StatIndex::npos)
        return make_error(ErrorCode::kInternal,
                          fmt::format("snapshot: the index holds {} as a file and as a folder", sub));
      const git_tree_entry* was =
          before != nullptr ? git_tree_entry_byname(before, std::string(name).c_str()) : nullptr;
      if (was != nullptr && git_tree_entry_type(was) != GIT_OBJECT_TREE) was = nullptr;
      git_oid id;
      if (all_dirty_ || dirty_.count(sub) != 0) {
        GitTree sub_before;
        if (was != nullptr && git_tree_lookup(sub_before.out(), repo_, git_tree_entry_id(was)) != 0)
          return git_failure("read the tree of " + sub);
        TRY(id, build(sub, sub_before.get()));
      } else if (was != nullptr) {
        id = *git_tree_entry_id(was);  // nothing beneath it changed
      } else {
        return make_error(ErrorCode::kNotFound, fmt::format("snapshot: the earlier tree has no folder {}", sub));
      }
      append_entry(tree, GIT_FILEMODE_TREE, name, id);
      last = name;
      // On past every entry beneath sub/: '0' is the byte after '/'.
      i = index_.lower_bound(sub + "0");
    }
    git_oid out;
    if (git_odb_hash(&out, tree.data(), tree.size(), GIT_OBJECT_TREE) != 0)
      return git_failure("hash the tree of " + prefix);
    TRY_STATUS(sink_(out, std::move(tree)));
    return out;
  }

 private:
  git_repository* repo_;
  const StatIndex& index_;
  const TreeSink& sink_;
  std::set<std::string> dirty_;
  bool all_dirty_ = false;
};

}  // namespace

TreeSink odb_tree_sink(git_repository* repo) {
  return [repo](const git_oid& id, std::string tree) -> Status {
    GitOdb odb;
    git_oid written;
    if (git_repository_odb(odb.out(), repo) != 0 ||
        git_odb_write(&written, odb.get(), tree.data(), tree.size(), GIT_OBJECT_TREE) != 0) {
      return git_failure("write a tree");
    }
    if (!git_oid_equal(&written, &id))
      return make_error(ErrorCode::kInternal, "snapshot: a tree was written under another id");
    return ok_status();
  };
}

Result<git_oid> update_tree(git_repository* repo, const StatIndex& index, const git_oid& base,
                            const std::set<std::string>& changed, const TreeSink& sink) {
  GitTree before;
  if (git_tree_lookup(before.out(), repo, &base) != 0)
    return make_error(ErrorCode::kNotFound, "snapshot: the earlier tree is not in the store");
  return Updater(repo, index, sink, changed).build("", before.get());
}

Result<git_oid> build_tree(git_repository* repo, const StatIndex& index, const TreeSink& sink) {
  return Updater(repo, index, sink).build("", nullptr);
}

}  // namespace candor::snapshot
