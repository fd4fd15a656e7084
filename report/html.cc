// One self-contained HTML file: inline CSS, no scripts, no external assets; everything escaped.
#include <fmt/format.h>

#include "report/escape.h"
#include "report/fields.h"
#include "report/formats.h"
#include "report/report.h"
#include "sandbox/secret_files.h"

namespace candor::report {
namespace {

std::string str(const nlohmann::json& j, const char* key) { return json_str(j, key); }
std::string e(const std::string& s) { return escape_html(s); }

constexpr const char* kStyle = R"css(
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1b1b1b;background:#fafafa}
main{max-width:980px;margin:0 auto;padding:0 1rem 3rem}
.banner{padding:1.2rem 1.5rem;color:#fff}
.banner h1{margin:0;font-size:1.6rem}.banner p{margin:.3rem 0 0;opacity:.9}
.success{background:#1e7a34}.partial{background:#a86200}.fail{background:#b3261e}
h2{font-size:1.1rem;margin:1.6rem 0 .5rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #e4e4e4;vertical-align:top}
.ok{color:#1e7a34;font-weight:600}.bad{color:#b3261e;font-weight:600}.warn{color:#8a5a00;font-weight:600}
pre{background:#fff;border:1px solid #e4e4e4;padding:.5rem;overflow-x:auto;font-size:.82rem}
.diff span{display:block;white-space:pre;min-height:1.2em}
.diff .add{background:#e6ffec}.diff .del{background:#ffebe9}.diff .hunk{color:#6f42c1}
.round{margin-top:.8rem;font-weight:600}
.muted{color:#666}
)css";

std::string render_diff(const std::string& diff) {
  std::string out = "<pre class=\"diff\">";
  std::size_t pos = 0;
  while (pos < diff.size()) {
    std::size_t nl = diff.find('\n', pos);
    std::string line = diff.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? diff.size() : nl + 1;
    const char* cls = "";
    if (line.rfind("+++", 0) == 0 || line.rfind("---", 0) == 0 || line.rfind("diff ", 0) == 0 || line.rfind("index ", 0) == 0) {
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

}  // namespace

std::string escape_html(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string render_html(const nlohmann::json& r, const std::vector<Event>& events, const std::map<std::string, std::string>& diffs) {
  std::string verdict = str(r, "verdict");
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
      "<title>candor {}: {}</title><style>{}</style></head><body>\n",
      e(verdict), e(str(r, "goal")), kStyle);
  std::string acceptance;
  if (const auto& acc = r.value("acceptance", nlohmann::json()); acc.is_object()) {
    acceptance = acc.value("passed", false) ? " · <span id=\"banner-acceptance\">acceptance passed</span>"
                                            : " · <span id=\"banner-acceptance\">acceptance NOT PASSED</span>";
  }
  if (const auto& u = r.value("undone", nlohmann::json()); u.is_object()) {
    acceptance += " · <span id=\"banner-undone\">undone at " + e(str(u, "at")) + "</span>";
  }
  out += fmt::format("<header class=\"banner {}\" id=\"verdict\"><h1>{}</h1><p>{}</p><p>run {} · status {} · verdict by {}{}</p></header>\n<main>\n",
                     e(verdict), e(verdict == "success" ? "SUCCESS" : verdict == "partial" ? "PARTIAL" : "FAIL"), e(str(r, "goal")),
                     e(str(r, "run_id")), e(str(r, "status")), e(str(r, "verdict_by")), acceptance);
  out += "<h2>Why</h2><ul id=\"reasons\">";
  for (const auto& reason : r.value("reasons", nlohmann::json::array())) out += "<li>" + e(reason.get<std::string>()) + "</li>";
  out += "</ul>\n";

  const auto& b = r.value("budget", nlohmann::json::object());
  out += "<h2>Signals</h2><table id=\"signals\">";
  out += fmt::format("<tr><th>goal actions</th><td>{}</td></tr>", r.value("goal_actions_executed", false) ? "yes" : "none ran");
  out += fmt::format("<tr><th>steps</th><td>{} planned, {} executed, {} failed</td></tr>", r["steps"].value("planned", 0),
                     r["steps"].value("executed", 0), r["steps"].value("failed", 0));
  auto pair = [&](const char* key) {
    const auto& p = b.value(key, nlohmann::json::array());
    return p.is_array() && p.size() == 2 ? fmt::format("{}/{}", p[0].is_number_float() ? fmt::format("{:.1f}", p[0].get<double>()) : p[0].dump(), p[1].dump())
                                         : std::string("?");
  };
  out += fmt::format("<tr><th>budget</th><td>replans {} · steps {} · tokens {} · time {} s{}</td></tr>", pair("replans"), pair("steps"),
                     pair("tokens"), pair("time_s"),
                     b.contains("exhausted") && b["exhausted"].is_string() ? " · exhausted: " + e(b["exhausted"].get<std::string>()) : "");
  const auto& usage = r.value("usage", nlohmann::json::object());
  out += fmt::format("<tr><th>usage</th><td>{} LLM calls, {} tokens in, {} out</td></tr>", usage.value("llm_calls", 0),
                     usage.value("input_tokens", 0), usage.value("output_tokens", 0));
  for (const auto& s : r.value("suspicious", nlohmann::json::array())) out += "<tr><th>suspicious</th><td class=\"bad\">" + e(str(s, "reason")) + "</td></tr>";
  out += "</table>\n";

  // Timeline: rounds and steps from the events, so a killed run's steps show too.
  out += "<h2>Timeline</h2><table id=\"steps\"><tr><th>round</th><th>step</th><th>tool</th><th>target</th><th>outcome</th></tr>";
  std::map<std::string, std::string> targets, tools;
  for (const auto& ev : events) {
    if (ev.type == "tool_called") {
      const auto& in = ev.data.value("input", nlohmann::json::object());
      std::string target;
      for (const char* k : {"path", "command", "url", "pattern"}) {
        if (in.contains(k) && in[k].is_string()) {
          target = in[k].get<std::string>();
          break;
        }
      }
      targets[str(ev.data, "step")] = target;
      tools[str(ev.data, "step")] = str(ev.data, "tool");
    }
  }
  int round = 1;
  for (const auto& ev : events) {
    if (ev.type == "plan") round = ev.data.value("round", round);
    if (ev.type != "tool_result") continue;
    std::string step = str(ev.data, "step");
    bool ok = ev.data.value("ok", false);
    std::string target = targets[step];
    if (target.size() > 80) target = target.substr(0, 77) + "...";
    out += fmt::format("<tr class=\"step\"><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td><td class=\"{}\">{}</td></tr>", round, e(step),
                       e(tools[step]), e(target), ok ? "ok" : "bad", ok ? "ok" : e("failed: " + str(ev.data, "error")));
  }
  out += "</table>\n";

  const auto& assertions = r.value("assertions", nlohmann::json::array());
  out += "<h2>Assertions</h2><table id=\"assertions\"><tr><th></th><th>step</th><th>type</th><th>observed</th>"
         "<th>by</th><th>discriminating</th></tr>";
  for (const auto& a : assertions) {
    bool passed = a.value("passed", false);
    std::string disc = !a.contains("discriminating") || !a["discriminating"].is_boolean() ? "—"
                       : a["discriminating"].get<bool>()                               ? "yes: failed before the run"
                                                                                       : "no: passed before the run too";
    out += fmt::format(
        "<tr><td class=\"{}\">{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"by\">{}</td><td class=\"discriminating\">{}</td></tr>",
        passed ? "ok" : "bad", passed ? "pass" : "FAIL", e(a["step"].is_string() ? a["step"].get<std::string>() : "goal"),
        e(str(a, "type")), e(str(a, "message")), e(str(a, "by").empty() ? "planner" : str(a, "by")), e(disc));
  }
  if (assertions.empty()) out += "<tr><td colspan=\"6\" class=\"muted\">no assertion was evaluated</td></tr>";
  out += "</table>\n";

  out += "<h2>Changes</h2><div id=\"changes\">";
  const auto& mutations = r.value("mutations", nlohmann::json::array());
  if (mutations.empty()) out += "<p class=\"muted\">Nothing in the workspace changed.</p>";
  for (const auto& m : mutations) {
    std::string path = str(m, "path");
    out += fmt::format("<h3><code>{}</code> {} +{} −{}</h3>", e(path), e(str(m, "change")), m.value("lines_added", 0), m.value("lines_removed", 0));
    auto it = diffs.find(path);
    if (sandbox::looks_secret(path)) {
      out += "<p class=\"muted\">" + e(std::string(sandbox::kContentWithheld)) + "</p>";  // whatever `diffs` holds
    } else {
      out += it != diffs.end() ? render_diff(it->second) : "<p class=\"muted\">(no diff stored)</p>";
    }
  }
  out += "</div>\n";

  if (r.contains("tier2") && r["tier2"].is_object()) {
    out += "<h2>Judge (tier 2)</h2><table id=\"judge\"><tr><th>answer</th><th>question</th><th>reason</th></tr>";
    for (const auto& a : r["tier2"].value("answers", nlohmann::json::array())) {
      bool yes = str(a, "answer") == "yes";
      out += fmt::format("<tr><td class=\"{}\">{}</td><td>{}</td><td>{}</td></tr>", yes ? "ok" : "bad", e(str(a, "answer")), e(str(a, "text")), e(str(a, "reason")));
    }
    if (r["tier2"].contains("error")) out += "<tr><td colspan=\"3\" class=\"bad\">" + e(str(r["tier2"], "error")) + "</td></tr>";
    out += "</table>\n";
  }
  const auto& reviews = r.value("goal_validations", nlohmann::json::array());
  if (!reviews.empty()) {
    out += "<h2>Independent reviews</h2><table id=\"reviews\">";
    for (const auto& v : reviews) {
      std::string verdict = str(v, "verdict");
      out += fmt::format("<tr><td>attempt {}</td><td class=\"{}\">{}</td><td>{}</td></tr>", v.value("attempt", 0),
                         verdict == "pass" ? "ok" : verdict == "fail" ? "bad" : "warn",
                         e(str(v, "verdict")), e(str(v, "reason")));
    }
    out += "</table>\n";
  }
  if (r.contains("acceptance") && r["acceptance"].is_object()) {
    out += "<h2>Acceptance</h2><table id=\"acceptance\">";
    for (const auto& c : r["acceptance"].value("checkpoints", nlohmann::json::array())) {
      bool matched = c.value("matched", false);
      out += fmt::format("<tr><td class=\"{}\">{}</td><td>{}</td></tr>", matched ? "ok" : "bad", matched ? "matched" : "missed", e(str(c, "id")));
    }
    out += "</table>\n";
  }
  if (r.contains("final_answer") && r["final_answer"].is_string()) {
    out += "<h2>Final answer <span class=\"muted\">(the model's words, not evidence)</span></h2><pre id=\"final-answer\">" +
           e(r["final_answer"].get<std::string>()) + "</pre>\n";
  }
  out += "</main></body></html>\n";
  return out;
}

// For a terminal: every string from the events passes through terminal_safe (the step's output is
// whatever the step printed, escape sequences included).
std::string render_step_log(const std::vector<Event>& events, std::size_t output_cap, bool color) {
  auto safe = [](const nlohmann::json& j, const char* key) { return terminal_safe(json_str(j, key)); };
  std::string out;
  for (const auto& ev : events) {
    if (ev.type == "plan") out += fmt::format("round {}\n", json_int(ev.data, "round"));
    if (ev.type == "tool_called") {
      std::string input = json_field(ev.data, "input").dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      out += fmt::format("  {} {} {}\n", safe(ev.data, "step"), safe(ev.data, "tool"), shorten(terminal_safe(input), 100));
    }
    if (ev.type == "tool_result") {
      bool ok = json_bool(ev.data, "ok");
      std::string mark = ok ? "ok" : "FAILED: " + safe(ev.data, "error");
      if (color) mark = ok ? "\033[32m" + mark + "\033[0m" : "\033[31m" + mark + "\033[0m";
      out += "    " + mark + "\n";
      std::string output = json_str(ev.data, "output");
      if (output.size() > output_cap) output = output.substr(0, output_cap) + fmt::format("\n[{} more bytes]", output.size() - output_cap);
      output = terminal_safe(output, true);
      std::size_t pos = 0;
      while (pos < output.size()) {
        std::size_t nl = output.find('\n', pos);
        out += "    | " + output.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos) + "\n";
        pos = nl == std::string::npos ? output.size() : nl + 1;
      }
    }
    if (ev.type == "assertion") {
      out += fmt::format("    {} {}: {}\n", json_bool(ev.data, "passed") ? "pass" : "FAIL", safe(ev.data, "type"), safe(ev.data, "message"));
    }
  }
  return out;
}

}  // namespace candor::report
