#include <doctest/doctest.h>

#include "assertions/evaluator.h"
#include "executor/tool.h"
#include "planner/plan.h"

using nlohmann::json;

namespace {

const candor::planner::Catalog& catalog() {
  static const candor::executor::ToolRegistry tools = candor::executor::builtin_tools();
  static const candor::assertions::Registry evaluators = candor::assertions::builtin_evaluators();
  static const candor::planner::Catalog c = candor::executor::make_catalog(tools, evaluators);
  return c;
}

json valid_plan() {
  return json::parse(R"({
    "goal_kind": "modify",
    "questions": ["Is the background dark green?"],
    "steps": [
      {"id": "s1", "tool": "file_list", "args": {"path": "."}, "why": "look"},
      {"id": "s2", "tool": "file_patch",
       "args": {"path": "css/style.css", "edits": [{"find": "a", "replace": "b"}]},
       "assert": [{"type": "file_contains", "path": "css/style.css", "text": "b"}]},
      {"id": "s3", "tool": "shell", "args": {"command": "true"}, "assert": [{"type": "exit_code_eq", "code": 0}]}
    ],
    "then": "finish",
    "final_answer": "done"
  })");
}

}  // namespace

TEST_SUITE("planner") {
  TEST_CASE("a valid plan parses with every field") {
    auto plan = candor::planner::parse_plan(valid_plan(), catalog());
    REQUIRE(plan.ok());
    CHECK(plan->goal_kind == candor::GoalKind::kModify);
    CHECK(plan->questions.size() == 1);
    REQUIRE(plan->steps.size() == 3);
    CHECK(plan->steps[1].tool == "file_patch");
    CHECK(plan->steps[1].asserts.size() == 1);
    CHECK(plan->then == candor::planner::Then::kFinish);
    CHECK(plan->final_answer == "done");
  }

  TEST_CASE("every rejection names the JSON path of the offending value") {
    struct Row {
      std::string pointer;  // JSON pointer to change ("" = replace the whole plan)
      json value;
      std::string message;
    };
    std::vector<Row> rows = {
        {"/steps/1/assert/0/type", "file_containz",
         "steps[1].assert[0].type: unknown assertion type \"file_containz\" (available: file_exists, file_contains, "
         "file_not_contains, file_size_gt, file_unchanged, content_changed, file_matches, json_valid, json_path_eq, "
         "git_clean, command_succeeds, not, output_contains, "
         "exit_code_eq, socket_open, http_200)"},
        {"/steps/0/tool", "file_lst",
         "steps[0].tool: unknown tool \"file_lst\" (available: file_read, file_list, file_search, file_write, "
         "file_patch, file_delete, shell, http_get, git_status, git_diff, git_log, git_commit)"},
        {"/steps/0/args/path", 7, "steps[0].args.path: expected a string, got integer 7"},
        {"/steps/0/args/recursive", true,
         "steps[0].args.recursive: unknown argument \"recursive\" (known: path, depth)"},
        {"/steps/1/args/edits/0/count", "2", "steps[1].args.edits[0].count: expected an integer, got string \"2\""},
        {"/steps/1/assert/0/path", json(nullptr), "steps[1].assert[0].path: expected a string, got null"},
        {"/steps/1/assert/0/txt", "b", "steps[1].assert[0].txt: unknown argument \"txt\" (known: path, text)"},
        {"/steps/2/assert/0/code", 300, "steps[2].assert[0].code: must be between 0 and 255, got 300"},
        {"/steps/2/id", "s1", "steps[2].id: duplicate step id \"s1\""},
        {"/steps/0/id", "", "steps[0].id: must not be empty"},
        {"/steps/0/note", "x", "steps[0].note: unknown field \"note\" (expected one of: id, tool, args, why, assert)"},
        {"/steps/0/assert", json::object(), "steps[0].assert: expected an array of assertions, got object"},
        {"/then", "done", "then: must be \"replan\" or \"finish\", got \"done\""},
        {"/goal_kind", "fix", "goal_kind: must be \"modify\" or \"inspect\", got \"fix\""},
        {"/questions/0", 1, "questions[0]: expected a non-empty string (a yes/no question)"},
        {"/extra", 1,
         "extra: unknown field \"extra\" (expected one of: goal_kind, questions, steps, then, final_answer)"},
        {"/steps", "all of them", "steps: expected an array of steps, got string"},
        {"", json::array(), "$: a plan is a JSON object, got array"},
    };
    for (const auto& row : rows) {
      CAPTURE(row.pointer);
      json plan = valid_plan();
      if (row.pointer.empty()) {
        plan = row.value;
      } else {
        plan[json::json_pointer(row.pointer)] = row.value;
      }
      auto parsed = candor::planner::parse_plan(plan, catalog());
      REQUIRE_FALSE(parsed.ok());
      CHECK(parsed.error().code == candor::ErrorCode::kInvalidInput);
      CHECK(parsed.error().message == row.message);
    }
  }

  TEST_CASE("missing required fields are named") {
    for (const char* field : {"goal_kind", "steps", "then"}) {
      CAPTURE(field);
      json plan = valid_plan();
      plan.erase(field);
      auto parsed = candor::planner::parse_plan(plan, catalog());
      REQUIRE_FALSE(parsed.ok());
      CHECK(parsed.error().message.rfind(std::string(field) + ": missing", 0) == 0);
    }
    json plan = valid_plan();
    plan.erase("goal_kind");
    candor::planner::ParseOptions later;
    later.first_round = false;
    CHECK(candor::planner::parse_plan(plan, catalog(), later).ok());
  }

  TEST_CASE("JSON syntax errors give file, line and column") {
    auto parsed = candor::planner::parse_plan_text("{\n  \"steps\": [,]\n}", catalog(), "plan.json");
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.error().message.rfind("plan.json:2:13: not valid JSON", 0) == 0);
    auto wrapped = candor::planner::parse_plan_text(R"({"steps": [], "then": "later", "goal_kind": "modify"})",
                                                    catalog(), "p.json");
    REQUIRE_FALSE(wrapped.ok());
    CHECK(wrapped.error().message == "p.json: then: must be \"replan\" or \"finish\", got \"later\"");
    // Found by fuzz/plan_parser: a number beyond a double is nlohmann's out_of_range, which used to
    // escape as an exception and end candor with std::terminate.
    auto overflow = candor::planner::parse_plan_text(R"({"goal_kind": 9999E999999999})", catalog(), "big.json");
    REQUIRE_FALSE(overflow.ok());
    CHECK(overflow.error().code == candor::ErrorCode::kInvalidInput);
    CHECK(overflow.error().message == "big.json: not valid JSON: number overflow parsing '9999E999999999'");
  }
}
