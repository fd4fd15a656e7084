// A libgit2 index's entries as a sorted array of paths, for lookups that need no libgit2 call: from
// several threads at once, or by prefix (the entries beneath a folder are contiguous).
#pragma once

#include <git2.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace candor::verify {

// The index's entries, sorted by path (libgit2 keeps them so), for lookups from walker threads.
class IndexView {
 public:
  explicit IndexView(git_index* index) {
    std::size_t n = git_index_entrycount(index);
    entries_.reserve(n);
    paths_.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      entries_.push_back(git_index_get_byindex(index, i));
      paths_.emplace_back(entries_.back()->path);
    }
  }
  // Position of the entry for `path`, or npos.
  std::size_t find(std::string_view path) const {
    auto it = std::lower_bound(paths_.begin(), paths_.end(), path);
    return it != paths_.end() && *it == path ? static_cast<std::size_t>(it - paths_.begin()) : npos;
  }
  // Whether any entry lies beneath `dir` ("a/b/"). Paths sharing a prefix are contiguous.
  bool has_prefix(std::string_view dir) const {
    auto it = std::lower_bound(paths_.begin(), paths_.end(), dir);
    return it != paths_.end() && it->substr(0, dir.size()) == dir;
  }
  // Position of the first entry not sorted before `path` (size() when there is none).
  std::size_t lower_bound(std::string_view path) const {
    return static_cast<std::size_t>(std::lower_bound(paths_.begin(), paths_.end(), path) - paths_.begin());
  }
  std::string_view path(std::size_t i) const { return paths_[i]; }
  const git_index_entry* at(std::size_t i) const { return entries_[i]; }
  std::size_t size() const { return entries_.size(); }
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

 private:
  std::vector<const git_index_entry*> entries_;
  std::vector<std::string_view> paths_;  // views of entries_' paths, sorted as the index is
};

}  // namespace candor::verify
