// A private copy of the workspace's .gitignore files as a run found them at its start, so ignore
// decisions made later in the run cannot be changed by a step that writes a .gitignore (or, for
// `verify --git BASE..`, the .gitignore files of BASE's tree, so the change cannot write its own).
// It lives in the snapshot repository's folder (or a private temporary one), one per process
// (concurrent runs on one workspace each have their own), and is removed when it goes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "snapshot/beneath.h"

namespace candor::snapshot {

class IgnoreShadow {
 public:
  // Creates `parent`/ignore-<pid>-XXXXXX, and removes the ones processes that died left there.
  static Result<IgnoreShadow> create(const std::string& parent);
  IgnoreShadow() = default;
  ~IgnoreShadow();
  IgnoreShadow(IgnoreShadow&& other) noexcept;
  IgnoreShadow& operator=(IgnoreShadow&& other) noexcept;
  IgnoreShadow(const IgnoreShadow&) = delete;
  IgnoreShadow& operator=(const IgnoreShadow&) = delete;

  // "" until created.
  const std::string& path() const { return path_; }

  // Copies the file `rel` beneath `root` to the same place in the shadow, read through a
  // descriptor. Returns how it went: kFile when copied, kGone, or kUnreadable. A symlink is not
  // followed (git ignores a .gitignore that is a symlink too) and counts as kGone.
  Entry::Kind copy(const BeneathRoot& root, const std::string& rel) const;

  // Writes `content` as the file `rel` ("a/b/.gitignore": relative, no "." or "..") in the shadow:
  // rules that come from somewhere other than the workspace (a commit's .gitignore blobs). False
  // when it could not be written.
  bool write(const std::string& rel, std::string_view content) const;

 private:
  explicit IgnoreShadow(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// Removes every shadow in `parent` and returns their paths: for `candor gc`, which holds the
// repository's lock exclusively, so none of them belongs to a live process.
std::vector<std::string> remove_all_shadows(const std::string& parent);

}  // namespace candor::snapshot
