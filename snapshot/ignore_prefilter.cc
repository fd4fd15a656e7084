#include "snapshot/ignore_prefilter.h"

namespace candor::snapshot {
namespace {

// The part of a rule that must match one of a path's components, or nullopt when this test
// cannot say (every path then goes to libgit2). The matcher is candor's wildmatch (core/glob.h),
// git's own dialect, case folded: a superset of what a case-sensitive match (core.ignoreCase
// false) excludes, and of libgit2's folded match, except for a negated bracket, which folding
// narrows (`[!a]` folded refuses 'A'; git's folds only the text and takes it): those go to libgit2.
std::optional<Glob> last_part(std::string_view rule) {
  while (!rule.empty() && rule.back() == '/') rule.remove_suffix(1);
  std::size_t slash = rule.rfind('/');
  // A '/' escaped, or one after a '[' (inside a bracket expression, perhaps), is no separator to
  // split at by position.
  if (rule.find("\\/") != std::string_view::npos) return std::nullopt;
  if (slash != std::string_view::npos && rule.find('[') < slash) return std::nullopt;
  std::string_view last = slash == std::string_view::npos ? rule : rule.substr(slash + 1);
  if (last.empty() || last.find("[!") != std::string_view::npos || last.find("[^") != std::string_view::npos) {
    return std::nullopt;
  }
  auto glob = Glob::compile(last, /*case_fold=*/true);
  if (!glob.ok()) return std::nullopt;  // git reads it as matching nothing; libgit2 says so itself
  return std::move(glob.value());
}

}  // namespace

void IgnorePrefilter::add(std::string_view text) {
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    // Trailing blanks go, as git's do; an escaped one ("a\ ") stays in git: libgit2 decides.
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
    if (line.empty() || line.front() == '#' || line.front() == '!') continue;  // a negation excludes nothing
    if (line.back() == '\\') {
      matches_all_ = true;
      continue;
    }
    auto part = last_part(line);
    if (!part) {
      matches_all_ = true;
      continue;
    }
    last_parts_.push_back(std::move(*part));
  }
}

bool IgnorePrefilter::may_be_ignored(std::string_view path) const {
  if (matches_all_) return true;
  if (last_parts_.empty()) return false;
  while (!path.empty()) {
    std::size_t slash = path.find('/');
    std::string_view part = path.substr(0, slash);
    path = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
    for (const auto& glob : last_parts_) {
      if (glob.matches(part)) return true;
    }
  }
  return false;
}

}  // namespace candor::snapshot
