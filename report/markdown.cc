// Markdown for a pull-request comment. Every string from the report passes through markdown_text
// (prose, table cells) or markdown_code (names shown as code): the agent chose most of them.
#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "core/credentials.h"
#include "report/escape.h"
#include "report/fields.h"
#include "report/folding.h"
#include "report/formats.h"
#include "report/report.h"

namespace candor::report {
namespace {

std::string text(const nlohmann::json& j, const char* key) { return markdown_text(json_str(j, key)); }
std::string code(const nlohmann::json& j, const char* key) { return markdown_code(json_str(j, key)); }
std::string code_cell(const std::string& s) { return markdown_code(s, SpanIn::kTableCell); }

// A pull-request comment holds at most 65,536 characters; the report stays under this with room to spare.
constexpr std::size_t kMarkdownLimit = 60000;
constexpr std::size_t kChangesShown = 150;
constexpr std::size_t kAssertionsShown = 100;
constexpr std::size_t kFindingsShown = 15;  // per severity
constexpr std::size_t kHeadingChars = 200;
constexpr std::size_t kGoalChars = 4000;
constexpr std::size_t kReasonChars = 600;
constexpr std::size_t kWhyChars = 30000;

std::string changes_table(const nlohmann::json& mutations) {
  if (mutations.empty()) return "Nothing in the workspace changed.\n";
  std::string out = "| file | change | lines | bytes | steps |\n|---|---|---|---|---|\n";
  Folded folded = fold_paths(mutation_paths(mutations), kChangesShown);
  for (std::size_t i = 0; i < folded.shown; ++i) {
    const auto& m = mutations[i];
    std::string steps;
    for (const auto& s : json_list(m, "steps")) steps += (steps.empty() ? "" : ", ") + json_text(s);
    std::string change = markdown_text(change_words(m));
    if (json_bool(m, "credential") || looks_secret(json_str(m, "path")))
      change += " · " + std::string(kContentWithheld);
    if (json_bool(m, "test_of_record")) change += " · a test the change edited: run on record as it was";
    out += fmt::format("| {} | {} | +{} −{} | {} → {} | {} |\n", code_cell(json_str(m, "path")), change,
                       json_int(m, "lines_added"), json_int(m, "lines_removed"), json_int(m, "bytes_before"),
                       json_int(m, "bytes_after"), markdown_text(steps));
  }
  if (folded.left_out > 0)
    out += "\n" + markdown_text(folded_phrase(folded, "changed paths") + " (`candor report --json` lists all)") + "\n";
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
  out += fmt::format("- budget: {}{}\n", budget_words(r),
                     exhausted.empty() ? "" : " · exhausted: " + markdown_text(exhausted));
  const auto& usage = json_object(r, "usage");
  if (json_int(usage, "llm_calls") > 0) {
    out += "- LLM usage: " + markdown_text(usage_words(r)) +
           " (the judge's calls are not counted against the token budget)\n";
  }
  if (json_field(r, "provider").is_string()) out += "- provider: " + code(r, "provider") + "\n";
  for (const auto& s : json_list(r, "suspicious")) out += "- suspicious: " + text(s, "reason") + "\n";
  return out + "\n</details>\n";
}

std::string assertions_table(const nlohmann::json& assertions) {
  if (assertions.empty()) return "";
  std::string out =
      "\n<details><summary>Assertions</summary>\n\n| | step | type | observed | evidence |\n|---|---|---|---|---|\n";
  for (std::size_t i = 0; i < std::min(assertions.size(), kAssertionsShown); ++i) {
    const auto& a = assertions[i];
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
  if (assertions.size() > kAssertionsShown)
    out += fmt::format("\nand {} more assertions (`candor report --json` lists all)\n",
                       assertions.size() - kAssertionsShown);
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

// The heading holds the goal's first line (an issue's title), cut; a longer goal follows folded.
std::string goal_heading(const nlohmann::json& r, const std::string& icon, const std::string& verdict) {
  std::string goal = json_str(r, "goal");
  bool more = false;
  std::string first = goal_title(goal, &more);
  bool cut = first.size() > kHeadingChars;
  if (cut) first = shorten(first, kHeadingChars);
  std::string out = fmt::format("### {} candor: **{}** — {}\n\n", icon, markdown_text(verdict), markdown_text(first));
  if (cut || more) {
    // Quoted line by line, each made inert (markdown_text) and ended with a hard break, so the
    // goal's own lines stay lines; a blank line stays a paragraph break inside the quote.
    std::string whole = shorten(goal, kGoalChars), quoted;
    std::size_t at = 0;
    while (at <= whole.size()) {
      std::size_t eol = whole.find('\n', at);
      std::string line = whole.substr(at, eol == std::string::npos ? std::string::npos : eol - at);
      at = eol == std::string::npos ? whole.size() + 1 : eol + 1;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      quoted += line.find_first_not_of(" \t") == std::string::npos ? ">\n" : "> " + markdown_text(line) + "  \n";
    }
    out += "<details><summary>Goal</summary>\n\n" + quoted + "\n</details>\n\n";
  }
  return out;
}

// Each reason cut at kReasonChars, and the list at kWhyChars: the reasons come before every other
// section, so they alone must leave room for the rest.
std::string why(const nlohmann::json& r) {
  std::string out = "**Why**\n\n";
  auto lines = reason_lines(r, kFindingsShown);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto& line = lines[i];
    std::string tag = line.severity.empty() ? "" : "*" + markdown_text(line.severity) + "* — ";
    std::string item = (line.summary ? "  - " : "- ") + tag + markdown_text(shorten(line.text, kReasonChars)) + "\n";
    if (out.size() + item.size() > kWhyChars) {
      out += fmt::format("- and {} more reasons (`candor report --json` lists all)\n", lines.size() - i);
      break;
    }
    out += item;
  }
  return out;
}

// Sections past what fits in kMarkdownLimit are left out whole (never cut inside their markup),
// and the report says which.
std::string fit(const std::string& head, const std::vector<std::pair<std::string, std::string>>& sections,
                const std::string& run_id) {
  std::string out = head;
  std::vector<std::string> left_out;
  constexpr std::size_t kRoomForNote = 400;
  for (const auto& [name, text] : sections) {
    if (left_out.empty() && out.size() + text.size() + kRoomForNote <= kMarkdownLimit) {
      out += text;
    } else {
      left_out.push_back(name);
    }
  }
  if (!left_out.empty()) {
    std::string names;
    for (const auto& n : left_out) names += (names.empty() ? "" : ", ") + n;
    out += fmt::format(
        "\n*Left out to fit one comment ({} characters): {}. `candor report {} --json` has "
        "everything.*\n",
        kMarkdownLimit, markdown_text(names), markdown_code(run_id));
  }
  return out;
}

}  // namespace

std::string render_markdown(const nlohmann::json& r) {
  std::string verdict = json_str(r, "verdict");
  const char* icon = verdict == "success" ? "✅" : verdict == "partial" ? "⚠️" : "❌";
  std::string out = goal_heading(r, icon, verdict);
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
  out += "\n\n" + why(r);
  const auto& mutations = json_list(r, "mutations");
  std::vector<std::pair<std::string, std::string>> sections;
  if (git.is_object()) {
    // A pull-request comment: the verdict and its reasons first, the file list folded away.
    sections.push_back(
        {"changed files", fmt::format("\n<details><summary>Changed files ({})</summary>\n\n{}\n</details>\n",
                                      mutations.size(), changes_table(mutations))});
  } else {
    sections.push_back({"changes", "\n**Changes**\n\n" + changes_table(mutations)});
  }
  sections.push_back({"signals", signals(r)});
  sections.push_back({"assertions", assertions_table(json_list(r, "assertions"))});
  sections.push_back({"judge and reviews", judge_and_reviews(r)});
  return fit(out, sections, json_str(r, "run_id"));
}

}  // namespace candor::report
