// Each import format read from a real file of its agent (tests/data/trajectories/*/SOURCE.txt):
// the calls, the exit codes of their results and the final answer are the ones an independent
// reading gives (tests/data/trajectories/independent_reading.py prints them); and the small
// readings every format relies on, table by table.
#include <doctest/doctest.h>

#include "import/import_builder.h"
#include "import/trajectory_import.h"
#include "tests/test_support.h"
#include "verify/acceptance.h"

using namespace candor;
using candor::testing::data_dir;
using Kind = TrajectoryEvent::Kind;
using import::Format;

namespace {

struct RealFile {
  const char* path;
  Format format;
  std::vector<std::string> calls;       // tools, in order
  std::vector<std::string> exit_codes;  // of the results, in order: the code, or "-" when none is known
  std::vector<std::string> oks;         // of the results: "true", "false", or "-" when the file does not say
  std::string final_answer;             // its beginning; "" when there is none
  bool goal_actions = false;
};

std::string code_of(const TrajectoryEvent& e) {
  return e.result.is_object() && e.result.contains("exit_code") ? e.result["exit_code"].dump() : "-";
}
std::string ok_of(const TrajectoryEvent& e) {
  return e.result.is_object() && e.result.contains("ok") ? e.result["ok"].dump() : "-";
}

const std::vector<RealFile>& real_files() {
  static const std::vector<RealFile> files = {
      {"claude-code/real-2.1.332-exit-code-api-error.jsonl",
       Format::kClaudeCode,
       {"Bash", "Write", "Bash"},
       {"1", "-", "0"},
       {"false", "true", "true"},
       "Fixed: add now adds, and the check passes.",
       true},
      {"codex/real-0.169.0-rollout-exit-codes.jsonl",
       Format::kCodex,
       {"exec_command", "apply_patch", "exec_command"},
       {"1", "0", "0"},
       {"false", "true", "true"},
       "Fixed: add now adds, and the check passes.",
       true},
      {"codex-exec/real-0.169.0-exec.jsonl",
       Format::kCodexExec,
       {"command_execution", "file_change", "command_execution"},
       {"1", "-", "0"},
       {"false", "true", "true"},
       "Fixed: add now adds, and the check passes.",
       true},
      {"openhands/v1-goal-events.jsonl",
       Format::kOpenHands,
       {"terminal", "terminal"},
       {"-", "-", "1"},
       {"false", "false", "false"},
       "",
       false},
      {"mini-swe-agent/github_issue.traj.json",
       Format::kMiniSweAgent,
       std::vector<std::string>(10, "bash"),
       {"1", "0", "0", "0", "0", "0", "0", "1", "0", "-"},
       {"false", "true", "true", "true", "true", "true", "true", "false", "true", "true"},
       "diff --git a/tests/missing_colon.py b/tests/missing_colon.py",
       false},
  };
  return files;
}

std::vector<std::string> tools_of(const import::ImportedTrajectory& t, Kind kind) {
  std::vector<std::string> out;
  for (const auto& e : t.events)
    if (e.kind == kind) out.push_back(e.tool);
  return out;
}

import::ImportedTrajectory load(const std::string& rel, Format format){
    auto t = import::import_trajectory_file(data_dir() + "/trajectories/" + rel, format);
if (!t.ok()) FAIL(t.error().message);
return *t;
}  // namespace

}  // namespace

TEST_SUITE("verify") {
  TEST_CASE("import: real files of each format give the calls, exit codes and answer an independent reading gives") {
    for (const auto& f : real_files()) {
      CAPTURE(f.path);
      auto t = load(f.path, f.format);
      CHECK(tools_of(t, Kind::kToolCalled) == f.calls);
      std::vector<std::string> codes, oks;
      for (const auto& e : t.events) {
        if (e.kind != Kind::kToolResult) continue;
        codes.push_back(code_of(e));
        oks.push_back(ok_of(e));
      }
      CHECK(codes == f.exit_codes);
      CHECK(oks == f.oks);
      std::string answer;
      for (const auto& e : t.events)
        if (e.kind == Kind::kFinalAnswer) answer = e.text;
      CHECK(answer.substr(0, f.final_answer.size()) == f.final_answer);
      CHECK((answer.empty() == f.final_answer.empty()));
      CHECK(t.goal_actions_executed == f.goal_actions);
    }
  }

  TEST_CASE("import: Claude Code's synthetic API error is not the answer; results pair with their calls") {
    auto t = load("claude-code/real-2.1.332-exit-code-api-error.jsonl", Format::kClaudeCode);
    CHECK(t.skipped.at("assistant.synthetic") == 1);
    for (const auto& e : t.events) CHECK(e.text.find("API Error") == std::string::npos);
    // The failing check: its result carries the code from the text, its input the command.
    const auto& failed = t.events[1];
    REQUIRE(failed.kind == Kind::kToolResult);
    CHECK(failed.tool == "Bash");
    CHECK(failed.result["output"] == "Exit code 1\n1 failed");
    CHECK(failed.input["command"].get<std::string>().find("calc.add(2, 2)") != std::string::npos);
    auto spec = verify::parse_acceptance_spec_text(R"({"checkpoints": [
        {"id": "red", "when": {"type": "ToolResult", "tool": "Bash", "predicate": {"left": "{{tool.result.exit_code}}", "op": "eq", "right": 1}}},
        {"id": "fixed", "when": {"type": "ToolCalled", "tool": "Write"}},
        {"id": "green", "when": {"type": "ToolResult", "tool": "Bash", "predicate": {"left": "{{tool.result.exit_code}}", "op": "eq", "right": 0}}}]})",
                                                   import::spec_tools(t.format), "spec.json");
    REQUIRE(spec.ok());
    CHECK(verify::evaluate_acceptance(*spec, t.events).passed);
  }

  TEST_CASE("import: aider's chat history: edits, commits, /test and /undo, and the last reply") {
    auto t = load("aider/aider-repo-session-2024-08-06.chat.history.md", Format::kAider);
    std::map<std::string, int> calls;
    for (const auto& tool : tools_of(t, Kind::kToolCalled)) ++calls[tool];
    // independent_reading.py: 8 "> Applied edit to", 11 "> Commit ", 2 "#### /test", 10 "#### /undo".
    CHECK(calls == std::map<std::string, int>{{"commit", 11}, {"edit", 8}, {"shell", 2}, {"undo", 10}});
    CHECK(tools_of(t, Kind::kToolResult).size() == 31);
    CHECK(t.goal_actions_executed);
    // A failing /test shows its output; aider writes no exit code, so none is made up.
    bool saw_test_output = false;
    for (const auto& e : t.events) {
      if (e.kind != Kind::kToolResult || e.tool != "shell") continue;
      saw_test_output =
          saw_test_output || e.result["output"].get<std::string>().find("1 failed, 6 passed") != std::string::npos;
      CHECK_FALSE(e.result.contains("exit_code"));
      CHECK_FALSE(e.result.contains("ok"));
    }
    CHECK(saw_test_output);
    // The last reply of the model (lines 963-979 of the file, read by eye): after it only aider's
    // own lines and the person's /undo and /ex follow.
    REQUIRE(t.events.back().kind == Kind::kFinalAnswer);
    CHECK(t.events.back().text.rfind("To fix the flake8 error, we need to remove the unused import", 0) == 0);
    CHECK(t.events.back().text.find("which should resolve the flake8 error.") != std::string::npos);
  }
}
