// The HTML review page and the warnings it marks: what counts against success is told apart from
// what supports it, a failed assertion is never "ok", and no agent text becomes markup.
#include <doctest/doctest.h>

#include <algorithm>

#include "report/formats.h"
#include "report/report.h"
#include "verify/reasons.h"
#include "verify/tier1.h"
#include "verify/verdict.h"

using namespace candor;
using nlohmann::json;

namespace {

// A modify run that patched css/style.css in round 1; `covered`: a discriminating assertion checked it.
RunFacts patched_run(bool covered) {
  RunFacts f;
  f.run_id = "r";
  f.goal = "Make it green";
  f.status = RunStatus::kCompleted;
  f.steps_planned = 1;
  StepRecord s;
  s.id = "s1";
  s.tool = "file_patch";
  s.target = "css/style.css";
  s.effect_tool = s.effect_on_files = s.ok = true;
  s.changed_paths = {"css/style.css"};
  s.seq = 3;
  f.steps.push_back(s);
  Mutation m;
  m.path = "css/style.css";
  m.change = "modified";
  m.steps = {"s1"};
  m.last_change_seq = 3;
  f.mutations.push_back(m);
  AssertionRecord a;
  a.step = "s1";
  a.type = covered ? "file_contains" : "output_contains";
  a.path = covered ? "css/style.css" : "";
  a.passed = true;
  a.seq = 4;
  a.by = Provenance::kUser;
  if (covered) a.discriminating = a.positive = true;
  f.assertions.push_back(a);
  return f;
}

verify::JudgeOutcome judge_said(std::vector<bool> answers) {
  verify::JudgeOutcome j;
  j.asked = j.answered = true;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    j.questions.push_back("question " + std::to_string(i + 1));
    j.answers.push_back({static_cast<int>(i + 1), answers[i], "because"});
  }
  return j;
}

bool has(const std::vector<std::string>& list, const std::string& part) {
  return std::any_of(list.begin(), list.end(), [&](const std::string& s) { return s.find(part) != std::string::npos; });
}

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// Every text field of a report, and every text of the events, set to `s`.
json report_with(const std::string& s) {
  return {{"run_id", s},
          {"goal", s},
          {"verdict", s},
          {"verdict_by", "tier2"},
          {"status", s},
          {"provider", s},
          {"judge_policy", s},
          {"reasons", {s, s + "x"}},
          {"warnings", {s}},
          {"steps", {{"planned", 1}}},
          {"budget", {{"exhausted", s}}},
          {"mutations", {{{"path", s}, {"change", s}}}},
          {"suspicious", {{{"reason", s}}}},
          {"scan", {{"complete", false}, {"unread", {s}}}},
          {"assertions", {{{"step", s}, {"type", s}, {"passed", false}, {"message", s}, {"by", s}}}},
          {"tier2", {{"answers", {{{"question", 1}, {"text", s}, {"answer", s}, {"reason", s}}}}, {"error", s}}},
          {"goal_validations", {{{"attempt", 1}, {"verdict", s}, {"reason", s}}}},
          {"acceptance", {{"passed", false}, {"checkpoints", {{{"id", s}}}}}},
          {"sandbox", {{"network", s}, {"processes", s}, {"missing", {s}}}},
          {"undone", {{"at", s}}},
          {"final_answer", s}};
}

std::vector<Event> events_with(const std::string& s) {
  return {{1,
           "",
           "plan",
           {{"round", 1}, {"plan", {{"steps", {{{"id", s}, {"tool", s}, {"why", s}, {"args", {{"path", s}}}}}}}}}},
          {2, "", "step_started", {{"step", s}, {"round", 1}, {"tool", s}, {"why", s}}},
          {3, "", "tool_called", {{"step", s}, {"tool", s}, {"input", {{"command", s}}}}},
          {4, "", "tool_result", {{"step", s}, {"ok", false}, {"error", s}}},
          {5, "", "assertion", {{"step", s}, {"type", s}, {"passed", false}, {"message", s}}},
          {6, "", "replan", {{"round", 2}, {"reason", s}}},
          {7, "", "plan", {{"round", 2}, {"plan", {{"steps", json::array()}}}}}};
}

}  // namespace

TEST_SUITE("report") {
  TEST_CASE("warnings: what counts against success, apart from what supports it") {
    SUBCASE("a tier-1 success has none") {
      RunFacts f = patched_run(true);
      auto t1 = verify::evaluate_tier1(f);
      REQUIRE(t1.verdict == Verdict::kSuccess);
      CHECK(verify::warnings_of(f, t1, nullptr, verify::decide(t1, nullptr, {})).empty());
    }
    SUBCASE("unverified: the missing evidence and the missing judge are warnings") {
      RunFacts f = patched_run(false);
      auto t1 = verify::evaluate_tier1(f);
      auto w = verify::warnings_of(f, t1, nullptr, verify::decide(t1, nullptr, {}));
      CHECK(has(w, "unverified"));
      CHECK(has(w, "nothing proves what the change did"));
    }
    SUBCASE("the judge's all-yes supports; what tier 1 missed stays a warning") {
      RunFacts f = patched_run(false);
      auto t1 = verify::evaluate_tier1(f);
      auto j = judge_said({true, true});
      auto d = verify::decide(t1, &j, {});
      REQUIRE(d.verdict == Verdict::kSuccess);
      auto w = verify::warnings_of(f, t1, &j, d);
      CHECK_FALSE(has(w, "the judge answered yes"));
      CHECK(has(w, "nothing proves what the change did"));
    }
    SUBCASE("a judge's no is a warning, and so is its tally") {
      RunFacts f = patched_run(false);
      auto t1 = verify::evaluate_tier1(f);
      auto j = judge_said({true, false});
      auto w = verify::warnings_of(f, t1, &j, verify::decide(t1, &j, {}));
      CHECK(has(w, "the judge answered yes to 1 of 2"));
      CHECK(has(w, "the judge answered no to \"question 2\": because"));
    }
    SUBCASE(
        "signals no reason names: a suspicious step, a protected change, an incomplete scan, acceptance not passed") {
      RunFacts f = patched_run(true);
      f.status = RunStatus::kBudgetExhausted;  // rule 2: the budget decides, every finding is a reason
      f.budget.exhausted = BudgetKind::kSteps;
      f.steps[0].changed_paths.clear();  // a patch that changed nothing
      f.scan.complete = false;
      f.scan.unread = {"locked/"};
      f.protected_changes = {".git/hooks/pre-commit was added"};
      f.acceptance = {{"passed", false},
                      {"checkpoints", {{{"id", "ran_tests"}, {"essential", true}, {"matched", false}}}}};
      auto t1 = verify::evaluate_tier1(f);
      auto d = verify::decide(t1, nullptr, {});
      // How the run ended, then what blocks success, then the suspicious step; acceptance is its own column.
      REQUIRE(d.reasons.size() == 4);
      CHECK(d.reasons[0].find("the step budget") == 0);
      CHECK(d.reasons[1] == "protected path: .git/hooks/pre-commit was added");
      CHECK(d.reasons[2].find("the workspace scan was incomplete") == 0);
      CHECK(d.reasons[3].find("completed but changed nothing") != std::string::npos);
      auto w = verify::warnings_of(f, t1, nullptr, d);
      CHECK(has(w, "the step budget"));
      CHECK(has(w, "s1 (file_patch css/style.css) completed but changed nothing"));
      CHECK(has(w, "the workspace scan was incomplete: candor could not read locked/"));
      CHECK(has(w, "the acceptance spec did not pass: essential checkpoints missed: ran_tests"));
      CHECK(has(w, ".git/hooks/pre-commit was added"));
      CHECK(w.size() == 5);  // each once
    }
  }

  TEST_CASE("html: reasons are marked warning or support in words; an old report's reasons stay unmarked") {
    json r = {{"verdict", "success"},
              {"reasons", {"judge said yes", "nothing proves it"}},
              {"warnings", {"nothing proves it", "scan gap"}}};
    std::string html = report::render_html(r, {}, {});
    CHECK(html.find("<li class=\"support\"><span class=\"mark\">✓ supports:</span> judge said yes</li>") !=
          std::string::npos);
    CHECK(html.find("<li class=\"warning\"><span class=\"mark\">⚠ warning:</span> nothing proves it</li>") !=
          std::string::npos);
    CHECK(html.find("<li class=\"warning\"><span class=\"mark\">⚠ warning:</span> scan gap</li>") != std::string::npos);
    CHECK(count(html, "nothing proves it") == 1);
    CHECK(html.find("<span id=\"banner-warnings\">⚠ 2 warnings</span>") != std::string::npos);
    r.erase("warnings");
    html = report::render_html(r, {}, {});
    CHECK(html.find("<li>judge said yes</li><li>nothing proves it</li>") != std::string::npos);
    CHECK(html.find("banner-warnings") == std::string::npos);
  }

  TEST_CASE(
      "html timeline: a failed assertion is not ok, a tool error is told apart, each round says why it was planned") {
    std::vector<Event> events = {
        {1,
         "",
         "plan",
         {{"round", 1},
          {"plan",
           {{"steps",
             {{{"id", "s1"}, {"tool", "file_patch"}, {"why", "turn it green"}, {"args", {{"path", "a.css"}}}},
              {{"id", "s2"}, {"tool", "file_read"}, {"args", {{"path", "b"}}}}}}}}}},
        {2, "", "tool_called", {{"step", "s1"}, {"tool", "file_patch"}, {"input", {{"path", "a.css"}}}}},
        {3, "", "tool_result", {{"step", "s1"}, {"ok", true}}},
        {4, "", "assertion", {{"step", "s1"}, {"type", "file_contains"}, {"passed", false}, {"message", "no #006400"}}},
        {5, "", "replan", {{"round", 2}, {"reason", "s1's assertion failed"}}},
        {6,
         "",
         "plan",
         {{"round", 2}, {"plan", {{"steps", {{{"id", "s1"}, {"tool", "shell"}, {"args", {{"command", "make"}}}}}}}}}},
        {7, "", "tool_called", {{"step", "s1"}, {"tool", "shell"}, {"input", {{"command", "make"}}}}},
        {8, "", "tool_result", {{"step", "s1"}, {"ok", false}, {"error", "exit 2"}}}};
    std::string html = report::render_html(json::object(), events, {});
    CHECK(html.find("<td class=\"outcome assertion-failed\">✗ assertion failed<br>file_contains: no #006400</td>") !=
          std::string::npos);
    CHECK(html.find("<td class=\"why\">turn it green</td>") != std::string::npos);
    CHECK(html.find("<tr class=\"step-not-run\"><td class=\"id\">s2</td>") != std::string::npos);
    CHECK(html.find("Round 2 · <span class=\"replan-reason\">replanned because: s1&#39;s assertion failed</span>") !=
          std::string::npos);
    CHECK(html.find("<td class=\"outcome tool-error\">✗ tool error: exit 2</td>") != std::string::npos);
    CHECK(html.find("outcome ok") == std::string::npos);
  }

  TEST_CASE("html: the judge beside the verdict when it decided, secondary when tier 1 did") {
    json r = {
        {"verdict", "partial"},
        {"verdict_by", "tier2"},
        {"tier2",
         {{"answers", {{{"question", 1}, {"text", "Is it green?"}, {"answer", "no"}, {"reason", "it is red"}}}}}}};
    std::string html = report::render_html(r, {}, {});
    auto judge = html.find("<section id=\"judge\" class=\"judge-decided\">");
    REQUIRE(judge != std::string::npos);
    CHECK(judge < html.find("id=\"reasons\""));
    CHECK(html.find("<td>Is it green?</td><td class=\"bad\">✗ no</td><td>it is red</td>") != std::string::npos);
    r["verdict_by"] = "tier1";
    html = report::render_html(r, {}, {});
    auto secondary = html.find("<section id=\"judge\" class=\"judge-secondary\">");
    REQUIRE(secondary != std::string::npos);
    CHECK(secondary > html.find("id=\"assertions\""));
    CHECK(html.find("class=\"judge-decided\"") == std::string::npos);
  }

  TEST_CASE("html: agent text in every field stays text, and a report of any shape renders") {
    const std::string hostile = "<script>alert(1)</script>\"' onload=x <img src=x>&amp;";
    const std::string plain(hostile.size(), 'a');
    std::string bad =
        report::render_html(report_with(hostile), events_with(hostile), {{hostile, "+" + hostile + "\n"}});
    std::string good = report::render_html(report_with(plain), events_with(plain), {{plain, "+" + plain + "\n"}});
    CHECK(bad.find("<script") == std::string::npos);
    CHECK(bad.find("<img") == std::string::npos);
    // The markup is the same whatever the text: every '<' and '"' is candor's own.
    CHECK(count(bad, "<") == count(good, "<"));
    CHECK(count(bad, "\"") == count(good, "\""));
    for (const json& odd :
         {json(), json::array({1, 2}), json{{"reasons", {1, nullptr}}, {"steps", 3}, {"tier2", {{"answers", 5}}}},
          json{{"warnings", "x"}, {"budget", {{"replans", "a"}}}, {"sandbox", {{"missing", 1}}}, {"scan", 1}}}) {
      CAPTURE(odd.dump());
      CHECK_NOTHROW(
          (void)report::render_html(odd, {{1, "", "plan", json::array()}, {2, "", "assertion", json("x")}}, {}));
    }
  }
}
