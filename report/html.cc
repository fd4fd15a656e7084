// One self-contained HTML file: inline CSS, no scripts, no external assets; everything escaped.
// The report JSON may come from an older candor or be damaged: every field is read through
// report/fields.h, so a missing or mistyped one renders as a gap, never as an exception.
#include <algorithm>

#include <fmt/format.h>

#include "core/credentials.h"
#include "report/escape.h"
#include "report/fields.h"
#include "report/folding.h"
#include "report/formats.h"
#include "report/html_parts.h"
#include "report/report.h"

namespace candor::report {
namespace {

std::string str(const nlohmann::json& j, const char* key) { return json_str(j, key); }
std::string e(const std::string& s) { return escape_html(s); }

constexpr const char* kStyle = R"css(
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1b1b1b;background:#fafafa}
main{max-width:1100px;margin:0 auto;padding:0 1rem 3rem}
.banner{padding:1.2rem 1.5rem;color:#fff}
.banner h1{margin:0;font-size:1.6rem}.banner p{margin:.3rem 0 0;opacity:.9}
.success{background:#1e7a34}.partial{background:#a86200}.fail{background:#b3261e}
h2{font-size:1.1rem;margin:1.6rem 0 .5rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #e4e4e4;vertical-align:top}
td,li{overflow-wrap:break-word}
#signals th{white-space:nowrap;width:12rem}
#steps td.id,#steps td.tool{white-space:nowrap}
#steps td.target{width:22%;word-break:break-all}
.ok{color:#1e7a34;font-weight:600}.bad{color:#b3261e;font-weight:600}.warn{color:#8a5a00;font-weight:600}
pre{background:#fff;border:1px solid #e4e4e4;padding:.5rem;overflow-x:auto;font-size:.82rem}
.diff span{display:block;white-space:pre;min-height:1.2em}
.diff .add{background:#e6ffec}.diff .del{background:#ffebe9}.diff .hunk{color:#6f42c1}
.muted{color:#666}
.mark{font-weight:700;white-space:nowrap}
ul.reasons{list-style:none;padding:0}
ul.reasons li{margin:.3rem 0;padding:.35rem .6rem;border-left:5px solid #999;background:#fff}
.severity{font-variant:small-caps;font-weight:600;margin-right:.3rem}
li.warning{border-left-color:#b3261e!important;background:#fff1ef!important}
li.warning .mark{color:#b3261e}
li.support{border-left-color:#1e7a34!important}
li.support .mark{color:#1e7a34}
td.warning{background:#fff1ef}td.warning .mark{color:#b3261e}
tr.round th{background:#eef1f6;font-weight:600;padding-top:.5rem}
.replan-reason{font-weight:400}
td.why{color:#444;font-style:italic}
td.outcome{font-weight:600;white-space:normal}
td.outcome.ok{color:#1e7a34}
td.outcome.assertion-failed{color:#8a3a00;background:#fff4e0}
td.outcome.tool-error{color:#b3261e;background:#fff1ef}
td.outcome.not-run,tr.step-not-run td{color:#888;font-weight:400}
section.judge-decided{border:2px solid #6f42c1;background:#fff;padding:.2rem 1rem .8rem;margin-top:1rem}
section.judge-secondary{opacity:.8;font-size:.9rem}
section.judge-secondary h2{font-weight:400;color:#555}
)css";

std::string render_diff(const std::string& diff) {
  std::string out = "<pre class=\"diff\">";
  std::size_t pos = 0;
  while (pos < diff.size()) {
    std::size_t nl = diff.find('\n', pos);
    std::string line = diff.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? diff.size() : nl + 1;
    const char* cls = "";
    if (line.rfind("+++", 0) == 0 || line.rfind("---", 0) == 0 || line.rfind("diff ", 0) == 0 ||
        line.rfind("index ", 0) == 0 || line.rfind("new file mode", 0) == 0 ||
        line.rfind("deleted file mode", 0) == 0) {
      cls = "muted";
    } else if (line.rfind("@@", 0) == 0) {
      cls = "hunk";
    } else if (!line.empty() && line[0] == '+') {
      cls = "add";
    } else if (!line.empty() && line[0] == '-') {
      cls = "del";
    }
    out += fmt::format("<span class=\"{}\">{}</span>", cls, e(line));
  }
  return out + "</pre>";
}

std::string banner(const nlohmann::json& r) {
  std::string verdict = str(r, "verdict");
  if (verdict != "success" && verdict != "partial") verdict = "fail";  // a class name: only candor's own words
  std::string extra;
  if (const auto& acc = json_field(r, "acceptance"); acc.is_object()) {
    extra = json_bool(acc, "passed") ? " · <span id=\"banner-acceptance\">acceptance passed</span>"
                                     : " · ⚠ <span id=\"banner-acceptance\">acceptance NOT PASSED</span>";
  }
  if (std::size_t n = json_list(r, "warnings").size(); n > 0) {
    extra += fmt::format(" · <span id=\"banner-warnings\">⚠ {} warning{}</span>", n, n == 1 ? "" : "s");
  }
  if (const auto& u = json_field(r, "undone"); u.is_object()) {
    extra += " · <span id=\"banner-undone\">undone at " + e(str(u, "at")) + "</span>";
  }
  return fmt::format(
      "<header class=\"banner {}\" id=\"verdict\"><h1>{}</h1><p>{}</p><p>run {} · status {} · verdict by "
      "{}{}</p></header>\n",
      verdict,
      verdict == "success"   ? "SUCCESS"
      : verdict == "partial" ? "PARTIAL"
                             : "FAIL",
      e(str(r, "goal")), e(str(r, "run_id")), e(str(r, "status")), e(str(r, "verdict_by")), extra);
}

// Past these, a list says how many more per folder.
constexpr std::size_t kChangesShown = 300;
constexpr std::size_t kFindingsShown = 25;  // per severity

// Reasons, each marked as a warning (it counts against success) or as support, in words as well as
// colour. A report from before `warnings` existed lists its reasons unmarked.
std::string reasons_section(const nlohmann::json& r) {
  std::string out = "<h2>Why</h2><ul id=\"reasons\" class=\"reasons\">";
  const auto& warnings_field = json_field(r, "warnings");
  std::vector<std::string> warnings;
  for (const auto& w : json_list(r, "warnings")) warnings.push_back(json_text(w));
  auto is_warning = [&](const std::string& s) {
    return std::find(warnings.begin(), warnings.end(), s) != warnings.end();
  };
  std::vector<std::string> shown;  // every reason, those folded into a summary line too
  for (const auto& reason : json_list(r, "reasons")) shown.push_back(json_text(reason));
  for (const auto& line : reason_lines(r, kFindingsShown)) {
    const std::string& text = line.text;
    std::string tag = line.severity.empty() ? "" : "<span class=\"severity\">" + e(line.severity) + "</span> ";
    if (line.summary) {
      out += "<li class=\"warning summary\">" + tag + e(text) + "</li>";
    } else if (!warnings_field.is_array()) {
      out += "<li>" + tag + e(text) + "</li>";
    } else if (is_warning(text)) {
      out += "<li class=\"warning\"><span class=\"mark\">⚠ warning:</span> " + tag + e(text) + "</li>";
    } else {
      out += "<li class=\"support\"><span class=\"mark\">✓ supports:</span> " + tag + e(text) + "</li>";
    }
  }
  for (const auto& w : warnings) {  // signals that count against success without being a reason
    if (std::find(shown.begin(), shown.end(), w) == shown.end()) {
      out += "<li class=\"warning\"><span class=\"mark\">⚠ warning:</span> " + e(w) + "</li>";
    }
  }
  return out + "</ul>\n";
}

// The judge's answers: beside the verdict when tier 2 decided; further down, visibly secondary,
// when it was asked and tier 1 decided.
std::string judge_section(const nlohmann::json& t2, bool decided) {
  std::string out =
      decided ? "<section id=\"judge\" class=\"judge-decided\"><h2>The judge decided (tier 2)</h2>"
              : "<section id=\"judge\" class=\"judge-secondary\"><h2>The judge was asked; tier 1 decided</h2>";
  out += "<table id=\"judge-answers\"><tr><th>#</th><th>question</th><th>answer</th><th>the judge's reason</th></tr>";
  for (const auto& a : json_list(t2, "answers")) {
    bool yes = str(a, "answer") == "yes";
    out += fmt::format("<tr><td>{}</td><td>{}</td><td class=\"{}\">{}</td><td>{}</td></tr>", json_int(a, "question"),
                       e(str(a, "text")), yes ? "ok" : "bad", yes ? "✓ yes" : "✗ no", e(str(a, "reason")));
  }
  if (t2.contains("error"))
    out += "<tr><td colspan=\"4\" class=\"bad\">unanswered: " + e(str(t2, "error")) + "</td></tr>";
  return out + "</table></section>\n";
}

std::string assertions_section(const nlohmann::json& r) {
  const auto& assertions = json_list(r, "assertions");
  std::string out =
      "<h2>Assertions</h2><table id=\"assertions\"><tr><th></th><th>step</th><th>type</th><th>observed</th>"
      "<th>by</th><th>discriminating</th></tr>";
  for (const auto& a : assertions) {
    bool passed = json_bool(a, "passed");
    const auto& d = json_field(a, "discriminating");
    std::string disc = !d.is_boolean() ? "—"
                       : d.get<bool>() ? "yes: failed before the run"
                                       : "no: " + not_discriminating_why(a);
    const auto& step = json_field(a, "step");
    // A command's runs: before the change, after it, with added paths emptied, each with the end of its output.
    std::string runs;
    for (const auto& run : program_runs(a, 6)) {
      std::string output;
      for (const auto& line : run.output) output += (output.empty() ? "" : "\n") + line;
      runs += fmt::format("<div class=\"run\">{}: {}{}</div>", e(run.label), e(run.outcome),
                          output.empty() ? "" : "<pre>" + e(output) + "</pre>");
    }
    out += fmt::format(
        "<tr><td class=\"{}\">{}</td><td>{}</td><td>{}</td><td>{}{}</td><td class=\"by\">{}</td><td "
        "class=\"discriminating\">{}</td></tr>",
        passed ? "ok" : "bad", passed ? "✓ pass" : "✗ FAIL", e(step.is_string() ? step.get<std::string>() : "goal"),
        e(str(a, "type")), e(str(a, "message")), runs, e(json_str(a, "by", "planner")), e(disc));
  }
  if (assertions.empty()) out += "<tr><td colspan=\"6\" class=\"muted\">no assertion was evaluated</td></tr>";
  return out + "</table>\n";
}

std::string changes_section(const nlohmann::json& r, const std::map<std::string, std::string>& diffs) {
  std::string out = "<h2>Changes</h2><div id=\"changes\">";
  const auto& mutations = json_list(r, "mutations");
  if (mutations.empty()) out += "<p class=\"muted\">Nothing in the workspace changed.</p>";
  Folded folded = fold_paths(mutation_paths(mutations), kChangesShown);
  for (std::size_t i = 0; i < folded.shown; ++i) {
    const auto& m = mutations[i];
    std::string path = str(m, "path");
    std::string change = change_words(m);
    out += fmt::format("<h3><code>{}</code> {} +{} −{}</h3>", e(path), e(change), json_int(m, "lines_added"),
                       json_int(m, "lines_removed"));
    auto it = diffs.find(path);
    if (json_bool(m, "credential") || looks_secret(path)) {
      out += "<p class=\"muted\">" + e(std::string(kContentWithheld)) + "</p>";  // whatever `diffs` holds
    } else {
      out += it != diffs.end() ? render_diff(it->second) : "<p class=\"muted\">(no diff stored)</p>";
    }
  }
  if (folded.left_out > 0)
    out += "<p id=\"changes-folded\" class=\"muted\">" + e(folded_phrase(folded, "changed paths")) +
           " (<code>candor report --json</code> lists all)</p>";
  return out + "</div>\n";
}

std::string reviews_and_acceptance(const nlohmann::json& r) {
  std::string out;
  const auto& reviews = json_list(r, "goal_validations");
  if (!reviews.empty()) {
    out += "<h2>Independent reviews</h2><table id=\"reviews\">";
    for (const auto& v : reviews) {
      std::string verdict = str(v, "verdict");
      out += fmt::format("<tr><td>attempt {}</td><td class=\"{}\">{}</td><td>{}</td></tr>", json_int(v, "attempt"),
                         verdict == "pass"   ? "ok"
                         : verdict == "fail" ? "bad"
                                             : "warn",
                         e(verdict), e(str(v, "reason")));
    }
    out += "</table>\n";
  }
  if (const auto& acc = json_field(r, "acceptance"); acc.is_object()) {
    out += "<h2>Acceptance</h2><table id=\"acceptance\">";
    for (const auto& c : json_list(acc, "checkpoints")) {
      bool matched = json_bool(c, "matched");
      out += fmt::format("<tr><td class=\"{}\">{}</td><td>{}</td></tr>", matched ? "ok" : "bad",
                         matched ? "✓ matched" : "✗ missed", e(str(c, "id")));
    }
    out += "</table>\n";
  }
  return out;
}

}  // namespace

std::string render_html(const nlohmann::json& r, const std::vector<Event>& events,
                        const std::map<std::string, std::string>& diffs) {
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
      "<title>candor {}: {}</title><style>{}</style></head><body>\n",
      e(str(r, "verdict")), e(str(r, "goal")), kStyle);
  out += banner(r) + "<main>\n";
  const auto& t2 = json_field(r, "tier2");
  bool judge_decided = t2.is_object() && str(r, "verdict_by") == "tier2";
  if (judge_decided) out += judge_section(t2, true);
  out += reasons_section(r);
  out += html_signals(r);
  out += html_timeline(events);
  out += assertions_section(r);
  out += changes_section(r, diffs);
  if (t2.is_object() && !judge_decided) out += judge_section(t2, false);
  out += reviews_and_acceptance(r);
  if (const auto& answer = json_field(r, "final_answer"); answer.is_string()) {
    out +=
        "<h2>Final answer <span class=\"muted\">(the model's words, not evidence)</span></h2><pre "
        "id=\"final-answer\">" +
        e(answer.get<std::string>()) + "</pre>\n";
  }
  return out + "</main></body></html>\n";
}

}  // namespace candor::report
