// Reading a tree of files by its id, whatever holds it: a file, what is at a path, and the diff of
// one path between two trees. The snapshot store's trees and a repository's commits
// (snapshot::GitTrees) implement it; the judge reads its evidence through it, so deciding needs no
// git.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace candor {

struct TreeFile {
  std::string content;
  unsigned mode = 0100644;  // git mode: 0100644, 0100755, 0120000 (symlink)
};

struct TreeEntryInfo {
  bool directory = false;
  std::int64_t size = 0;    // blob size; 0 for a directory
  unsigned mode = 0040000;  // git mode
};

class TreeReader {
 public:
  virtual ~TreeReader() = default;

  // Unified diff text of one path between two trees, for people and the judge. Capped.
  virtual Result<std::string> patch_text(const std::string& from_tree, const std::string& to_tree,
                                         const std::string& path, std::size_t max_bytes) const = 0;

  // patch_text() of each of `paths` (files) between the same two trees, by path; a path with no
  // change has none. One diff of the two trees where the reader can, not one per path (a diff
  // narrowed to a path still reads every entry of each folder on its way: 20,000 changed files in
  // one folder took a minute path by path).
  virtual Result<std::map<std::string, std::string>> patch_texts(const std::string& from_tree,
                                                                 const std::string& to_tree,
                                                                 const std::vector<std::string>& paths,
                                                                 std::size_t max_bytes) const {
    std::map<std::string, std::string> out;
    for (const auto& path : paths) {
      TRY(std::string text, patch_text(from_tree, to_tree, path, max_bytes));
      if (!text.empty()) out.emplace(path, std::move(text));
    }
    return out;
  }

  // `path` in `tree` with its mode; nullopt when the path is not in it (or is a folder).
  virtual Result<std::optional<TreeFile>> read_file(const std::string& tree, const std::string& path) const = 0;

  // What is at `path` in `tree`: nullopt when nothing is. "." is the tree itself.
  virtual Result<std::optional<TreeEntryInfo>> stat(const std::string& tree, const std::string& path) const = 0;

  // The paths of the files `tree` holds that `keep` takes, in path order.
  virtual Result<std::vector<std::string>> file_paths(const std::string& tree,
                                                      const std::function<bool(std::string_view)>& keep) const = 0;

  // Content of `path` in `tree`; nullopt when the path is not in it.
  Result<std::optional<std::string>> read(const std::string& tree, const std::string& path) const {
    TRY(auto file, read_file(tree, path));
    if (!file) return std::optional<std::string>();
    return std::optional<std::string>(std::move(file->content));
  }

 protected:
  TreeReader() = default;
  TreeReader(const TreeReader&) = default;
  TreeReader& operator=(const TreeReader&) = default;
};

}  // namespace candor
