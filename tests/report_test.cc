#include <doctest/doctest.h>

#include <sstream>

#include "report/formats.h"
#include "report/report.h"
#include "tests/test_support.h"

using namespace candor;
using candor::testing::read_file;
using candor::testing::source_root;
using nlohmann::json;

namespace {

RunFacts discovery_run() {
  RunFacts f;
  f.run_id = "20261122T000000-abcdef";
  f.goal = "Change the background to dark green";
  f.workspace = "/ws";
  f.status = RunStatus::kBudgetExhausted;
  f.budget.exhausted = BudgetKind::kReplans;
  f.budget.limits.max_replans = 3;
  f.budget.used.replans = 3;
  f.budget.used.steps = 6;
  f.budget.used.tokens = 4100;
  f.steps_planned = 6;
  for (int i = 1; i <= 6; ++i) {
    StepRecord s;
    s.id = "s" + std::to_string(i);
    s.tool = "file_read";
    s.target = "f" + std::to_string(i);
    s.ok = true;
    f.steps.push_back(s);
  }
  return f;
}

}  // namespace

TEST_SUITE("report") {
  TEST_CASE("every rendering shows who wrote each assertion and whether its pass discriminates") {
    RunFacts f = discovery_run();
    AssertionRecord planner_check;
    planner_check.step = "s1";
    planner_check.type = "file_contains";
    planner_check.path = "css/style.css";
    planner_check.passed = true;
    planner_check.message = "css/style.css contains \"background\"";
    planner_check.by = Provenance::kPlanner;
    planner_check.discriminating = false;
    AssertionRecord user_check = planner_check;
    user_check.step = "";
    user_check.message = "css/style.css contains \"#006400\"";
    user_check.by = Provenance::kUser;
    user_check.discriminating = true;
    f.assertions = {planner_check, user_check};
    auto t1 = verify::evaluate_tier1(f);
    json r = report::build_report(f, t1, verify::decide_without_judge(t1), "2026-11-22T00:00:00.000Z");
    CHECK(r["assertions"][0]["by"] == "planner");
    CHECK(r["assertions"][0]["discriminating"] == false);
    CHECK(r["assertions"][1]["by"] == "user");
    CHECK(r["source"] == "run");
    CHECK(r["scan"]["complete"] == true);
    std::string terminal = report::render_terminal(r, {false, 200});
    CHECK(terminal.find("(by planner · passed before the run too)") != std::string::npos);
    CHECK(terminal.find("(by user · discriminating)") != std::string::npos);
    std::string markdown = report::render_markdown(r);
    CHECK(markdown.find("| by planner · passed before the run too |") != std::string::npos);
    std::string html = report::render_html(r, {}, {});
    CHECK(html.find("<td class=\"by\">planner</td><td class=\"discriminating\">no: passed before the run too</td>") !=
          std::string::npos);
    CHECK(html.find("<td class=\"by\">user</td><td class=\"discriminating\">yes: failed before the run</td>") !=
          std::string::npos);
    std::string junit = report::render_junit({r});
    CHECK(junit.find("(by user · discriminating)") != std::string::npos);
  }

  TEST_CASE("every rendering shows a command's runs before and after the change, with the end of each output") {
    RunFacts f = discovery_run();
    AssertionRecord command;
    command.type = "command_succeeds";
    command.assertion = {
        {"type", "command_succeeds"}, {"command", "python3 -m unittest tests.test_x"}, {"covers", {"src/**"}}};
    command.passed = true;
    command.message = "`python3 -m unittest tests.test_x` exited 0 after 0.1 s";
    command.by = Provenance::kUser;
    command.discriminating = false;  // every test it ran was skipped: nothing shows a test passed
    command.exit_code = 0;
    command.output =
        "s\n----------------------------------------------------------------------\nRan 1 test in 0.000s\n\nOK "
        "(skipped=1)";
    command.tests = TestSummary{.runner = "unittest", .ran = 1, .passed = 0, .failed = 0, .skipped = 1};
    command.before = ProgramRun{false, false, 1, "Ran 1 test in 0.000s\n\nFAILED (failures=1)", "exited 1"};
    command.before->tests = TestSummary{.runner = "unittest", .ran = 1, .passed = 0, .failed = 1, .skipped = 0};
    command.emptied = {
        {"src/new.py", ProgramRun{false, false, 1, "ImportError: cannot import name 'add'", "exited 1"}}};
    AssertionRecord planner = command;
    planner.by = Provenance::kPlanner;
    planner.before.reset();
    planner.emptied.clear();
    planner.discriminating.reset();
    // A command that runs no test runner candor reads: its pass is its exit code, and the report says so.
    AssertionRecord make = command;
    make.assertion["command"] = "make check";
    make.tests.reset();
    make.before->tests.reset();
    make.emptied.clear();
    make.discriminating = true;
    f.assertions = {command, planner, make};
    auto t1 = verify::evaluate_tier1(f);
    json r = report::build_report(f, t1, verify::decide_without_judge(t1), "2026-11-22T00:00:00.000Z");
    CHECK(r["assertions"][0]["before"]["exit_code"] == 1);
    CHECK(r["assertions"][0]["output"] == command.output);
    CHECK(r["assertions"][0]["covers"] == json::array({"src/**"}));
    CHECK_FALSE(r["assertions"][1].contains("covers"));  // the planner's covers is not honoured, so not shown
    std::string terminal = report::render_terminal(r, {false, 200});
    CAPTURE(terminal);
    CHECK(terminal.find("(by user · passed with no test passing (ran 1 test, 1 skipped)") != std::string::npos);
    CHECK(r["assertions"][0]["not_evidence"] ==
          "passed with no test passing (ran 1 test, 1 skipped): nothing shows the change made a test pass");
    CHECK(r["assertions"][0]["test_runner"] == "python -m unittest");
    CHECK(r["assertions"][2]["test_runner"].is_null());       // make check: its count cannot be read
    CHECK_FALSE(r["assertions"][1].contains("test_runner"));  // the planner's: not run before the change
    CHECK(terminal.find("before the change: exited 1 (ran 1 test, 1 failed)\n           | Ran 1 test in 0.000s\n    "
                        "       | FAILED (failures=1)") != std::string::npos);
    CHECK(terminal.find("after: exited 0 (ran 1 test, 1 skipped)\n           | s\n           | Ran 1 test in "
                        "0.000s\n           | OK (skipped=1)") != std::string::npos);
    CHECK(terminal.find("with src/new.py emptied: exited 1") != std::string::npos);
    CHECK(terminal.find("-----") == std::string::npos);  // rules say nothing
    CHECK(terminal.find("after: exited 0 (its test count cannot be read)") != std::string::npos);
    std::string markdown = report::render_markdown(r);
    CHECK(markdown.find("before the change: exited 1 (ran 1 test, 1 failed) `FAILED (failures=1)`") !=
          std::string::npos);
    CHECK(markdown.find("after: exited 0 (ran 1 test, 1 skipped) `OK (skipped=1)`") != std::string::npos);
    std::string html = report::render_html(r, {}, {});
    CHECK(html.find("<div class=\"run\">after: exited 0 (ran 1 test, 1 skipped)<pre>s\nRan 1 test in 0.000s\nOK "
                    "(skipped=1)</pre></div>") != std::string::npos);
    std::string junit = report::render_junit({r});
    CHECK(junit.find("OK (skipped=1)") != std::string::npos);
  }

  TEST_CASE("the JSON report has docs/design.md's fields and values") {
    RunFacts f = discovery_run();
    auto t1 = verify::evaluate_tier1(f);
    auto d = verify::decide_without_judge(t1);
    json r = report::build_report(f, t1, d, "2026-11-22T00:00:00.000Z");
    for (const char* key : {"run_id", "goal", "goal_kind", "workspace", "status", "verdict", "verdict_by", "reasons",
                            "goal_actions_executed", "steps", "budget", "mutations", "suspicious", "assertions",
                            "tier2", "goal_validations", "acceptance", "final_answer", "usage"}) {
      CAPTURE(key);
      CHECK(r.contains(key));
    }
    CHECK(r["status"] == "budget_exhausted");
    CHECK(r["verdict"] == "partial");
    CHECK(r["verdict_by"] == "tier1");
    CHECK(r["goal_actions_executed"] == false);
    CHECK(r["reasons"][0] == "the replan budget (3) ran out before any effect tool ran: tried, never made the change");
    CHECK(r["steps"] == json{{"planned", 6}, {"executed", 6}, {"failed", 0}});
    CHECK(r["budget"]["exhausted"] == "replans");
    CHECK(r["budget"]["replans"] == json::array({3, 3}));
    CHECK(r["budget"]["steps"] == json::array({6, 50}));
    CHECK(r["budget"]["tokens"] == json::array({4100, 200000}));
    CHECK(r["tier2"].is_null());
    CHECK(r["acceptance"].is_null());
  }

  TEST_CASE("docs/report.md names every field of the report and of its mutations") {
    RunFacts f = discovery_run();
    Mutation m;
    m.path = "b.txt";
    m.change = "added";
    m.renamed_from = "a.txt";
    f.mutations = {m};
    auto t1 = verify::evaluate_tier1(f);
    json r = report::build_report(f, t1, verify::decide_without_judge(t1), "2026-11-22T00:00:00.000Z");
    std::string doc = read_file(source_root() + "/docs/report.md");
    REQUIRE_FALSE(doc.empty());
    std::string first_cells;  // the table's row heads: each top-level field has a row of its own
    std::istringstream lines(doc);
    for (std::string line; std::getline(lines, line);)
      if (line.rfind("| ", 0) == 0) first_cells += line.substr(0, line.find(" |", 1)) + "\n";
    for (const auto& [key, value] : r.items()) {
      CAPTURE(key);
      CHECK(first_cells.find("`" + key + "`") != std::string::npos);
    }
    REQUIRE(r["mutations"].size() == 1);
    for (const auto& [key, value] : r["mutations"][0].items()) {
      CAPTURE(key);
      CHECK(doc.find("`" + key + "`") != std::string::npos);
    }
  }

  TEST_CASE("the terminal report leads with the verdict, then why, and fits 80 columns") {
    RunFacts f = discovery_run();
    auto t1 = verify::evaluate_tier1(f);
    json r = report::build_report(f, t1, verify::decide_without_judge(t1), "");
    std::string plain = report::render_terminal(r, {false, 80});
    CHECK(plain.rfind("PARTIAL  Change the background to dark green\n", 0) == 0);
    CHECK(plain.find("\nwhy\n  - [run ended] the replan budget (3) ran out") != std::string::npos);
    CHECK(plain.find("goal actions  none ran") != std::string::npos);
    CHECK(plain.find("\033[") == std::string::npos);
    std::size_t start = 0;
    while (start < plain.size()) {
      std::size_t end = plain.find('\n', start);
      std::string line = plain.substr(start, end - start);
      CAPTURE(line);
      // Multi-byte "·" counts once on screen.
      std::size_t columns = 0;
      for (unsigned char c : line) columns += (c & 0xC0) != 0x80;
      CHECK(columns <= 80);
      start = end + 1;
    }
    std::string colored = report::render_terminal(r, {true, 80});
    CHECK(colored.rfind("\033[1;33mPARTIAL\033[0m", 0) == 0);
  }

  TEST_CASE("colour only on a terminal, and NO_COLOR or TERM=dumb turns it off") {
    testing::ScopedEnv no_color("NO_COLOR", std::nullopt);
    {
      testing::ScopedEnv term("TERM", "xterm");
      CHECK(report::want_color_for(true));
      CHECK_FALSE(report::want_color_for(false));
      testing::ScopedEnv asked("NO_COLOR", "1");
      CHECK_FALSE(report::want_color_for(true));
    }
    testing::ScopedEnv term("TERM", "dumb");
    CHECK_FALSE(report::want_color_for(true));
  }
}

#include <cstdio>

#include "report/progress.h"

TEST_SUITE("report") {
  TEST_CASE("progress: every step on a terminal, only failures in the quiet log") {
    StepRecord ok;
    ok.id = "s1";
    ok.tool = "file_patch";
    ok.target = "css/style.css";
    ok.ok = true;
    ok.changed_paths = {"css/style.css"};
    AssertionRecord failed;
    failed.type = "file_contains";
    failed.passed = false;
    failed.message = "css/style.css does not contain \"#006400\"";
    auto render = [&](bool tty) {
      char* buf = nullptr;
      std::size_t len = 0;
      std::FILE* f = ::open_memstream(&buf, &len);
      report::TerminalProgress p(f, tty, false);
      p.round_started(2, 1);
      p.step_finished(ok, {});
      p.step_finished(ok, {failed});
      p.note("replan: step s1 failed");
      std::fclose(f);
      std::string out(buf, len);
      std::free(buf);
      return out;
    };
    CHECK(render(true) ==
          "round 2 (1 step)\n"
          "  ok     s1   file_patch  css/style.css  (changed 1)\n"
          "  ok     s1   file_patch  css/style.css  (changed 1)\n"
          "         FAIL file_contains: css/style.css does not contain \"#006400\"\n"
          "  replan: step s1 failed\n");
    CHECK(render(false) ==
          "round 2 (1 step)\n"
          "  ok     s1   file_patch  css/style.css  (changed 1)\n"
          "         FAIL file_contains: css/style.css does not contain \"#006400\"\n"
          "  replan: step s1 failed\n");
  }
}
