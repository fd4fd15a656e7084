// The two hook protocols as the gate reads and answers them (app/hook_protocol.h): the real inputs
// of Claude Code 2.1.332 and Codex 0.169.0 (tests/agents/samples), hostile inputs, and the shape
// of every answer.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/hook_protocol.h"
#include "tests/test_support.h"

namespace candor::testing {
namespace {

using app::GateAgent;
using app::HookEvent;
using nlohmann::json;

std::string sample(const std::string& name) { return read_file(source_root() + "/tests/agents/samples/" + name); }

// What Codex's stop and user-prompt-submit output schemas allow (additionalProperties: false).
const std::set<std::string>& codex_fields() {
  static const std::set<std::string> fields = {"continue",   "decision",       "reason",
                                               "stopReason", "suppressOutput", "systemMessage"};
  return fields;
}

std::string deep(int levels) { return std::string(levels, '[') + std::string(levels, ']'); }

}  // namespace

TEST_SUITE("app") {
  TEST_CASE("the real hook inputs of both agents are read: session, turn, cwd, transcript, prompt, stop state") {
    struct Row {
      const char* file;
      GateAgent agent;
      HookEvent event;
      const char* turn;
      bool active;
    };
    for (const auto& row : std::vector<Row>{
             {"ups_input_claude.json", GateAgent::kClaudeCode, HookEvent::kUserPromptSubmit,
              "92dbddfd-5df7-405e-a957-f04fa1963ea9", false},
             {"stop_input_claude.json", GateAgent::kClaudeCode, HookEvent::kStop,
              "92dbddfd-5df7-405e-a957-f04fa1963ea9", false},
             {"stop_input_claude_active.json", GateAgent::kClaudeCode, HookEvent::kStop,
              "92dbddfd-5df7-405e-a957-f04fa1963ea9", true},
             {"ups_input_codex.json", GateAgent::kCodex, HookEvent::kUserPromptSubmit,
              "01a2173d-f1d0-7702-9961-6c8fb07a8682", false},
             {"stop_input_codex.json", GateAgent::kCodex, HookEvent::kStop, "01a2173d-f1d0-7702-9961-6c8fb07a8682",
              false},
             {"stop_input_codex_active.json", GateAgent::kCodex, HookEvent::kStop,
              "01a2173d-f1d0-7702-9961-6c8fb07a8682", true},
         }) {
      CAPTURE(row.file);
      auto in = app::parse_hook_input(sample(row.file), row.agent);
      REQUIRE_MESSAGE(in.ok(), in.error().message);
      CHECK(in->event == row.event);
      CHECK(in->turn_key == row.turn);
      CHECK(in->stop_hook_active == row.active);
      CHECK(in->cwd.rfind("/tmp/candor-demo-", 0) == 0);
      CHECK(in->cwd.back() != '/');
      CHECK(in->transcript_path.find(in->session_id) != std::string::npos);
      CHECK(in->notes.empty());
      if (row.event == HookEvent::kUserPromptSubmit) CHECK(in->prompt == "Create hello.txt saying hello");
      if (row.event == HookEvent::kStop) CHECK(in->last_assistant_message.has_value());
    }
  }

  TEST_CASE("hostile hook input is refused with a reason, never a crash, never echoing what it holds") {
    const std::string marker = "SECRET-MARKER-7731";
    std::string huge = R"({"hook_event_name":"Stop","session_id":"s","cwd":"/w","prompt":")" +
                       std::string(app::kMaxHookInputBytes, 'x') + "\"}";
    struct Row {
      std::string text;
      std::string says;
    };
    for (const auto& row : std::vector<Row>{
             {"", "not valid JSON"},
             {"   ", "not valid JSON"},
             {"{", "not valid JSON"},
             {"[\"" + marker + "\"]", "expected a JSON object"},
             {"\"" + marker + "\"", "expected a JSON object"},
             {deep(65), "deeper than 64"},
             {R"({"a":)" + deep(64) + "}", "deeper than 64"},
             {huge, "over the limit"},
             {R"({"session_id":")" + marker + R"(","cwd":"/w"})", "hook_event_name"},
             {R"({"hook_event_name":3,"session_id":"s","cwd":"/w"})", "hook_event_name"},
             {R"({"hook_event_name":"Stop","cwd":"/w"})", "session_id"},
             {R"({"hook_event_name":"Stop","session_id":17,"cwd":"/w"})", "session_id"},
             {R"({"hook_event_name":"Stop","session_id":"","cwd":"/w"})", "session_id"},
             {R"({"hook_event_name":"Stop","session_id":"a\nb","cwd":"/w"})", "session_id"},
             {R"({"hook_event_name":"Stop","session_id":")" + std::string(300, 's') + R"(","cwd":"/w"})", "session_id"},
             {R"({"hook_event_name":"Stop","session_id":"s"})", "cwd"},
             {R"({"hook_event_name":"Stop","session_id":"s","cwd":"relative/)" + marker + R"("})", "cwd"},
             {R"({"hook_event_name":"Stop","session_id":"s","cwd":["/w"]})", "cwd"},
             {R"({"hook_event_name":"Stop","session_id":"s","cwd":"/w\u0000/x"})", "cwd"},
             {R"({"hook_event_name":"Stop","session_id":"s","cwd":"/w","prompt_id":"a\u0007","turn_id":"a\u0007"})",
              "usable id"},
         }) {
      CAPTURE(row.text.substr(0, 200));
      for (GateAgent agent : {GateAgent::kClaudeCode, GateAgent::kCodex}) {
        auto in = app::parse_hook_input(row.text, agent);
        REQUIRE_FALSE(in.ok());
        CHECK(in.error().code == ErrorCode::kInvalidInput);
        CHECK(in.error().message.find(row.says) != std::string::npos);
        CHECK(in.error().message.find(marker) == std::string::npos);
        CHECK(in.error().message.size() < 600);
      }
    }
  }

  TEST_CASE("optional fields of the wrong type are ignored and said; missing ones are absent") {
    auto in = app::parse_hook_input(
        R"({"hook_event_name":"Stop","session_id":"s","cwd":"/w/./x/","stop_hook_active":"yes","prompt":42,
            "transcript_path":["/etc/shadow"],"last_assistant_message":{},"turn_id":null,"extra":{"deep":[1,2]}})",
        GateAgent::kCodex);
    REQUIRE(in.ok());
    CHECK(in->event == HookEvent::kStop);
    CHECK(in->cwd == "/w/x");
    CHECK_FALSE(in->stop_hook_active);
    CHECK(in->prompt.empty());
    CHECK(in->transcript_path.empty());
    CHECK_FALSE(in->last_assistant_message);
    CHECK(in->turn_key.empty());
    CHECK(in->notes.size() == 4);
    for (const auto& n : in->notes) CHECK(n.find("/etc/shadow") == std::string::npos);

    auto other =
        app::parse_hook_input(R"({"hook_event_name":"PreToolUse","session_id":"s","cwd":"/"})", GateAgent::kClaudeCode);
    REQUIRE(other.ok());
    CHECK(other->event == HookEvent::kOther);
    // Claude Code's turn is its prompt_id; Codex's turn_id is not Claude's.
    auto claude = app::parse_hook_input(R"({"hook_event_name":"Stop","session_id":"s","cwd":"/","turn_id":"t"})",
                                        GateAgent::kClaudeCode);
    REQUIRE(claude.ok());
    CHECK(claude->turn_key.empty());
  }

  TEST_CASE("a huge prompt is cut to the goal's limit at a character boundary, and the cut is said") {
    std::string prompt;
    while (prompt.size() < app::kMaxGoalBytes + 1000) prompt += "\xC3\xA9t\xC3\xA9 ";  // "été "
    json j = {{"hook_event_name", "UserPromptSubmit"}, {"session_id", "s"}, {"cwd", "/w"}, {"prompt", prompt}};
    auto in = app::parse_hook_input(j.dump(), GateAgent::kClaudeCode);
    REQUIRE(in.ok());
    CHECK(in->prompt.size() < app::kMaxGoalBytes + 100);
    CHECK(in->prompt.find("[prompt cut:") != std::string::npos);
    CHECK(json(in->prompt).dump().find("\\ufffd") == std::string::npos);  // still valid UTF-8
    REQUIRE(in->notes.size() == 1);
    CHECK(in->notes[0].find("cut") != std::string::npos);
  }

  TEST_CASE("answers: only a Stop is ever blocked, with a reason; each agent gets only fields its schema allows") {
    struct Row {
      HookEvent event;
      app::HookAnswer answer;
      bool blocks;
    };
    for (const auto& row : std::vector<Row>{
             {HookEvent::kStop, {true, "fix hello.txt", "candor blocked"}, true},
             {HookEvent::kStop, {true, "  \n", ""}, true},
             {HookEvent::kStop, {false, "", "candor: verdict success"}, false},
             {HookEvent::kStop, {false, "", ""}, false},
             {HookEvent::kUserPromptSubmit, {true, "never", "warning: no snapshot"}, false},
             {HookEvent::kUserPromptSubmit, {false, "", ""}, false},
             {HookEvent::kOther, {true, "never", ""}, false},
         }) {
      for (GateAgent agent : {GateAgent::kClaudeCode, GateAgent::kCodex}) {
        std::string out = app::render_hook_answer(agent, row.event, row.answer);
        CAPTURE(out);
        CHECK(out.back() == '\n');
        CHECK(out.find('\n') == out.size() - 1);  // one line
        json j = json::parse(out);
        REQUIRE(j.is_object());
        for (const auto& [key, value] : j.items()) CHECK(codex_fields().count(key) == 1);
        CHECK(j.contains("decision") == row.blocks);
        if (row.blocks) {
          CHECK(j["decision"] == "block");
          CHECK(j["reason"].get<std::string>().find_first_not_of(" \t\r\n") != std::string::npos);
        } else {
          CHECK_FALSE(j.contains("reason"));
        }
        CHECK(j.contains("systemMessage") == !row.answer.message.empty());
      }
    }
    // Bytes that are not UTF-8 never make the answer unreadable.
    std::string out = app::render_hook_answer(GateAgent::kCodex, HookEvent::kStop, {true, "bad \xFF\xFE byte", ""});
    CHECK(json::parse(out)["reason"].get<std::string>().find("bad") == 0);
  }

  TEST_CASE("agent names and transcript formats") {
    CHECK(app::parse_gate_agent("claude-code") == GateAgent::kClaudeCode);
    CHECK(app::parse_gate_agent("codex") == GateAgent::kCodex);
    CHECK_FALSE(app::parse_gate_agent("claude"));
    CHECK(std::string(app::to_string(GateAgent::kCodex)) == "codex");
    CHECK(app::transcript_format(GateAgent::kClaudeCode) == import::Format::kClaudeCode);
    CHECK(app::transcript_format(GateAgent::kCodex) == import::Format::kCodex);
  }
}

}  // namespace candor::testing
