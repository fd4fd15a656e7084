#include "verify/ignore_prefilter.h"

#include <fnmatch.h>

namespace candor::verify {

void IgnorePrefilter::add(std::string_view text) {
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    // Trailing blanks go (git keeps an escaped one; a rule with a backslash is judged by libgit2).
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
    if (line.empty() || line.front() == '#' || line.front() == '!') continue;  // a negation excludes nothing
    // Escapes and bracket expressions, where fnmatch and git's wildmatch may differ: libgit2 decides.
    if (line.find_first_of("\\[") != std::string_view::npos) {
      matches_all_ = true;
      continue;
    }
    while (!line.empty() && line.back() == '/') line.remove_suffix(1);
    std::size_t slash = line.rfind('/');
    std::string_view last = slash == std::string_view::npos ? line : line.substr(slash + 1);
    if (last.empty()) {
      matches_all_ = true;
      continue;
    }
    last_parts_.emplace_back(last);
  }
}

bool IgnorePrefilter::may_be_ignored(std::string_view path) const {
  if (matches_all_) return true;
  if (last_parts_.empty()) return false;
  std::string part;
  while (!path.empty()) {
    std::size_t slash = path.find('/');
    part.assign(path.substr(0, slash));
    path = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
    // Case folded: a superset of what a case-sensitive match (core.ignoreCase false) excludes.
    for (const auto& glob : last_parts_) {
      if (::fnmatch(glob.c_str(), part.c_str(), FNM_CASEFOLD) == 0) return true;
    }
  }
  return false;
}

}  // namespace candor::verify
