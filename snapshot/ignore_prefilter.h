// Which paths no ignore rule can exclude, told without libgit2. git_ignore_path_is_ignored stats
// every rule file on a path's way at each call (half a scan's time on a workspace without a
// repository); most paths match no rule at all. A rule can only exclude a path when its last
// component matches one of the path's components (a folder's rule excludes what is inside), so
// a path none matches is certainly not ignored; the others are still asked of libgit2.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/glob.h"

namespace candor::snapshot {

class IgnorePrefilter {
 public:
  // Adds the rules of a gitignore text (a .gitignore file, info/exclude, snapshot.ignore lines),
  // wherever it applies: the test ignores where a rule is anchored.
  void add(std::string_view text);

  // False only when no rule added can exclude `path` ("a/b/c", relative to the workspace).
  bool may_be_ignored(std::string_view path) const;

 private:
  bool matches_all_ = false;      // a rule the test cannot judge: every path is asked
  std::vector<Glob> last_parts_;  // each excluding rule's last component, case folded
};

}  // namespace candor::snapshot
