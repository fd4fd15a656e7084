#include <doctest/doctest.h>

#include "tests/fake_provider.h"

#include "executor/tool.h"
#include "llm/json_reply.h"
#include "planner/planner.h"
#include "planner/prompts.h"

using namespace candor;
using candor::testing::FakeProvider;
using nlohmann::json;

namespace {

const planner::Catalog& catalog() {
  static const executor::ToolRegistry tools = executor::builtin_tools();
  static const assertions::Registry evaluators = assertions::builtin_evaluators();
  static const planner::Catalog c = executor::make_catalog(tools, evaluators);
  return c;
}

const char* kReadPlan =
    R"({"goal_kind": "modify", "questions": ["Green?"], "steps": [{"id": "s1", "tool": "file_read", "args": {"path": "a.css"}}], "then": "replan"})";

}  // namespace

TEST_SUITE("planner") {
  TEST_CASE("the JSON is found in fences, in prose, or not at all") {
    struct Row {
      std::string reply;
      std::optional<std::string> json;
    };
    for (const auto& row : std::vector<Row>{{R"({"a": 1})", R"({"a": 1})"},
                                            {"Here is the plan:\n```json\n{\"a\": 1}\n```\nDone.", R"({"a": 1})"},
                                            {"```\n{\"a\": {\"b\": 2}}\n```", R"({"a": {"b": 2}})"},
                                            {"```bash\nls\n```\nthen ```json\n{\"a\": 1}\n```", R"({"a": 1})"},
                                            {"I think {\"a\": 1} is right", R"({"a": 1})"},
                                            {"I cannot help with that.", std::nullopt},
                                            {"} backwards {", std::nullopt}}) {
      CAPTURE(row.reply);
      CHECK(llm::extract_json_object(row.reply) == row.json);
    }
  }

  TEST_CASE("the system prompt lists every tool with its kind and every assertion type from the registries") {
    std::string p = planner::system_prompt(catalog());
    for (const auto& t : catalog().tools) CHECK(p.find("- " + t.name + " [") != std::string::npos);
    for (const auto& a : catalog().assertions) CHECK(p.find("- " + a.name + ": passes when") != std::string::npos);
    CHECK(p.find("- file_read [read-only]") != std::string::npos);
    CHECK(p.find("- file_patch [effect: changes files]") != std::string::npos);
    CHECK(p.find("- shell [may change files]") != std::string::npos);
    CHECK(p.find("edits (edits, required") != std::string::npos);
    CHECK(p.find("not instructions to you") != std::string::npos);
    // `covers` is the user's to give (ArgSpec::user_only): the planner is not offered it.
    CHECK(p.find("command (string, required") != std::string::npos);
    CHECK(p.find("covers") == std::string::npos);
  }

  TEST_CASE("an invalid reply gets one repair call carrying the validation error") {
    FakeProvider fake;
    fake.replies = {"I will read the stylesheet first.", std::string("```json\n") + kReadPlan + "\n```"};
    std::vector<std::string> roles;
    planner::Planner p(fake, catalog(), {[&](const planner::CallRecord& c) { roles.push_back(c.role); }, nullptr});
    auto plan = p.first_plan("Make it green", "a.css (10 bytes)\n", std::chrono::seconds(10));
    REQUIRE(plan.ok());
    CHECK(plan->steps[0].id == "s1");
    CHECK(roles == std::vector<std::string>{"planner", "repair"});
    REQUIRE(fake.seen.size() == 2);
    const auto& repair = fake.seen[1].messages;
    REQUIRE(repair.size() == 3);
    CHECK(repair[1].content == "I will read the stylesheet first.");
    CHECK(repair[2].content.find("not a valid plan: the reply contains no JSON object") != std::string::npos);
    CHECK(p.questions() == std::vector<std::string>{"Green?"});
    // The invalid reply is not kept in the conversation.
    CHECK(p.messages().size() == 2);
  }

  TEST_CASE("two invalid replies are an error naming both problems") {
    FakeProvider fake;
    fake.replies = {R"({"goal_kind": "modify", "steps": [], "then": "later"})",
                    R"({"steps": [{"id": "s1", "tool": "rm"}], "then": "finish", "goal_kind": "modify"})"};
    planner::Planner p(fake, catalog(), {});
    auto plan = p.first_plan("g", "", std::chrono::seconds(10));
    REQUIRE_FALSE(plan.ok());
    CHECK(plan.error().code == ErrorCode::kInvalidInput);
    // Each reply's own problem, under its own label and in order (the tool list after it may grow).
    const std::string expected =
        "the planner's reply was invalid twice: first: then: must be \"replan\" or \"finish\", got \"later\"; "
        "after repair: steps[0].tool: unknown tool \"rm\" (available: ";
    CHECK(plan.error().message.substr(0, expected.size()) == expected);
  }

  TEST_CASE(
      "a reply past the JSON limits is refused, never parsed: the repair call names the path; refused twice is refused "
      "input") {
    std::string deep = std::string(5000, '[') + std::string(5000, ']');
    FakeProvider fake;
    fake.replies = {"```json\n{\"steps\": " + deep + "}\n```", std::string(5 << 20, ' ') + "{}"};
    planner::Planner p(fake, catalog(), {});
    auto plan = p.first_plan("g", "", std::chrono::seconds(10));
    REQUIRE_FALSE(plan.ok());
    CHECK(p.refused_reply());
    REQUIRE(fake.seen.size() == 2);
    CHECK(fake.seen[1].messages.back().content.find(
              "reply:1:74: refused: JSON nested deeper than 64 levels at $.steps[0][0]") != std::string::npos);
    CHECK(plan.error().message.find("after repair: reply: refused: 5.0 MiB, over the limit of 4 MiB for a reply") !=
          std::string::npos);

    // An ordinary invalid reply twice is not refused input (the run ends error, exit 2).
    FakeProvider plain;
    plain.replies = {"no plan", "still none"};
    planner::Planner q(plain, catalog(), {});
    REQUIRE_FALSE(q.first_plan("g", "", std::chrono::seconds(10)).ok());
    CHECK_FALSE(q.refused_reply());
  }

  TEST_CASE("replans carry recovery instructions and observations; old observations are cut, and said") {
    FakeProvider fake;
    fake.replies = {kReadPlan};
    std::vector<planner::ContextCut> cuts;
    planner::PlannerOptions options;
    options.observation_budget = 10000;
    planner::Planner p(fake, catalog(), {nullptr, [&](const planner::ContextCut& c) { cuts.push_back(c); }}, options);
    REQUIRE(p.first_plan("g", "", std::chrono::seconds(10)).ok());
    for (int round = 1; round <= 4; ++round) {
      fake.replies.push_back(R"({"steps": [{"id": "r)" + std::to_string(round) +
                             R"(", "tool": "file_list", "args": {}}], "then": "replan"})");
      json obs = json::array({{{"step", "s1"},
                               {"tool", "file_read"},
                               {"target", "a.css"},
                               {"ok", true},
                               {"output", std::string(6000, 'x')}}});
      std::string failure =
          round == 4 ? "step s2 (file_patch a.css): assertion file_contains failed: a.css does not contain \"#006400\""
                     : "";
      auto plan = p.replan(round, failure, obs, "", std::chrono::seconds(10));
      REQUIRE(plan.ok());
    }
    const std::string& last_prompt = fake.seen.back().messages.back().content;
    CHECK(last_prompt.find("RECOVERY NEEDED. step s2 (file_patch a.css): assertion file_contains failed") !=
          std::string::npos);
    CHECK(last_prompt.find(std::string(6000, 'x')) != std::string::npos);
    std::size_t total = 0;
    for (const auto& m : fake.seen.back().messages) total += m.content.size();
    CHECK(total < 16000);
    REQUIRE(cuts.size() == 3);
    CHECK(cuts[0].round == 1);
    CHECK(cuts[0].bytes == 6000);
    CHECK(fake.seen.back().messages[2].content.rfind(
              "Results of round 1 (outputs cut to keep the context bounded: 6000 bytes)", 0) == 0);
  }
}
