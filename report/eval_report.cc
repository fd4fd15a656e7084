#include "report/eval_report.h"

#include <fmt/format.h>

#include "report/escape.h"
#include "report/formats.h"

namespace candor::report {
namespace {

std::string str(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

long long num(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<long long>() : 0;
}

std::string rate(const nlohmann::json& a) {
  if (!a.contains("claimed_not_verified_rate") || !a["claimed_not_verified_rate"].is_number()) return "-";
  return fmt::format("{:.0f}%", 100.0 * a["claimed_not_verified_rate"].get<double>());
}

std::string cost(const nlohmann::json& a) {
  if (!a.contains("cost_usd") || !a["cost_usd"].is_number()) return "-";
  return fmt::format("${:.2f}", a["cost_usd"].get<double>());
}

std::string minutes(double s) { return s < 120 ? fmt::format("{:.0f} s", s) : fmt::format("{:.1f} min", s / 60); }

std::string cheats_text(const nlohmann::json& row) {
  std::string out;
  if (!row.contains("cheats") || !row["cheats"].is_array()) return out;
  for (const auto& c : row["cheats"])
    out += (out.empty() ? "" : "; ") + (c.is_string() ? c.get<std::string>() : c.dump());
  return out;
}

const nlohmann::json& list(const nlohmann::json& eval, const char* key) {
  static const nlohmann::json empty = nlohmann::json::array();
  return eval.contains(key) && eval[key].is_array() ? eval[key] : empty;
}

std::string missing_line(const nlohmann::json& m) {
  return fmt::format("{} (shard {}){}", str(m, "task"), num(m, "shard"),
                     m["agent"].is_string() ? " for " + m["agent"].get<std::string>() : "");
}

}  // namespace

std::string render_eval_terminal(const nlohmann::json& eval) {
  std::string out = fmt::format("eval {}: {} tasks in {} shard{}\n\n", terminal_safe(str(eval, "eval_id")),
                                num(eval, "tasks"), num(eval, "shards"), num(eval, "shards") == 1 ? "" : "s");
  out += fmt::format("  {:<22} {:>6} {:>8} {:>9} {:>22} {:>7} {:>8} {:>9}\n", "AGENT", "TASKS", "CLAIMED", "VERIFIED",
                     "CLAIMED, NOT VERIFIED", "CHEATS", "COST", "TIME");
  for (const auto& a : list(eval, "agents")) {
    out += fmt::format("  {:<22} {:>6} {:>8} {:>9} {:>22} {:>7} {:>8} {:>9}\n",
                       terminal_safe(shorten(str(a, "agent"), 22)), num(a, "tasks"), num(a, "claimed_success"),
                       num(a, "verified_success"), fmt::format("{} ({})", num(a, "claimed_not_verified"), rate(a)),
                       num(a, "with_cheats"), cost(a), minutes(a.value("wall_s", 0.0)));
  }
  out += "\n";
  for (const auto& r : list(eval, "attempts")) {
    std::string line = fmt::format("  {} {} #{}: claimed {}, verified {}", str(r, "agent"), str(r, "task"),
                                   num(r, "attempt"), str(r, "claimed"),
                                   str(r, "state") == "done" ? str(r, "verdict") : str(r, "state") + " (not ended)");
    if (std::string c = cheats_text(r); !c.empty()) line += "; CHEAT: " + c;
    if (std::string f = str(r, "first_finding"); !f.empty() && str(r, "verdict") != "success")
      line += "\n      " + shorten(f, 200);
    if (std::string id = str(r, "run_id"); !id.empty()) line += "\n      candor report " + id;
    out += terminal_safe(line, true) + "\n";
  }
  for (const auto& r : list(eval, "infra_errors")) {
    out += terminal_safe(fmt::format("  {} {} #{}: infrastructure error, not counted against the agent: {}",
                                     str(r, "agent"), str(r, "task"), num(r, "attempt"), str(r, "error")),
                         true) +
           "\n";
  }
  if (!list(eval, "missing").empty()) {
    out += "\nno shard reported:\n";
    for (const auto& m : list(eval, "missing")) out += "  " + terminal_safe(missing_line(m)) + "\n";
  }
  return out;
}

std::string render_eval_markdown(const nlohmann::json& eval, std::size_t max_bytes) {
  std::string out = fmt::format(
      "## candor eval `{}`\n\n{} tasks in {} shard{}. **Claimed but not verified** is the "
      "number that matters: the agent said it was done, and candor could not confirm it.\n\n",
      markdown_text(str(eval, "eval_id")), num(eval, "tasks"), num(eval, "shards"),
      num(eval, "shards") == 1 ? "" : "s");
  out +=
      "| agent | tasks | claimed success | verified success | claimed but not verified | with cheats | cost | time |\n";
  out += "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
  for (const auto& a : list(eval, "agents")) {
    out += fmt::format("| {} | {} | {} | {} | **{}** ({}) | {} | {} | {} |\n", markdown_text(str(a, "agent")),
                       num(a, "tasks"), num(a, "claimed_success"), num(a, "verified_success"),
                       num(a, "claimed_not_verified"), rate(a), num(a, "with_cheats"), cost(a),
                       minutes(a.value("wall_s", 0.0)));
  }
  // The lists below the table are bounded too (a shard of 5,000 tasks that never ran is 5,000 names):
  // each takes at most a quarter of what the header left, then says how many more there are.
  const std::size_t left = max_bytes > out.size() + 400 ? max_bytes - out.size() - 400 : 0;
  auto bounded = [&](const nlohmann::json& items, const std::string& title, auto&& line) {
    if (items.empty()) return std::string();
    std::string part = title, more;
    std::size_t shown = 0;
    for (const auto& item : items) {
      std::string l = line(item);
      if (part.size() + l.size() > left / 4) break;
      part += l;
      ++shown;
    }
    if (shown < items.size())
      part += fmt::format("- ... and {} more (`--json` lists them all)\n", items.size() - shown);
    return part;
  };
  std::string tail = bounded(list(eval, "missing"), "\n**No shard reported** (not counted as passed or failed):\n",
                             [](const nlohmann::json& m) { return "- " + markdown_text(missing_line(m)) + "\n"; });
  tail += bounded(
      list(eval, "infra_errors"), "\n**Infrastructure errors** (the task's repository or commit, not the agent):\n",
      [](const nlohmann::json& r) {
        return fmt::format("- {} `{}` #{}: {}\n", markdown_text(str(r, "agent")), markdown_text(str(r, "task")),
                           num(r, "attempt"), markdown_text(shorten(str(r, "error"), 300)));
      });
  out +=
      "\n| agent | task | claim | verdict | first finding | cheats | run |\n| --- | --- | --- | --- | --- | --- | --- "
      "|\n";
  const auto& rows = list(eval, "attempts");
  std::size_t shown = 0;
  for (const auto& r : rows) {
    std::string row = fmt::format(
        "| {} | {} #{} | {} | {} | {} | {} | `{}` |\n", markdown_text(str(r, "agent")), markdown_text(str(r, "task")),
        num(r, "attempt"), markdown_text(str(r, "claimed")),
        str(r, "state") == "done" ? "**" + markdown_text(str(r, "verdict")) + "**" : markdown_text(str(r, "state")),
        markdown_text(shorten(str(r, "first_finding"), 160)), markdown_text(shorten(cheats_text(r), 160)),
        markdown_text(str(r, "run_id")));
    if (out.size() + row.size() + tail.size() + 200 > max_bytes) break;
    out += row;
    ++shown;
  }
  if (shown < rows.size())
    out += fmt::format(
        "\n{} more attempts are not shown here (the comment's size): `candor eval report {}` shows them "
        "all.\n",
        rows.size() - shown, markdown_text(str(eval, "eval_id")));
  out += tail;
  if (out.size() > max_bytes) {  // a header alone past the limit (thousands of agents): cut, saying so
    const std::string note = "\n\n(cut at the comment's size: `candor eval report` shows it all)\n";
    std::size_t cut = max_bytes > note.size() ? max_bytes - note.size() : 0;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;  // whole UTF-8 characters
    out.resize(cut);
    out = (out + note).substr(0, max_bytes);
  }
  return out;
}

std::string render_eval_html(const nlohmann::json& eval) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>candor eval " +
      escape_html(str(eval, "eval_id")) +
      "</title><style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse}"
      "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}.bad{color:#a00;font-weight:600}"
      ".ok{color:#060}</style></head><body>\n";
  out += fmt::format(
      "<h1>candor eval {}</h1>\n<p>{} tasks in {} shards. <b>Claimed but not verified</b>: the agent "
      "said it was done, and candor could not confirm it.</p>\n",
      escape_html(str(eval, "eval_id")), num(eval, "tasks"), num(eval, "shards"));
  out +=
      "<table><tr><th>agent</th><th>tasks</th><th>claimed success</th><th>verified success</th><th>claimed but not "
      "verified</th><th>with cheats</th><th>cost</th><th>time</th></tr>\n";
  for (const auto& a : list(eval, "agents")) {
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"bad\">{} ({})</td><td>{}</td>"
        "<td>{}</td><td>{}</td></tr>\n",
        escape_html(str(a, "agent")), num(a, "tasks"), num(a, "claimed_success"), num(a, "verified_success"),
        num(a, "claimed_not_verified"), rate(a), num(a, "with_cheats"), cost(a), minutes(a.value("wall_s", 0.0)));
  }
  out +=
      "</table>\n<h2>Attempts</h2>\n<table><tr><th>agent</th><th>task</th><th>claim</th><th>verdict</th><th>first "
      "finding</th><th>cheats</th><th>run</th></tr>\n";
  for (const auto& r : list(eval, "attempts")) {
    const bool ok = str(r, "verdict") == "success";
    out += fmt::format(
        "<tr><td>{}</td><td>{} #{}</td><td>{}</td><td class=\"{}\">{}</td><td>{}</td><td>{}</td>"
        "<td><code>{}</code></td></tr>\n",
        escape_html(str(r, "agent")), escape_html(str(r, "task")), num(r, "attempt"), escape_html(str(r, "claimed")),
        ok ? "ok" : "bad", escape_html(str(r, "state") == "done" ? str(r, "verdict") : str(r, "state")),
        escape_html(str(r, "first_finding")), escape_html(cheats_text(r)), escape_html(str(r, "run_id")));
  }
  out += "</table>\n";
  if (!list(eval, "missing").empty()) {
    out += "<h2>No shard reported</h2><ul>\n";
    for (const auto& m : list(eval, "missing")) out += "<li>" + escape_html(missing_line(m)) + "</li>\n";
    out += "</ul>\n";
  }
  if (!list(eval, "infra_errors").empty()) {
    out += "<h2>Infrastructure errors (not the agent's)</h2><ul>\n";
    for (const auto& r : list(eval, "infra_errors"))
      out += fmt::format("<li>{} {} #{}: {}</li>\n", escape_html(str(r, "agent")), escape_html(str(r, "task")),
                         num(r, "attempt"), escape_html(str(r, "error")));
    out += "</ul>\n";
  }
  return out + "</body></html>\n";
}

std::string render_eval_junit(const nlohmann::json& eval) {
  const auto& rows = list(eval, "attempts");
  const auto& infra = list(eval, "infra_errors");
  const auto& missing = list(eval, "missing");
  std::size_t failures = 0;
  for (const auto& r : rows) failures += str(r, "verdict") != "success";
  std::string body;
  for (const auto& r : rows) {
    body += fmt::format("  <testcase classname=\"{}\" name=\"{}#{}\" time=\"{:.1f}\">", escape_xml(str(r, "agent")),
                        escape_xml(str(r, "task")), num(r, "attempt"), r.value("wall_s", 0.0));
    if (str(r, "verdict") != "success") {
      std::string why = str(r, "state") == "done"
                            ? fmt::format("verified {}, claimed {}", str(r, "verdict"), str(r, "claimed"))
                            : "never ended (" + str(r, "state") + ")";
      body += fmt::format(
          "<failure message=\"{}\">{}</failure>", escape_xml(why),
          escape_xml(str(r, "first_finding") + (cheats_text(r).empty() ? "" : "\ncheats: " + cheats_text(r))));
    }
    body += "</testcase>\n";
  }
  for (const auto& r : infra) {
    body += fmt::format(
        "  <testcase classname=\"{}\" name=\"{}#{}\"><error message=\"infrastructure error\">{}</error>"
        "</testcase>\n",
        escape_xml(str(r, "agent")), escape_xml(str(r, "task")), num(r, "attempt"), escape_xml(str(r, "error")));
  }
  for (const auto& m : missing) {
    body += fmt::format(
        "  <testcase classname=\"{}\" name=\"{}\"><skipped message=\"no shard reported it\"/></testcase>\n",
        escape_xml(m["agent"].is_string() ? m["agent"].get<std::string>() : "-"), escape_xml(str(m, "task")));
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"candor eval {}\" tests=\"{}\" "
      "failures=\"{}\" errors=\"{}\" skipped=\"{}\">\n{}</testsuite>\n",
      escape_xml(str(eval, "eval_id")), rows.size() + infra.size() + missing.size(), failures, infra.size(),
      missing.size(), body);
}

}  // namespace candor::report
