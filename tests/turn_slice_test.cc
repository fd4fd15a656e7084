// One turn of a real Claude Code transcript and Codex rollout (import/turn_slice.h): where it
// begins, the person's prompt, and what is left out.
#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "import/trajectory_import.h"
#include "import/turn_slice.h"
#include "tests/test_support.h"

namespace candor::testing {
namespace {

using import::Format;
using nlohmann::json;

std::string sample(const std::string& name) { return read_file(source_root() + "/tests/agents/samples/" + name); }

std::string claude_prompt_line(const std::string& prompt_id, const std::string& text) {
  return json({{"type", "user"}, {"promptId", prompt_id}, {"message", {{"role", "user"}, {"content", text}}}}).dump() +
         "\n";
}

std::string claude_write_line(const std::string& id, const std::string& path) {
  return json({{"type", "assistant"},
               {"message",
                {{"role", "assistant"},
                 {"content",
                  {{{"type", "tool_use"}, {"id", id}, {"name", "Write"}, {"input", {{"file_path", path}}}}}}}}})
             .dump() +
         "\n";
}

}  // namespace

TEST_SUITE("verify") {
  TEST_CASE("Claude Code: the turn begins at its prompt_id's prompt; hook feedback is not a prompt") {
    std::string text = sample("transcript_claude.jsonl");
    auto slice = import::slice_turn(text, Format::kClaudeCode, "92dbddfd-5df7-405e-a957-f04fa1963ea9");
    REQUIRE(slice.ok());
    CHECK(slice->found);
    CHECK(slice->by_key);
    CHECK(slice->first_line == 3);
    CHECK(slice->prompt == "Create hello.txt saying hello");
    auto imported = import::import_trajectory(slice->text, Format::kClaudeCode, "t");
    REQUIRE(imported.ok());
    CHECK(imported->events.size() == 5);  // two Writes, their results, the final answer

    // Without the key: the last prompt a person typed (the "Stop hook feedback" record is meta).
    auto last = import::slice_turn(text, Format::kClaudeCode, "");
    REQUIRE(last.ok());
    CHECK(last->first_line == 3);
    CHECK_FALSE(last->by_key);
  }

  TEST_CASE("Claude Code: of two turns, the key picks its own and no key the last; an unknown key the last") {
    std::string text = claude_prompt_line("p1", "first ask") + claude_write_line("a", "/w/one.txt") +
                       claude_prompt_line("p2", "second ask") + claude_write_line("b", "/w/two.txt");
    auto first = import::slice_turn(text, Format::kClaudeCode, "p1");
    REQUIRE(first.ok());
    CHECK(first->first_line == 1);
    CHECK(first->prompt == "first ask");
    auto second = import::slice_turn(text, Format::kClaudeCode, "");
    REQUIRE(second.ok());
    CHECK(second->first_line == 3);
    CHECK(second->prompt == "second ask");
    auto imported = import::import_trajectory(second->text, Format::kClaudeCode, "t");
    REQUIRE(imported.ok());
    REQUIRE(imported->events.size() == 1);
    CHECK(imported->events[0].input["file_path"] == "/w/two.txt");
    auto unknown = import::slice_turn(text, Format::kClaudeCode, "p9");
    REQUIRE(unknown.ok());
    CHECK_FALSE(unknown->by_key);
    CHECK(unknown->first_line == 3);
  }

  TEST_CASE("Codex: the turn begins at its turn_id's task_started; the prompt is the person's message") {
    std::string text = sample("rollout_codex.jsonl");
    auto slice = import::slice_turn(text, Format::kCodex, "01a2173d-f1d0-7702-9961-6c8fb07a8682");
    REQUIRE(slice.ok());
    CHECK(slice->found);
    CHECK(slice->by_key);
    CHECK(slice->first_line == 2);
    CHECK(slice->prompt == "Create hello.txt saying hello");
    auto imported = import::import_trajectory(slice->text, Format::kCodex, "t");
    REQUIRE(imported.ok());
    CHECK(imported->events.size() == 7);
    auto last = import::slice_turn(text, Format::kCodex, "no-such-turn");
    REQUIRE(last.ok());
    CHECK_FALSE(last->by_key);
    CHECK(last->first_line == 2);
  }

  TEST_CASE("no turn in the file, hostile lines, and formats without turns") {
    auto none = import::slice_turn("{\"type\":\"summary\"}\n", Format::kClaudeCode, "");
    REQUIRE(none.ok());
    CHECK_FALSE(none->found);
    CHECK(none->text.empty());
    // A line too deep to parse is passed over, never parsed; the prompt after it still begins the turn.
    std::string text = std::string(200, '[') + "\"user\"" + std::string(200, ']') + "\n" +
                       claude_prompt_line("p", "ask") + "not json at all \"user\"\n";
    auto slice = import::slice_turn(text, Format::kClaudeCode, "p");
    REQUIRE(slice.ok());
    CHECK(slice->first_line == 2);
    auto swe = import::slice_turn("{}", Format::kSweAgent, "");
    REQUIRE_FALSE(swe.ok());
    CHECK(swe.error().code == ErrorCode::kInvalidInput);
  }
}

}  // namespace candor::testing
