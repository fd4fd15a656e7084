// The HTML timeline: each round with why it was planned (the replan reason), each planned step
// with its `why`, and what happened to it. Built from the events, so a killed run's steps show
// too. Every string in it is the agent's: escaped, and never placed in an attribute.
#include <fmt/format.h>

#include "core/events.h"
#include "report/escape.h"
#include "report/fields.h"
#include "report/formats.h"
#include "report/html_parts.h"

namespace candor::report {
namespace {

struct StepRow {
  std::string id, tool, target, why;
  bool started = false;
  bool has_result = false;
  bool ok = false;
  std::string error;
  std::vector<std::string> failed_assertions;  // "type: message"
  int passed_assertions = 0;
};

struct Round {
  std::int64_t number = 1;
  std::string reason;  // why this round was planned: "" for the first
  std::vector<StepRow> steps;
};

std::string target_of(const nlohmann::json& args) {
  for (const char* k : {"path", "command", "url", "pattern"}) {
    if (const auto& v = json_field(args, k); v.is_string()) return shorten(v.get<std::string>(), 80);
  }
  return "";
}

// The row of step `id` in the round, added when the plan did not list it (a damaged record).
StepRow& row_of(Round& round, const std::string& id) {
  for (auto& s : round.steps) {
    if (s.id == id) return s;
  }
  round.steps.push_back({});
  round.steps.back().id = id;
  return round.steps.back();
}

std::vector<Round> rounds_of(const std::vector<Event>& events) {
  std::vector<Round> rounds;
  std::string pending_reason;
  auto current = [&]() -> Round& {
    if (rounds.empty()) rounds.push_back({});
    return rounds.back();
  };
  for (const auto& ev : events) {
    const auto& d = ev.data;
    if (ev.type == event::kReplan) {
      pending_reason = json_str(d, "reason");
    } else if (ev.type == event::kPlan) {
      Round r;
      r.number = json_int(d, "round", static_cast<std::int64_t>(rounds.size()) + 1);
      r.reason = std::move(pending_reason);
      pending_reason.clear();
      for (const auto& s : json_list(json_field(d, "plan"), "steps")) {
        StepRow row;
        row.id = json_str(s, "id");
        row.tool = json_str(s, "tool");
        row.target = target_of(json_field(s, "args"));
        row.why = json_str(s, "why");
        r.steps.push_back(std::move(row));
      }
      rounds.push_back(std::move(r));
    } else if (ev.type == event::kStepStarted) {
      StepRow& s = row_of(current(), json_str(d, "step"));
      s.started = true;
      if (s.tool.empty()) s.tool = json_str(d, "tool");
      if (s.why.empty()) s.why = json_str(d, "why");
    } else if (ev.type == event::kToolCalled) {
      StepRow& s = row_of(current(), json_str(d, "step"));
      s.started = true;
      s.tool = json_str(d, "tool");
      s.target = target_of(json_field(d, "input"));
    } else if (ev.type == event::kToolResult) {
      StepRow& s = row_of(current(), json_str(d, "step"));
      s.started = s.has_result = true;
      s.ok = json_bool(d, "ok");
      s.error = json_str(d, "error");
    } else if (ev.type == event::kAssertion && json_field(d, "step").is_string()) {
      StepRow& s = row_of(current(), json_str(d, "step"));
      if (json_bool(d, "passed")) {
        ++s.passed_assertions;
      } else {
        s.failed_assertions.push_back(json_str(d, "type") + ": " + json_str(d, "message"));
      }
    }
  }
  return rounds;
}

// The outcome cell: a failed assertion is never "ok", and is told apart from a tool error.
std::string outcome_cell(const StepRow& s) {
  if (!s.started) return "<td class=\"outcome not-run\">– not run</td>";
  if (!s.has_result) return "<td class=\"outcome tool-error\">✗ no result: the run ended during this step</td>";
  if (!s.ok) return "<td class=\"outcome tool-error\">✗ tool error: " + escape_html(s.error) + "</td>";
  if (!s.failed_assertions.empty()) {
    std::string out = "<td class=\"outcome assertion-failed\">✗ assertion failed";
    for (const auto& f : s.failed_assertions) out += "<br>" + escape_html(f);
    return out + "</td>";
  }
  if (s.passed_assertions > 0)
    return fmt::format("<td class=\"outcome ok\">✓ ok, {} assertion{} passed</td>", s.passed_assertions,
                       s.passed_assertions == 1 ? "" : "s");
  return "<td class=\"outcome ok\">✓ ok</td>";
}

}  // namespace

std::string html_timeline(const std::vector<Event>& events) {
  std::string out =
      "<h2>Timeline</h2><table id=\"steps\"><tr><th>step</th><th>tool</th><th>target</th><th>why (the plan's "
      "words)</th><th>outcome</th></tr>";
  for (const auto& r : rounds_of(events)) {
    out += fmt::format("<tr class=\"round\"><th colspan=\"5\">Round {}", r.number);
    out += r.reason.empty()
               ? " · <span class=\"plan-reason\">first plan</span>"
               : " · <span class=\"replan-reason\">replanned because: " + escape_html(r.reason) + "</span>";
    out += "</th></tr>";
    for (const auto& s : r.steps) {
      out += fmt::format(
          "<tr class=\"{}\"><td class=\"id\">{}</td><td class=\"tool\">{}</td><td class=\"target\"><code>{}</code></td>"
          "<td class=\"why\">{}</td>{}</tr>",
          s.started ? "step" : "step-not-run", escape_html(shorten(s.id, 40)), escape_html(shorten(s.tool, 40)),
          escape_html(s.target), escape_html(s.why), outcome_cell(s));
    }
  }
  return out + "</table>\n";
}

}  // namespace candor::report
