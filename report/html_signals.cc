// The HTML signals table: what tier 1 decided from, one row each, warnings marked in text as well as
// colour.
#include <fmt/format.h>

#include "report/fields.h"
#include "report/formats.h"
#include "report/html_parts.h"

namespace candor::report {
namespace {

std::string e(const std::string& s) { return escape_html(s); }

// A row whose value counts against success: a text marker, not only the colour.
std::string row(const char* id, const char* name, const std::string& value_html, bool warning = false) {
  return fmt::format("<tr id=\"{}\"><th>{}</th><td{}>{}{}</td></tr>", id, name, warning ? " class=\"warning\"" : "",
                     warning ? "<span class=\"mark\">⚠ warning:</span> " : "", value_html);
}

// What the process sandbox gave shell steps, in words.
std::string sandbox_value(const nlohmann::json& sb) {
  std::vector<std::string> on;
  if (json_bool(sb, "filesystem"))
    on.push_back(fmt::format("Landlock writes confined (ABI {})", json_int(sb, "landlock_abi")));
  if (json_bool(sb, "read_only_dirs")) on.push_back(".git, .candor and the store read-only");
  if (json_bool(sb, "pid_namespace")) on.push_back("own PID namespace");
  if (std::string n = json_str(sb, "network"); !n.empty()) on.push_back("network: " + n);
  if (json_bool(sb, "seccomp")) on.push_back("seccomp filter");
  if (std::string p = json_str(sb, "processes"); !p.empty()) on.push_back("process limit: " + p);
  if (json_bool(sb, "rlimits")) on.push_back("rlimits");
  if (json_bool(sb, "env_scrubbed")) on.push_back("environment scrubbed");
  if (json_bool(sb, "privileges_dropped")) on.push_back("privileges dropped");
  std::string out;
  for (const auto& s : on) out += (out.empty() ? "" : " · ") + e(s);
  std::string missing;
  for (const auto& m : json_list(sb, "missing")) missing += (missing.empty() ? "" : ", ") + e(json_text(m));
  if (!missing.empty())
    out += fmt::format("{}<br><span class=\"mark\">⚠ missing:</span> {}", out.empty() ? "none" : "", missing);
  return out.empty() ? "none" : out;
}

}  // namespace

std::string html_signals(const nlohmann::json& r) {
  const auto& steps = json_object(r, "steps");
  const auto& b = json_object(r, "budget");
  const auto& mutations = json_list(r, "mutations");
  const auto& suspicious = json_list(r, "suspicious");
  int passed = 0, failed = 0;
  for (const auto& a : json_list(r, "assertions")) (json_bool(a, "passed") ? passed : failed)++;

  std::string out = "<h2>Signals</h2><table id=\"signals\">";
  bool actions = json_bool(r, "goal_actions_executed");
  out += row("sig-effect-tools", "effect tools run", actions ? "yes" : "none ran",
             !actions && json_str(r, "goal_kind") != "inspect");
  out += row("sig-steps", "steps",
             fmt::format("{} planned, {} executed, {} failed", json_int(steps, "planned"), json_int(steps, "executed"),
                         json_int(steps, "failed")));
  // Failures a replan fixed do not count against the run (docs/design.md, tier-1 rules): the last
  // round's count decides the warning; a report from before it was kept counts every failure.
  const auto& sig = json_object(r, "signals");
  std::string assertions = fmt::format("{} passed, {} failed", passed, failed);
  bool final_failed = failed > 0;
  if (sig.contains("final_assertions_failed")) {
    final_failed = json_int(sig, "final_assertions_failed") > 0;
    assertions += fmt::format(" · final: {} passed, {} failed", json_int(sig, "final_assertions_passed"),
                              json_int(sig, "final_assertions_failed"));
  }
  out += row("sig-assertions", "assertions", assertions, final_failed);
  out += row("sig-changed-files", "changed files", std::to_string(mutations.size()));
  std::string listed = std::to_string(suspicious.size());
  for (const auto& s : suspicious) listed += "<br>" + e(json_str(s, "reason"));
  out += row("sig-suspicious", "suspicious steps", listed, !suspicious.empty());
  std::string exhausted = json_str(b, "exhausted");
  out += row("sig-budget-exhausted", "budget exhausted", exhausted.empty() ? "no" : "yes: " + e(exhausted),
             !exhausted.empty());
  out += row("sig-budget", "budget used", e(budget_words(r)));
  if (const auto& scan = json_field(r, "scan"); scan.is_object()) {
    bool complete = json_bool(scan, "complete", true);
    std::string unread;
    for (const auto& p : json_list(scan, "unread")) unread += (unread.empty() ? "" : ", ") + e(json_text(p));
    out += row("sig-scan", "workspace scan", complete ? "complete" : "incomplete: could not read " + unread, !complete);
    std::string ways;
    for (const auto& line : scan_way_lines(r)) ways += (ways.empty() ? "" : "; ") + e(line);
    if (!ways.empty()) out += row("sig-scan-ways", "scans", ways, false);
  }
  const auto& sb = json_field(r, "sandbox");
  out += row("sig-sandbox", "sandbox (shell steps)", sb.is_object() ? sandbox_value(sb) : "not recorded",
             sb.is_object() && !json_list(sb, "missing").empty());
  const auto& provider = json_field(r, "provider");
  out += row("sig-provider", "provider / model",
             provider.is_string() ? e(provider.get<std::string>()) : "none (no LLM was used)");
  const auto& policy = json_field(r, "judge_policy");
  out += row("sig-judge-policy", "judge policy", policy.is_string() ? e(policy.get<std::string>()) : "not recorded");
  out += row("sig-usage", "usage", e(usage_words(r)));
  return out + "</table>\n";
}

}  // namespace candor::report
