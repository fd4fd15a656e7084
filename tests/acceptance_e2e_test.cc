// Acceptance end to end: "fix the failing test" on a small git repository through the script
// provider, acceptance on runs that ran out of budget or time, `verify --acceptance`,
// `verify --trajectory`, `candor check`, and the git tools.
#include <doctest/doctest.h>

#include "tests/e2e_support.h"

using namespace candor;
using namespace candor::testing;
using nlohmann::json;

namespace {

// A repository whose test fails: add.sh subtracts.
std::string failing_repo() {
  std::string dir = make_temp_dir("repo");
  write_file(dir + "/add.sh", "#!/bin/sh\necho $(($1 - $2))\n");
  write_file(
      dir + "/test.sh",
      "#!/bin/sh\n[ \"$(sh add.sh 2 3)\" = 5 ] && echo 'all tests passing' || { echo 'add: FAILED'; exit 1; }\n");
  git(dir, {"init", "-q"});
  git(dir, {"config", "user.name", "Repo Owner"});
  git(dir, {"config", "user.email", "owner@example.com"});
  git(dir, {"add", "-A"});
  git(dir, {"commit", "-q", "-m", "initial"});
  return dir;
}

const char* kFixTestSpec = R"({"ordered": true, "checkpoints": [
  {"id": "ran_tests", "when": {"type": "ToolCalled", "tool": "shell",
     "input": {"left": "{{tool.input.command}}", "op": "contains", "right": "test"}}},
  {"id": "committed", "when": {"type": "ToolCalled", "tool": "git_commit"}},
  {"id": "says_passing", "when": {"type": "FinalAnswer",
     "predicate": {"left": "{{final_answer}}", "op": "contains", "right": "passing"}}}
]})";

json fix_step() {
  return {{"id", "fix"},
          {"tool", "file_patch"},
          {"args", {{"path", "add.sh"}, {"edits", {{{"find", "$1 - $2"}, {"replace", "$1 + $2"}}}}}},
          {"assert", {{{"type", "file_contains"}, {"path", "add.sh"}, {"text", "$1 + $2"}}}}};
}
json commit_step() {
  return {{"id", "commit"},
          {"tool", "git_commit"},
          {"args", {{"message", "Fix add"}}},
          {"assert", {{{"type", "git_clean"}}}}};
}
std::string reply(const json& plan) { return json{{"reply_json", plan}}.dump() + "\n"; }

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("fix the failing test: acceptance passes when the run tests, fixes and commits") {
    Env env;
    env.ws = failing_repo();
    std::string spec = env.plan_file(kFixTestSpec);
    json first = {{"goal_kind", "modify"},
                  {"steps",
                   {{{"id", "test1"},
                     {"tool", "shell"},
                     {"args", {{"command", "sh test.sh"}}},
                     {"assert", {{{"type", "exit_code_eq"}, {"code", 1}}}}},
                    fix_step(),
                    {{"id", "test2"},
                     {"tool", "shell"},
                     {"args", {{"command", "sh test.sh"}}},
                     {"assert", {{{"type", "output_contains"}, {"text", "all tests passing"}}}}},
                    commit_step()}},
                  {"then", "finish"},
                  {"final_answer", "Fixed add.sh; all tests passing, committed."}};
    // The user's own expectation proves the fix at tier 1 (the planner's checks alone would leave
    // the run to the judge: they are the model's words).
    auto r = env.run(
        "Fix the failing test", reply(first),
        {"--acceptance", spec, "--expect", R"({"type": "file_contains", "path": "add.sh", "text": "$1 + $2"})"});
    json j = parse_stdout(r);
    CHECK(j["status"] == "completed");
    CHECK(j["verdict"] == "success");
    CHECK(j["verdict_by"] == "tier1");
    REQUIRE(j["acceptance"].is_object());
    CHECK(j["acceptance"]["passed"] == true);
    CHECK(j["acceptance"]["checkpoints"][0]["matched"] == true);
    CHECK(j["acceptance"]["checkpoints"][1]["matched"] == true);
    CHECK(j["acceptance"]["checkpoints"][2]["matched"] == true);
    // The commit is real: made through libgit2 with the repository's own author.
    CHECK(git(env.ws, {"log", "--format=%an|%s", "-1"}) == "Repo Owner|Fix add\n");
    CHECK(run_command({"/bin/sh", "test.sh"}, {}, env.ws).out == "all tests passing\n");
    // The terminal report shows it, and the run's events have it.
    auto shown = env.candor({"report", "last"});
    CHECK(shown.out.find("acceptance: PASSED") != std::string::npos);
  }

  TEST_CASE("fix the failing test: acceptance fails, naming the checkpoint, when the run commits without testing") {
    Env env;
    env.ws = failing_repo();
    std::string spec = env.plan_file(kFixTestSpec);
    json plan = {{"goal_kind", "modify"},
                 {"steps", {fix_step(), commit_step()}},
                 {"then", "finish"},
                 {"final_answer", "Fixed; tests passing."}};
    // The user's --expect decides at tier 1 in both runs, so that the verdict alone would exit 0.
    const std::string expect = R"({"type": "file_contains", "path": "add.sh", "text": "$1 + $2"})";
    auto with_spec = env.run("Fix the failing test", reply(plan), {"--acceptance", spec, "--expect", expect});
    json j = parse_stdout(with_spec);
    REQUIRE(j["acceptance"].is_object());
    CHECK(j["acceptance"]["passed"] == false);
    CHECK(j["acceptance"]["checkpoints"][0]["id"] == "ran_tests");
    CHECK(j["acceptance"]["checkpoints"][0]["matched"] == false);
    CHECK(j["acceptance"]["checkpoints"][0]["why"] == "no ToolCalled shell event");
    CHECK(j["acceptance"]["checkpoints"][1]["matched"] == true);
    // The verdict stays tier 1's: the same run without a spec gets the same verdict and exit code.
    Env control;
    control.ws = failing_repo();
    auto without = control.run("Fix the failing test", reply(plan), {"--expect", expect});
    json c = parse_stdout(without);
    CHECK(c["acceptance"].is_null());
    CHECK(j["verdict"] == c["verdict"]);
    CHECK(j["verdict_by"] == "tier1");
    // ... but the exit code says the spec did not pass: 3 where the verdict alone would exit 0.
    CHECK(without.exit_code == 0);
    CHECK(with_spec.exit_code == (without.exit_code == 0 ? 3 : without.exit_code));
    auto shown = env.candor({"report", "last"});
    CHECK(shown.out.find("✗ ran_tests: no ToolCalled shell event") != std::string::npos);
  }

  TEST_CASE("a spec naming a tool candor does not have is refused before anything runs") {
    Env env;
    std::string spec =
        env.plan_file(R"({"checkpoints": [{"id": "ran", "when": {"type": "ToolCalled", "tool": "bash"}}]})");
    auto r = env.exec(source_root() + "/examples/dark-green/plans/patch.json", {"--acceptance", spec});
    CHECK(r.exit_code == 65);
    CHECK(r.err.find(
              "checkpoints[0].when.tool: checkpoint \"ran\" names the tool \"bash\", which this agent cannot call") !=
          std::string::npos);
    CHECK(env.candor({"runs", "--json"}).out == "[]\n");
    auto checked = env.candor({"check", spec});
    CHECK(checked.exit_code == 65);
    auto for_claude = env.candor(
        {"check", env.plan_file(R"({"checkpoints": [{"id": "ran", "when": {"type": "ToolCalled", "tool": "Bash"}}]})"),
         "--format", "claude-code"});
    CHECK(for_claude.exit_code == 0);
    CHECK(for_claude.out.find("valid for claude-code: 1 checkpoint (1 essential), ordered") != std::string::npos);
  }

  TEST_CASE("acceptance is recorded on a budget-exhausted run and on a run stopped by its time budget") {
    Env env;
    std::string spec = env.plan_file(R"({"checkpoints": [
        {"id": "looked", "when": {"type": "ToolCalled", "tool": "file_read"}},
        {"id": "patched", "when": {"type": "ToolCalled", "tool": "file_patch"}}]})");
    json discover = {{"goal_kind", "modify"},
                     {"steps", {{{"id", "r1"}, {"tool", "file_read"}, {"args", {{"path", "index.html"}}}}}},
                     {"then", "replan"}};
    auto exhausted = env.run("Make it green", reply(discover), {"--acceptance", spec, "--max-replans", "0"});
    json j = parse_stdout(exhausted);
    CHECK(j["status"] == "budget_exhausted");
    REQUIRE(j["acceptance"].is_object());
    CHECK(j["acceptance"]["passed"] == false);
    CHECK(j["acceptance"]["checkpoints"][0]["matched"] == true);
    CHECK(j["acceptance"]["checkpoints"][1]["matched"] == false);
    CHECK(j["verdict"] != "success");

    json slow = {{"goal_kind", "modify"},
                 {"steps",
                  {{{"id", "r1"}, {"tool", "file_read"}, {"args", {{"path", "index.html"}}}},
                   {{"id", "wait"}, {"tool", "shell"}, {"args", {{"command", "sleep 30"}}}}}},
                 {"then", "finish"}};
    auto timed = env.run("Make it green", reply(slow), {"--acceptance", spec, "--timeout", "2"});
    json t = parse_stdout(timed);
    CHECK(t["status"] == "budget_exhausted");
    CHECK(t["budget"]["exhausted"] == "timeout");
    REQUIRE(t["acceptance"].is_object());
    CHECK(t["acceptance"]["checkpoints"][0]["matched"] == true);
    CHECK(t["acceptance"]["passed"] == false);

    // A recorded run can be re-checked against a new spec; a run killed outright too (from events).
    std::string looked =
        env.plan_file(R"({"checkpoints": [{"id": "looked", "when": {"type": "ToolResult", "tool": "file_read",
        "predicate": {"left": "{{tool.input.path}}", "op": "eq", "right": "index.html"}}}]})");
    auto verified = env.candor({"verify", "last", "--acceptance", looked, "--json"});
    json v = parse_stdout(verified);
    CHECK(v["acceptance"]["passed"] == true);
    CHECK(v["verdict"] == t["verdict"]);
  }

  TEST_CASE("verify --trajectory reports another agent's run: events, goal actions, acceptance") {
    Env env;
    std::string spec = env.plan_file(R"({"checkpoints": [
        {"id": "wrote", "when": {"type": "ToolCalled", "tool": "Write"}},
        {"id": "ran", "when": {"type": "ToolResult", "tool": "Bash"}},
        {"id": "tested", "essential": false, "when": {"type": "ToolCalled", "tool": "Bash",
           "input": {"left": "{{tool.input.command}}", "op": "contains", "right": "pytest"}}}]})");
    std::string file = data_dir() + "/trajectories/claude-code/sample_session.synthetic.jsonl";
    auto r = env.candor({"verify", "--trajectory", file, "--format", "claude-code", "--acceptance", spec, "--json"});
    CHECK(r.exit_code == 0);
    json j = parse_stdout(r);
    CHECK(j["events"] == json({{"tool_called", 2}, {"tool_result", 2}, {"final_answer", 1}}));
    CHECK(j["goal_actions_executed"] == true);
    CHECK(j["acceptance"]["passed"] == true);
    CHECK(j["acceptance"]["checkpoints"][2]["matched"] == false);
    auto text = env.candor({"verify", "--trajectory", file, "--format", "claude-code", "--acceptance", spec});
    CHECK(text.out.find("2 tool calls, 2 results, 1 final answer") != std::string::npos);
    CHECK(text.out.find("- tested (not essential)") != std::string::npos);
    auto wrong_tools = env.candor({"verify", "--trajectory", file, "--format", "swe-agent", "--acceptance", spec});
    CHECK(wrong_tools.exit_code == 65);
  }
}
