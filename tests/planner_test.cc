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

Deadline ten_seconds() { return Deadline::in_seconds(system_clock(), 10); }

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
    auto plan = p.first_plan("Make it green", "a.css (10 bytes)\n", ten_seconds());
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

  TEST_CASE("a reply cut at the output limit is said as such, and the repair asks for a shorter plan") {
    FakeProvider fake;
    llm::Reply cut;
    cut.text = "```json\n{\"goal_kind\": \"modify\", \"steps\": [{\"id\": \"s1\", \"tool\": \"file_pa";
    cut.cut = true;
    cut.incomplete = "the reply was cut at the output limit (4096 tokens)";
    fake.shaped.push_back(cut);
    fake.replies = {std::string("```json\n") + kReadPlan + "\n```"};
    planner::Planner p(fake, catalog(), {});
    auto plan = p.first_plan("Make it green", "a.css (10 bytes)\n", ten_seconds());
    REQUIRE(plan.ok());
    REQUIRE(fake.seen.size() == 2);
    const std::string& repair = fake.seen[1].messages.back().content;
    CHECK(repair.find("the reply was cut at the output limit (4096 tokens), before the plan was complete") !=
          std::string::npos);
    CHECK(repair.find("Reply again with a shorter plan") != std::string::npos);
    CHECK(repair.find("\"then\": \"replan\"") != std::string::npos);
    CHECK(fake.seen[1].max_output_tokens == fake.seen[0].max_output_tokens);

    // Cut twice: the error says so, not "no JSON object".
    FakeProvider twice;
    twice.shaped = {cut, cut};
    planner::Planner q(twice, catalog(), {});
    auto failed = q.first_plan("Make it green", "", ten_seconds());
    REQUIRE_FALSE(failed.ok());
    CHECK(failed.error().message ==
          "the planner's reply was invalid twice: first: the reply was cut at the output limit (4096 tokens); after "
          "repair: the reply was cut at the output limit (4096 tokens)");
    CHECK_FALSE(q.refused_reply());

    // A cut reply that still holds a whole plan is used.
    FakeProvider whole;
    llm::Reply ended = cut;
    ended.text = std::string("```json\n") + kReadPlan + "\n```\nThis plan reads the styleshe";
    whole.shaped.push_back(ended);
    planner::Planner w(whole, catalog(), {});
    CHECK(w.first_plan("Make it green", "", ten_seconds()).ok());
    CHECK(whole.seen.size() == 1);
  }

  TEST_CASE("a thinking-only reply is said as such; a refusal ends the call with no repair") {
    FakeProvider fake;
    llm::Reply thinking;
    thinking.incomplete = "the reply holds only the model's thinking, no answer text";
    fake.shaped.push_back(thinking);
    fake.replies = {kReadPlan};
    planner::Planner p(fake, catalog(), {});
    REQUIRE(p.first_plan("Make it green", "", ten_seconds()).ok());
    REQUIRE(fake.seen.size() == 2);
    CHECK(fake.seen[1].messages.back().content.find(
              "Your reply is not a valid plan: the reply holds only the model's thinking, no answer text") !=
          std::string::npos);

    FakeProvider refusing;
    refusing.errors.push_back(make_error(ErrorCode::kUnavailable,
                                         "anthropic: the model refused to answer (stop_reason \"refusal\"): I can't"));
    refusing.replies = {kReadPlan};
    std::vector<std::string> roles;
    planner::Planner r(refusing, catalog(), {[&](const planner::CallRecord& c) { roles.push_back(c.role); }, nullptr});
    auto plan = r.first_plan("Make it green", "", ten_seconds());
    REQUIRE_FALSE(plan.ok());
    CHECK(plan.error().code == ErrorCode::kUnavailable);
    CHECK(plan.error().message.find("I can't") != std::string::npos);
    CHECK(roles == std::vector<std::string>{"planner"});
    CHECK(refusing.seen.size() == 1);
  }

  TEST_CASE("two invalid replies are an error naming both problems") {
    FakeProvider fake;
    fake.replies = {R"({"goal_kind": "modify", "steps": [], "then": "later"})",
                    R"({"steps": [{"id": "s1", "tool": "rm"}], "then": "finish", "goal_kind": "modify"})"};
    planner::Planner p(fake, catalog(), {});
    auto plan = p.first_plan("g", "", ten_seconds());
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
    auto plan = p.first_plan("g", "", ten_seconds());
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
    REQUIRE_FALSE(q.first_plan("g", "", ten_seconds()).ok());
    CHECK_FALSE(q.refused_reply());
  }

  TEST_CASE("replans carry recovery instructions and observations; old observations are cut, and said") {
    FakeProvider fake;
    fake.replies = {kReadPlan};
    std::vector<planner::ContextCut> cuts;
    planner::PlannerOptions options;
    options.observation_budget = 10000;
    planner::Planner p(fake, catalog(), {nullptr, [&](const planner::ContextCut& c) { cuts.push_back(c); }}, options);
    REQUIRE(p.first_plan("g", "", ten_seconds()).ok());
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
      auto plan = p.replan(round, failure, obs, "", ten_seconds());
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
