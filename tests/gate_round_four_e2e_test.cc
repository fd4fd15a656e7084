// `candor gate` against the agent it gates (round four, issue 37): each attack as the agent can make
// it, through the built binary with the agents' real hook inputs, with the control that shows the
// protection matters. The real agents' own cases are in tests/agents/gate_e2e.py (f to i).
#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/e2e_support.h"
#include "tests/gate_fixture.h"

namespace candor::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using namespace gate_fixture;

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("gate, round four: the agent turns its hooks off in settings.local.json; the stop blocks, status says") {
    Gate g({{"hello.txt", "hello world\n"}});
    g.hook("claude-code", g.input("claude-code", "ups"));
    write_file(g.ws + "/hello.txt", "hello candor\n");
    write_file(g.ws + "/.claude/settings.local.json", R"({"disableAllHooks": true})");
    json a = g.hook("claude-code", g.input("claude-code", "stop"));
    CAPTURE(a.dump());
    REQUIRE(a.value("decision", "") == "block");
    CHECK(a["reason"].get<std::string>().find("[protected] the agent's hook settings .claude/settings.local.json "
                                              "were added during the turn") != std::string::npos);
    // gate status reads every layer: the hooks are written, and will not run.
    CommandResult status = g.candor({"gate", "status", "-C", g.ws, "--json"});
    REQUIRE(status.exit_code == 0);
    json s = json::parse(status.out);
    CHECK(s["effective"]["claude-code"]["effective"] == false);
    CHECK(s["effective"]["claude-code"]["why_not"].get<std::string>().find("\"disableAllHooks\": true in") !=
          std::string::npos);
    // The user's own settings, outside the workspace, are the agent's to write too.
    Gate h({{"hello.txt", "hello world\n"}});
    h.hook("claude-code", h.input("claude-code", "ups"));
    write_file(h.ws + "/hello.txt", "hello candor\n");
    write_file(h.claude_config + "/settings.json", R"({"disableAllHooks": true})");
    json b = h.hook("claude-code", h.input("claude-code", "stop"));
    REQUIRE(b.value("decision", "") == "block");
    CHECK(b["reason"].get<std::string>().find(h.claude_config + "/settings.json were changed during the turn") !=
          std::string::npos);
    // Control: the same turn without touching the settings is let through.
    Gate c({{"hello.txt", "hello world\n"}});
    c.hook("claude-code", c.input("claude-code", "ups"));
    write_file(c.ws + "/hello.txt", "hello candor\n");
    CHECK_FALSE(c.hook("claude-code", c.input("claude-code", "stop")).contains("decision"));
  }

  TEST_CASE("gate, round four: a config the agent's turn deleted is refused at the next turn's start") {
    Gate g({{"hello.txt", "hello world\n"}, {".candor/config.json", kExpectHelloCandor}});
    g.hook("codex", g.input("codex", "ups"));
    fs::remove(g.ws + "/.candor/config.json");
    write_file(g.ws + "/hello.txt", "hello candor\n");
    g.hook("codex", g.input("codex", "stop"));  // blocked (protected: .candor/ changed)
    g.hook("codex", g.input("codex", "stop_active", {{"stop_hook_active", true}}));
    g.hook("codex", g.input("codex", "stop_active", {{"stop_hook_active", true}}));
    g.hook("codex", g.input("codex", "stop_active", {{"stop_hook_active", true}}));  // let through after 3
    // Turn 2 begins with no file: the config turn 1 began with is used, and said.
    json begun = g.hook("codex", g.input("codex", "ups", {{"turn_id", "turn-two"}}));
    CHECK(begun.value("systemMessage", "").find("was deleted by codex's turn 1") != std::string::npos);
    write_file(g.ws + "/hello.txt", "broken\n");
    json a = g.hook("codex", g.input("codex", "stop", {{"turn_id", "turn-two"}}));
    CHECK(a.value("decision", "") == "block");
    CHECK(a["reason"].get<std::string>().find("file_contains hello.txt") != std::string::npos);
  }

  TEST_CASE("gate, round four: a start forged without a turn id cannot move the turn's start past the agent's work") {
    for (std::string agent : {"claude-code", "codex"}) {
      CAPTURE(agent);
      Gate g({{"hello.txt", "hello world\n"}, {".candor/config.json", kExpectHelloCandor}});
      const std::string id_key = g.codex(agent) ? "turn_id" : "prompt_id";
      json forged_id = json::object();
      forged_id[id_key] = "forged";
      g.hook(agent, g.input(agent, "ups"));
      write_file(g.ws + "/hello.txt", "broken\n");
      // The agent runs the hook itself with no turn id (and once with another one).
      json forged = g.input(agent, "ups");
      forged.erase(id_key);
      g.hook(agent, forged);
      g.hook(agent, g.input(agent, "ups", forged_id));
      // The real stop, and a stop without a turn id: both are checked against the first start.
      json unnamed = g.input(agent, "stop");
      unnamed.erase(id_key);
      json a = g.hook(agent, unnamed);
      CHECK(a.value("decision", "") == "block");
      CHECK(g.report(run_id_in(a))["gate"]["turn"] == 1);
      json b = g.hook(agent, g.input(agent, "stop", forged_id));
      CHECK(b.value("decision", "") == "block");
      CHECK(g.report(run_id_in(b))["gate"]["turn"] == 1);
    }
  }

  TEST_CASE("gate, round four: candor gc during an open turn keeps it; the stop still checks the work") {
    Gate g({{"hello.txt", "hello world\n"}, {".candor/config.json", kExpectHelloCandor}});
    g.hook("codex", g.input("codex", "ups"));
    write_file(g.ws + "/hello.txt", "broken\n");
    sleep(2);
    CommandResult gc = g.candor({"gc", "--older-than", "1s", "--json"});
    REQUIRE(gc.exit_code == 0);
    json collected = json::parse(gc.out);
    CHECK(collected["runs"]["removed"].empty());
    CHECK(collected["runs"]["kept_gate_turns"].size() == 1);
    json a = g.hook("codex", g.input("codex", "stop"));
    CHECK(a.value("decision", "") == "block");
    CHECK(a["reason"].get<std::string>().find("file_contains hello.txt") != std::string::npos);
  }

  TEST_CASE(
      "gate, round four: a start that cannot read everything within its budget records what it left; the stop blocks") {
    // The run's 3 s budget keeps the stop's own snapshot short too (it reads for 120 s otherwise).
    Gate g({{"hello.txt", "hello world\n"},
            {".candor/config.json", R"({"budget": {"timeout_s": 3}, "gate": {"start_timeout_s": 1}})"}});
    // A sparse file of 1 TiB: reading it takes hours; the start gives it up within its second.
    {
      int fd = ::open((g.ws + "/huge.img").c_str(), O_CREAT | O_WRONLY, 0644);
      REQUIRE(fd >= 0);
      REQUIRE(::ftruncate(fd, off_t{1} << 40) == 0);
      ::close(fd);
    }
    auto started = std::chrono::steady_clock::now();
    json begun = g.hook("claude-code", g.input("claude-code", "ups"));
    auto took = std::chrono::steady_clock::now() - started;
    CHECK(took < std::chrono::seconds(30));  // far below the agent's 60 s hook timeout, loosely
    CHECK(begun.value("systemMessage", "").find("could not read huge.img") != std::string::npos);
    write_file(g.ws + "/hello.txt", "hello candor\n");
    json a = g.hook("claude-code", g.input("claude-code", "stop"));
    REQUIRE(a.value("decision", "") == "block");
    CHECK(a["reason"].get<std::string>().find("huge.img (at the turn's start)") != std::string::npos);
  }

  TEST_CASE("gate, round four: a check's escape sequences reach neither the agent nor the terminal") {
    Gate g(
        {{"hello.txt", "hello world\n"},
         {".candor/config.json",
          R"({"expect": [{"type": "command_succeeds", "command": "printf '\\033]0;pwned\\007\\033[2J'; exit 1"}]})"}});
    g.hook("claude-code", g.input("claude-code", "ups"));
    write_file(g.ws + "/hello.txt", "hello candor\n");
    CommandResult raw = g.hook_raw("claude-code", g.input("claude-code", "stop").dump());
    REQUIRE(raw.exit_code == 0);
    json a = json::parse(raw.out);
    REQUIRE(a.value("decision", "") == "block");
    for (const std::string& said : {a["reason"].get<std::string>(), a["systemMessage"].get<std::string>()}) {
      CHECK(said.find('\x1b') == std::string::npos);
      CHECK(said.find('\x07') == std::string::npos);
    }
    CHECK(a["reason"].get<std::string>().find("␛]0;pwned␇") != std::string::npos);
    // An evaluator's description in the workspace's config is the workspace's text too.
    write_file(g.ws + "/.candor/config.json",
               R"({"evaluators": {"x": {"command": ["true"], "description": "\u001b]0;title\u0007\u001b[2J"}}})");
    CommandResult listed = g.candor({"evaluators", "-C", g.ws});
    REQUIRE(listed.exit_code == 0);
    CHECK(listed.out.find('\x1b') == std::string::npos);
    CHECK(listed.out.find("␛]0;title␇") != std::string::npos);
  }

  TEST_CASE("gate, round four: a credential file the turn creates is a secret: masked in the store and the report") {
    const std::string value = "Zk81-created-during-the-turn-4410";
    Gate g({{"hello.txt", "hello world\n"}});
    g.hook("claude-code", g.input("claude-code", "ups"));
    write_file(g.ws + "/hello.txt", "hello candor\n");
    write_file(g.ws + "/.env", "DEPLOY_KEY=" + value + "\n");
    // The agent's transcript holds the Write of it, as Claude Code records one.
    json write_call = {{"type", "assistant"},
                       {"message",
                        {{"role", "assistant"},
                         {"content",
                          {{{"type", "tool_use"},
                            {"id", "toolu_env"},
                            {"name", "Write"},
                            {"input", {{"file_path", g.ws + "/.env"}, {"content", "DEPLOY_KEY=" + value + "\n"}}}}}}}}};
    std::string path = g.transcript("claude-code");
    write_file(path, read_file(path) + write_call.dump() + "\n");
    json a = g.hook("claude-code", g.input("claude-code", "stop"));
    std::string run = run_id_in(a);
    CommandResult everything = g.candor({"report", run, "--json", "-v"});
    CHECK(everything.out.find(value) == std::string::npos);
    CommandResult markdown = g.candor({"report", run, "--markdown"});
    CHECK(markdown.out.find(value) == std::string::npos);
    for (const auto& [file, content] : tree_contents(g.store)) {
      if (file.find("candor.db") == std::string::npos) continue;
      CAPTURE(file);
      CHECK(content.find(value) == std::string::npos);
    }
  }

  TEST_CASE("gate, round four: one transcript record over the size limit is read past; the rest is still checked") {
    Gate g({{"hello.txt", "hello world\n"},
            {".candor/config.json", R"({"gate": {"acceptance": {"claude-code": {"checkpoints": [
              {"id": "ran_tests", "when": {"type": "ToolCalled", "tool": "Bash"}}]}}}})"}});
    g.hook("claude-code", g.input("claude-code", "ups"));
    write_file(g.ws + "/hello.txt", "hello candor\n");
    // A 17 MB Write, an ordinary one: the turn's other records still count (no Bash: the
    // essential checkpoint is missed, and that still blocks).
    json big = {{"type", "assistant"},
                {"message",
                 {{"role", "assistant"},
                  {"content",
                   {{{"type", "tool_use"},
                     {"id", "toolu_big"},
                     {"name", "Write"},
                     {"input", {{"file_path", g.ws + "/data.bin"}, {"content", std::string(17 << 20, 'x')}}}}}}}}};
    std::string path = g.transcript("claude-code");
    write_file(path, read_file(path) + big.dump() + "\n");
    json a = g.hook("claude-code", g.input("claude-code", "stop"));
    CAPTURE(a.dump());
    REQUIRE(a.value("decision", "") == "block");
    CHECK(a["reason"].get<std::string>().find("ran_tests") != std::string::npos);
    CHECK(a["systemMessage"].get<std::string>().find("over the size limit was read past") != std::string::npos);
  }
}

}  // namespace candor::testing
