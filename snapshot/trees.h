// Reads and diffs of git trees in one repository: the run store's snapshot repository (the trees
// before and after a run) or a workspace's own repository (`candor verify --git`: the trees of BASE
// and HEAD). No work tree is involved, so nothing here reads the workspace's files.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/run_record.h"
#include "core/tree_reader.h"

struct git_repository;

namespace candor::snapshot {

// git's id of the tree with nothing in it. Read as empty here even when the object database lacks it
// (a root commit's "parent"), so nothing has to be written to a repository to diff against it.
inline constexpr const char* kEmptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

// The tree reader's types (core/tree_reader.h), by their names here too.
using candor::TreeEntryInfo;
using candor::TreeFile;

struct DiffOptions {
  // A path removed and another added with (nearly) the same content become one rename: the added
  // path's mutation names the old one in `renamed_from`, and the old path is still listed as deleted.
  bool detect_renames = false;
};

// Borrows `repo`, which must outlive it. Thread-compatible (libgit2 handles are not shared across
// threads by callers here). The tree reader the judge reads a run's trees through.
class GitTrees final : public TreeReader {
 public:
  explicit GitTrees(git_repository* repo) : repo_(repo) {}

  // The net change from `from_tree` to `to_tree`: added/modified/deleted, sizes, line counts.
  // `steps` and `last_change_seq` are left for the caller to attribute.
  Result<std::vector<Mutation>> diff(const std::string& from_tree, const std::string& to_tree,
                                     const DiffOptions& options = {}) const;

  // Unified diff text of one path between two trees, for people and the judge. Capped.
  Result<std::string> patch_text(const std::string& from_tree, const std::string& to_tree, const std::string& path,
                                 std::size_t max_bytes) const override;
  Result<std::map<std::string, std::string>> patch_texts(const std::string& from_tree, const std::string& to_tree,
                                                         const std::vector<std::string>& paths,
                                                         std::size_t max_bytes) const override;

  // `path` in `tree` with its mode; nullopt when the path is not in it (or is a folder).
  Result<std::optional<TreeFile>> read_file(const std::string& tree, const std::string& path) const override;

  // What is at `path` in `tree`: nullopt when nothing is. "." is the tree itself.
  Result<std::optional<TreeEntryInfo>> stat(const std::string& tree, const std::string& path) const override;

  // read(tree, path): the content of `path` in `tree` (TreeReader's).

  // The paths of the files `tree` holds that `keep` takes (a credential file's name), in path order.
  Result<std::vector<std::string>> file_paths(const std::string& tree,
                                              const std::function<bool(std::string_view)>& keep) const override;

  // Writes the files of `tree` beneath `folder` (which must exist and be empty): a checkout that
  // touches no index, no HEAD and no work tree of the repository. Symbolic links are written as
  // links; nothing is written outside `folder`.
  Status checkout(const std::string& tree, const std::string& folder) const;

 private:
  git_repository* repo_;
};

}  // namespace candor::snapshot
