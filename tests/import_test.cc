// Importing other agents' transcripts from tests/data/trajectories: event counts, skipped
// records, truncation, goal actions, and an acceptance spec checked against each.
#include <doctest/doctest.h>

#include "import/trajectory_import.h"
#include "tests/test_support.h"
#include "verify/acceptance.h"

using namespace candor;
using candor::testing::data_dir;
using candor::testing::read_file;
using Kind = TrajectoryEvent::Kind;

namespace {

struct Counts {
  int calls = 0, results = 0, finals = 0;
};

Counts count(const import::ImportedTrajectory& t) {
  Counts c;
  for (const auto& e : t.events) {
    c.calls += e.kind == Kind::kToolCalled;
    c.results += e.kind == Kind::kToolResult;
    c.finals += e.kind == Kind::kFinalAnswer;
  }
  return c;
}

import::ImportedTrajectory load(const std::string& rel, import::Format format){
    std::string text = read_file(data_dir() + "/trajectories/" + rel);
REQUIRE_FALSE(text.empty());
auto t = import::import_trajectory(text, format, rel);
if (!t.ok()) FAIL(t.error().message);
return *t;
}  // namespace

verify::AcceptanceReport check(const import::ImportedTrajectory& t, const std::string& spec_text) {
  auto spec = verify::parse_acceptance_spec_text(spec_text, import::tool_catalogue(t.format), "spec.json");
  if (!spec.ok()) FAIL(spec.error().message);
  return verify::evaluate_acceptance(*spec, t.events);
}

}  // namespace

TEST_SUITE("verify") {
  TEST_CASE("import: Claude Code session JSONL") {
    auto t = load("claude-code/sample_session.synthetic.jsonl", import::Format::kClaudeCode);
    Counts c = count(t);
    CHECK(c.calls == 2);
    CHECK(c.results == 2);
    CHECK(c.finals == 1);
    CHECK(t.records == 8);
    CHECK(t.skipped.at("summary") == 1);
    CHECK(t.goal_actions_executed);  // a Write
    CHECK(t.events[0].tool == "Write");
    CHECK(t.events[3].tool == "Bash");  // the result is paired with its call by tool_use_id
    auto r = check(t, R"({"checkpoints": [
        {"id": "wrote", "when": {"type": "ToolCalled", "tool": "Write", "input": {"left": "{{tool.input.file_path}}", "op": "ends_with", "right": ".py"}}},
        {"id": "ran", "when": {"type": "ToolResult", "tool": "Bash"}}]})");
    CHECK(r.passed);
    // The definition-time guard uses the format's catalogue: candor's tool names are unknown here.
    auto wrong = verify::parse_acceptance_spec_text(
        R"({"checkpoints": [{"id": "x", "when": {"type": "ToolCalled", "tool": "shell"}}]})",
        import::tool_catalogue(t.format), "spec.json");
    REQUIRE_FALSE(wrong.ok());
    CHECK(wrong.error().message.find(
              "names the tool \"shell\", which this agent cannot call (its tools: Agent, AskUserQuestion, Bash,") !=
          std::string::npos);
  }

  TEST_CASE("import: a record over the size limit is read past and named; the rest of the transcript counts") {
    // An ordinary 17 MB Write (red team, round four): it made the whole transcript unreadable.
    std::string text = read_file(data_dir() + "/trajectories/claude-code/sample_session.synthetic.jsonl");
    auto first_newline = text.find('\n');
    std::string huge = R"({"type":"user","message":{"role":"user","content":")" + std::string(17 << 20, 'x') + "\"}}";
    std::string with_huge = text.substr(0, first_newline + 1) + huge + "\n" + text.substr(first_newline + 1);
    auto t = import::import_trajectory(with_huge, import::Format::kClaudeCode, "s.jsonl");
    REQUIRE(t.ok());
    REQUIRE(t->oversized.size() == 1);
    CHECK(t->oversized[0] == "s.jsonl:2 (17825846 bytes, over the limit of 16 MiB)");
    Counts c = count(*t);
    CHECK(c.calls == 2);  // every record after it was still read
    CHECK(c.finals == 1);
  }

  TEST_CASE("import: SWE-agent .traj, function-calling and legacy") {
    auto fc = load("swe-agent/marshmallow-1867.function_calling.traj", import::Format::kSweAgent);
    Counts c = count(fc);
    CHECK(c.calls == 11);
    CHECK(c.results == 11);
    CHECK(c.finals == 1);  // info.submission
    CHECK(fc.goal_actions_executed);
    CHECK(fc.events.back().text.find("diff --git a/src/marshmallow/fields.py") != std::string::npos);
    auto r = check(fc, R"({"checkpoints": [
        {"id": "repro", "when": {"type": "ToolCalled", "tool": "create"}},
        {"id": "edited", "when": {"type": "ToolCalled", "tool": "edit"}},
        {"id": "submitted", "when": {"type": "ToolCalled", "tool": "submit"}}]})");
    CHECK(r.passed);

    auto legacy = load("swe-agent/test-repo-i1.gpt4.traj", import::Format::kSweAgent);
    Counts l = count(legacy);
    CHECK(l.calls == 5);
    CHECK(l.results == 5);
    std::vector<std::string> tools;
    for (const auto& e : legacy.events)
      if (e.kind == Kind::kToolCalled) tools.push_back(e.tool);
    CHECK(tools == std::vector<std::string>{"find_file", "open", "edit", "bash", "submit"});  // `python x.py` is bash
    auto ran = check(legacy, R"({"checkpoints": [
        {"id": "edit", "when": {"type": "ToolCalled", "tool": "edit"}},
        {"id": "ran_it", "when": {"type": "ToolCalled", "tool": "bash", "input": {"left": "{{tool.input.command}}", "op": "starts_with", "right": "python"}}}]})");
    CHECK(ran.passed);
  }

  TEST_CASE("import: OpenHands event streams") {
    auto rename = load("openhands/wrong_initial_state.json", import::Format::kOpenHands);
    Counts c = count(rename);
    CHECK(c.calls == 3);
    CHECK(c.results == 3);
    CHECK(c.finals == 1);
    CHECK(rename.skipped.at("user.message") == 1);
    CHECK_FALSE(rename.goal_actions_executed);  // a `mv` through execute_bash cannot be seen to change files
    auto r = check(rename, R"({"checkpoints": [
        {"id": "moved", "when": {"type": "ToolResult", "tool": "execute_bash", "predicate": {"left": "{{tool.result.exit_code}}", "op": "eq", "right": "0"}}},
        {"id": "said", "when": {"type": "FinalAnswer", "predicate": {"left": "{{final_answer}}", "op": "contains", "right": "renamed"}}}]})");
    CHECK(r.passed);

    auto gui = load("openhands/basic_gui_mode.json", import::Format::kOpenHands);
    Counts g = count(gui);
    CHECK(g.calls == 4);
    CHECK(g.results == 4);
    CHECK(g.finals == 1);              // the closing agent message
    CHECK(gui.goal_actions_executed);  // str_replace_editor create
    CHECK(gui.skipped.at("environment.agent_state_changed") == 4);
  }

  TEST_CASE("import: Codex rollout JSONL, with a truncated last line tolerated") {
    std::string text = read_file(data_dir() + "/trajectories/codex/rollout-homelab-migration.real-no-tools.jsonl");
    auto t = import::import_trajectory(text, import::Format::kCodex, "rollout.jsonl");
    REQUIRE(t.ok());
    CHECK(count(*t).calls == 0);
    CHECK(t->records == 11);
    CHECK(t->skipped.at("turn_context") == 6);
    CHECK_FALSE(t->truncated_last_line);
    auto cut = import::import_trajectory(text.substr(0, text.size() - 40), import::Format::kCodex, "rollout.jsonl");
    REQUIRE(cut.ok());
    CHECK(cut->truncated_last_line);
    CHECK(cut->records == 10);

    // The call/result/final shapes of Codex's format (not in the real sample, which has no tools).
    std::string synthetic =
        R"({"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"pytest -q\"]}","call_id":"c1"}})"
        "\n"
        R"({"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"3 passed\",\"metadata\":{\"exit_code\":0}}"}})"
        "\n"
        R"({"type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"c2","input":"*** Begin Patch"}})"
        "\n"
        R"({"type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c2","output":"Done"}})"
        "\n"
        R"({"type":"event_msg","payload":{"type":"task_complete","last_agent_message":"Tests pass."}})"
        "\n"
        R"({"type":"mystery","payload":{}})"
        "\n";
    auto s = import::import_trajectory(synthetic, import::Format::kCodex, "synthetic.jsonl");
    REQUIRE(s.ok());
    CHECK(count(*s).calls == 2);
    CHECK(s->goal_actions_executed);
    CHECK(s->skipped.at("mystery") == 1);
    auto r = check(*s, R"({"checkpoints": [
        {"id": "tests", "when": {"type": "ToolResult", "tool": "shell", "predicate": {"left": "{{tool.result.exit_code}}", "op": "eq", "right": "0"}}},
        {"id": "patched", "when": {"type": "ToolCalled", "tool": "apply_patch"}},
        {"id": "said", "when": {"type": "FinalAnswer", "predicate": {"left": "{{final_answer}}", "op": "eq", "right": "Tests pass."}}}]})");
    CHECK(r.passed);
  }

  TEST_CASE("import: a file that is not the format is an error naming it; a bad middle line names its number") {
    auto bad = import::import_trajectory("{\"a\": 1}", import::Format::kOpenHands, "x.json");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message == "x.json: not an OpenHands event stream: none of its 1 records is one ((untyped) x1)");
    auto middle = import::import_trajectory("{\"type\":\"user\"}\nnot json\n{\"type\":\"user\"}\n",
                                            import::Format::kClaudeCode, "s.jsonl");
    REQUIRE_FALSE(middle.ok());
    CHECK(middle.error().message == "s.jsonl:2: not a JSON Lines record: the line is not JSON");
  }
}
