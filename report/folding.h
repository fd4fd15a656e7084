// A large change stays readable: every rendering (terminal, Markdown, HTML) shows the first entries
// of a long list whole and says how many more there are per folder, rather than printing thousands
// of lines or silently cutting them (docs/design.md, "Every finding is reported").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace candor::report {

// How many more entries a folded list left out under one top-level folder.
struct FolderCount {
  std::string folder;  // "src/", or "(top level)" for a path with no folder
  std::size_t count = 0;
};

// The entries of a list past its cap, counted per top-level folder, largest first.
struct Folded {
  std::size_t shown = 0;          // the first `shown` entries are printed whole
  std::vector<FolderCount> rest;  // at most `max_folders`, then `other_folders` more entries
  std::size_t left_out = 0;       // entries not printed (the sum of `rest` and `other_paths`)
  std::size_t other_paths = 0;    // entries in folders past `max_folders`
};

inline constexpr std::size_t kMaxFolders = 12;

Folded fold_paths(const std::vector<std::string>& paths, std::size_t cap, std::size_t max_folders = kMaxFolders);

// "and 4,213 more: src/ 4,000, tests/ 200, and 13 in 3 other folders", "" when nothing was left out.
std::string folded_phrase(const Folded& folded, const std::string& what);

// One line of the reasons as a rendering shows them: a reason (with its severity when tier 1 found
// it), or a line that stands for the reasons of one severity past the cap.
struct ReasonLine {
  std::string severity;  // "blocked", "failed", ...: "" for a reason that is not a tier-1 finding
  std::string text;
  bool summary = false;  // a "… and N more" line
};

// The report's reasons in their order; past `per_severity` findings that name a path in one
// severity, the rest of that severity as one summary line after its last shown one.
std::vector<ReasonLine> reason_lines(const nlohmann::json& report, std::size_t per_severity);

// A mutation's change in words: "added", "modified", "deleted", "added, renamed from a/x.txt" (git
// matched it with a deleted path), or for a change of permission bits only "mode 0644 → 0755" from
// its octal `mode_before`/`mode_after` ("mode changed" when either is missing).
std::string change_words(const nlohmann::json& mutation);

// The mutation list's paths, for fold_paths.
std::vector<std::string> mutation_paths(const nlohmann::json& mutations);

}  // namespace candor::report
