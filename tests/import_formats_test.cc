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
      {"codex-exec/real-0.169.0-exec-recorder.jsonl",
       Format::kCodexExec,
       {"command_execution", "command_execution", "file_change"},
       {"0", "1", "-"},
       {"true", "false", "true"},
       "Done: hello.txt says hello and notes.md records it.",
       true},
      {"openhands/confirmation_mode",  // a folder of event-NNNNN-<id>.json files
       Format::kOpenHands,
       {"terminal", "terminal", "terminal"},
       {"0", "0", "0"},
       {"true", "true", "true"},
       "hello world",
       false},
      {"gemini-cli/real-0.46.0-checkpoint-rewind.jsonl",
       Format::kGeminiCli,
       {"list_directory", "list_directory", "glob", "read_file"},
       {"-", "-", "-", "-"},
       {"true", "true", "true", "true"},
       "three",
       false},
      // The reading finds no exit code in the text; shell.ts writes "Exit Code: N" only for N != 0,
      // so a plain "Output: ..." is a 0 (import/format_gemini_cli.cc).
      {"gemini-cli/real-0.46.0-mid-turn-message-queued.jsonl",
       Format::kGeminiCli,
       {"run_shell_command"},
       {"0"},
       {"true"},
       "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\ndone",
       false},
      {"mini-swe-agent/django__django-16255.traj.json",
       Format::kMiniSweAgent,
       std::vector<std::string>(17, "bash"),
       {"0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "-"},
       std::vector<std::string>(17, "true"),
       "diff --git a/django/contrib/sitemaps/__init__.py b/django/contrib/sitemaps/__init__.py\nindex 27756d9d96",
       false},
      // aider writes no exit codes; /run's output went to the chat, not the file ("Added 1 line ...").
      {"aider/real-0.86.2-shell-escape-command.chat.history.md",
       Format::kAider,
       {"shell", "edit"},
       {"-", "-"},
       {"-", "true"},
       "alive.txt\n```txt\n<<<<<<< SEARCH\n=======\nalive\n>>>>>>> REPLACE\n```",
       true},
      // Each edit is followed by a failing --auto-test the file shows only as "Attempt to fix test errors?".
      {"aider/real-0.86.2-self-correction-iteration.chat.history.md",
       Format::kAider,
       {"edit", "edit", "edit"},
       {"-", "-", "-"},
       {"true", "true", "true"},
       "solution.py\n```python\n<<<<<<< SEARCH\ndef add(a: float, b: float) -> float:",
       true},
      // Cline CLI 2.18.0 against the scripted server (tests/agents/record_cline.sh): results are user
      // text blocks "[tool for '...'] Result:", the exit codes in Cline's own words.
      {"cline/real-2.18.0/api_conversation_history.json",
       Format::kCline,
       {"write_to_file", "execute_command", "execute_command", "attempt_completion"},
       {"-", "0", "1"},
       {"true", "true", "false"},
       "Created hello.py, which prints 'hello from cline'. 'ls -l && python3 hello.py' succeeded; 'test -f "
       "missing.txt' failed",
       true},
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

  TEST_CASE("import: every real file given as any other format is invalid input, never an empty run (red team)") {
    std::vector<std::pair<std::string, Format>> files;
    for (const auto& f : real_files()) files.emplace_back(f.path, f.format);
    // ... and the older real files and samples of the folder.
    files.emplace_back("openhands/basic_gui_mode.json", Format::kOpenHands);
    files.emplace_back("swe-agent/marshmallow-1867.function_calling.traj", Format::kSweAgent);
    files.emplace_back("cline/synthetic_native_tools_text_results.json", Format::kCline);
    int refused = 0;
    for (const auto& [path, own] : files) {
      for (const auto& name : import::format_names()) {
        Format format = *import::parse_format(name);
        if (format == own) continue;
        CAPTURE(path);
        CAPTURE(name);
        auto t = import::import_trajectory_file(data_dir() + "/trajectories/" + path, format);
        CHECK_FALSE(t.ok());
        if (!t.ok()) {
          CHECK(t.error().code == ErrorCode::kInvalidInput);
          ++refused;
        }
      }
    }
    CHECK(refused >= 120);  // 16 files, 8 other formats each
    // Shapes any JSON has: an array of objects, an object a line.
    for (const char* text : {R"([{"role":"x"},{"foo":1}])", "{\"a\":1}\n{\"b\":2}\n"}) {
      CAPTURE(text);
      for (const auto& name : import::format_names()) {
        CAPTURE(name);
        CHECK_FALSE(import::import_trajectory(text, *import::parse_format(name), "junk").ok());
      }
    }
  }

  TEST_CASE(
      "import: a transcript of more events than the limit is refused, not held (red team: 13 M tiny calls took 2.5 "
      "GB)") {
    // Two records of 500,001 empty tool calls each: 1,000,002 events, over kMaxTranscriptEvents.
    std::string blocks;
    for (int i = 0; i < 500'001; ++i) blocks += i ? R"(,{"type":"tool_use"})" : R"({"type":"tool_use"})";
    std::string line = R"({"type":"assistant","message":{"role":"assistant","content":[)" + blocks + "]}}\n";
    auto t = import::import_trajectory(line + line, Format::kClaudeCode, "many.jsonl");
    REQUIRE_FALSE(t.ok());
    CHECK(t.error().code == ErrorCode::kInvalidInput);
    CHECK(t.error().message ==
          "many.jsonl: refused: more than 1000000 tool calls, results and answers (at many.jsonl:2)");
    // One record fewer is read.
    auto half = import::import_trajectory(line, Format::kClaudeCode, "half.jsonl");
    REQUIRE(half.ok());
    CHECK(half->events.size() == 500'001);
  }

  TEST_CASE(
      "import: a patch Codex refused is a failed call, no goal action (red team; the output as Codex 0.169 wrote it)") {
    // The call and its output as the real Codex CLI 0.169.0 recorded them in its rollout, for a
    // patch of a file that does not exist (its ids and metadata left out).
    std::string rollout =
        R"J({"type":"response_item","payload":{"type":"custom_tool_call","call_id":"c1","name":"apply_patch","input":"*** Begin Patch\n*** Update File: missing.py\n@@\n-old\n+new\n*** End Patch\n"}})J"
        "\n"
        R"J({"type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c1","output":"apply_patch verification failed: Failed to read file to update /tmp/cx2/ws/missing.py: No such file or directory (os error 2)"}})J"
        "\n";
    auto t = import::import_trajectory(rollout, Format::kCodex, "rollout.jsonl");
    REQUIRE_MESSAGE(t.ok(), t.error().message);
    REQUIRE(t->events.size() == 2);
    CHECK(t->events[1].result["ok"] == false);
    CHECK_FALSE(t->goal_actions_executed);
  }

  TEST_CASE("import: a Gemini CLI result held until the session's end is kept cut, its exit code read from the whole") {
    std::string output = "Output: " + std::string(100'000, 'x') + "\nExit Code: 2";
    nlohmann::json record = {
        {"id", "m1"},
        {"timestamp", "t"},
        {"type", "gemini"},
        {"content", ""},
        {"toolCalls",
         {{{"id", "c1"},
           {"name", "run_shell_command"},
           {"args", {{"command", "make"}}},
           {"status", "success"},
           {"result",
            {{{"functionResponse",
               {{"id", "c1"}, {"name", "run_shell_command"}, {"response", {{"output", output}}}}}}}}}}}};
    auto t = import::import_trajectory(record.dump() + "\n", Format::kGeminiCli, "gemini.jsonl");
    REQUIRE_MESSAGE(t.ok(), t.error().message);
    REQUIRE(t->events.size() >= 2);
    const auto& result = t->events[1].result;
    CHECK(result["exit_code"] == 2);
    CHECK(result["output"].get<std::string>().size() < 10'000);
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

  TEST_CASE("import: Cline 3.51's native calls answered by \"[tool for '...'] Result:\" text, in a hand-made file") {
    // cline/SOURCE.txt: the shape of a real task that cannot be copied here (no licence).
    auto t = load("cline/synthetic_native_tools_text_results.json", Format::kCline);
    CHECK(tools_of(t, Kind::kToolCalled) ==
          std::vector<std::string>{"read_file", "replace_in_file", "execute_command", "attempt_completion"});
    std::vector<std::string> results;
    for (const auto& e : t.events) {
      if (e.kind != Kind::kToolResult) continue;
      results.push_back(e.tool + ": " + e.result["output"].get<std::string>().substr(0, 20));
      CHECK(e.result["ok"] == true);
      CHECK_FALSE(e.result.contains("exit_code"));
    }
    CHECK(results == std::vector<std::string>{"read_file: def add(a, b):\n    r",
                                              "replace_in_file: The content was succ",
                                              "execute_command: Command executed.\nOu"});
    CHECK(t.events.back().text == "add() now adds; the test passes.");
    CHECK(t.goal_actions_executed);
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

namespace {

struct ShapeRow {
  const char* name;
  Format format;
  std::string text;
  std::vector<std::string> calls;
  std::vector<std::string> exit_codes;
  std::vector<std::string> oks;
  std::string final_answer;
};

// Formats (or versions) without a real file here: files in the shape their agents' sources write
// (format_*.cc cites which), to check the reading of each field.
const std::vector<ShapeRow>& shapes() {
  static const std::vector<ShapeRow> rows = {
      {"mini-swe-agent 1.1: extra.actions, extra.returncode, info.submission",
       Format::kMiniSweAgent,
       R"({"info": {"exit_status": "Submitted", "submission": "the patch"}, "trajectory_format": "mini-swe-agent-1.1",
           "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "task"},
             {"role": "assistant", "content": "THOUGHT\n```mswea_bash_command\npytest\n```", "extra": {"actions": [{"command": "pytest"}]}},
             {"role": "user", "content": "<returncode>2</returncode>\n<output>E</output>", "extra": {"raw_output": "E", "returncode": 2}},
             {"role": "assistant", "content": "x", "tool_calls": [{"id": "c1", "function": {"name": "bash", "arguments": "{\"command\": \"ls\"}"}}]},
             {"role": "tool", "tool_call_id": "c1", "content": "a", "extra": {"returncode": 0}},
             {"role": "exit", "content": "Submitted", "extra": {"exit_status": "Submitted", "submission": "the patch"}}]})",
       {"bash", "bash"},
       {"2", "0"},
       {"false", "true"},
       "the patch"},
      {"Cline XML tools, results by \"[tool] Result:\", attempt_completion",
       Format::kCline,
       R"([{"role": "user", "content": [{"type": "text", "text": "<task>\nfix it\n</task>"}]},
           {"role": "assistant", "content": [{"type": "text", "text": "<thinking>x</thinking>\n<execute_command>\n<command>npm test</command>\n<requires_approval>false</requires_approval>\n</execute_command>"}]},
           {"role": "user", "content": [{"type": "text", "text": "[execute_command for 'npm test'] Result:"}, {"type": "text", "text": "Command executed.\nOutput:\n1 failing"}, {"type": "text", "text": "<environment_details>\n...\n</environment_details>"}]},
           {"role": "assistant", "content": [{"type": "text", "text": "<replace_in_file>\n<path>a.js</path>\n<diff>D</diff>\n</replace_in_file>"}]},
           {"role": "user", "content": [{"type": "text", "text": "[replace_in_file for 'a.js'] Result:"}, {"type": "text", "text": "The content was successfully saved to a.js."}]},
           {"role": "assistant", "content": [{"type": "text", "text": "<attempt_completion>\n<result>\nFixed a.js; tests pass.\n</result>\n</attempt_completion>"}]}])",
       {"execute_command", "replace_in_file", "attempt_completion"},
       {"-", "-"},
       {"true", "true"},
       "Fixed a.js; tests pass."},
      {"Roo Code native tool calls with an exit code in the text",
       Format::kCline,
       R"([{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "execute_command", "input": {"command": "pytest"}}]},
           {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "Command executed in terminal within working directory '/w'. Exit code: 1\nOutput:\nF"}]}]},
           {"role": "assistant", "content": [{"type": "text", "text": "Tests fail."}]}])",
       {"execute_command"},
       {"1"},
       {"false"},
       "Tests fail."},
      {"Gemini CLI .jsonl: metadata, messages with toolCalls, $set",
       Format::kGeminiCli,
       R"({"sessionId": "s", "projectHash": "p", "startTime": "t"}
{"id": "1", "timestamp": "t", "type": "user", "content": [{"text": "fix"}]}
{"id": "2", "timestamp": "t", "type": "gemini", "content": "", "toolCalls": [{"id": "c1", "name": "run_shell_command", "args": {"command": "make"}, "status": "success", "result": [{"functionResponse": {"id": "c1", "name": "run_shell_command", "response": {"output": "Command: make\nOutput: err\nExit Code: 2"}}}]}, {"id": "c2", "name": "replace", "args": {"file_path": "m.c"}, "status": "error", "result": [{"functionResponse": {"id": "c2", "name": "replace", "response": {"error": "no match"}}}]}]}
{"$set": {"lastUpdated": "t2"}}
{"id": "3", "timestamp": "t", "type": "gemini", "content": "It does not build yet."}
)",
       {"run_shell_command", "replace"},
       {"2", "-"},
       {"false", "false"},
       "It does not build yet."},
      {"Gemini CLI .jsonl as it is loaded: a rewrite by id, $rewindTo, $set messages, batch results by id",
       Format::kGeminiCli,
       R"({"sessionId": "s", "projectHash": "p", "startTime": "t", "kind": "main"}
{"id": "u1", "type": "user", "content": [{"text": "fix"}]}
{"id": "g1", "type": "gemini", "content": "", "toolCalls": [{"id": "c1", "name": "run_shell_command", "args": {"command": "make"}, "status": "executing"}]}
{"id": "g1", "type": "gemini", "content": "", "toolCalls": [{"id": "c1", "name": "run_shell_command", "args": {"command": "make"}, "status": "success", "result": [{"functionResponse": {"id": "c1", "name": "run_shell_command", "response": {"output": "Output: err\nExit Code: 2\nProcess Group PGID: 9"}}}]}]}
{"id": "u2", "type": "user", "content": [{"functionResponse": {"id": "c1", "name": "run_shell_command", "response": {"output": "Output: err\nExit Code: 2\nProcess Group PGID: 9"}}}]}
{"id": "u3", "type": "user", "content": [{"text": "try another way"}]}
{"id": "g2", "type": "gemini", "content": "", "toolCalls": [{"id": "c2", "name": "write_file", "args": {"file_path": "m.c"}, "status": "success", "result": [{"functionResponse": {"id": "c2", "response": {"output": "written"}}}]}]}
{"$rewindTo": "u3"}
{"$set": {"messages": [{"id": "u1", "type": "user", "content": [{"text": "fix"}]}, {"id": "g1", "type": "gemini", "content": "", "toolCalls": [{"id": "c1", "name": "run_shell_command", "args": {"command": "make"}, "status": "success", "result": [{"functionResponse": {"id": "c1", "response": {"output": "Output: err\nExit Code: 2\nProcess Group PGID: 9"}}}]}]}]}}
{"id": "g3", "type": "gemini", "content": [{"text": "thinking", "thought": true}, {"text": "Two reads."}], "toolCalls": [{"id": "r1", "name": "read_file", "args": {}, "status": "success", "result": [{"functionResponse": {"id": "r1", "response": {"output": "A"}}}, {"functionResponse": {"id": "r2", "response": {"output": "B"}}}]}, {"id": "r2", "name": "read_file", "args": {}, "status": "success", "result": [{"functionResponse": {"id": "r1", "response": {"output": "A"}}}, {"functionResponse": {"id": "r2", "response": {"error": "no such file"}}}]}, {"id": "r3", "name": "read_file", "args": {}, "status": "executing"}]}
{"id": "u4", "type": "user", "content": [{"functionResponse": {"id": "r3", "name": "read_file", "response": {"output": "C"}}}]}
{"id": "e1", "type": "error", "content": "[API Error: quota]"}
)",
       {"run_shell_command", "read_file", "read_file", "read_file"},
       {"2", "-", "-", "-"},
       {"false", "true", "true", "true"},
       "Two reads."},
      {"Gemini CLI .json: one object with messages",
       Format::kGeminiCli,
       R"({"sessionId": "s", "projectHash": "p", "messages": [
           {"id": "2", "type": "gemini", "content": "Done.", "toolCalls": [{"id": "c1", "name": "run_shell_command", "args": {"command": "ls"}, "status": "success", "result": [{"functionResponse": {"response": {"output": "Output: a\nb\nProcess Group PGID: 7"}}}]}]}]})",
       {"run_shell_command"},
       {"0"},
       {"true"},
       "Done."},
      {"codex exec --json: an MCP call and the older item_type",
       Format::kCodexExec,
       R"({"type":"item.started","item":{"id":"i1","type":"mcp_tool_call","server":"github","tool":"create_issue","arguments":{"title":"x"},"status":"in_progress"}}
{"type":"item.completed","item":{"id":"i1","type":"mcp_tool_call","server":"github","tool":"create_issue","arguments":{"title":"x"},"status":"failed","error":{"message":"403"}}}
{"type":"item.completed","item":{"id":"i2","item_type":"assistant_message","text":"Could not file it."}}
)",
       {"mcp__github__create_issue"},
       {"-"},
       {"false"},
       "Could not file it."},
      {"OpenHands V1 page {\"items\": [...]} with a finish action",
       Format::kOpenHands,
       R"({"items": [
           {"kind": "ActionEvent", "source": "agent", "tool_name": "file_editor", "tool_call_id": "a", "tool_call": {"arguments": "{\"command\": \"create\", \"path\": \"x.py\"}"}, "action": {"kind": "FileEditorAction"}},
           {"kind": "ObservationEvent", "source": "environment", "tool_name": "file_editor", "tool_call_id": "a", "observation": {"kind": "FileEditorObservation", "content": [{"type": "text", "text": "created"}], "is_error": false}},
           {"kind": "ActionEvent", "source": "agent", "tool_name": "finish", "tool_call_id": "f", "action": {"kind": "FinishAction", "message": "x.py is there"}}],
         "next_page_id": null})",
       {"file_editor"},
       {"-"},
       {"true"},
       "x.py is there"},
  };
  return rows;
}

}  // namespace

TEST_SUITE("verify") {
  TEST_CASE("import: each format's shapes, field by field") {
    for (const auto& row : shapes()) {
      CAPTURE(row.name);
      auto t = import::import_trajectory(row.text, row.format, "t");
      if (!t.ok()) FAIL(t.error().message);
      CHECK(tools_of(*t, Kind::kToolCalled) == row.calls);
      std::vector<std::string> codes, oks;
      std::string answer;
      for (const auto& e : t->events) {
        if (e.kind == Kind::kToolResult) {
          codes.push_back(code_of(e));
          oks.push_back(ok_of(e));
        }
        if (e.kind == Kind::kFinalAnswer) answer = e.text;
      }
      CHECK(codes == row.exit_codes);
      CHECK(oks == row.oks);
      CHECK(answer == row.final_answer);
    }
  }

  TEST_CASE("import: Gemini CLI's batch results are each call's own; a rewound call is gone") {
    const auto& rows = shapes();
    auto row = std::find_if(rows.begin(), rows.end(), [](const ShapeRow& r) {
      return std::string(r.name).rfind("Gemini CLI .jsonl as", 0) == 0;
    });
    REQUIRE(row != rows.end());
    auto t = import::import_trajectory(row->text, Format::kGeminiCli, "s.jsonl");
    REQUIRE(t.ok());
    std::vector<std::string> outputs;
    for (const auto& e : t->events)
      if (e.kind == Kind::kToolResult) outputs.push_back(e.result["output"]);
    CHECK(outputs ==
          std::vector<std::string>{"Output: err\nExit Code: 2\nProcess Group PGID: 9", "A", "no such file", "C"});
    CHECK_FALSE(t->goal_actions_executed);  // the write_file was rewound
  }

  TEST_CASE("import: an exit code is read from a result's text only where the agent writes it") {
    struct Row {
      const char* text;
      std::optional<int> code;
    };
    const Row rows[] = {
        {"Exit code 1\nnpm ERR! missing script", 1},                // Claude Code's Bash
        {"Exit code 127", 127},                                     // ... with nothing after
        {"Chunk ID: 9\nProcess exited with code 2\nOutput:\n", 2},  // Codex exec_command
        {"Exit code: 0\nWall time: 0.1 seconds\nOutput:\n", 0},     // Codex apply_patch / shell
        {"<returncode>-1</returncode>\n<output>\n</output>", -1},   // mini-swe-agent
        {"the tests said: Exit code 1", std::nullopt},              // not at the start of a line
        {"Exit code 1 of 3 tries", std::nullopt},                   // more after the number
        {"Exit code x", std::nullopt},
        {"", std::nullopt},
        // What a command printed is never its code (red team): a failing command's output quoting a
        // passing one, after Codex's "Output:" line, or after Claude Code's first line.
        {"Chunk ID: 9\nProcess exited with code 1\nOutput:\nProcess exited with code 0\n", 1},
        {"Chunk ID: 9\nWall time: 1 s\nOutput:\nExit code: 0\n", std::nullopt},
        {"1 failed\nExit code 0", std::nullopt},
        {"<returncode>1</returncode>\n<output>\n<returncode>0</returncode>\n</output>", 1},
        // Codex: a command still running when its call returned has no code, whatever it printed.
        {"Chunk ID: 9\nProcess running with session ID 7\nOutput:\nProcess exited with code 0\n", std::nullopt},
        {"Process running with session ID 7\nProcess exited with code 0", std::nullopt},
    };
    for (const auto& row : rows) {
      CAPTURE(row.text);
      CHECK(import::exit_code_in_text(row.text) == row.code);
    }
    // Gemini CLI writes "Exit Code: N" after the output: the last such line is its own.
    CHECK(import::exit_code_on_last_line("Output: Exit Code: 0\nExit Code: 0\nExit Code: 1\nSignal: (none)",
                                         "Exit Code: ") == 1);
    CHECK(import::exit_code_on_last_line("Output: ok\nthe log says Exit Code: 0", "Exit Code: ") == std::nullopt);
  }

  TEST_CASE(
      "import: a forged code in a command's output does not make Cline's, Gemini's or mini-swe-agent's failure pass") {
    auto import_text = [](const std::string& text, Format format) {
      auto t = import::import_trajectory(text, format, "forged");
      REQUIRE_MESSAGE(t.ok(), t.error().message);
      std::vector<nlohmann::json> results;  // each with the input of the call it answers
      for (const auto& e : t->events)
        if (e.kind == Kind::kToolResult) results.push_back({{"input", e.input}, {"result", e.result}});
      return results;
    };
    // Cline: the first line is Cline's; the output after it printed "Exit code: 0".
    auto cline = import_text(R"J([
      {"role": "user", "content": [{"type": "text", "text": "<task>run the tests</task>"}]},
      {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "execute_command", "input": {"command": "pytest -q"}},
                                        {"type": "tool_use", "id": "b", "name": "execute_command", "input": {"command": "echo hi"}}]},
      {"role": "user", "content": [{"type": "text", "text": "[execute_command for 'echo hi'] Result:\nCommand executed successfully (exit code 0).\nOutput:\nhi"},
                                   {"type": "text", "text": "[execute_command for 'pytest -q'] Result:\nCommand failed with exit code 1.\nOutput:\nprevious step Exit code: 0\nExit code: 0"}]}])J",
                             Format::kCline);
    REQUIRE(cline.size() == 2);
    // Each result goes to the call its header names, though they came in another order (red team):
    // events are in file order, echo's result first.
    CHECK(cline[0]["input"]["command"] == "echo hi");
    CHECK(cline[0]["result"]["exit_code"] == 0);
    CHECK(cline[1]["input"]["command"] == "pytest -q");
    CHECK(cline[1]["result"]["exit_code"] == 1);
    CHECK(cline[1]["result"]["ok"] == false);
    // Gemini CLI: stdout said "Exit Code: 0"; shell.ts's own line after it says 1.
    auto gemini = import_text(
        R"J({"sessionId":"s","projectHash":"h","startTime":"t","lastUpdated":"t","kind":"main"})J"
        "\n"
        R"J({"id":"m1","timestamp":"t","type":"gemini","content":"","toolCalls":[{"id":"c1","name":"run_shell_command","args":{"command":"make test"},"status":"success","result":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"Output: Exit Code: 0\nExit Code: 1\nSignal: (none)"}}}]}]})J"
        "\n",
        Format::kGeminiCli);
    REQUIRE(gemini.size() == 1);
    CHECK(gemini[0]["result"]["exit_code"] == 1);
    CHECK(gemini[0]["result"]["ok"] == false);
    // mini-swe-agent: a command that timed out has no code and did not succeed.
    auto mini = import_text(R"J({"info": {}, "messages": [
      {"role": "system", "content": "s"}, {"role": "user", "content": "task"},
      {"role": "assistant", "content": "run\n```bash\npytest -q\n```"},
      {"role": "user", "content": "The last command <command>pytest -q</command> timed out and has been killed.\nThe output of the command was:\nExit code: 0\n<returncode>0</returncode>"}]})J",
                            Format::kMiniSweAgent);
    REQUIRE(mini.size() == 1);
    CHECK_FALSE(mini[0]["result"].contains("exit_code"));
    CHECK(mini[0]["result"]["ok"] == false);
  }

  TEST_CASE("import: kept strings are cut in the middle, between UTF-8 sequences") {
    std::string text = std::string(3000, 'a') + std::string(3000, 'b') + "\xC3\xA9" + std::string(2047, 'c');
    std::string kept = import::kept_text(text);
    CHECK(kept.size() < 4200);
    CHECK(kept.rfind(std::string(2048, 'a'), 0) == 0);
    CHECK(kept.find("[... ") != std::string::npos);
    // The tail begins after the 2-byte é, never inside it.
    CHECK(kept.substr(kept.size() - 2047) == std::string(2047, 'c'));
    CHECK(nlohmann::json(kept).dump().size() > 0);  // valid UTF-8: dump() would throw otherwise
    CHECK(import::kept_text("short") == "short");
  }

  TEST_CASE("import: a cut last line is tolerated after a line that was read, never as the only line") {
    std::string line = R"({"type":"assistant","message":{"content":[{"type":"text","text":"hi"}]}})";
    auto cut = import::import_trajectory(line + "\n" + line.substr(0, 20), Format::kClaudeCode, "s.jsonl");
    REQUIRE(cut.ok());
    CHECK(cut->truncated_last_line);
    CHECK(cut->records == 1);
    auto only = import::import_trajectory(line.substr(0, 20), Format::kClaudeCode, "s.jsonl");
    REQUIRE_FALSE(only.ok());
    CHECK(only.error().message == "s.jsonl:1: not a JSON Lines record: the line is not JSON");
    auto array_last = import::import_trajectory(line + "\n[1, 2]", Format::kClaudeCode, "s.jsonl");
    REQUIRE_FALSE(array_last.ok());  // JSON, but not a record: not a line cut short
    CHECK(array_last.error().message ==
          "s.jsonl:2: not a JSON Lines record: the line is JSON, but not an object (a array)");
  }

  TEST_CASE("import: spec tools are the catalogue, MCP tools and the transcript's own") {
    auto tools = import::spec_tools(Format::kCodex, {"my_plugin_tool"});
    auto spec = [&](const std::string& tool) {
      return verify::parse_acceptance_spec_text(
          R"({"checkpoints": [{"id": "x", "when": {"type": "ToolCalled", "tool": ")" + tool + R"("}}]})", tools,
          "spec.json");
    };
    for (const char* ok :
         {"shell_command", "exec_command", "apply_patch", "mcp__github__create_pull_request", "my_plugin_tool"}) {
      CAPTURE(ok);
      CHECK(spec(ok).ok());
    }
    for (const char* refused : {"shel_command", "mcp__", "Bash", "mcp_github"}) {
      CAPTURE(refused);
      CHECK_FALSE(spec(refused).ok());
    }
    for (const char* name : {"EnterWorktree", "Monitor", "SendMessage", "TaskStop"}) {
      const auto& claude = import::tool_catalogue(Format::kClaudeCode);
      CHECK(std::find(claude.begin(), claude.end(), name) != claude.end());
    }
    const auto& swe = import::tool_catalogue(Format::kSweAgent);
    CHECK(std::find(swe.begin(), swe.end(), "debug_start") != swe.end());
    CHECK(std::find(swe.begin(), swe.end(), "connect_sendline") != swe.end());
  }
}
