// The run loop (executor/run_loop.h) with a scripted planner: what ends it, with which status and
// detail, after how many planner calls, and what the planner is told between rounds.
#include <doctest/doctest.h>

#include <string>

#include <fmt/format.h>

#include "core/events.h"
#include "executor/run_loop.h"
#include "tests/executor_harness.h"
#include "tests/test_support.h"

using namespace candor;
using candor::testing::plan_reply;
using candor::testing::read_file;
using candor::testing::Worker;
using candor::testing::write_notes_step;
using nlohmann::json;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The last message of the planner's `call`-th request (0 = the first plan): what it was told.
const std::string& told(const Worker& w, std::size_t call) { return w.llm.seen.at(call).messages.back().content; }

// The default budget but for one limit.
BudgetLimits max_replans(int n) {
  BudgetLimits limits;
  limits.max_replans = n;
  return limits;
}
BudgetLimits max_tokens(std::int64_t n) {
  BudgetLimits limits;
  limits.max_tokens = n;
  return limits;
}
BudgetLimits timeout_s(int n) {
  BudgetLimits limits;
  limits.timeout_s = n;
  return limits;
}

const json kReadStylesheet =
    json::array({{{"id", "s1"}, {"tool", "file_read"}, {"args", {{"path", "css/style.css"}}}}});

}  // namespace

TEST_SUITE("executor") {
  TEST_CASE("run loop: a round that finishes with everything passing ends it completed, with the plan's final answer") {
    Worker w;
    w.llm.replies = {
        plan_reply(json::array({write_notes_step("s1", "green", "green")}), "finish", "notes.txt says green")};
    executor::Stop stop = w.loop.start();
    CHECK(stop.status == RunStatus::kCompleted);
    CHECK(stop.exhausted == BudgetKind::kNone);
    CHECK(stop.detail.empty());
    const RunFacts& f = w.h.ex->facts();
    CHECK(f.final_answer == std::optional<std::string>("notes.txt says green"));
    CHECK(f.goal_kind == GoalKind::kModify);
    CHECK(f.budget.used.replans == 0);
    CHECK(f.usage.llm_calls == 1);
    CHECK(f.budget.used.tokens == 110);
    CHECK(w.llm.seen.size() == 1);
    CHECK(w.llm.seen[0].role == "planner");
    CHECK(contains(told(w, 0), "Make the background green"));
    CHECK(read_file(w.h.root + "/notes.txt") == "green");
  }

  TEST_CASE(
      "run loop: replans are bounded by max_replans; the planner is asked no more, and each replan carries the "
      "failure") {
    Worker w(max_replans(2));
    for (int i = 1; i <= 4; ++i) {
      // A different content each round: not stagnant, only failing.
      w.llm.replies.push_back(
          plan_reply(json::array({write_notes_step("s1", "try " + std::to_string(i), "green")}), "finish"));
    }
    executor::Stop stop = w.loop.start();
    CHECK(stop.status == RunStatus::kBudgetExhausted);
    CHECK(stop.exhausted == BudgetKind::kReplans);
    CAPTURE(stop.detail);
    CHECK(stop.detail.rfind("a replan was needed (step s1 (file_write notes.txt): assertion file_contains failed", 0) ==
          0);
    CHECK(contains(stop.detail, "but all 2 were used"));
    CHECK(w.llm.seen.size() == 3);     // the first plan and two replans
    CHECK(w.llm.replies.size() == 1);  // the fourth plan was never asked for
    const RunFacts& f = w.h.ex->facts();
    CHECK(f.budget.used.replans == 2);
    CHECK(f.steps.size() == 3);
    CHECK(w.h.events(event::kPlan).size() == 3);
    CHECK(w.h.events(event::kReplan).size() == 2);
    CHECK(w.h.events(event::kLlmCall).size() == 3);
    for (std::size_t call : {1u, 2u}) {
      CAPTURE(call);
      CHECK(w.llm.seen[call].messages.back().role == "user");
      CHECK(contains(told(w, call), fmt::format("Results of round {}.", call)));
      CHECK(contains(told(w, call), "RECOVERY NEEDED. step s1 (file_write notes.txt): assertion file_contains failed"));
    }
    CHECK(read_file(w.h.root + "/notes.txt") == "try 3");
  }

  TEST_CASE("run loop: max_replans 0 ends the run at the first failure, after one planner call") {
    Worker w(max_replans(0));
    w.llm.replies = {plan_reply(json::array({write_notes_step("s1", "blue", "green")}), "finish"),
                     plan_reply(json::array({write_notes_step("s1", "green", "green")}), "finish")};
    executor::Stop stop = w.loop.start();
    CHECK(stop.status == RunStatus::kBudgetExhausted);
    CHECK(stop.exhausted == BudgetKind::kReplans);
    CHECK(contains(stop.detail, "but all 0 were used"));
    CHECK(w.llm.seen.size() == 1);
  }

  TEST_CASE("run loop: the token budget spent before a round ends the loop before that round runs") {
    // Each fake reply costs 110 tokens: round 1 runs on 110 of 200, round 2 would start at 220.
    Worker w(max_tokens(200));
    for (int i = 1; i <= 3; ++i) {
      w.llm.replies.push_back(
          plan_reply(json::array({write_notes_step("s1", "try " + std::to_string(i), "green")}), "finish"));
    }
    executor::Stop stop = w.loop.start();
    CHECK(stop.status == RunStatus::kBudgetExhausted);
    CHECK(stop.exhausted == BudgetKind::kTokens);
    CHECK(stop.detail == "the token budget ran out (220 of 200) before round 2 ran");
    CHECK(w.llm.seen.size() == 2);
    CHECK(w.h.ex->facts().steps.size() == 1);
    CHECK(read_file(w.h.root + "/notes.txt") == "try 1");
  }

  TEST_CASE("run loop: the time budget ends the loop; the planner is given only the time left") {
    // Each planner reply takes 400 s of the run's 600: round 1 starts at 400 s, round 2 at 800 s.
    Worker w(timeout_s(600));
    w.planner_llm.per_call = std::chrono::seconds(400);
    for (int i = 1; i <= 3; ++i) {
      w.llm.replies.push_back(
          plan_reply(json::array({write_notes_step("s1", "try " + std::to_string(i), "green")}), "finish"));
    }
    executor::Stop stop = w.loop.start();
    CHECK(stop.status == RunStatus::kBudgetExhausted);
    CHECK(stop.exhausted == BudgetKind::kTimeout);
    CHECK(w.llm.seen.size() == 2);
    CHECK(w.llm.seen[0].deadline == std::chrono::seconds(600));
    CHECK(w.llm.seen[1].deadline == std::chrono::seconds(200));
    CHECK(w.h.ex->facts().steps.size() == 1);  // round 2's step never ran
  }

  TEST_CASE(
      "run loop: three rounds in a row that change nothing and repeat earlier calls end it as stagnant, after a "
      "warning") {
    Worker w;  // max_replans 3: enough for the four rounds
    for (int i = 0; i < 5; ++i) w.llm.replies.push_back(plan_reply(kReadStylesheet, "replan"));
    executor::Stop stop = w.loop.start();
    CHECK(stop.status == RunStatus::kBudgetExhausted);
    CHECK(stop.exhausted == BudgetKind::kStagnation);
    CHECK(stop.detail == "three rounds in a row (the last 4) changed nothing and repeated earlier calls");
    CHECK(w.llm.seen.size() == 4);
    auto warnings = w.h.events(event::kStagnation);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].data["round"] == 3);
    // Told after round 3, not before: round 2 was the first repeat.
    CHECK_FALSE(contains(told(w, 2), "A third such round ends the run"));
    CHECK(contains(told(w, 3), "A third such round ends the run"));
    // A plan that asks to replan is no failure: no recovery instructions.
    CHECK_FALSE(contains(told(w, 1), "RECOVERY NEEDED."));
  }

  TEST_CASE("run loop: a failing goal-level assertion gets a recovery replan like a failed step") {
    json expect = {{"type", "file_contains"}, {"path", "notes.txt"}, {"text", "green"}};
    Worker w({}, {expect});
    w.llm.replies = {
        plan_reply(
            json::array(
                {{{"id", "s1"}, {"tool", "file_write"}, {"args", {{"path", "notes.txt"}, {"content", "blue"}}}}}),
            "finish", "done"),
        plan_reply(json::array({write_notes_step("s1", "green", "green")}), "finish", "done, really")};
    executor::Stop stop = w.loop.start();
    CHECK(stop.status == RunStatus::kCompleted);
    CHECK(w.llm.seen.size() == 2);
    CHECK(contains(told(w, 1), "RECOVERY NEEDED."));
    CHECK(contains(told(w, 1), "notes.txt"));
    CHECK(w.h.ex->facts().budget.used.replans == 1);
    // The first plan's final answer was not taken: its goal was not met.
    CHECK(w.h.ex->facts().final_answer == std::optional<std::string>("done, really"));
  }

  TEST_CASE("run loop: a planner that cannot be reached ends it as an error marked provider_failed, before any step") {
    Worker w;  // no reply queued: the fake answers kUnavailable
    executor::Stop stop = w.loop.start();
    CHECK(stop.status == RunStatus::kError);
    CHECK(stop.provider_failed);
    CHECK_FALSE(stop.input_refused);
    CHECK(stop.detail == "fake: no reply left");
    CHECK(w.h.ex->facts().steps.empty());
    auto calls = w.h.events(event::kLlmCall);
    REQUIRE(calls.size() == 1);
    CHECK(calls[0].data["ok"] == false);
  }

  TEST_CASE("run loop: a plan invalid twice is an error, not provider_failed, with both problems in the detail") {
    Worker w;
    w.llm.replies = {"no plan here", "still none"};
    executor::Stop stop = w.loop.start();
    CHECK(stop.status == RunStatus::kError);
    CHECK_FALSE(stop.provider_failed);
    CHECK(stop.detail.rfind("the planner's reply was invalid twice", 0) == 0);
    CHECK(w.llm.seen.size() == 2);
    CHECK(w.llm.seen[1].role == "repair");
  }
}
