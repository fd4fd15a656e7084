#include <fmt/format.h>

#include "report/formats.h"
#include "report/report.h"

namespace candor::report {
namespace {

std::string str(const nlohmann::json& j, const char* key) { return json_str(j, key); }

// Table cells: no pipes or newlines may break the row.
std::string cell(std::string s) {
  for (std::size_t at; (at = s.find('|')) != std::string::npos;) s.replace(at, 1, "\\|");
  for (auto& c : s) {
    if (c == '\n') c = ' ';
  }
  return s;
}

}  // namespace

std::string render_markdown(const nlohmann::json& r) {
  std::string verdict = str(r, "verdict");
  const char* icon = verdict == "success" ? "✅" : verdict == "partial" ? "⚠️" : "❌";
  std::string out = fmt::format("### {} candor: **{}** — {}\n\n", icon, verdict, cell(str(r, "goal")));
  out += fmt::format("Run `{}` · status `{}` · verdict by `{}`", str(r, "run_id"), str(r, "status"), str(r, "verdict_by"));
  if (const auto& acc = r.value("acceptance", nlohmann::json()); acc.is_object()) {
    out += acc.value("passed", false) ? " · acceptance **passed**" : " · acceptance **NOT PASSED**";
  }
  if (const auto& u = r.value("undone", nlohmann::json()); u.is_object()) out += fmt::format(" · **undone at {}**", cell(str(u, "at")));
  out += "\n\n";
  out += "**Why**\n\n";
  for (const auto& reason : r.value("reasons", nlohmann::json::array())) out += "- " + reason.get<std::string>() + "\n";
  const auto& mutations = r.value("mutations", nlohmann::json::array());
  out += "\n**Changes**\n\n";
  if (mutations.empty()) {
    out += "Nothing in the workspace changed.\n";
  } else {
    out += "| file | change | lines | bytes | steps |\n|---|---|---|---|---|\n";
    for (const auto& m : mutations) {
      std::string steps;
      for (const auto& s : m.value("steps", nlohmann::json::array())) steps += (steps.empty() ? "" : ", ") + s.get<std::string>();
      out += fmt::format("| `{}` | {} | +{} −{} | {} → {} | {} |\n", cell(str(m, "path")), str(m, "change"), m.value("lines_added", 0),
                         m.value("lines_removed", 0), m.value("bytes_before", 0), m.value("bytes_after", 0), cell(steps));
    }
  }
  const auto& b = r.value("budget", nlohmann::json::object());
  out += "\n<details><summary>Signals</summary>\n\n";
  out += fmt::format("- goal actions executed: {}\n", r.value("goal_actions_executed", false) ? "yes" : "no");
  out += fmt::format("- steps: {} planned, {} executed, {} failed\n", r["steps"].value("planned", 0), r["steps"].value("executed", 0),
                     r["steps"].value("failed", 0));
  out += fmt::format("- budget: replans {} · steps {} · tokens {}{}\n", b.value("replans", nlohmann::json()).dump(),
                     b.value("steps", nlohmann::json()).dump(), b.value("tokens", nlohmann::json()).dump(),
                     b.contains("exhausted") && b["exhausted"].is_string() ? " · exhausted: " + b["exhausted"].get<std::string>() : "");
  for (const auto& s : r.value("suspicious", nlohmann::json::array())) out += "- suspicious: " + str(s, "reason") + "\n";
  out += "\n</details>\n";
  const auto& assertions = r.value("assertions", nlohmann::json::array());
  if (!assertions.empty()) {
    out += "\n<details><summary>Assertions</summary>\n\n| | step | type | observed | evidence |\n|---|---|---|---|---|\n";
    for (const auto& a : assertions) {
      out += fmt::format("| {} | {} | `{}` | {} | {} |\n", a.value("passed", false) ? "✅" : "❌",
                         a["step"].is_string() ? a["step"].get<std::string>() : "goal", str(a, "type"), cell(str(a, "message")),
                         cell(assertion_provenance(a)));
    }
    out += "\n</details>\n";
  }
  if (r.contains("tier2") && r["tier2"].is_object()) {
    out += "\n<details><summary>Judge (tier 2)</summary>\n\n";
    for (const auto& a : r["tier2"].value("answers", nlohmann::json::array())) {
      out += fmt::format("- **{}** — {} {}\n", str(a, "answer"), cell(str(a, "text")), str(a, "reason").empty() ? "" : "(" + cell(str(a, "reason")) + ")");
    }
    out += "\n</details>\n";
  }
  const auto& reviews = r.value("goal_validations", nlohmann::json::array());
  if (!reviews.empty()) {
    out += "\n<details><summary>Independent reviews</summary>\n\n";
    for (const auto& v : reviews) out += fmt::format("- attempt {}: **{}** — {}\n", v.value("attempt", 0), str(v, "verdict"), cell(str(v, "reason")));
    out += "\n</details>\n";
  }
  return out;
}

}  // namespace candor::report
