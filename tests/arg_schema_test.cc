#include <doctest/doctest.h>

#include "core/arg_schema.h"
#include "core/output_cap.h"
#include "core/run_record.h"

using candor::ArgSpec;
using candor::ArgType;
using nlohmann::json;

TEST_SUITE("core") {
  TEST_CASE("validate_args reports the JSON path and what was wrong") {
    std::vector<ArgSpec> spec = {{"path", ArgType::kString, true, ""},
                                 {"depth", ArgType::kInteger, false, "", 1, 64},
                                 {"edits", ArgType::kEdits, false, ""},
                                 {"covers", ArgType::kGlobs, false, ""}};
    struct Row {
      json args;
      std::string message;  // "" = valid
    };
    std::vector<Row> rows = {
        {{{"path", "a"}}, ""},
        {{{"path", "a"}, {"depth", 3}}, ""},
        {json::object(), "steps[0].args.path: missing required string argument"},
        {{{"path", 3}}, "steps[0].args.path: expected a string, got integer 3"},
        {{{"path", "a"}, {"depht", 3}},
         "steps[0].args.depht: unknown argument \"depht\" (known: path, depth, edits, covers)"},
        {{{"path", "a"}, {"depth", 0}}, "steps[0].args.depth: must be between 1 and 64, got 0"},
        {{{"path", "a"}, {"depth", 2.5}}, "steps[0].args.depth: expected an integer, got number 2.5"},
        {{{"path", "a"}, {"edits", json::array()}}, "steps[0].args.edits: needs at least one edit"},
        {{{"path", "a"}, {"edits", {{{"find", "x"}}}}},
         "steps[0].args.edits[0].replace: missing required string argument"},
        {{{"path", "a"}, {"edits", {{{"find", ""}, {"replace", "y"}}}}},
         "steps[0].args.edits[0].find: must not be empty"},
        {{{"path", "a"}, {"edits", {{{"find", "x"}, {"replace", "y"}, {"count", 0}}}}},
         "steps[0].args.edits[0].count: must be at least 1, got 0"},
        {json::array(), "steps[0].args: expected an object, got array"},
        {{{"path", "a"}, {"covers", {"src/**", "*.py"}}}, ""},
        {{{"path", "a"}, {"covers", "src/**"}},
         "steps[0].args.covers: expected a list of globs, got string \"src/**\""},
        {{{"path", "a"}, {"covers", {"src/**", 3}}}, "steps[0].args.covers[1]: expected a glob string, got integer 3"},
        {{{"path", "a"}, {"covers", {"src/[a"}}},
         "steps[0].args.covers[0]: invalid glob \"src/[a\": the '[' at offset 4 is never closed (write \\[ for a "
         "literal '[')"},
    };
    for (const auto& row : rows) {
      CAPTURE(row.args.dump());
      auto s = candor::validate_args(row.args, spec, "steps[0].args");
      if (row.message.empty()) {
        CHECK(s.ok());
      } else {
        REQUIRE_FALSE(s.ok());
        CHECK(s.error().code == candor::ErrorCode::kInvalidInput);
        CHECK(s.error().message == row.message);
      }
    }
  }

  TEST_CASE("normalize_relative_path folds dots and keeps escapes visible") {
    struct Row {
      std::string in, out;
    };
    for (const auto& row : std::vector<Row>{{"a/b", "a/b"},
                                            {"./a//b/", "a/b"},
                                            {"a/../b", "b"},
                                            {".", "."},
                                            {"", "."},
                                            {"../x", "../x"},
                                            {"a/../../x", "../x"},
                                            {"a/./b/../c", "a/c"}}) {
      CAPTURE(row.in);
      CHECK(candor::normalize_relative_path(row.in) == row.out);
    }
  }

  TEST_CASE("capped output keeps the head and says how much was cut") {
    candor::CappedOutput out(10);
    out.append("0123456789abcdef");
    CHECK(out.truncated());
    CHECK(out.total_bytes() == 16);
    CHECK(out.text() == "0123456789\n[output truncated: 16 bytes in total, the first 10 shown]");
    candor::CappedOutput small(10);
    small.append("abc");
    CHECK_FALSE(small.truncated());
    CHECK(small.text() == "abc");
  }

  TEST_CASE("capped output keeps its tail too, where test runners summarise") {
    candor::CappedOutput out(10);
    std::string noise(10000, 'x');
    out.append("head\n" + noise + "\n");
    out.append("Ran 1 test in 0.000s\n\nOK (skipped=1)\n");
    CHECK(out.tail(40) == "...Ran 1 test in 0.000s\n\nOK (skipped=1)");  // from a line start, cut said
    CHECK(out.tail(15) == "...OK (skipped=1)");
    candor::CappedOutput small;
    small.append("one\ntwo\n\n");
    CHECK(small.tail(100) == "one\ntwo");              // nothing cut: no "..."
    for (int i = 0; i < 5000; ++i) small.append("y");  // appended in small pieces: the tail stays bounded
    CHECK(small.tail(3) == "...yyy");
    CHECK(candor::tail_of("a\nbb\nccc\n", 5) == "...ccc");
    CHECK(candor::tail_of(" \n", 5).empty());
  }

  TEST_CASE("run facts survive a JSON round trip") {
    candor::RunFacts f;
    f.run_id = "r1";
    f.goal = "g";
    f.goal_kind = candor::GoalKind::kInspect;
    f.status = candor::RunStatus::kBudgetExhausted;
    f.budget.exhausted = candor::BudgetKind::kSteps;
    f.steps.push_back({"s1", 2, "shell", "ls", false, true, true, "", 0, {"a.txt"}, 7});
    f.assertions.push_back({"s1", 2, "exit_code_eq", json{{"type", "exit_code_eq"}, {"code", 0}}, "", true, "ok", 8,
                            candor::Provenance::kUser, std::nullopt});
    f.assertions.push_back({"s2", 2, "file_contains", json{{"type", "file_contains"}, {"path", "a"}, {"text", "b"}},
                            "a", true, "ok", 9, candor::Provenance::kPlanner, true});
    candor::AssertionRecord command{"",
                                    1,
                                    "command_succeeds",
                                    json{{"type", "command_succeeds"}, {"command", "make check"}},
                                    "",
                                    true,
                                    "`make check` exited 0",
                                    10,
                                    candor::Provenance::kUser,
                                    true};
    command.exit_code = 0;
    command.output = "OK (skipped=1)";
    command.before = candor::ProgramRun{false, false, 1, "FAILED (failures=1)", "`make check` exited 1"};
    command.emptied = {
        {"src/new.c", candor::ProgramRun{false, false, 2, "undefined reference", "`make check` exited 2"}},
        {"src/b.c", candor::ProgramRun{false, true, std::nullopt, "", "not run: the run's time budget ran out"}}};
    f.assertions.push_back(command);
    f.source = "exec";
    f.scan.complete = false;
    f.scan.unread = {"secret-dir"};
    f.protected_changes = {".candor/config.json was created during the run"};
    f.goal_validations.push_back({1, candor::ReviewVerdict::kNone, "turn limit", 3, 4});
    f.mutations.push_back({"a.txt", "added", 0, 5, 1, 0, false, {"s1"}, 7, ""});
    f.final_answer = "done";
    auto back = candor::run_facts_from_json(candor::to_json(f));
    REQUIRE(back.ok());
    CHECK(candor::to_json(*back) == candor::to_json(f));
    CHECK(back->steps[0].exit_code == 0);
    CHECK(back->assertions[0].by == candor::Provenance::kUser);
    CHECK(back->assertions[1].discriminating == std::optional<bool>(true));
    CHECK(back->assertions[2].output == "OK (skipped=1)");
    CHECK(back->assertions[2].exit_code == 0);
    REQUIRE(back->assertions[2].before);
    CHECK(back->assertions[2].before->exit_code == 1);
    CHECK(back->assertions[2].before->output == "FAILED (failures=1)");
    REQUIRE(back->assertions[2].emptied.size() == 2);
    CHECK(back->assertions[2].emptied[1].path == "src/b.c");
    CHECK(back->assertions[2].emptied[1].run.error);
    CHECK_FALSE(back->assertions[1].before);
    CHECK(back->goal_validations[0].verdict == candor::ReviewVerdict::kNone);
    CHECK_FALSE(back->scan.complete);
    CHECK(back->goal_kind == candor::GoalKind::kInspect);
  }

  TEST_CASE("a command's test summaries round-trip; a known runner without one says null; old records have none") {
    candor::AssertionRecord a;
    a.type = "command_succeeds";
    a.assertion = {{"type", "command_succeeds"}, {"command", "python3 -m unittest tests.test_x"}};
    a.passed = true;
    a.output = "Ran 1 test in 0.000s\n\nOK (skipped=1)";
    a.tests = candor::TestSummary{.runner = "unittest", .ran = 1, .passed = 0, .failed = 0, .skipped = 1};
    a.before = candor::ProgramRun{false, false, 1, "", "exited 1"};  // it printed no summary there
    a.runner = "python -m unittest";
    a.frameworks = {candor::TestSummary{.runner = "unity", .ran = 2, .passed = 2, .failed = 0, .skipped = 0}};
    json j = candor::to_json(a);
    CHECK(j["test_runner"] == "python -m unittest");
    CHECK(j["frameworks"][0]["runner"] == "unity");
    CHECK(j["tests"] == json{{"runner", "unittest"}, {"ran", 1}, {"passed", 0}, {"failed", 0}, {"skipped", 1}});
    CHECK(j["before"]["tests"].is_null());  // a known runner that printed no summary
    candor::AssertionRecord back;
    candor::read_assertion_fields(j, back);
    CHECK(back.tests == a.tests);
    CHECK(back.frameworks == a.frameworks);
    CHECK(back.runner == a.runner);
    REQUIRE(back.before);
    CHECK_FALSE(back.before->tests);
    // A command candor reads no runner of has no `tests` at all.
    candor::AssertionRecord make = a;
    make.assertion["command"] = "make check";
    make.runner.clear();
    make.tests.reset();
    CHECK_FALSE(candor::to_json(make).contains("tests"));
    CHECK_FALSE(candor::to_json(make)["before"].contains("tests"));
    // A record stored before summaries were kept has none: tier 1 then finds no count to prove a test
    // passed (the careful side), as for a runner that printed none.
    json old = j;
    old.erase("tests");
    old["before"].erase("tests");
    candor::AssertionRecord migrated;
    candor::read_assertion_fields(old, migrated);
    CHECK_FALSE(migrated.tests);
    REQUIRE(migrated.before);
    CHECK_FALSE(migrated.before->tests);
  }
}
