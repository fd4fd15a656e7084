// run_goal (executor/goal_gate.h): the worker's loop, then the independent review with bounded
// retries, planner and reviewer both scripted. Which status the run ends with, how many times each
// was asked, and what each was shown.
#include <doctest/doctest.h>

#include <string>

#include "core/events.h"
#include "executor/goal_gate.h"
#include "tests/executor_harness.h"
#include "tests/fake_provider.h"

using namespace candor;
using candor::testing::FakeProvider;
using candor::testing::plan_reply;
using candor::testing::Worker;
using candor::testing::write_notes_step;
using nlohmann::json;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

planner::PlannerOptions told_of_review() {
  planner::PlannerOptions options;
  options.reviewed = true;
  return options;
}

BudgetLimits no_replans() {
  BudgetLimits limits;
  limits.max_replans = 0;
  return limits;
}

const char* const kCriterion = "CRITERION-MARK: the notes must say green in a full sentence";

// A worker whose planner knows a reviewer will look (as `candor run --criterion` sets it up), and
// the reviewer, whose replies the test queues in `reviewer_llm`.
struct Gate {
  explicit Gate(BudgetLimits limits = {}) : w(limits, {}, told_of_review()) {}
  Worker w;
  FakeProvider reviewer_llm;
  net::NetworkPolicy network;
  executor::Reviewer reviewer{reviewer_llm, w.h.tools, *w.h.ws, network, w.h.trajectory, {kCriterion, 8, 16 * 1024}};

  // Queues `n` worker plans that each finish with everything passing.
  void plans_that_finish(int n) {
    for (int i = 1; i <= n; ++i) {
      w.llm.replies.push_back(plan_reply(json::array({write_notes_step("s1", "green " + std::to_string(i), "green")}),
                                         "finish", "notes say green " + std::to_string(i)));
    }
  }
  void verdicts(std::initializer_list<std::pair<const char*, const char*>> replies) {
    for (const auto& [verdict, reason] : replies)
      reviewer_llm.replies.push_back(json{{"verdict", verdict}, {"reason", reason}}.dump());
  }
  executor::GoalResult run(int max_attempts) {
    return executor::run_goal(w.loop, *w.h.ex, &reviewer, max_attempts, "Make the background green");
  }
};

}  // namespace

TEST_SUITE("executor") {
  TEST_CASE("run_goal: without a reviewer the loop's end is the run's end") {
    Worker w;
    w.llm.replies = {plan_reply(json::array({write_notes_step("s1", "green", "green")}), "finish", "done")};
    auto result = executor::run_goal(w.loop, *w.h.ex, nullptr, 3, "Make the background green");
    CHECK(result.facts.status == RunStatus::kCompleted);
    CHECK(result.facts.goal_validations.empty());
    CHECK_FALSE(result.provider_failed);
    CHECK(w.h.events(event::kRunEnded).size() == 1);
  }

  TEST_CASE("run_goal: each failed review sends the worker back with the reason, until max_attempts reviews failed") {
    Gate g;
    g.plans_that_finish(4);  // one more than may be used
    g.verdicts({{"fail", "REASON-1 the footer is still white"},
                {"fail", "REASON-2 the header is still white"},
                {"fail", "REASON-3 the sidebar is still white"},
                {"pass", "never asked"}});
    auto result = g.run(3);
    CHECK(result.facts.status == RunStatus::kGoalAttemptsExhausted);
    CHECK(result.facts.status_detail == "3 independent reviews failed; the last: REASON-3 the sidebar is still white");
    CHECK_FALSE(result.provider_failed);
    // Bounded: three reviews, three worker rounds; the spare replies were never asked for.
    CHECK(g.reviewer_llm.seen.size() == 3);
    CHECK(g.reviewer_llm.replies.size() == 1);
    CHECK(g.w.llm.seen.size() == 3);
    CHECK(g.w.llm.replies.size() == 1);
    REQUIRE(result.facts.goal_validations.size() == 3);
    for (int i = 0; i < 3; ++i) {
      CAPTURE(i);
      CHECK(result.facts.goal_validations[i].attempt == i + 1);
      CHECK(result.facts.goal_validations[i].verdict == ReviewVerdict::kFail);
      CHECK(result.facts.goal_validations[i].input_tokens == 100);
    }
    // Each return to the worker carries that review's reason, and nothing of the criterion.
    CHECK(contains(g.w.llm.seen[1].messages.back().content,
                   "An independent reviewer checked the work and found the goal not met: REASON-1"));
    CHECK(contains(g.w.llm.seen[2].messages.back().content, "REASON-2"));
    CHECK_FALSE(contains(g.w.llm.seen[2].messages.back().content, "REASON-1"));
    for (const auto& request : g.w.llm.seen) {
      CHECK_FALSE(contains(request.system, "CRITERION-MARK"));
      for (const auto& m : request.messages) CHECK_FALSE(contains(m.content, "CRITERION-MARK"));
    }
    // Worker and reviewer calls are all counted: 3 + 3, 110 tokens each.
    CHECK(result.facts.usage.llm_calls == 6);
    CHECK(result.facts.budget.used.tokens == 660);
    CHECK(result.facts.final_answer == std::optional<std::string>("notes say green 3"));
  }

  TEST_CASE("run_goal: a review that passes after a failed one ends the run completed") {
    Gate g;
    g.plans_that_finish(2);
    g.verdicts({{"fail", "the footer is still white"}, {"pass", "all green now"}});
    auto result = g.run(3);
    CHECK(result.facts.status == RunStatus::kCompleted);
    REQUIRE(result.facts.goal_validations.size() == 2);
    CHECK(result.facts.goal_validations[0].verdict == ReviewVerdict::kFail);
    CHECK(result.facts.goal_validations[1].verdict == ReviewVerdict::kPass);
    CHECK(result.facts.goal_validations[1].reason == "all green now");
    CHECK(g.w.llm.seen.size() == 2);
    CHECK(g.w.h.events(event::kReview).size() == 2);
  }

  TEST_CASE("run_goal: a review with no verdict sends nobody back; an unreachable reviewer marks provider_failed") {
    Gate g;
    g.plans_that_finish(2);  // no reviewer reply queued: the fake answers kUnavailable
    auto result = g.run(3);
    CHECK(result.facts.status == RunStatus::kCompleted);
    CHECK(result.provider_failed);
    REQUIRE(result.facts.goal_validations.size() == 1);
    CHECK(result.facts.goal_validations[0].verdict == ReviewVerdict::kNone);
    CHECK(result.facts.goal_validations[0].reason == "the reviewer could not be asked: fake: no reply left");
    CHECK(g.w.llm.seen.size() == 1);
  }

  TEST_CASE("run_goal: a loop that ran out of budget is reviewed once, never sent back, and keeps its status") {
    Gate g(no_replans());
    g.w.llm.replies = {plan_reply(json::array({write_notes_step("s1", "blue", "green")}), "finish"),
                       plan_reply(json::array({write_notes_step("s1", "green", "green")}), "finish")};
    g.verdicts({{"fail", "the notes say blue"}, {"fail", "never asked"}});
    auto result = g.run(3);
    CHECK(result.facts.status == RunStatus::kBudgetExhausted);
    CHECK(result.facts.budget.exhausted == BudgetKind::kReplans);
    REQUIRE(result.facts.goal_validations.size() == 1);
    CHECK(result.facts.goal_validations[0].verdict == ReviewVerdict::kFail);
    CHECK(g.reviewer_llm.seen.size() == 1);
    CHECK(g.w.llm.seen.size() == 1);
  }

  TEST_CASE(
      "run_goal: the reviewer sees the goal, the workspace and the worker's final answer, nothing of the worker's "
      "transcript") {
    Gate g;
    json steps = json::array({{{"id", "s1"}, {"tool", "shell"}, {"args", {{"command", "echo WORKER-OUTPUT-MARK"}}}},
                              write_notes_step("s2", "green", "green")});
    json first = json::parse(plan_reply(steps, "finish", "FINAL-ANSWER-MARK: notes say green"));
    first["questions"] = json::array({"QUESTION-MARK: are the notes green?"});
    g.w.llm.replies = {first.dump(),
                       plan_reply(json::array({write_notes_step("s1", "green!", "green")}), "finish", "SECOND-ANSWER")};
    g.verdicts({{"fail", "REASON-MARK the sentence is missing"}, {"pass", "fine"}});
    auto result = g.run(3);
    CHECK(result.facts.status == RunStatus::kCompleted);
    REQUIRE(g.reviewer_llm.seen.size() == 2);

    const llm::Request& first_review = g.reviewer_llm.seen[0];
    CHECK(first_review.role == "reviewer");
    CHECK(contains(first_review.system, "CRITERION-MARK"));
    REQUIRE(first_review.messages.size() == 1);
    const std::string& shown = first_review.messages[0].content;
    CHECK(contains(shown, "The worker's goal: Make the background green"));
    CHECK(contains(shown, "FINAL-ANSWER-MARK"));
    CHECK(contains(shown, "notes.txt ("));  // the workspace overview, as it is after the work
    for (const char* worker_only : {"WORKER-OUTPUT-MARK", "QUESTION-MARK", "RECOVERY", "\"steps\""}) {
      CAPTURE(worker_only);
      CHECK_FALSE(contains(first_review.system, worker_only));
      CHECK_FALSE(contains(shown, worker_only));
    }
    CHECK_FALSE(contains(first_review.system, g.w.planner.system()));
    // A new history every attempt: the second review starts from one message again, with the
    // second answer, and nothing of the first review.
    const llm::Request& second_review = g.reviewer_llm.seen[1];
    REQUIRE(second_review.messages.size() == 1);
    CHECK(contains(second_review.messages[0].content, "SECOND-ANSWER"));
    CHECK_FALSE(contains(second_review.messages[0].content, "REASON-MARK"));
    CHECK_FALSE(contains(second_review.messages[0].content, "FINAL-ANSWER-MARK"));
  }
}
