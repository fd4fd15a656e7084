#include "report/folding.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "report/fields.h"

namespace candor::report {
namespace {

std::string top_folder(const std::string& path) {
  std::size_t slash = path.find('/');
  if (slash == std::string::npos || slash + 1 == path.size()) return "(top level)";
  return path.substr(0, slash + 1);
}

// 4213 -> "4,213": counts in summaries are read by people.
std::string grouped(std::size_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace

Folded fold_paths(const std::vector<std::string>& paths, std::size_t cap, std::size_t max_folders) {
  Folded out;
  out.shown = std::min(cap, paths.size());
  std::map<std::string, std::size_t> per_folder;
  for (std::size_t i = out.shown; i < paths.size(); ++i) ++per_folder[top_folder(paths[i])];
  for (const auto& [folder, count] : per_folder) out.rest.push_back({folder, count});
  std::stable_sort(out.rest.begin(), out.rest.end(),
                   [](const FolderCount& a, const FolderCount& b) { return a.count > b.count; });
  out.left_out = paths.size() - out.shown;
  if (out.rest.size() > max_folders) {
    for (std::size_t i = max_folders; i < out.rest.size(); ++i) out.other_paths += out.rest[i].count;
    out.rest.resize(max_folders);
  }
  return out;
}

std::string folded_phrase(const Folded& folded, const std::string& what) {
  if (folded.left_out == 0) return "";
  std::string folders;
  for (const auto& f : folded.rest)
    folders += fmt::format("{}{} {}", folders.empty() ? "" : ", ", f.folder, grouped(f.count));
  if (folded.other_paths > 0) folders += fmt::format(", and {} in other folders", grouped(folded.other_paths));
  return fmt::format("and {} more {}: {}", grouped(folded.left_out), what, folders);
}

std::vector<ReasonLine> reason_lines(const nlohmann::json& report, std::size_t per_severity) {
  struct Found {
    std::string severity, path;
  };
  std::unordered_map<std::string, Found> findings;
  for (const auto& f : json_list(report, "findings"))
    findings.emplace(json_str(f, "text"), Found{json_str(f, "severity"), json_str(f, "path")});
  std::vector<ReasonLine> out;
  std::map<std::string, std::size_t> shown_with_path;      // per severity
  std::map<std::string, std::vector<std::string>> hidden;  // per severity, the paths left out
  std::map<std::string, std::size_t> last_line;            // per severity, where its summary goes
  for (const auto& reason : json_list(report, "reasons")) {
    std::string text = json_text(reason);
    auto it = findings.find(text);
    if (it == findings.end()) {
      out.push_back({"", text, false});
      continue;
    }
    const Found& f = it->second;
    if (!f.path.empty() && shown_with_path[f.severity]++ >= per_severity) {
      hidden[f.severity].push_back(f.path);
      continue;
    }
    last_line[f.severity] = out.size();
    out.push_back({f.severity, text, false});
  }
  // Insert from the last position back, so earlier positions stay valid.
  std::vector<std::pair<std::size_t, ReasonLine>> summaries;
  for (const auto& [severity, paths] : hidden) {
    std::string line = folded_phrase(fold_paths(paths, 0), "like these");
    summaries.push_back({last_line.count(severity) ? last_line[severity] + 1 : out.size(), {severity, line, true}});
  }
  std::stable_sort(summaries.begin(), summaries.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [at, line] : summaries) out.insert(out.begin() + static_cast<std::ptrdiff_t>(at), line);
  return out;
}

std::string change_words(const nlohmann::json& m) {
  std::string change = json_str(m, "change");
  if (std::string from = json_str(m, "renamed_from"); !from.empty()) return change + ", renamed from " + from;
  if (change != "mode") return change;
  auto bits = [&](const char* key) -> long {
    std::string octal = json_str(m, key);
    if (octal.empty() || octal.size() > 7 || octal.find_first_not_of("01234567") != std::string::npos) return -1;
    return std::stol(octal, nullptr, 8) & 07777;
  };
  long before = bits("mode_before"), after = bits("mode_after");
  if (before < 0 || after < 0) return "mode changed";
  return fmt::format("mode {:04o} → {:04o}", before, after);
}

std::vector<std::string> mutation_paths(const nlohmann::json& mutations) {
  std::vector<std::string> out;
  for (const auto& m : mutations) out.push_back(json_str(m, "path"));
  return out;
}

}  // namespace candor::report
