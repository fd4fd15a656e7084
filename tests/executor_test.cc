#include <doctest/doctest.h>

#include "executor/executor.h"
#include "tests/executor_harness.h"
#include "tests/test_support.h"
#include "verify/tier1.h"

using namespace candor;
using candor::testing::Harness;
using candor::testing::read_file;
using candor::testing::write_file;
using nlohmann::json;

TEST_SUITE("executor") {
  TEST_CASE("a no-op file_patch changes nothing, is suspicious, and the verdict is fail") {
    Harness h;
    auto outcome = h.ex->run_round(h.plan(R"([{"id": "s1", "tool": "file_patch",
        "args": {"path": "css/style.css", "edits": [{"find": "#ffffff", "replace": "#ffffff"}]},
        "assert": [{"type": "file_contains", "path": "css/style.css", "text": "#ffffff"}]}])"),
                                   1);
    CHECK(outcome.all_passed);
    RunFacts f = h.ex->finish(RunStatus::kCompleted, BudgetKind::kNone, "");
    CHECK(f.steps[0].ok);
    CHECK(f.steps[0].changed_paths.empty());
    CHECK(f.mutations.empty());
    auto t1 = verify::evaluate_tier1(f);
    REQUIRE(t1.signals.suspicious.size() == 1);
    CHECK(t1.signals.suspicious[0].step == "s1");
    CHECK(t1.verdict == Verdict::kFail);
  }

  TEST_CASE("a patch whose find is absent fails the step, leaves the file as it was, and ends the round") {
    Harness h;
    std::string before = read_file(h.root + "/css/style.css");
    auto outcome = h.ex->run_round(h.plan(R"([
        {"id": "s1", "tool": "file_patch", "args": {"path": "css/style.css", "edits": [{"find": "background: red;", "replace": "x"}]}},
        {"id": "s2", "tool": "file_write", "args": {"path": "later.txt", "content": "never"}}])"),
                                   1);
    CHECK_FALSE(outcome.all_passed);
    CHECK(outcome.failure ==
          "step s1 (file_patch css/style.css) failed: edits[0].find occurs 0 times in css/style.css (expected 1); "
          "nothing was written");
    CHECK(read_file(h.root + "/css/style.css") == before);
    CHECK_FALSE(candor::testing::exists(h.root + "/later.txt"));
    RunFacts f = h.ex->finish(RunStatus::kBudgetExhausted, BudgetKind::kReplans, outcome.failure);
    CHECK(f.steps.size() == 1);
    CHECK(f.steps_planned == 2);
  }

  TEST_CASE("a shell step that writes is a goal action and its change is attributed; one that lists is not") {
    Harness h;
    auto outcome = h.ex->run_round(h.plan(R"([
        {"id": "s1", "tool": "shell", "args": {"command": "ls"}},
        {"id": "s2", "tool": "shell", "args": {"command": "printf 'a\nb\n' > out.txt"},
         "assert": [{"type": "file_contains", "path": "out.txt", "text": "b"}]}])"),
                                   1);
    CHECK(outcome.all_passed);
    RunFacts f = h.ex->finish(RunStatus::kCompleted, BudgetKind::kNone, "");
    CHECK(f.steps[0].changed_paths.empty());
    CHECK(f.steps[1].changed_paths == std::vector<std::string>{"out.txt"});
    REQUIRE(f.mutations.size() == 1);
    CHECK(f.mutations[0].path == "out.txt");
    CHECK(f.mutations[0].change == "added");
    CHECK(f.mutations[0].lines_added == 2);
    CHECK(f.mutations[0].steps == std::vector<std::string>{"s2"});
    auto t1 = verify::evaluate_tier1(f);
    CHECK(t1.signals.goal_actions_executed);
    REQUIRE(f.assertions.size() == 1);
    CHECK(f.assertions[0].discriminating == std::optional<bool>(true));  // out.txt did not exist before
    CHECK(f.assertions[0].by == Provenance::kPlanner);
    CHECK(f.assertions[0].positive == std::optional<bool>(true));  // it fails on an empty out.txt
    std::string reasons;
    for (const auto& r : t1.reasons) reasons += r + "\n";
    CAPTURE(reasons);
    // The planner's own check: consistent with what it meant, not proof of what the user asked.
    CHECK_FALSE(t1.verdict.has_value());
    CHECK(reasons.find("covered only by the planner's own checks") != std::string::npos);
  }

  TEST_CASE("a file changed by two steps lists both, and coverage is judged after the last change") {
    Harness h;
    h.ex->run_round(h.plan(R"([
        {"id": "s1", "tool": "file_write", "args": {"path": "a.txt", "content": "one"},
         "assert": [{"type": "file_contains", "path": "a.txt", "text": "one"}]},
        {"id": "s2", "tool": "file_write", "args": {"path": "a.txt", "content": "two"}}])"),
                    1);
    RunFacts f = h.ex->finish(RunStatus::kCompleted, BudgetKind::kNone, "");
    REQUIRE(f.mutations.size() == 1);
    CHECK(f.mutations[0].steps == std::vector<std::string>{"s1", "s2"});
    CHECK(f.mutations[0].last_change_seq > f.assertions[0].seq);
    auto t1 = verify::evaluate_tier1(f);
    CHECK_FALSE(t1.verdict.has_value());  // the check ran before s2 rewrote the file
    CHECK(t1.signals.uncovered == std::vector<std::string>{"a.txt"});
  }

  TEST_CASE("exit_code_eq decides a shell step's non-zero exit; without it the step fails") {
    Harness h;
    auto excused = h.ex->run_round(h.plan(R"([{"id": "s1", "tool": "shell", "args": {"command": "exit 3"},
        "assert": [{"type": "exit_code_eq", "code": 3}]}])"),
                                   1);
    CHECK(excused.all_passed);
    auto failed = h.ex->run_round(h.plan(R"([{"id": "s2", "tool": "shell", "args": {"command": "exit 3"}}])"), 2);
    CHECK_FALSE(failed.all_passed);
    CHECK(failed.failure == "step s2 (shell exit 3) failed: exited with status 3");
    auto wrong = h.ex->run_round(h.plan(R"([{"id": "s3", "tool": "shell", "args": {"command": "exit 3"},
        "assert": [{"type": "exit_code_eq", "code": 0}]}])"),
                                 3);
    CHECK_FALSE(wrong.all_passed);
    CHECK(wrong.failure == "step s3 (shell exit 3): assertion exit_code_eq failed: s3 exited with 3 (expected 0)");
  }

  TEST_CASE("the step budget and the time budget stop a round before the next step") {
    Harness h(BudgetLimits{0, 1, 1000, 60});
    auto outcome = h.ex->run_round(h.plan(R"([{"id": "s1", "tool": "file_list", "args": {}},
                                                {"id": "s2", "tool": "file_list", "args": {}}])"),
                                   1);
    CHECK(outcome.budget_hit == BudgetKind::kSteps);
    CHECK(outcome.failure == "the steps budget ran out before step s2");

    Harness t(BudgetLimits{0, 50, 1000, 60});
    t.clock.advance(std::chrono::seconds(61));
    auto timed = t.ex->run_round(t.plan(R"([{"id": "s1", "tool": "file_list", "args": {}}])"), 1);
    CHECK(timed.budget_hit == BudgetKind::kTimeout);
    RunFacts f = t.ex->finish(RunStatus::kBudgetExhausted, timed.budget_hit, timed.failure);
    CHECK(f.steps.empty());
    CHECK(f.budget.used.elapsed_s == doctest::Approx(61));
  }

  TEST_CASE("events are recorded in order, and a failing store does not change the run") {
    Harness h;
    h.ex->run_round(h.plan(R"([{"id": "s1", "tool": "file_write", "args": {"path": "a.txt", "content": "x"},
        "assert": [{"type": "file_exists", "path": "a.txt"}]}])"),
                    1);
    h.ex->finish(RunStatus::kCompleted, BudgetKind::kNone, "");
    CHECK(h.sink.types == std::vector<std::string>{"run_started", "step_started", "tool_called", "workspace_changed",
                                                   "tool_result", "assertion", "run_ended"});

    Harness broken;
    broken.sink.fail = true;
    auto outcome = broken.ex->run_round(
        broken.plan(R"([{"id": "s1", "tool": "file_write", "args": {"path": "a.txt", "content": "x"}}])"), 1);
    CHECK(outcome.all_passed);
    CHECK(read_file(broken.root + "/a.txt") == "x");
    CHECK(broken.trajectory.sink_error() == "disk full");
    CHECK(broken.trajectory.events().size() > 3);  // kept in memory for the verdict
  }

  TEST_CASE("progress hears of each step as it starts, with its target, and again when it finished") {
    struct Recorder final : ProgressObserver {
      std::vector<std::string> heard;
      void step_started(const StepRecord& s) override {
        heard.push_back("started " + s.id + " " + s.tool + " " + s.target);
      }
      void step_finished(const StepRecord& s, const std::vector<AssertionRecord>& a) override {
        heard.push_back("finished " + s.id + (s.ok ? " ok" : " failed") + " " + std::to_string(a.size()));
      }
    } recorder;
    Harness h({}, &recorder);
    h.ex->run_round(h.plan(R"([{"id": "s1", "tool": "file_write", "args": {"path": "a.txt", "content": "x"},
        "assert": [{"type": "file_exists", "path": "a.txt"}]},
        {"id": "s2", "tool": "shell", "args": {"command": "exit 3"}}])"),
                    1);
    CHECK(recorder.heard == std::vector<std::string>{"started s1 file_write a.txt", "finished s1 ok 1",
                                                     "started s2 shell exit 3", "finished s2 failed 0"});
  }

  TEST_CASE("the end's scan always runs, and sees what changed outside every step") {
    {  // a process after the last step's scan (a goal-level assertion's command) writes: seen, unattributed
      Harness h;
      h.ex->run_round(h.plan(R"([{"id": "s1", "tool": "file_write", "args": {"path": "a.txt", "content": "x"}}])"), 1);
      h.ex->run_goal_assertions({json{{"type", "command_succeeds"}, {"command", "echo late > late.txt"}}});
      REQUIRE(read_file(h.root + "/late.txt") == "late\n");
      RunFacts f = h.ex->finish(RunStatus::kCompleted, BudgetKind::kNone, "");
      REQUIRE(f.mutations.size() == 2);
      CHECK(f.mutations[0].path == "a.txt");
      CHECK(f.mutations[0].steps == std::vector<std::string>{"s1"});
      CHECK(f.mutations[1].path == "late.txt");
      CHECK(f.mutations[1].steps.empty());
    }
    {  // only in-process tools ran, and a read-only one last: the end still scans everything (an
       // http_get can have had a service of the workspace's rewrite a file), unattributed
      Harness h;
      h.ex->run_round(h.plan(R"([{"id": "s1", "tool": "file_write", "args": {"path": "a.txt", "content": "x"}},
                                 {"id": "s2", "tool": "file_read", "args": {"path": "a.txt"}}])"),
                      1);
      write_file(h.root + "/outside.txt", "written while the run went on\n");
      RunFacts f = h.ex->finish(RunStatus::kCompleted, BudgetKind::kNone, "");
      REQUIRE(f.mutations.size() == 2);
      CHECK(f.mutations[0].path == "a.txt");
      CHECK(f.mutations[1].path == "outside.txt");
      CHECK(f.mutations[1].steps.empty());
    }
  }

  TEST_CASE("goal-level assertions run at the end and name the first failure") {
    Harness h;
    h.ex->run_round(h.plan(R"([{"id": "s1", "tool": "file_write", "args": {"path": "a.txt", "content": "x"}}])"), 1);
    std::string failure =
        h.ex->run_goal_assertions({json{{"type", "file_exists"}, {"path", "a.txt"}},
                                   json{{"type", "file_contains"}, {"path", "a.txt"}, {"text", "y"}}});
    CHECK(failure == "goal-level assertion file_contains failed: a.txt does not contain \"y\" (1 bytes read)");
    RunFacts f = h.ex->finish(RunStatus::kCompleted, BudgetKind::kNone, failure);
    // The failed one is checked once more at the end, and still fails.
    REQUIRE(f.assertions.size() == 3);
    CHECK(f.assertions[0].goal_level());
    CHECK(f.assertions[2].final_check);
    CHECK(f.assertions[2].type == "file_contains");
    CHECK_FALSE(f.assertions[2].passed);
    CHECK(verify::evaluate_tier1(f).rule == 5);
  }

  TEST_CASE("a failure fixed outside its round is re-checked at the end and counts as fixed") {
    Harness h;
    h.ex->run_round(h.plan(R"([{"id": "s1", "tool": "file_write", "args": {"path": "a.txt", "content": "x"},
        "assert": [{"type": "file_contains", "path": "a.txt", "text": "y"}]}])"),
                    1);
    write_file(h.root + "/a.txt", "y\n");  // fixed by what no assertion re-checked
    RunFacts f = h.ex->finish(RunStatus::kCompleted, BudgetKind::kNone, "");
    REQUIRE(f.assertions.size() == 2);
    CHECK(f.assertions[1].final_check);
    CHECK(f.assertions[1].passed);
  }

  TEST_CASE("guards are recorded as guards, after the goal's assertions") {
    Harness h;
    h.ex->run_round(h.plan(R"([{"id": "s1", "tool": "file_write", "args": {"path": "a.txt", "content": "x"}}])"), 1);
    std::string failure = h.ex->run_goal_assertions({json{{"type", "file_exists"}, {"path", "a.txt"}}},
                                                    {json{{"type", "file_exists"}, {"path", "missing.txt"}}});
    CHECK(failure == "guard file_exists failed: missing.txt does not exist");
    RunFacts f = h.ex->finish(RunStatus::kCompleted, BudgetKind::kNone, "");
    REQUIRE(f.assertions.size() >= 2);
    CHECK_FALSE(f.assertions[0].guard);
    CHECK(f.assertions[1].guard);
  }
}
