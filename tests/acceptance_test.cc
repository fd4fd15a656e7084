// Acceptance specs: the parser's refusals (with JSON paths and the definition-time tool guard), the
// pure evaluator (table-driven), and a property test that greedy earliest matching finds a full
// ordered match exactly when one exists.
#include <doctest/doctest.h>

#include <random>

#include "verify/acceptance.h"

using namespace candor;
using namespace candor::verify;
using nlohmann::json;
using Kind = TrajectoryEvent::Kind;

namespace {

const std::vector<std::string> kTools = {"file_read", "file_patch", "shell", "git_commit"};

AcceptanceSpec spec(const std::string& text) {
  auto s = parse_acceptance_spec_text(text, kTools, "spec.json");
  if (!s.ok()) FAIL(s.error().message);
  return *s;
}

TrajectoryEvent call(std::int64_t seq, const std::string& tool, json input) {
  return {seq, Kind::kToolCalled, tool, std::move(input), nullptr, ""};
}
TrajectoryEvent result(std::int64_t seq, const std::string& tool, json input, json r) {
  return {seq, Kind::kToolResult, tool, std::move(input), std::move(r), ""};
}
TrajectoryEvent answer(std::int64_t seq, const std::string& text) {
  return {seq, Kind::kFinalAnswer, "", json::object(), nullptr, text};
}

// A run that read the stylesheet, patched it, ran the tests (failing, then passing), committed.
std::vector<TrajectoryEvent> sample_run() {
  return {call(1, "file_read", {{"path", "css/style.css"}}),
          result(2, "file_read", {{"path", "css/style.css"}}, {{"ok", true}, {"output", "body {}"}}),
          call(3, "shell", {{"command", "npm test"}}),
          result(4, "shell", {{"command", "npm test"}}, {{"ok", false}, {"output", "1 failing"}, {"exit_code", 1}}),
          call(5, "file_patch", {{"path", "src/add.js"}}),
          result(6, "file_patch", {{"path", "src/add.js"}}, {{"ok", true}, {"output", ""}}),
          call(7, "shell", {{"command", "npm test"}}),
          result(8, "shell", {{"command", "npm test"}}, {{"ok", true}, {"output", "12 passing"}, {"exit_code", 0}}),
          call(9, "git_commit", {{"message", "fix add"}}),
          result(10, "git_commit", {{"message", "fix add"}}, {{"ok", true}, {"output", "committed"}}),
          answer(11, "All 12 tests passing; committed.")};
}

std::string cp(const std::string& id, const std::string& when, bool essential = true) {
  return R"({"id": ")" + id + R"(", "essential": )" + (essential ? "true" : "false") + R"(, "when": )" + when + "}";
}

}  // namespace

TEST_SUITE("verify") {
  TEST_CASE("acceptance: malformed specs are refused with their JSON path") {
    struct Row {
      std::string text, message;
    };
    for (
        const auto& row : std::vector<Row>{
            {R"([])", "spec.json: $: an acceptance spec is a JSON object, got array"},
            {R"({"checkpoints": []})", "spec.json: checkpoints: needs at least one checkpoint"},
            {R"({"ordered": "yes", "checkpoints": [{}]})",
             "spec.json: ordered: expected true or false, got string \"yes\""},
            {R"({"checkpoints": [{"when": {"type": "FinalAnswer"}}]})",
             "spec.json: checkpoints[0].id: missing, or not a non-empty string"},
            {R"({"checkpoints": [{"id": "a", "when": {"type": "ToolCalled", "tool": "shell"}}, {"id": "a", "when": {"type": "ToolCalled", "tool": "shell"}}]})",
             "spec.json: checkpoints[1].id: \"a\" is used by an earlier checkpoint; ids are unique"},
            {R"({"checkpoints": [{"id": "a", "when": {"type": "ToolCall", "tool": "shell"}}]})",
             "spec.json: checkpoints[0].when.type: expected ToolCalled, ToolResult or FinalAnswer, got string "
             "\"ToolCall\""},
            {R"({"checkpoints": [{"id": "ran_tests", "when": {"type": "ToolResult", "tool": "shel"}}]})",
             "spec.json: checkpoints[0].when.tool: checkpoint \"ran_tests\" names the tool \"shel\", which this agent "
             "cannot call "
             "(its tools: file_read, file_patch, shell, git_commit)"},
            {R"({"checkpoints": [{"id": "a", "when": {"type": "ToolResult", "tool": "shell", "predicate": {"left": "x", "op": "equals", "right": "y"}}}]})",
             "spec.json: checkpoints[0].when.predicate.op: unknown operator \"equals\" (known: eq, ne, contains, "
             "not_contains, starts_with, ends_with, matches, gt, gte, lt, lte)"},
            {R"({"checkpoints": [{"id": "a", "when": {"type": "ToolCalled", "tool": "shell", "input": {"left": "{{tool.result.exit_code}}", "op": "eq", "right": "0"}}}]})",
             "spec.json: checkpoints[0].when.input.left: a ToolCalled checkpoint happens before the result: "
             "{{tool.result.exit_code}} is not available"},
            {R"({"checkpoints": [{"id": "a", "when": {"type": "FinalAnswer", "predicate": {"left": "{{tool.name}}", "op": "eq", "right": "x"}}}]})",
             "spec.json: checkpoints[0].when.predicate.left: a FinalAnswer checkpoint has no tool: {{tool.name}} is "
             "not available"},
            {R"({"checkpoints": [{"id": "a", "when": {"type": "ToolResult", "tool": "shell", "predicate": {"left": "{{tool.output}}", "op": "eq", "right": "x"}}}]})",
             "spec.json: checkpoints[0].when.predicate.left: unknown template {{tool.output}} (known: {{tool.name}}, "
             "{{tool.input.<field>}}, {{tool.result}}, {{tool.result.<field>}}, {{final_answer}})"},
            {R"({"checkpoints": [{"id": "a", "when": {"type": "ToolResult", "tool": "shell", "predicate": {"left": "{{tool.result}}", "op": "matches", "right": "(("}}}]})",
             "spec.json: checkpoints[0].when.predicate.right: not a valid RE2 pattern: missing ): (("},
            {R"({"checkpoints": [{"id": "a", "when": {"type": "FinalAnswer"}}]})",
             "spec.json: checkpoints[0].when.predicate: missing: a FinalAnswer checkpoint needs a predicate"},
            {R"({"checkpoints": [{"id": "a", "when": {"type": "ToolCalled", "tool": "shell", "predicate": {}}}]})",
             "spec.json: checkpoints[0].when.predicate: unknown field for ToolCalled (expected type, tool, input)"},
            {R"({"checkpoints": [{"id": "a", "when": {"type": "ToolCalled", "tool": "shell"}, "must": true}]})",
             "spec.json: checkpoints[0].must: unknown field (expected id, essential, when)"},
            {"{\"checkpoints\": [", "spec.json:1:18: not valid JSON"},
        }) {
      CAPTURE(row.text);
      auto s = parse_acceptance_spec_text(row.text, kTools, "spec.json");
      REQUIRE_FALSE(s.ok());
      CHECK(s.error().code == ErrorCode::kInvalidInput);
      CHECK(s.error().message.rfind(row.message, 0) == 0);
    }
  }

  TEST_CASE("acceptance: every operator and template, pass and fail") {
    auto events = sample_run();
    struct Row {
      std::string when;
      bool matched;
      std::int64_t seq;  // when matched
    };
    auto tr = [](const std::string& left, const std::string& op, const std::string& right) {
      return R"({"type": "ToolResult", "tool": "shell", "predicate": {"left": ")" + left + R"(", "op": ")" + op +
             R"(", "right": ")" + right + R"("}})";
    };
    for (
        const auto& row : std::vector<Row>{
            {tr("{{tool.result.exit_code}}", "eq", "0"), true, 8},
            {tr("{{tool.result.exit_code}}", "ne", "0"), true, 4},
            {tr("{{tool.result}}", "contains", "passing"), true, 8},
            {tr("{{tool.result}}", "not_contains", "passing"), true, 4},
            {tr("{{tool.input.command}}", "starts_with", "npm"), true, 4},
            {tr("{{tool.input.command}}", "ends_with", "test"), true, 4},
            {tr("{{tool.result}}", "matches", "^[0-9]+ passing$"), true, 8},
            {tr("{{tool.result.exit_code}}", "gt", "0"), true, 4},
            {tr("{{tool.result.exit_code}}", "gte", "1"), true, 4},
            {tr("{{tool.result.exit_code}}", "lt", "1"), true, 8},
            {tr("{{tool.result.exit_code}}", "lte", "-1"), false, 0},
            {tr("{{tool.result}}", "gt", "3"), false, 0},  // not numbers: fails cleanly
            {tr("{{tool.name}}", "eq", "shell"), true, 4},
            {tr("{{tool.result.missing}}", "eq", "x"), false, 0},
            {tr("{{final_answer}}", "contains", "12 tests"), true, 4},
            {R"({"type": "ToolCalled", "tool": "file_read", "input": {"left": "{{tool.input.path}}", "op": "ends_with", "right": ".css"}})",
             true, 1},
            {R"({"type": "ToolCalled", "tool": "git_commit"})", true, 9},
            {R"({"type": "FinalAnswer", "predicate": {"left": "{{final_answer}}", "op": "contains", "right": "passing"}})",
             true, 11},
            {R"({"type": "FinalAnswer", "predicate": {"left": "{{final_answer}}", "op": "contains", "right": "failing"}})",
             false, 0},
            {R"({"type": "ToolResult", "tool": "shell", "predicate": {"left": "{{tool.result.exit_code}}", "op": "eq", "right": 0}})",
             true, 8},
        }) {
      CAPTURE(row.when);
      auto r = evaluate_acceptance(spec(R"({"checkpoints": [)" + cp("c", row.when) + "]}"), events);
      CHECK(r.checkpoints[0].matched == row.matched);
      CHECK(r.passed == row.matched);
      if (row.matched) CHECK(r.checkpoints[0].seq == row.seq);
    }
  }

  TEST_CASE("acceptance: ordered subsequences, repeats, misses with the closest candidate, non-essential") {
    auto events = sample_run();
    std::string tests_pass =
        R"({"type": "ToolResult", "tool": "shell", "predicate": {"left": "{{tool.result.exit_code}}", "op": "eq", "right": "0"}})";
    std::string commit = R"({"type": "ToolCalled", "tool": "git_commit"})";
    std::string patch = R"({"type": "ToolCalled", "tool": "file_patch"})";
    std::string read = R"({"type": "ToolCalled", "tool": "file_read"})";

    // In order, with other events between.
    auto ok = evaluate_acceptance(spec(R"({"checkpoints": [)" + cp("patch", patch) + "," + cp("tests", tests_pass) +
                                       "," + cp("commit", commit) + "]}"),
                                  events);
    CHECK(ok.passed);
    CHECK(ok.checkpoints[1].seq == 8);
    CHECK(ok.checkpoints[2].seq == 9);

    // Out of order: the commit cannot come before the patch's tests; named with the closest event.
    auto late = evaluate_acceptance(
        spec(R"({"checkpoints": [)" + cp("commit", commit) + "," + cp("patch", patch) + "]}"), events);
    CHECK_FALSE(late.passed);
    CHECK(late.checkpoints[0].matched);
    CHECK_FALSE(late.checkpoints[1].matched);
    CHECK(late.checkpoints[1].why == "no ToolCalled file_patch event after seq 9");
    // Unordered, the same checkpoints pass.
    auto unordered = evaluate_acceptance(
        spec(R"({"ordered": false, "checkpoints": [)" + cp("commit", commit) + "," + cp("patch", patch) + "]}"),
        events);
    CHECK(unordered.passed);

    // A checkpoint that can only match after an earlier one: the first shell result fails, so
    // "tests pass after the patch" matches the second, at seq 8.
    std::string any_shell = R"({"type": "ToolResult", "tool": "shell"})";
    auto repeated = evaluate_acceptance(spec(R"({"checkpoints": [)" + cp("first_run", any_shell) + "," +
                                             cp("patch", patch) + "," + cp("second_run", any_shell) + "]}"),
                                        events);
    CHECK(repeated.passed);
    CHECK(repeated.checkpoints[0].seq == 4);
    CHECK(repeated.checkpoints[2].seq == 8);

    // A miss names the closest candidate and the part of the predicate that failed.
    std::string three =
        R"({"type": "ToolResult", "tool": "shell", "predicate": {"left": "{{tool.result.exit_code}}", "op": "eq", "right": "3"}})";
    auto miss = evaluate_acceptance(spec(R"({"checkpoints": [)" + cp("exit3", three) + "]}"), events);
    CHECK_FALSE(miss.passed);
    CHECK(miss.checkpoints[0].candidate_seq == 4);
    CHECK(miss.checkpoints[0].why ==
          "closest: the ToolResult shell at seq 4: {{tool.result.exit_code}} is \"1\", which is not eq \"3\"");

    // Non-essential misses are reported and never fail acceptance; they never block essentials.
    auto optional = evaluate_acceptance(
        spec(R"({"checkpoints": [)" + cp("exit3", three, false) + "," + cp("read", read) + "]}"), events);
    CHECK(optional.passed);
    CHECK_FALSE(optional.checkpoints[0].matched);
    CHECK(optional.checkpoints[1].seq == 1);
    // A non-essential match must not push an essential one past its only event.
    auto no_push = evaluate_acceptance(
        spec(R"({"checkpoints": [)" + cp("commit_opt", commit, false) + "," + cp("read", read) + "]}"), events);
    CHECK(no_push.passed);
    CHECK(no_push.checkpoints[1].seq == 1);
    CHECK_FALSE(no_push.checkpoints[0].matched);
  }

  TEST_CASE("acceptance: an empty trajectory, and one without a final answer") {
    std::string final_ok =
        R"({"type": "FinalAnswer", "predicate": {"left": "{{final_answer}}", "op": "contains", "right": "done"}})";
    auto empty =
        evaluate_acceptance(spec(R"({"checkpoints": [)" + cp("read", R"({"type": "ToolCalled", "tool": "file_read"})") +
                                 "," + cp("final", final_ok) + "]}"),
                            {});
    CHECK_FALSE(empty.passed);
    CHECK(empty.checkpoints[0].why == "no ToolCalled file_read event");
    CHECK(empty.checkpoints[1].why == "there is no final answer");
    auto events = sample_run();
    events.pop_back();
    auto no_final = evaluate_acceptance(spec(R"({"checkpoints": [)" + cp("final", final_ok) + "]}"), events);
    CHECK_FALSE(no_final.passed);
    CHECK(no_final.checkpoints[0].why == "there is no final answer");
    // {{final_answer}} in a tool checkpoint with no final answer is absent, not empty.
    auto absent = evaluate_acceptance(
        spec(
            R"({"checkpoints": [)" +
            cp("x",
               R"({"type": "ToolResult", "tool": "shell", "predicate": {"left": "{{final_answer}}", "op": "eq", "right": ""}})") +
            "]}"),
        events);
    CHECK(absent.checkpoints[0].why.find("{{final_answer}} is absent") != std::string::npos);
  }

  TEST_CASE("acceptance: greedy earliest matching finds a full ordered match exactly when one exists") {
    // Events are tools drawn from {a, b, c}; checkpoints are ToolCalled of a tool. Brute force tries
    // every increasing assignment of events to checkpoints.
    std::mt19937 rng(7);
    const std::vector<std::string> tools = {"a", "b", "c"};
    for (int trial = 0; trial < 400; ++trial) {
      std::size_t n = rng() % 9, m = 1 + rng() % 4;
      std::vector<TrajectoryEvent> events;
      for (std::size_t i = 0; i < n; ++i)
        events.push_back(call(static_cast<std::int64_t>(i + 1), tools[rng() % 3], json::object()));
      AcceptanceSpec s;
      std::vector<std::string> wanted;
      for (std::size_t k = 0; k < m; ++k) {
        wanted.push_back(tools[rng() % 3]);
        s.checkpoints.push_back({"c" + std::to_string(k), true, WhenType::kToolCalled, wanted.back(), std::nullopt});
      }
      std::function<bool(std::size_t, std::size_t)> exists = [&](std::size_t k, std::size_t from) {
        if (k == m) return true;
        for (std::size_t i = from; i < n; ++i)
          if (events[i].tool == wanted[k] && exists(k + 1, i + 1)) return true;
        return false;
      };
      CAPTURE(trial);
      CHECK(evaluate_acceptance(s, events).passed == exists(0, 0));
    }
  }

  TEST_CASE("acceptance: candor's stored events become the common stream") {
    std::vector<Event> stored = {
        {1, "t", "run_started", {{"goal", "g"}}},
        {2, "t", "tool_called", {{"step", "s1"}, {"tool", "shell"}, {"input", {{"command", "make test"}}}}},
        {3, "t", "tool_result", {{"step", "s1"}, {"tool", "shell"}, {"ok", true}, {"output", "ok"}, {"exit_code", 0}}},
        {4, "t", "final_answer", {{"text", "done"}}},
    };
    auto stream = stream_from_events(stored);
    REQUIRE(stream.size() == 3);
    CHECK(stream[1].kind == Kind::kToolResult);
    CHECK(stream[1].input == json({{"command", "make test"}}));  // the call's input, on its result
    CHECK(stream[1].result == json({{"ok", true}, {"output", "ok"}, {"exit_code", 0}}));
    CHECK(stream[2].text == "done");
    CHECK(
        to_json(evaluate_acceptance(
            spec(
                R"({"checkpoints": [)" +
                cp("t",
                   R"({"type": "ToolResult", "tool": "shell", "predicate": {"left": "{{tool.input.command}}", "op": "contains", "right": "test"}})") +
                "]}"),
            stream)) ==
        json({{"passed", true}, {"checkpoints", {{{"id", "t"}, {"essential", true}, {"matched", true}, {"seq", 3}}}}}));
  }
}
