// Terminal rendering: verdict first, then why, then the signals. Fits 80 columns.
#include <unistd.h>

#include <cstdlib>

#include <fmt/format.h>

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

std::string str(const nlohmann::json& j, const char* key, const std::string& fallback = "") { return json_str(j, key, fallback); }

// Word-wraps `text` to `width`, the first line after `first`, later lines indented by `indent`.
std::string wrap(const std::string& first, const std::string& text, std::size_t indent, std::size_t width) {
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

std::string fit(const std::string& s, std::size_t width) {
  if (s.size() <= width) return s;
  return s.substr(0, width > 3 ? width - 3 : width) + "...";
}

std::string used_of(const nlohmann::json& pair) {
  if (!pair.is_array() || pair.size() != 2) return "?";
  if (pair[0].is_number_float()) return fmt::format("{:.1f}/{}", pair[0].get<double>(), pair[1].dump());
  return fmt::format("{}/{}", pair[0].dump(), pair[1].dump());
}

}  // namespace

std::string render_acceptance(const nlohmann::json& acceptance) {
  std::string out = fmt::format("acceptance: {}\n", acceptance.value("passed", false) ? "PASSED" : "NOT PASSED");
  for (const auto& c : acceptance.value("checkpoints", nlohmann::json::array())) {
    bool matched = c.value("matched", false);
    out += fmt::format("  {} {}{}", matched ? "✓" : c.value("essential", true) ? "✗" : "-", json_str(c, "id"),
                       c.value("essential", true) ? "" : " (not essential)");
    if (matched) out += fmt::format(" at seq {}", c.value("seq", 0));
    if (!matched) out += ": " + json_str(c, "why");
    out += "\n";
  }
  return out;
}


bool want_color_for(bool is_tty) {
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
  std::string out;
  std::string verdict = str(r, "verdict", "?");
  std::string upper;
  for (char c : verdict) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string painted = verdict == "success" ? st.green(upper) : verdict == "partial" ? st.yellow(upper) : st.red(upper);
  std::string by = str(r, "verdict_by");
  out += fmt::format("{}  {}\n", painted, fit(str(r, "goal"), w > upper.size() + 2 ? w - upper.size() - 2 : w));
  if (const auto& acc = r.value("acceptance", nlohmann::json()); acc.is_object()) {
    out += acc.value("passed", false) ? st.green("acceptance passed") + "\n" : st.red("acceptance NOT PASSED") + " (exit 3 when the verdict is success)\n";
  }
  if (const auto& u = r.value("undone", nlohmann::json()); u.is_object()) {
    out += st.yellow(fmt::format("undone at {}", str(u, "at"))) + ": the workspace was restored from the snapshot before this run\n";
  }
  out += st.dim(fmt::format("run {}  verdict by {}  status {}", str(r, "run_id"), by, str(r, "status"))) + "\n\n";

  out += st.bold("why") + "\n";
  for (const auto& reason : r.value("reasons", nlohmann::json::array())) {
    out += wrap("  - ", reason.get<std::string>(), 4, w);
  }

  const auto& b = r.value("budget", nlohmann::json::object());
  const auto& steps = r.value("steps", nlohmann::json::object());
  const auto& mutations = r.value("mutations", nlohmann::json::array());
  const auto& suspicious = r.value("suspicious", nlohmann::json::array());
  const auto& assertions = r.value("assertions", nlohmann::json::array());
  int passed = 0, failed = 0;
  for (const auto& a : assertions) (a.value("passed", false) ? passed : failed)++;

  out += "\n" + st.bold("signals") + "\n";
  std::string status = str(r, "status");
  if (b.contains("exhausted") && b["exhausted"].is_string()) status += " (" + b["exhausted"].get<std::string>() + ")";
  out += fmt::format("  {:<14}{}\n", "loop status", status);
  out += fmt::format("  {:<14}{}\n", "goal actions", r.value("goal_actions_executed", false) ? "yes" : "none ran");
  out += fmt::format("  {:<14}{} planned, {} executed, {} failed\n", "steps", steps.value("planned", 0),
                     steps.value("executed", 0), steps.value("failed", 0));
  out += fmt::format("  {:<14}replans {} · steps {} · tokens {} · time {} s\n", "budget", used_of(b.value("replans", nlohmann::json())),
                     used_of(b.value("steps", nlohmann::json())), used_of(b.value("tokens", nlohmann::json())),
                     used_of(b.value("time_s", nlohmann::json())));
  out += fmt::format("  {:<14}{}\n", "changed files", mutations.empty() ? "none" : std::to_string(mutations.size()));
  out += fmt::format("  {:<14}{}\n", "suspicious", suspicious.empty() ? "none" : std::to_string(suspicious.size()));
  out += fmt::format("  {:<14}{} passed, {} failed\n", "assertions", passed, failed);
  if (const auto& acc = r.value("acceptance", nlohmann::json()); acc.is_object()) {
    out += fmt::format("  {:<14}{}\n", "acceptance", acc.value("passed", false) ? st.green("passed") : st.red("not passed"));
  }
  if (const auto& sb = r.value("sandbox", nlohmann::json()); sb.is_object()) {
    std::string missing;
    for (const auto& m : sb.value("missing", nlohmann::json::array())) missing += (missing.empty() ? "" : ", ") + m.get<std::string>();
    std::string network = sb.value("network", "");
    out += fmt::format("  {:<14}{}\n", "sandbox",
                       missing.empty() ? fmt::format("complete (network {})", network)
                                       : st.yellow("missing " + missing) + " (`candor doctor`)");
  }
  const auto& usage = r.value("usage", nlohmann::json::object());
  if (usage.value("llm_calls", 0) > 0) {
    out += fmt::format("  {:<14}{} LLM calls, {} tokens in, {} out\n", "usage", usage.value("llm_calls", 0),
                       usage.value("input_tokens", 0), usage.value("output_tokens", 0));
  }

  if (!mutations.empty()) {
    out += "\n" + st.bold("changes") + "\n";
    for (const auto& m : mutations) {
      std::string change = str(m, "change");
      char mark = change == "added" ? 'A' : change == "deleted" ? 'D' : 'M';
      std::string by_steps;
      for (const auto& s : m.value("steps", nlohmann::json::array())) by_steps += (by_steps.empty() ? "" : ",") + s.get<std::string>();
      std::string stat = m.value("binary", false)
                             ? fmt::format("binary, {} -> {} bytes", m.value("bytes_before", 0), m.value("bytes_after", 0))
                             : fmt::format("+{} -{}", m.value("lines_added", 0), m.value("lines_removed", 0));
      out += fit(fmt::format("  {} {}  {}  {}", mark, str(m, "path"), stat,
                             by_steps.empty() ? "(no step: changed outside the steps)" : "by " + by_steps),
                 w) + "\n";
    }
  }
  if (const auto& acc = r.value("acceptance", nlohmann::json()); acc.is_object()) out += "\n" + render_acceptance(acc);
  if (!suspicious.empty()) {
    out += "\n" + st.bold("suspicious") + "\n";
    for (const auto& s : suspicious) out += wrap("  ! ", str(s, "reason"), 4, w);
  }
  if (!assertions.empty()) {
    out += "\n" + st.bold("assertions") + "\n";
    for (const auto& a : assertions) {
      bool ok = a.value("passed", false);
      std::string where = a["step"].is_string() ? a["step"].get<std::string>() : "goal";
      std::string mark = ok ? st.green("ok  ") : st.red("FAIL");
      out += wrap(fmt::format("  {} {} {}: ", mark, where, str(a, "type")),
                  fmt::format("{} ({})", str(a, "message"), assertion_provenance(a)), 9, w + (opt.color ? 11 : 0));
    }
  }
  if (r.contains("tier2") && r["tier2"].is_object()) {
    const auto& t2 = r["tier2"];
    out += "\n" + st.bold("judge (tier 2)") + "\n";
    if (t2.contains("error")) out += wrap("  unanswered: ", str(t2, "error"), 4, w);
    for (const auto& a : t2.value("answers", nlohmann::json::array())) {
      bool yes = str(a, "answer") == "yes";
      out += wrap(fmt::format("  {} {}. ", yes ? st.green("yes") : st.red("no "), a.value("question", 0)),
                  str(a, "text") + (str(a, "reason").empty() ? "" : " (" + str(a, "reason") + ")"), 9, w + (opt.color ? 11 : 0));
    }
  }
  const auto& reviews = r.value("goal_validations", nlohmann::json::array());
  if (!reviews.empty()) {
    out += "\n" + st.bold("independent reviews") + "\n";
    for (const auto& v : reviews) {
      std::string verdict = str(v, "verdict");
      std::string mark = verdict == "pass" ? st.green("pass") : verdict == "fail" ? st.red("FAIL") : st.yellow("none");
      out += wrap(fmt::format("  {} attempt {}: ", mark, v.value("attempt", 0)), str(v, "reason"), 4, w + (opt.color ? 11 : 0));
    }
  }
  const auto& step_results = r.value("step_results", nlohmann::json::array());
  bool any_failed = false;
  for (const auto& s : step_results) any_failed |= !s.value("ok", true);
  if (any_failed) {
    out += "\n" + st.bold("failed steps") + "\n";
    for (const auto& s : step_results) {
      if (s.value("ok", true)) continue;
      out += wrap(fmt::format("  {} {} {}: ", str(s, "id"), str(s, "tool"), fit(str(s, "target"), 30)), str(s, "error"), 4, w);
    }
  }
  if (r.contains("final_answer") && r["final_answer"].is_string()) {
    out += "\n" + st.bold("final answer (the model's words, not evidence)") + "\n";
    out += wrap("  ", r["final_answer"].get<std::string>(), 2, w);
  }
  return out;
}

}  // namespace candor::report
