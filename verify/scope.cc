#include "verify/scope.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "core/glob.h"

namespace candor::verify {
namespace {

// Globs are checked where they are read (config, --scope: exit 65). One that was not (facts an
// older candor recorded, verified again) fails closed: a scope or explicit glob names nothing, a
// sensitive glob names everything.
std::optional<PathGlob> compiled(const std::string& pattern, PathGlob::Anchor anchor) {
  auto g = PathGlob::compile(pattern, anchor);
  if (!g.ok()) return std::nullopt;
  return std::move(g.value());
}

}  // namespace

const std::vector<std::string>& default_sensitive_paths() {
  // A `.candor` folder anywhere is candor's configuration for a run given that folder (`-C`).
  static const std::vector<std::string> paths = {".github/workflows/**", ".gitlab-ci.yml", ".circleci/**",
                                                 "**/.candor/**"};
  return paths;
}

bool glob_matches(const std::string& pattern, const std::string& path) {
  auto g = compiled(pattern, PathGlob::Anchor::kAsWritten);
  return g && g->matches(path);
}

bool names_explicitly(const std::string& pattern, const std::string& path) {
  // Anchored: a bare name names the root's entry, not one at any depth.
  auto g = compiled(pattern, PathGlob::Anchor::kRoot);
  return g && g->literal_first_component() && g->matches(path);
}

namespace {

// Patterns compiled once per call: a run can change 100,000 paths, and tier 1 asks twice.
class CompiledGlobs {
 public:
  enum class Use { kScope, kExplicit, kSensitive };
  CompiledGlobs(const std::vector<std::string>& patterns, Use use) {
    for (const auto& p : patterns) {
      auto g = compiled(p, use == Use::kExplicit ? PathGlob::Anchor::kRoot : PathGlob::Anchor::kAsWritten);
      if (!g) {
        invalid_sensitive_ = invalid_sensitive_ || use == Use::kSensitive;
        continue;
      }
      if (use == Use::kExplicit && !g->literal_first_component()) continue;  // names nothing explicitly
      globs_.push_back(std::move(*g));
    }
  }
  bool any(const std::string& path) const {
    return invalid_sensitive_ ||
           std::any_of(globs_.begin(), globs_.end(), [&](const PathGlob& g) { return g.matches(path); });
  }
  // For a link at `path`: it counts as the folder it stands for (`.github/workflows -> ../ci`).
  bool any_beneath(const std::string& path) const {
    return invalid_sensitive_ ||
           std::any_of(globs_.begin(), globs_.end(), [&](const PathGlob& g) { return g.may_match_beneath(path); });
  }

 private:
  std::vector<PathGlob> globs_;
  bool invalid_sensitive_ = false;
};

}  // namespace

std::vector<ScopeFinding> scope_findings(const RunFacts& facts) {
  std::vector<ScopeFinding> out;
  if (facts.mutations.empty()) return out;
  using Use = CompiledGlobs::Use;
  CompiledGlobs scope(facts.scope, Use::kScope), scope_explicit(facts.scope, Use::kExplicit);
  CompiledGlobs sensitive(default_sensitive_paths(), Use::kSensitive),
      config_sensitive(facts.sensitive, Use::kSensitive);
  std::string scope_list;
  for (const auto& p : facts.scope) scope_list += (scope_list.empty() ? "" : ", ") + p;
  auto is_link = [](std::uint32_t mode) { return (mode & 0170000) == 0120000; };
  for (const auto& m : facts.mutations) {
    const bool link = is_link(m.mode_before) || is_link(m.mode_after);
    auto sensitive_here = [&](const CompiledGlobs& g) { return g.any(m.path) || (link && g.any_beneath(m.path)); };
    if (!facts.scope.empty() && !scope.any(m.path)) {
      out.push_back({m.path, fmt::format("{} was {} outside the scope ({})", m.path, m.change, scope_list), false});
      continue;
    }
    if ((sensitive_here(sensitive) || sensitive_here(config_sensitive)) && !scope_explicit.any(m.path)) {
      out.push_back({m.path,
                     fmt::format("{} was {}{}: a sensitive path (CI definitions, candor's configuration, or the "
                                 "config's sensitive list), and no --scope names it",
                                 m.path, m.change, link ? " as a link, which stands for what is beneath it" : ""),
                     true});
    }
  }
  return out;
}

}  // namespace candor::verify
