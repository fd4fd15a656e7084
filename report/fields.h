// Reading a stored report without trusting its shape. The renderers take the report JSON from the
// store; one written by an older candor, or damaged, renders with gaps rather than throwing (and a
// const operator[] on a missing key is undefined behaviour in nlohmann::json).
#pragma once

#include <cstdint>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/arg_schema.h"

namespace candor::report {

// The value at `key`, or null when `j` is not an object or lacks it.
inline const nlohmann::json& json_field(const nlohmann::json& j, const char* key) {
  static const nlohmann::json null;
  if (!j.is_object()) return null;
  auto it = j.find(key);
  return it == j.end() ? null : *it;
}

inline std::int64_t json_int(const nlohmann::json& j, const char* key, std::int64_t fallback = 0) {
  const auto& v = json_field(j, key);
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number_float()) return static_cast<std::int64_t>(v.get<double>());
  return fallback;
}

inline bool json_bool(const nlohmann::json& j, const char* key, bool fallback = false) {
  const auto& v = json_field(j, key);
  return v.is_boolean() ? v.get<bool>() : fallback;
}

// The array at `key`, or an empty one.
inline const nlohmann::json& json_list(const nlohmann::json& j, const char* key) {
  static const nlohmann::json empty = nlohmann::json::array();
  const auto& v = json_field(j, key);
  return v.is_array() ? v : empty;
}

// The object at `key`, or an empty one.
inline const nlohmann::json& json_object(const nlohmann::json& j, const char* key) {
  static const nlohmann::json empty = nlohmann::json::object();
  const auto& v = json_field(j, key);
  return v.is_object() ? v : empty;
}

// A string element of a list (a reason, a step id), "" for anything else.
inline std::string json_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : ""; }

// A budget pair [used, limit] as "used/limit" ("?" when it is not one).
inline std::string used_of(const nlohmann::json& pair) {
  if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number() || !pair[1].is_number()) return "?";
  std::string used = pair[0].is_number_float() ? fmt::format("{:.1f}", pair[0].get<double>()) : pair[0].dump();
  return used + "/" + pair[1].dump();
}

// The budget as every rendering says it: "replans 1/3 · steps 4/50 · tokens 900/200000 · time 3.1/600 s"
// for a run candor planned; only "time 3.1/600 s" for a verification (verify --git, a transcript, a
// gate turn), which has no planner: its token budget says nothing, and the judge is not counted in it.
inline std::string budget_words(const nlohmann::json& report) {
  const auto& b = json_object(report, "budget");
  const auto& source_field = json_field(report, "source");
  std::string source = source_field.is_string() ? source_field.get<std::string>() : "";
  if (source == "run" || source == "exec" || source.empty()) {
    return fmt::format("replans {} · steps {} · tokens {} · time {} s", used_of(json_field(b, "replans")),
                       used_of(json_field(b, "steps")), used_of(json_field(b, "tokens")),
                       used_of(json_field(b, "time_s")));
  }
  return fmt::format("time {} s", used_of(json_field(b, "time_s")));
}

// How the scans after the snapshot before the run looked, as every rendering says it: "3 by change
// events" and, for each that walked the whole workspace, "full scan: REASON (after step s2)" (the
// final scan's "(the final scan)"); "" when the run asked for no change events. Unescaped.
inline std::vector<std::string> scan_way_lines(const nlohmann::json& report) {
  const auto& scan = json_object(report, "scan");
  const auto& walks = json_list(scan, "full_walks");
  std::int64_t by_events = json_int(scan, "by_events");
  std::vector<std::string> out;
  // With an fsmonitor, how the snapshot before the run looked: by its answer, or a walk and why.
  if (const auto& before = json_object(scan, "before_run"); json_text(json_field(before, "looked")) == "watchman") {
    out.push_back("the snapshot before the run by Watchman's answer");
  } else if (before.is_object() && !before.empty()) {
    out.push_back("the snapshot before the run walked: " + json_text(json_field(before, "reason")));
  }
  if (by_events == 0 && walks.empty()) return out;
  const auto& fsmonitor = json_field(scan, "fsmonitor");
  out.push_back(fmt::format("{} by change events{}, {} full", by_events,
                            fsmonitor.is_string() ? " (" + json_text(fsmonitor) + ")" : "", walks.size()));
  constexpr std::size_t kShown = 5;
  for (std::size_t i = 0; i < walks.size() && i < kShown; ++i) {
    const auto& step = json_field(walks[i], "step");
    out.push_back(fmt::format("full scan: {} ({})", json_text(json_field(walks[i], "reason")),
                              step.is_string() ? "after step " + step.get<std::string>() : "the final scan"));
  }
  if (walks.size() > kShown)
    out.push_back(fmt::format("and {} more full scans (report --json lists all)", walks.size() - kShown));
  return out;
}

// A goal's title: its first line that holds text, without a Markdown heading's own "#"s (a
// --goal-file holding an issue's "## Bug" body is titled "Bug"). `more` tells whether other lines
// with text follow.
inline std::string goal_title(const std::string& goal, bool* more = nullptr) {
  std::string title;
  std::size_t at = 0;
  bool found = false;
  if (more != nullptr) *more = false;
  while (at <= goal.size()) {
    std::size_t eol = goal.find('\n', at);
    std::string line = goal.substr(at, eol == std::string::npos ? std::string::npos : eol - at);
    at = eol == std::string::npos ? goal.size() + 1 : eol + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (found) {
      if (more != nullptr) *more = true;
      break;
    }
    found = true;
    std::size_t start = line.find_first_not_of(" \t");
    std::size_t hashes = line.find_first_not_of('#', start);
    if (hashes != std::string::npos && hashes > start && hashes - start <= 6 &&
        (line[hashes] == ' ' || line[hashes] == '\t'))
      start = line.find_first_not_of(" \t", hashes);
    title = line.substr(start);
    while (!title.empty() && (title.back() == '\r' || title.back() == ' ')) title.pop_back();
  }
  return title;
}

// The LLM usage as every rendering says it: "4 LLM calls, 3600 tokens in, 500 out", and, when a
// server sent no usage for some calls, that those tokens are candor's estimate.
inline std::string usage_words(const nlohmann::json& report) {
  const auto& usage = json_object(report, "usage");
  std::int64_t calls = json_int(usage, "llm_calls");
  std::string words = fmt::format("{} LLM call{}, {} tokens in, {} out", calls, calls == 1 ? "" : "s",
                                  json_int(usage, "input_tokens"), json_int(usage, "output_tokens"));
  std::int64_t estimated = json_int(usage, "estimated_calls");
  // A script file (--llm script:FILE) is no server: its lines carry no usage unless they say so.
  const nlohmann::json& provider = json_field(report, "provider");
  bool script = provider.is_string() && provider.get<std::string>().rfind("script", 0) == 0;
  std::string source = script ? "the script gave no usage" : "the server sent no usage";
  if (estimated > 0 && estimated == calls)
    words += fmt::format(" ({}: {})", calls == 1 ? "estimated" : "all estimated", source);
  else if (estimated > 0)
    words += fmt::format(" ({} of the calls estimated: {})", estimated, source);
  return words;
}

}  // namespace candor::report
