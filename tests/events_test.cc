// Typed events: the one llm_call meter, the registry's facts on tool_called, the planner's questions
// in the facts, and replay reading what the writers wrote.
#include <doctest/doctest.h>

#include "core/clock.h"
#include "core/events.h"
#include "tests/test_support.h"
#include "verify/replay.h"

using namespace candor;

namespace {

Event make_event(std::int64_t seq, const char* type, nlohmann::json data) {
  Event e;
  e.seq = seq;
  e.type = type;
  e.data = std::move(data);
  return e;
}

}  // namespace

TEST_SUITE("core") {
  TEST_CASE("count_llm_call: every call in the usage; only budgeted calls in the budget's tokens") {
    struct Row {
      LlmCall call;
      int calls;
      std::int64_t usage_in, budget_tokens;
    };
    const Row rows[] = {
        {{"planner", true, 100, 20, false, "", true}, 1, 100, 120},
        {{"judge", true, 50, 5, false, "", false}, 1, 50, 0},
        {{"reviewer", false, 0, 0, false, "down", true}, 1, 0, 0},
    };
    for (const auto& row : rows) {
      CAPTURE(row.call.role);
      RunFacts f;
      count_llm_call(f, row.call);
      CHECK(f.usage.llm_calls == row.calls);
      CHECK(f.usage.input_tokens == row.usage_in);
      CHECK(f.budget.used.tokens == row.budget_tokens);
    }
  }

  TEST_CASE("llm_call events round-trip; a hostile or older event reads as defaults, never throws") {
    LlmCall call{.role = "judge",
                 .ok = false,
                 .input_tokens = 7,
                 .output_tokens = 3,
                 .usage_estimated = true,
                 .error = "x",
                 .budgeted = false};
    LlmCall back = llm_call_from_json(to_json(call));
    CHECK(back.role == "judge");
    CHECK_FALSE(back.ok);
    CHECK(back.input_tokens == 7);
    CHECK(back.output_tokens == 3);
    CHECK(back.usage_estimated);
    CHECK(back.error == "x");
    CHECK_FALSE(back.budgeted);
    LlmCall hostile = llm_call_from_json({{"role", 3}, {"ok", "yes"}, {"input_tokens", "many"}, {"budgeted", nullptr}});
    CHECK(hostile.role.empty());
    CHECK_FALSE(hostile.ok);
    CHECK(hostile.input_tokens == 0);
    CHECK(hostile.budgeted);  // an older run's event: every call it recorded was the run's own
  }

  TEST_CASE("record_llm_call: one event and one count") {
    SystemClock clock;
    Trajectory t("r1", clock, nullptr);
    RunFacts f;
    record_llm_call(t, f, {"planner", true, 10, 2, false, "", true});
    REQUIRE(t.events().size() == 1);
    CHECK(t.events()[0].type == event::kLlmCall);
    CHECK(t.events()[0].data["input_tokens"] == 10);
    CHECK(f.usage.llm_calls == 1);
    CHECK(f.budget.used.tokens == 12);
  }
}

TEST_SUITE("verify") {
  TEST_CASE("replay takes a call's target and effect from its tool_called event, not from a table of its own") {
    nlohmann::json round1 = {{"steps", nlohmann::json::array({1})},
                             {"questions", nlohmann::json::array({"Is it green?"})}};
    nlohmann::json round2 = {{"steps", nlohmann::json::array({1})}, {"questions", nlohmann::json::array({"Later?"})}};
    std::vector<Event> events = {
        make_event(1, event::kRunStarted, {{"goal", "g"}}),
        make_event(2, event::kPlan, {{"round", 1}, {"plan", round1}}),
        // A tool this version's table would not know: the event says what the registry said.
        make_event(3, event::kToolCalled,
                   {{"step", "s1"},
                    {"tool", "custom_write"},
                    {"input", {{"where", "x"}}},
                    {"target", "x"},
                    {"effect", true},
                    {"effect_on_files", true}}),
        make_event(4, event::kToolResult, {{"step", "s1"}, {"ok", true}}),
        // An older run's event without the facts: no effect is assumed (unknown is never evidence).
        make_event(5, event::kToolCalled, {{"step", "s2"}, {"tool", "file_write"}, {"input", {{"path", "a.txt"}}}}),
        make_event(6, event::kPlan, {{"round", 2}, {"plan", round2}}),
        make_event(7, event::kLlmCall, {{"role", "planner"}, {"ok", true}, {"input_tokens", 5}, {"output_tokens", 1}}),
        make_event(8, event::kLlmCall,
                   {{"role", "judge"}, {"ok", true}, {"input_tokens", 9}, {"output_tokens", 1}, {"budgeted", false}}),
    };
    RunFacts f = verify::facts_from_events("r", events);
    REQUIRE(f.steps.size() == 2);
    CHECK(f.steps[0].target == "x");
    CHECK(f.steps[0].effect_tool);
    CHECK(f.steps[0].effect_on_files);
    CHECK(f.steps[1].target.empty());
    CHECK_FALSE(f.steps[1].effect_tool);
    CHECK(f.planner_questions == std::vector<std::string>{"Is it green?"});  // round 1's only
    CHECK(f.usage.llm_calls == 2);
    CHECK(f.usage.input_tokens == 14);
    CHECK(f.budget.used.tokens == 6);  // the judge's call is not the run's budget
  }

  TEST_CASE("the planner's questions survive the stored facts") {
    RunFacts f;
    f.planner_questions = {"Is the background dark green?", "Is nothing else changed?"};
    auto back = run_facts_from_json(to_json(f));
    REQUIRE(back.ok());
    CHECK(back->planner_questions == f.planner_questions);
  }
}
