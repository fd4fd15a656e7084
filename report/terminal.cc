// Terminal rendering: verdict first, then why, then the signals. Fits 80 columns. Every string
// from the report passes through terminal_safe: the only escape sequences are candor's colours.
#include <unistd.h>

#include <atomic>
#include <cstdlib>

#include <fmt/format.h>

#include "report/escape.h"
#include "report/fields.h"
#include "report/folding.h"
#include "report/formats.h"
#include "report/report.h"

namespace candor::report {
namespace {

struct Style {
  bool color;
  std::string paint(const std::string& s, const char* code) const {
    return color ? fmt::format("\033[{}m{}\033[0m", code, s) : s;
  }
  std::string bold(const std::string& s) const { return paint(s, "1"); }
  std::string dim(const std::string& s) const { return paint(s, "2"); }
  std::string green(const std::string& s) const { return paint(s, "1;32"); }
  std::string yellow(const std::string& s) const { return paint(s, "1;33"); }
  std::string red(const std::string& s) const { return paint(s, "1;31"); }
};

// One line of report text, safe for the terminal.
std::string str(const nlohmann::json& j, const char* key, const std::string& fallback = "") {
  return terminal_safe(json_str(j, key, fallback));
}

// Word-wraps one paragraph to `width`, the first line after `first`, later lines indented.
std::string wrap_paragraph(const std::string& first, const std::string& text, std::size_t indent, std::size_t width) {
  std::string out = first;
  std::size_t col = first.size();
  std::size_t i = 0;
  bool line_start = true;
  while (i < text.size()) {
    std::size_t j = text.find(' ', i);
    if (j == std::string::npos) j = text.size();
    std::string word = text.substr(i, j - i);
    if (!line_start && col + 1 + word.size() > width) {
      out += "\n" + std::string(indent, ' ');
      col = indent;
      line_start = true;
    }
    if (!line_start) {
      out += ' ';
      ++col;
    }
    out += word;
    col += word.size();
    line_start = false;
    i = j + 1;
  }
  return out + "\n";
}

// Word-wraps report text (made terminal-safe here) to `width`; each of its own lines starts a new
// paragraph at `indent`, so no line of it can pass for one of candor's (at column 0).
std::string wrap(const std::string& first, const std::string& raw, std::size_t indent, std::size_t width) {
  std::string text = terminal_safe(raw, true);
  std::string out;
  std::size_t start = 0;
  for (bool first_line = true;; first_line = false) {
    std::size_t nl = text.find('\n', start);
    std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    out += wrap_paragraph(first_line ? first : std::string(indent, ' '), line, indent, width);
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

std::string joined(const nlohmann::json& list, const char* separator) {
  std::string out;
  for (const auto& s : list) out += (out.empty() ? "" : separator) + terminal_safe(json_text(s));
  return out;
}

std::string signals_section(const nlohmann::json& r, const Style& st) {
  const auto& b = json_object(r, "budget");
  const auto& steps = json_object(r, "steps");
  const auto& assertions = json_list(r, "assertions");
  int passed = 0, failed = 0;
  for (const auto& a : assertions) (json_bool(a, "passed") ? passed : failed)++;
  std::string out = "\n" + st.bold("signals") + "\n";
  std::string status = str(r, "status");
  if (std::string exhausted = str(b, "exhausted"); !exhausted.empty()) status += " (" + exhausted + ")";
  out += fmt::format("  {:<14}{}\n", "loop status", status);
  out += fmt::format("  {:<14}{}\n", "goal actions", json_bool(r, "goal_actions_executed") ? "yes" : "none ran");
  out += fmt::format("  {:<14}{} planned, {} executed, {} failed\n", "steps", json_int(steps, "planned"),
                     json_int(steps, "executed"), json_int(steps, "failed"));
  out += fmt::format("  {:<14}{}\n", "budget", budget_words(r));
  const auto& mutations = json_list(r, "mutations");
  const auto& suspicious = json_list(r, "suspicious");
  if (const auto& p = json_field(r, "provider"); p.is_string()) {
    out += fmt::format("  {:<14}{}\n", "provider", terminal_safe(p.get<std::string>()));
  }
  out += fmt::format("  {:<14}{}\n", "changed files", mutations.empty() ? "none" : std::to_string(mutations.size()));
  out += fmt::format("  {:<14}{}\n", "suspicious", suspicious.empty() ? "none" : std::to_string(suspicious.size()));
  out += fmt::format("  {:<14}{} passed, {} failed\n", "assertions", passed, failed);
  if (const auto& acc = json_field(r, "acceptance"); acc.is_object()) {
    out +=
        fmt::format("  {:<14}{}\n", "acceptance", json_bool(acc, "passed") ? st.green("passed") : st.red("not passed"));
  }
  if (const auto& sb = json_field(r, "sandbox"); sb.is_object()) {
    std::string missing = joined(json_list(sb, "missing"), ", ");
    out += fmt::format("  {:<14}{}\n", "sandbox",
                       missing.empty() ? fmt::format("complete (network {})", str(sb, "network"))
                                       : st.yellow("missing " + missing) + " (`candor doctor`)");
  }
  const auto& usage = json_object(r, "usage");
  if (json_int(usage, "llm_calls") > 0) {
    out += fmt::format("  {:<14}{} (the judge's outside the budget)\n", "usage", usage_words(r));
  }
  std::vector<std::string> scans = scan_way_lines(r);
  for (std::size_t i = 0; i < scans.size(); ++i) {
    out += fmt::format("  {:<14}{}\n", i == 0 ? "scans" : "", terminal_safe(scans[i]));
  }
  return out;
}

// Past this many changed paths the list says how many more per folder (report --json has them all).
constexpr std::size_t kChangesShown = 60;
constexpr std::size_t kFindingsShown = 12;  // per severity

std::string changes_section(const nlohmann::json& mutations, const Style& st, std::size_t w) {
  if (mutations.empty()) return "";
  std::string out = "\n" + st.bold("changes") + "\n";
  Folded folded = fold_paths(mutation_paths(mutations), kChangesShown);
  for (std::size_t i = 0; i < folded.shown; ++i) {
    const auto& m = mutations[i];
    std::string change = json_str(m, "change");
    std::string renamed_from = str(m, "renamed_from");  // the agent named it: made safe as every path
    // A (added), D (deleted), M (modified), R (renamed), P (permission bits only).
    char mark = !renamed_from.empty() ? 'R'
                : change == "added"   ? 'A'
                : change == "deleted" ? 'D'
                : change == "mode"    ? 'P'
                                      : 'M';
    std::string by_steps = joined(json_list(m, "steps"), ",");
    std::string stat =
        change == "mode" ? change_words(m)
        : json_bool(m, "binary")
            ? fmt::format("binary, {} -> {} bytes", json_int(m, "bytes_before"), json_int(m, "bytes_after"))
            : fmt::format("+{} -{}", json_int(m, "lines_added"), json_int(m, "lines_removed"));
    if (!renamed_from.empty()) stat += " (renamed from " + renamed_from + ")";
    out += shorten(fmt::format("  {} {}  {}  {}", mark, str(m, "path"), stat,
                               by_steps.empty() ? "(no step: changed outside the steps)" : "by " + by_steps),
                   w) +
           "\n";
  }
  if (folded.left_out > 0)
    out += wrap("  ", folded_phrase(folded, "changed paths") + " (report --json lists all)", 4, w);
  return out;
}

std::string checks_section(const nlohmann::json& r, const Style& st, std::size_t w, std::size_t painted_w) {
  std::string out;
  const auto& suspicious = json_list(r, "suspicious");
  if (!suspicious.empty()) {
    out += "\n" + st.bold("suspicious") + "\n";
    for (const auto& s : suspicious) out += wrap("  ! ", json_str(s, "reason"), 4, w);
  }
  const auto& assertions = json_list(r, "assertions");
  if (!assertions.empty()) {
    out += "\n" + st.bold("assertions") + "\n";
    for (const auto& a : assertions) {
      std::string mark = json_bool(a, "passed") ? st.green("ok  ") : st.red("FAIL");
      out += wrap(fmt::format("  {} {} {}: ", mark, str(a, "step", "goal"), str(a, "type")),
                  fmt::format("{} ({})", json_str(a, "message"), assertion_provenance(a)), 9, painted_w);
      // A command's runs: before the change, after it, with added paths emptied; each with the end of its output.
      for (const auto& run : program_runs(a)) {
        out += wrap(std::string(9, ' ') + run.label + ": ", run.outcome, 11, w);
        for (const auto& line : run.output)
          out += "           | " + st.dim(shorten(terminal_safe(line), w > 13 ? w - 13 : w)) + "\n";
      }
    }
  }
  if (const auto& t2 = json_field(r, "tier2"); t2.is_object()) {
    out += "\n" + st.bold("judge (tier 2)") + "\n";
    if (t2.contains("error")) out += wrap("  unanswered: ", json_str(t2, "error"), 4, w);
    for (const auto& a : json_list(t2, "answers")) {
      bool yes = json_str(a, "answer") == "yes";
      std::string reason = json_str(a, "reason");
      out += wrap(fmt::format("  {} {}. ", yes ? st.green("yes") : st.red("no "), json_int(a, "question")),
                  json_str(a, "text") + (reason.empty() ? "" : " (" + reason + ")"), 9, painted_w);
    }
  }
  const auto& reviews = json_list(r, "goal_validations");
  if (!reviews.empty()) {
    out += "\n" + st.bold("independent reviews") + "\n";
    for (const auto& v : reviews) {
      std::string verdict = json_str(v, "verdict");
      std::string mark = verdict == "pass" ? st.green("pass") : verdict == "fail" ? st.red("FAIL") : st.yellow("none");
      out += wrap(fmt::format("  {} attempt {}: ", mark, json_int(v, "attempt")), json_str(v, "reason"), 4, painted_w);
    }
  }
  return out;
}

std::string failed_steps_section(const nlohmann::json& step_results, const Style& st, std::size_t w) {
  bool any_failed = false;
  for (const auto& s : step_results) any_failed |= !json_bool(s, "ok", true);
  if (!any_failed) return "";
  std::string out = "\n" + st.bold("failed steps") + "\n";
  for (const auto& s : step_results) {
    if (json_bool(s, "ok", true)) continue;
    out += wrap(fmt::format("  {} {} {}: ", str(s, "id"), str(s, "tool"), shorten(str(s, "target"), 30)),
                json_str(s, "error"), 4, w);
  }
  return out;
}

}  // namespace

std::string render_acceptance(const nlohmann::json& acceptance) {
  std::string out = fmt::format("acceptance: {}\n", json_bool(acceptance, "passed") ? "PASSED" : "NOT PASSED");
  for (const auto& c : json_list(acceptance, "checkpoints")) {
    bool matched = json_bool(c, "matched");
    bool essential = json_bool(c, "essential", true);
    out += fmt::format("  {} {}{}",
                       matched     ? "✓"
                       : essential ? "✗"
                                   : "-",
                       str(c, "id"), essential ? "" : " (not essential)");
    if (matched) out += fmt::format(" at seq {}", json_int(c, "seq"));
    if (!matched) out += ": " + str(c, "why");
    out += "\n";
  }
  return out;
}

namespace {
std::atomic<ColorMode> color_mode{ColorMode::kAuto};
}  // namespace

void set_color_mode(ColorMode mode) { color_mode.store(mode); }

bool want_color_for(bool is_tty) {
  if (ColorMode mode = color_mode.load(); mode != ColorMode::kAuto) return mode == ColorMode::kAlways;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && *no_color != '\0') return false;
  const char* term = std::getenv("TERM");
  if (term != nullptr && std::string(term) == "dumb") return false;
  return is_tty;
}

bool want_color(int fd) { return want_color_for(::isatty(fd) == 1); }

std::string render_terminal(const nlohmann::json& r, const TerminalOptions& opt) {
  Style st{opt.color};
  const std::size_t w = opt.width;
  const std::size_t painted_w = w + (opt.color ? 11 : 0);  // a painted mark's escape codes take no columns
  std::string verdict = json_str(r, "verdict", "?");
  std::string upper;
  for (char c : terminal_safe(verdict)) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string painted = verdict == "success"   ? st.green(upper)
                        : verdict == "partial" ? st.yellow(upper)
                                               : st.red(upper);
  std::string out = fmt::format(
      "{}  {}\n", painted,
      shorten(terminal_safe(goal_title(json_str(r, "goal"))), w > upper.size() + 2 ? w - upper.size() - 2 : w));
  if (const auto& acc = json_field(r, "acceptance"); acc.is_object()) {
    out += acc.value("passed", false) ? st.green("acceptance passed") + "\n"
                                      : st.red("acceptance NOT PASSED") + " (exit 3 when the verdict is success)\n";
  }
  if (const auto& u = json_field(r, "undone"); u.is_object()) {
    out += st.yellow(fmt::format("undone at {}", str(u, "at"))) +
           ": the workspace was restored from the snapshot before this run\n";
  }
  out += st.dim(fmt::format("run {}  verdict by {}  status {}", str(r, "run_id"), str(r, "verdict_by"),
                            str(r, "status"))) +
         "\n";
  if (const auto& gate = json_field(r, "gate"); gate.is_object()) {
    // A turn of another agent that `candor gate` checked at its stop.
    bool blocked = str(gate, "decision") == "block";
    std::string line = fmt::format("gate: {} turn {} (session {}), stop {}: {}, blocked {} of {}", str(gate, "agent"),
                                   json_field(gate, "turn").dump(), shorten(str(gate, "session_id"), 14),
                                   json_field(gate, "stop").dump(), blocked ? "sent back" : "let through",
                                   json_field(gate, "blocks").dump(), json_field(gate, "max_blocks").dump());
    out += (blocked ? st.yellow(line) : st.dim(line)) + "\n";
  }
  out += "\n";

  out += st.bold("why") + "\n";
  for (const auto& line : reason_lines(r, kFindingsShown)) {
    std::string tag = line.severity.empty() ? "" : "[" + line.severity + "] ";
    out += wrap(line.summary ? "    " : "  - ", tag + line.text, 4, w);
  }
  out += signals_section(r, st);
  out += changes_section(json_list(r, "mutations"), st, w);
  if (const auto& acc = json_field(r, "acceptance"); acc.is_object()) out += "\n" + render_acceptance(acc);
  out += checks_section(r, st, w, painted_w);
  out += failed_steps_section(json_list(r, "step_results"), st, w);
  if (const auto& answer = json_field(r, "final_answer"); answer.is_string()) {
    out += "\n" + st.bold("final answer (the model's words, not evidence)") + "\n";
    out += wrap("  ", answer.get<std::string>(), 2, w);
  }
  return out;
}

}  // namespace candor::report
