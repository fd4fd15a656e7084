#include "verify/scope.h"

#include <algorithm>
#include <memory>

#include <fmt/format.h>
#include <re2/re2.h>

namespace candor::verify {
namespace {

std::string strip(const std::string& pattern) {
  std::string p = pattern;
  while (p.size() > 1 && p.rfind("./", 0) == 0) p = p.substr(2);
  if (!p.empty() && p[0] == '/') p = p.substr(1);
  return p;
}

// The glob as an anchored RE2 pattern over the whole path.
std::string to_regex(const std::string& pattern, bool anchor) {
  bool anchored = anchor || (!pattern.empty() && pattern[0] == '/');
  std::string p = strip(pattern);
  bool folder = !p.empty() && p.back() == '/';
  if (folder) p.pop_back();
  anchored = anchored || p.find('/') != std::string::npos;
  std::string re = anchored ? "" : "(?:.*/)?";
  for (std::size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    if (c == '*' && i + 1 < p.size() && p[i + 1] == '*') {
      bool slash_after = i + 2 < p.size() && p[i + 2] == '/';
      re += slash_after ? "(?:.*/)?" : ".*";
      i += slash_after ? 2 : 1;
    } else if (c == '*') {
      re += "[^/]*";
    } else if (c == '?') {
      re += "[^/]";
    } else if (c == '[') {
      std::size_t close = p.find(']', i + 1);
      if (close == std::string::npos) {
        re += "\\[";
      } else {
        std::string cls = p.substr(i + 1, close - i - 1);
        if (!cls.empty() && cls[0] == '!') cls[0] = '^';
        re += "[" + cls + "]";
        i = close;
      }
    } else {
      re += RE2::QuoteMeta(std::string(1, c));
    }
  }
  if (folder) re += "/.*";
  else re += "(?:/.*)?";  // a pattern naming a folder covers what is beneath it, as in .gitignore
  return re;
}

// `dir/x`, `.github/**`: a first path component without wildcards, which names what it matches.
bool literal_first_component(const std::string& pattern) {
  std::string p = strip(pattern);
  std::string first = p.substr(0, p.find('/'));
  return !first.empty() && first.find_first_of("*?[") == std::string::npos;
}

bool matches(const std::string& pattern, const std::string& path, bool anchor) {
  if (strip(pattern).empty()) return false;
  RE2 re(to_regex(pattern, anchor));
  return re.ok() && RE2::FullMatch(path, re);
}

}  // namespace

const std::vector<std::string>& default_sensitive_paths() {
  static const std::vector<std::string> paths = {".github/workflows/**", ".gitlab-ci.yml", ".circleci/**", ".candor/**"};
  return paths;
}

bool glob_matches(const std::string& pattern, const std::string& path) { return matches(pattern, path, false); }

bool names_explicitly(const std::string& pattern, const std::string& path) {
  // Anchored: a bare name names the root's entry, not one at any depth.
  return literal_first_component(pattern) && matches(pattern, path, true);
}

namespace {

// Patterns compiled once per call: a run can change 100,000 paths, and tier 1 asks twice.
class CompiledGlobs {
 public:
  CompiledGlobs(const std::vector<std::string>& patterns, bool anchor) {
    for (const auto& p : patterns) {
      if (anchor && !literal_first_component(p)) continue;  // names nothing explicitly
      if (strip(p).empty()) continue;
      auto re = std::make_unique<RE2>(to_regex(p, anchor));
      if (re->ok()) res_.push_back(std::move(re));
    }
  }
  bool any(const std::string& path) const {
    return std::any_of(res_.begin(), res_.end(), [&](const auto& re) { return RE2::FullMatch(path, *re); });
  }
 private:
  std::vector<std::unique_ptr<RE2>> res_;
};

}  // namespace

std::vector<ScopeFinding> scope_findings(const RunFacts& facts) {
  std::vector<ScopeFinding> out;
  if (facts.mutations.empty()) return out;
  CompiledGlobs scope(facts.scope, false), scope_explicit(facts.scope, true);
  CompiledGlobs sensitive(default_sensitive_paths(), false), config_sensitive(facts.sensitive, false);
  std::string scope_list;
  for (const auto& p : facts.scope) scope_list += (scope_list.empty() ? "" : ", ") + p;
  for (const auto& m : facts.mutations) {
    if (!facts.scope.empty() && !scope.any(m.path)) {
      out.push_back({m.path, fmt::format("{} was {} outside the scope ({})", m.path, m.change, scope_list)});
      continue;
    }
    if ((sensitive.any(m.path) || config_sensitive.any(m.path)) && !scope_explicit.any(m.path)) {
      out.push_back({m.path, fmt::format("{} was {}: a sensitive path (CI definitions, candor's configuration, or the "
                                         "config's sensitive list), and no --scope names it",
                                         m.path, m.change)});
    }
  }
  return out;
}

}  // namespace candor::verify
