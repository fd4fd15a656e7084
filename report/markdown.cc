// Markdown for a pull-request comment. Every string from the report passes through markdown_text
// (prose, table cells) or markdown_code (names shown as code): the agent chose most of them.
#include <cctype>

#include <fmt/format.h>

#include "core/credentials.h"
#include "report/escape.h"
#include "report/fields.h"
#include "report/formats.h"
#include "report/report.h"

namespace candor::report {
namespace {

std::string text(const nlohmann::json& j, const char* key) { return markdown_text(json_str(j, key)); }
std::string code(const nlohmann::json& j, const char* key) { return markdown_code(json_str(j, key)); }
std::string code_cell(const std::string& s) { return markdown_code(s, SpanIn::kTableCell); }

std::string changes_table(const nlohmann::json& mutations) {
  if (mutations.empty()) return "Nothing in the workspace changed.\n";
  std::string out = "| file | change | lines | bytes | steps |\n|---|---|---|---|---|\n";
  for (const auto& m : mutations) {
    std::string steps;
    for (const auto& s : json_list(m, "steps")) steps += (steps.empty() ? "" : ", ") + json_text(s);
    std::string change = text(m, "change");
    if (json_bool(m, "credential") || looks_secret(json_str(m, "path")))
      change += " · " + std::string(kContentWithheld);
    out += fmt::format("| {} | {} | +{} −{} | {} → {} | {} |\n", code_cell(json_str(m, "path")), change,
                       json_int(m, "lines_added"), json_int(m, "lines_removed"), json_int(m, "bytes_before"),
                       json_int(m, "bytes_after"), markdown_text(steps));
  }
  return out;
}

std::string signals(const nlohmann::json& r) {
  const auto& b = json_object(r, "budget");
  const auto& steps = json_object(r, "steps");
  std::string out = "\n<details><summary>Signals</summary>\n\n";
  out += fmt::format("- goal actions executed: {}\n", json_bool(r, "goal_actions_executed") ? "yes" : "no");
  out += fmt::format("- steps: {} planned, {} executed, {} failed\n", json_int(steps, "planned"),
                     json_int(steps, "executed"), json_int(steps, "failed"));
  std::string exhausted = json_str(b, "exhausted");
  out += fmt::format("- budget: replans {} · steps {} · tokens {}{}\n", used_of(json_field(b, "replans")),
                     used_of(json_field(b, "steps")), used_of(json_field(b, "tokens")),
                     exhausted.empty() ? "" : " · exhausted: " + markdown_text(exhausted));
  if (json_field(r, "provider").is_string()) out += "- provider: " + code(r, "provider") + "\n";
  for (const auto& s : json_list(r, "suspicious")) out += "- suspicious: " + text(s, "reason") + "\n";
  return out + "\n</details>\n";
}

std::string assertions_table(const nlohmann::json& assertions) {
  if (assertions.empty()) return "";
  std::string out =
      "\n<details><summary>Assertions</summary>\n\n| | step | type | observed | evidence |\n|---|---|---|---|---|\n";
  for (const auto& a : assertions) {
    // A command's runs (before the change, after, emptied), each with the last line of its output.
    std::string runs;
    for (const auto& run : program_runs(a, 1)) {
      runs += "<br>" + markdown_text(run.label + ": " + run.outcome);
      if (!run.output.empty()) runs += " " + code_cell(run.output.back());
    }
    out += fmt::format("| {} | {} | {} | {}{} | {} |\n", json_bool(a, "passed") ? "✅" : "❌",
                       markdown_text(json_str(a, "step", "goal")), code_cell(json_str(a, "type")), text(a, "message"),
                       runs, markdown_text(assertion_provenance(a)));
  }
  return out + "\n</details>\n";
}

std::string judge_and_reviews(const nlohmann::json& r) {
  std::string out;
  if (const auto& t2 = json_field(r, "tier2"); t2.is_object()) {
    out += "\n<details><summary>Judge (tier 2)</summary>\n\n";
    for (const auto& a : json_list(t2, "answers")) {
      std::string reason = json_str(a, "reason");
      out += fmt::format("- **{}** — {} {}\n", text(a, "answer"), text(a, "text"),
                         reason.empty() ? "" : "(" + markdown_text(reason) + ")");
    }
    if (t2.contains("error")) out += "- unanswered: " + text(t2, "error") + "\n";
    out += "\n</details>\n";
  }
  const auto& reviews = json_list(r, "goal_validations");
  if (!reviews.empty()) {
    out += "\n<details><summary>Independent reviews</summary>\n\n";
    for (const auto& v : reviews) {
      out += fmt::format("- attempt {}: **{}** — {}\n", json_int(v, "attempt"), text(v, "verdict"), text(v, "reason"));
    }
    out += "\n</details>\n";
  }
  return out;
}

}  // namespace

std::string render_markdown(const nlohmann::json& r) {
  std::string verdict = json_str(r, "verdict");
  const char* icon = verdict == "success" ? "✅" : verdict == "partial" ? "⚠️" : "❌";
  std::string out = fmt::format("### {} candor: **{}** — {}\n\n", icon, markdown_text(verdict), text(r, "goal"));
  out += fmt::format("Run {} · status {} · verdict by {}", code(r, "run_id"), code(r, "status"), code(r, "verdict_by"));
  if (const auto& acc = json_field(r, "acceptance"); acc.is_object()) {
    out += acc.value("passed", false) ? " · acceptance **passed**" : " · acceptance **NOT PASSED**";
  }
  if (const auto& u = json_field(r, "undone"); u.is_object()) {
    std::string at = json_str(u, "at");  // candor's own RFC 3339 time: keep only what one holds
    std::erase_if(at, [](char c) {
      return !(std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == ':' || c == '.' || c == 'T' ||
               c == 'Z' || c == '+');
    });
    out += " · **undone at " + at + "**";
  }
  const auto& git = json_field(r, "git");
  if (git.is_object()) {
    // `BASE..` has no head commit: the change is the working tree, uncommitted.
    std::string head =
        json_bool(git, "worktree") ? "the working tree" : markdown_code(json_str(git, "head").substr(0, 12));
    out += fmt::format("\nChange {} ({} → {})", code(git, "range"), markdown_code(json_str(git, "base").substr(0, 12)),
                       head);
  }
  if (const auto& gate = json_field(r, "gate"); gate.is_object()) {
    // A turn of another agent that `candor gate` checked at its stop.
    out += fmt::format("\nGate: {} turn {} of session {}, stop {}: {} (blocked {} time{})", code(gate, "agent"),
                       markdown_code(json_field(gate, "turn").dump()), code(gate, "session_id"),
                       markdown_code(json_field(gate, "stop").dump()),
                       json_str(gate, "decision") == "block" ? "**blocked**" : "let through",
                       markdown_code(json_field(gate, "blocks").dump()), json_field(gate, "blocks") == 1 ? "" : "s");
  }
  out += "\n\n";
  out += "**Why**\n\n";
  for (const auto& reason : json_list(r, "reasons")) out += "- " + markdown_text(json_text(reason)) + "\n";
  const auto& mutations = json_list(r, "mutations");
  if (git.is_object()) {
    // A pull-request comment: the verdict and its reasons first, the file list folded away.
    out += fmt::format("\n<details><summary>Changed files ({})</summary>\n\n{}\n</details>\n", mutations.size(),
                       changes_table(mutations));
  } else {
    out += "\n**Changes**\n\n" + changes_table(mutations);
  }
  out += signals(r);
  out += assertions_table(json_list(r, "assertions"));
  out += judge_and_reviews(r);
  return out;
}

}  // namespace candor::report
