// `candor gate` end to end: the built binary driven with the real hook inputs of Claude Code
// 2.1.332 and Codex 0.169.0 (tests/agents/samples, their cwd and transcript_path rewritten to this
// test's folders) and their real transcripts, as each agent would call it at a turn's start and at
// each stop. The agents themselves are not run here (tests/agents/README.md shows how).
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/e2e_support.h"
#include "tests/gate_fixture.h"
#include "tests/kernel_facts.h"

namespace candor::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using namespace gate_fixture;

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE(
      "gate: a Stop reads a 200 MB session a line at a time, under 300 MB of memory, every call of the turn counted" *
      needs(!kAddressSanitizer, "a build without AddressSanitizer (ulimit -v leaves no room for its shadow memory)")) {
    Gate g({{"hello.txt", "hello candor\n"}, {".candor/config.json", kExpectHelloCandor}});
    json ups = g.input("claude-code", "ups");
    json stop = g.input("claude-code", "stop");
    // The real session (its prompt carries the turn's promptId), then 10,000 Bash calls of the turn
    // printing 10 KB each, twice as Claude Code writes them: 204 MB after the prompt.
    {
      std::ofstream out(g.transcript("claude-code"), std::ios::binary | std::ios::app);
      std::string output(10000, 'x');
      for (int i = 0; i < 10000; ++i) {
        out << fmt::format(
            R"({{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"tool_use","id":"big{}","name":"Bash","input":{{"command":"make test {}"}}}}]}}}})"
            "\n",
            i, i);
        out << fmt::format(
            R"({{"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"big{}","content":"{}","is_error":false}}]}},"toolUseResult":{{"stdout":"{}","stderr":"","interrupted":false}}}})"
            "\n",
            i, output, output);
      }
    }
    CHECK(fs::file_size(g.transcript("claude-code")) > 200'000'000);
    auto limited = [&](const json& in) {
      std::string file = make_temp_dir("hook") + "/stdin.json";
      write_file(file, in.dump());
      std::vector<std::string> e = g.env;
      e.push_back("CANDOR_HOME=" + g.store);
      // 300 MB of address space for the whole process: the transcript held whole cannot fit.
      return run_command({"/bin/sh", "-c", fmt::format("ulimit -v 300000; exec {} gate claude-code", candor_bin())}, e,
                         g.ws, file);
    };
    REQUIRE(limited(ups).exit_code == 0);
    write_file(g.ws + "/hello.txt", "hello candor, again\n");
    CommandResult r = limited(stop);
    CAPTURE(r.err);
    REQUIRE(r.exit_code == 0);
    json answer = json::parse(r.out);
    CHECK_FALSE(answer.contains("decision"));
    json report = g.report(run_id_in(answer));
    CHECK(report["gate"]["transcript"]["by_turn_id"] == true);
    CHECK(report["gate"]["transcript"].value("error", "") == "");
    // The real session's turn (its Write and its answer) and the 20,000 events added to it.
    CHECK(report["gate"]["transcript"]["events"].get<int>() >= 20000);
  }

  TEST_CASE("gate (a): the wrong file edited is blocked with the failed expectation; fixed, the stop is allowed") {
    for (std::string agent : {"claude-code", "codex"}) {
      CAPTURE(agent);
      Gate g({{"hello.txt", "hello world\n"}, {".candor/config.json", kExpectHelloCandor}});
      auto before = tree_contents(g.ws);
      json started = g.hook(agent, g.input(agent, "ups"));
      CHECK_FALSE(started.contains("decision"));
      CHECK(tree_contents(g.ws) == before);  // the gate never writes the workspace

      write_file(g.ws + "/wrong.txt", "hello candor\n");
      json blocked = g.hook(agent, g.input(agent, "stop"));
      REQUIRE(blocked.value("decision", "") == "block");
      std::string reason = blocked["reason"];
      CHECK(reason.find("file_contains hello.txt") != std::string::npos);
      CHECK(reason.find("hello candor") != std::string::npos);
      CHECK(reason.find("What to do") != std::string::npos);
      CHECK(reason.size() <= 2048);
      CHECK(blocked["systemMessage"].get<std::string>().find("blocked this stop (1 of 3)") != std::string::npos);

      fs::remove(g.ws + "/wrong.txt");
      write_file(g.ws + "/hello.txt", "hello candor\n");
      json allowed = g.hook(agent, g.input(agent, "stop_active"));
      CHECK_FALSE(allowed.contains("decision"));
      CHECK(allowed["systemMessage"].get<std::string>().find("verdict success") != std::string::npos);

      std::string run = run_id_in(allowed);
      CHECK(run == run_id_in(blocked));  // one turn, one run
      json r = g.report(run);
      CHECK(r["verdict"] == "success");
      CHECK(r["source"] == "gate");
      CHECK(r["gate"]["agent"] == agent);
      CHECK(r["gate"]["session_id"] == (agent == "codex" ? kCodexSession : kClaudeSession));
      CHECK(r["gate"]["turn"] == 1);
      CHECK(r["gate"]["stop"] == 2);
      CHECK(r["gate"]["blocks"] == 1);
      CHECK(r["gate"]["decision"] == "allow");
      CHECK(r["gate"]["transcript"]["by_turn_id"] == true);
      CHECK(r["goal"] == "Create hello.txt saying hello");
      CHECK(r["mutations"].size() == 1);
      CHECK(r["mutations"][0]["path"] == "hello.txt");
      CHECK(r["assertions"].back()["discriminating"] == true);
      // The run is a run like any other: listed, verified again, rendered.
      CommandResult runs = g.candor({"runs", "--json"});
      CHECK(runs.out.find(run) != std::string::npos);
      CommandResult verified = g.candor({"verify", run, "--json"});
      CAPTURE(verified.err);
      CHECK(verified.exit_code == 0);
      CHECK(g.candor({"report", run, "--markdown"}).exit_code == 0);
      // The transcript's steps of this turn are in the run.
      CommandResult verbose = g.candor({"report", run, "-v"});
      CHECK(verbose.out.find(agent == "codex" ? "apply_patch" : "Write") != std::string::npos);
    }
  }

  TEST_CASE("gate: a turn whose test passes only through its own edits to it is blocked as tampering") {
    if (std::system("command -v node >/dev/null") != 0) {
      MESSAGE("skipped: node is not installed");
      return;
    }
    const std::string test =
        "const test = require('node:test');\nconst assert = require('node:assert');\nconst { slugify } = "
        "require('./slug.js');\ntest('every space', () => assert.strictEqual(slugify('a b c'), 'a-b-c'));\n";
    for (std::string agent : {"claude-code", "codex"}) {
      CAPTURE(agent);
      Gate g({{"slug.js", "exports.slugify = (s) => s.replace(' ', '-');\n"},
              {"slug.test.js", test},
              {".candor/config.json",
               R"({"expect": [{"type": "command_succeeds", "command": "node --test", "covers": ["slug.js"]}]})"}});
      g.hook(agent, g.input(agent, "ups"));
      // The turn rewrites the test to pass whatever slugify does.
      write_file(g.ws + "/slug.test.js", "const test = require('node:test');\ntest('every space', () => {});\n");
      json blocked = g.hook(agent, g.input(agent, "stop"));
      REQUIRE(blocked.value("decision", "") == "block");
      std::string reason = blocked["reason"];
      CHECK(reason.find("[tampering] passes only through its own test edits: slug.test.js") != std::string::npos);
      CHECK(reason.find("put the tests back as they were") != std::string::npos);
      json r = g.report(run_id_in(blocked));
      CHECK(r["verdict"] == "fail");
      // Without `tampering` in gate.block_on, the same turn is let through (the verdict still fail).
      Gate lax({{"slug.js", "exports.slugify = (s) => s.replace(' ', '-');\n"},
                {"slug.test.js", test},
                {".candor/config.json",
                 R"({"expect": [{"type": "command_succeeds", "command": "node --test", "covers": ["slug.js"]}],
                     "gate": {"block_on": ["expectation"]}})"}});
      lax.hook(agent, lax.input(agent, "ups"));
      write_file(lax.ws + "/slug.test.js", "const test = require('node:test');\ntest('every space', () => {});\n");
      json allowed = lax.hook(agent, lax.input(agent, "stop"));
      CHECK_FALSE(allowed.contains("decision"));
      CHECK(allowed["systemMessage"].get<std::string>().find("verdict fail") != std::string::npos);
    }
  }

  TEST_CASE("gate (b): a question answered without changes is allowed, never blocked, its verdict shown") {
    for (std::string agent : {"claude-code", "codex"}) {
      CAPTURE(agent);
      for (bool failing_expect : {false, true}) {
        CAPTURE(failing_expect);
        std::map<std::string, std::string> files = {{"hello.txt", "hello world\n"}};
        if (failing_expect) files[".candor/config.json"] = kExpectHelloCandor;  // tests that fail before and after
        Gate g(files);
        g.hook(agent, g.input(agent, "ups", {{"prompt", "What does hello.txt say?"}}));
        for (const char* which : {"stop", "stop_active"}) {
          json a = g.hook(agent, g.input(agent, which, {{"last_assistant_message", "It says hello world."}}));
          CHECK_FALSE(a.contains("decision"));
          std::string message = a["systemMessage"];
          CHECK(message.find("verdict") != std::string::npos);
          if (failing_expect) CHECK(message.find("not blocking") != std::string::npos);
        }
        json r = g.report();
        CHECK(r["goal_kind"] == "inspect");
        CHECK(r["gate"]["blocks"] == 0);
        CHECK(r["mutations"].empty());
      }
    }
  }

  TEST_CASE(
      "gate (c): a turn that keeps failing is blocked exactly max_blocks times, then let through with a warning") {
    Gate g(
        {{"hello.txt", "hello world\n"},
         {".candor/config.json",
          R"({"gate": {"max_blocks": 2}, "expect": [{"type": "file_contains", "path": "hello.txt", "text": "hello candor"}]})"}});
    g.hook("codex", g.input("codex", "ups"));
    write_file(g.ws + "/hello.txt", "hello again\n");
    std::vector<bool> blocks;
    json last;
    for (int i = 0; i < 4; ++i) {
      last = g.hook("codex", g.input("codex", i == 0 ? "stop" : "stop_active"));
      blocks.push_back(last.contains("decision"));
    }
    CHECK(blocks == std::vector<bool>{true, true, false, false});
    std::string message = last["systemMessage"];
    CHECK(message.find("warning: candor let this stop through after blocking it 2 times") != std::string::npos);
    CHECK(message.find("file_contains hello.txt") != std::string::npos);
    json r = g.report();
    CHECK(r["verdict"] == "partial");  // recorded as it is
    CHECK(r["gate"]["limit_reached"] == true);
    CHECK(r["gate"]["blocks"] == 2);
    CommandResult status = g.candor({"gate", "status", "-C", g.ws, "--json"});
    REQUIRE(status.exit_code == 0);
    json s = json::parse(status.out);
    REQUIRE(s["turns"].size() == 1);
    CHECK(s["turns"][0]["stops"] == 4);
    CHECK(s["turns"][0]["blocks"] == 2);
    CHECK(s["config"]["gate"]["max_blocks"] == 2);
  }

  TEST_CASE(
      "gate (d): the agent edits .candor/config.json mid-turn: the turn's start config decides, and it is reported") {
    Gate g({{"hello.txt", "hello world\n"}, {".candor/config.json", kExpectHelloCandor}});
    g.hook("claude-code", g.input("claude-code", "ups"));
    write_file(g.ws + "/hello.txt", "hello world, edited\n");
    write_file(g.ws + "/.candor/config.json", R"({"gate": {"max_blocks": 0}})");  // loosen its own gate
    json a = g.hook("claude-code", g.input("claude-code", "stop"));
    REQUIRE(a.value("decision", "") == "block");
    std::string reason = a["reason"];
    CHECK(reason.find(".candor/config.json` was modified") != std::string::npos);
    CHECK(reason.find("file_contains hello.txt") != std::string::npos);  // the start's expect still applies
    CHECK(reason.find("[protected]") != std::string::npos);
    json r = g.report();
    CHECK(r["gate"]["max_blocks"] == 3);
    CHECK(r["protected_changes"].size() == 1);
  }

  TEST_CASE("gate (d): a config an agent's turn left is refused at the next turn's start; the last good one is used") {
    Gate g(
        {{"hello.txt", "hello world\n"},
         {".candor/config.json",
          R"({"gate": {"max_blocks": 1}, "expect": [{"type": "file_contains", "path": "hello.txt", "text": "hello candor"}]})"}});
    g.hook("codex", g.input("codex", "ups"));
    write_file(g.ws + "/.candor/config.json", "{}");  // the agent loosens the gate for the turns to come
    CHECK(g.hook("codex", g.input("codex", "stop")).value("decision", "") == "block");
    CHECK_FALSE(g.hook("codex", g.input("codex", "stop_active")).contains("decision"));  // max_blocks reached

    json next = g.hook("codex", g.input("codex", "ups", {{"turn_id", "turn-two"}, {"prompt", "now edit it"}}));
    std::string warning = next["systemMessage"];
    CHECK(warning.find("is as codex's turn 1") != std::string::npos);
    CHECK(warning.find("checked with the config turn 1 began with") != std::string::npos);
    write_file(g.ws + "/hello.txt", "hello there\n");
    json blocked = g.hook("codex", g.input("codex", "stop", {{"turn_id", "turn-two"}}));
    REQUIRE(blocked.value("decision", "") == "block");
    CHECK(blocked["reason"].get<std::string>().find("file_contains hello.txt") != std::string::npos);

    // The person writes the config themselves: it is theirs, and used.
    write_file(g.ws + "/.candor/config.json", R"({"gate": {"max_blocks": 2}})");
    json third = g.hook("codex", g.input("codex", "ups", {{"turn_id", "turn-three"}}));
    CHECK_FALSE(third.contains("systemMessage"));
  }

  TEST_CASE(
      "gate: a file the turn made setuid or writable by others is suspicious and blocks; the start's own are not") {
    Gate g({{"run.sh", "#!/bin/sh\n"}, {"shared.txt", "s\n"}, {"old-setuid", "x\n"}});
    ::chmod((g.ws + "/old-setuid").c_str(), 04755);  // so before the turn: not the turn's doing
    g.hook("claude-code", g.input("claude-code", "ups"));
    ::chmod((g.ws + "/run.sh").c_str(), 04755);
    ::chmod((g.ws + "/shared.txt").c_str(), 0666);
    write_file(g.ws + "/new.txt", "n\n");
    ::chmod((g.ws + "/new.txt").c_str(), 0666);
    json a = g.hook("claude-code", g.input("claude-code", "stop"));
    REQUIRE(a.value("decision", "") == "block");
    std::string reason = a["reason"];
    CAPTURE(reason);
    CHECK(reason.find("[suspicious] `run.sh` was made setuid") != std::string::npos);
    CHECK(reason.find("`shared.txt` was made writable by others") != std::string::npos);
    CHECK(reason.find("`new.txt` was created writable by others") != std::string::npos);
    CHECK(reason.find("old-setuid") == std::string::npos);
    json r = g.report(run_id_in(a));
    CHECK(r["mutations"].size() == 3);
  }

  TEST_CASE("gate (e): an unwritable store lets the agent go on, with a visible warning, at the start and the stop") {
    Gate g({{"hello.txt", "hello world\n"}});
    std::string not_a_folder = make_temp_dir("blocked") + "/store-is-a-file";
    write_file(not_a_folder, "x");
    for (std::string agent : {"claude-code", "codex"}) {
      for (const char* which : {"ups", "stop"}) {
        CommandResult r = g.hook_raw(agent, g.input(agent, which).dump(), {"--store", not_a_folder});
        CAPTURE(r.out);
        CHECK(r.exit_code == 0);
        json j = json::parse(r.out);
        CHECK_FALSE(j.contains("decision"));
        CHECK(j["systemMessage"].get<std::string>().find("warning: candor gate could not") == 0);
      }
    }
  }

  TEST_CASE(
      "gate: a stop with no recorded start verifies the working tree against HEAD, the transcript's prompt the goal") {
    Gate g({{"hello.txt", "hello world\n"}, {".candor/config.json", kExpectHelloCandor}});
    git(g.ws, {"init", "-q", "-b", "main"});
    git(g.ws, {"add", "-A"});
    git(g.ws, {"commit", "-q", "-m", "start"});
    write_file(g.ws + "/hello.txt", "hello there\n");
    json blocked = g.hook("claude-code", g.input("claude-code", "stop"));
    REQUIRE(blocked.value("decision", "") == "block");
    CHECK(blocked["reason"].get<std::string>().find("file_contains hello.txt") != std::string::npos);
    CHECK(blocked["systemMessage"].get<std::string>().find("verified against HEAD") != std::string::npos);
    json r = g.report();
    CHECK(r["source"] == "gate");
    CHECK(r["git"]["range"] == "HEAD..");
    CHECK(r["gate"]["fallback"] == "HEAD");
    CHECK(r["goal"] == "Create hello.txt saying hello");
    write_file(g.ws + "/hello.txt", "hello candor\n");
    json allowed = g.hook("claude-code", g.input("claude-code", "stop_active"));
    CHECK_FALSE(allowed.contains("decision"));
    CHECK(g.report()["verdict"] == "success");
    CHECK(g.report()["gate"]["blocks"] == 1);  // counted across the fallback's stops

    // No repository and no start: nothing can be verified, said aloud, never blocked.
    Gate plain({{"hello.txt", "hello world\n"}});
    json open = plain.hook("codex", plain.input("codex", "stop"));
    CHECK_FALSE(open.contains("decision"));
    CHECK(open["systemMessage"].get<std::string>().find("could not be verified against HEAD") != std::string::npos);
  }

  TEST_CASE("gate, hostile: a transcript_path outside the agent's folders is never read, nor its content shown") {
    Gate g({{"hello.txt", "hello world\n"}});
    std::string secret_dir = make_temp_dir("elsewhere");
    std::string secret = secret_dir + "/" + kClaudeSession + ".jsonl";
    write_file(secret, R"({"type":"user","message":{"role":"user","content":"TOPSECRET-4471 the launch code"}})"
                       "\n");
    g.hook("claude-code", g.input("claude-code", "ups"));
    // A link inside the agent's own folder leading out is no better.
    std::string link = g.claude_config + "/projects/-ws/link-" + kClaudeSession + ".jsonl";
    fs::create_symlink(secret, link);
    for (const std::string& path : {secret, link, std::string("/etc/passwd"), g.ws + "/../../x.jsonl"}) {
      CAPTURE(path);
      CommandResult r = g.hook_raw("claude-code", g.input("claude-code", "stop", {{"transcript_path", path}}).dump());
      CHECK(r.exit_code == 0);
      CHECK(r.out.find("TOPSECRET") == std::string::npos);
      CHECK(r.err.find("TOPSECRET") == std::string::npos);
      json j = json::parse(r.out);
      CHECK(j["systemMessage"].get<std::string>().find("transcript_path") != std::string::npos);
    }
    CommandResult everything = g.candor({"report", "last", "--json", "-v"});
    CHECK(everything.out.find("TOPSECRET") == std::string::npos);
    CHECK(g.report()["gate"]["transcript"]["error"].get<std::string>().find("transcript_path") != std::string::npos);
  }

  TEST_CASE("gate, hostile: cwd /, garbage, huge and deep input are answered, fail open, never a crash or a block") {
    Gate g({{"hello.txt", "hello world\n"}});
    json root = g.hook("codex", g.input("codex", "ups", {{"cwd", "/"}}));
    CHECK(root["systemMessage"].get<std::string>().find("whole file system") != std::string::npos);
    CHECK(g.hook("codex", g.input("codex", "stop", {{"cwd", "/"}}))["systemMessage"].get<std::string>().find(
              "whole file system") != std::string::npos);
    for (const std::string& text :
         {std::string("not json"), std::string(), std::string("[1,2,3]"), std::string(100, '[') + std::string(100, ']'),
          std::string(5 << 20, ' '), std::string(R"({"hook_event_name":"Stop"})")}) {
      CommandResult r = g.hook_raw("claude-code", text);
      CAPTURE(r.out.substr(0, 300));
      CHECK(r.exit_code == 0);
      json j = json::parse(r.out);
      CHECK_FALSE(j.contains("decision"));
      CHECK(j["systemMessage"].get<std::string>().find("could not read the hook's input") != std::string::npos);
    }
    CHECK(g.candor({"runs", "--json"}).out == "[]\n");  // nothing was recorded for any of them

    // A huge prompt is the goal, cut.
    json big = g.input("claude-code", "ups", {{"prompt", std::string(1 << 20, 'p')}});
    g.hook("claude-code", big);
    CommandResult runs = g.candor({"runs", "--json"});
    json list = json::parse(runs.out);
    REQUIRE(list.size() == 1);
    std::string goal = list[0]["goal"];
    CHECK(goal.size() < 70 * 1024);
    CHECK(goal.find("[prompt cut: 1 MiB in all]") != std::string::npos);
  }

  TEST_CASE("gate, hostile: a second start of a turn (a forged one) cannot move its snapshot past the agent's work") {
    Gate g({{"hello.txt", "hello world\n"}, {".candor/config.json", kExpectHelloCandor}});
    g.hook("codex", g.input("codex", "ups"));
    write_file(g.ws + "/hello.txt", "broken\n");
    // The agent runs the hook itself, hoping to make its change part of the turn's start: with the
    // turn's own id, and with another (a new turn of the session).
    g.hook("codex", g.input("codex", "ups"));
    g.hook("codex", g.input("codex", "ups", {{"turn_id", "forged-turn"}}));
    json a = g.hook("codex", g.input("codex", "stop"));
    CHECK(a.value("decision", "") == "block");
    json r = g.report(run_id_in(a));
    CHECK(r["mutations"].size() == 1);
    CHECK(r["gate"]["turn"] == 1);
  }

  TEST_CASE("gate: the agent's own keys in the hook's environment are never used for a judge, and are masked") {
    Gate g({{"hello.txt", "hello world\n"}});
    const std::string key = "sk-ant-api03-SECRETVALUE0123456789";
    g.env.push_back("ANTHROPIC_API_KEY=" + key);
    g.env.push_back("ANTHROPIC_BASE_URL=http://127.0.0.1:9");  // nothing listens: a call would fail loudly
    g.env.push_back("OPENAI_API_KEY=" + key);
    g.hook("claude-code", g.input("claude-code", "ups", {{"prompt", "use the key " + key + " to deploy"}}));
    write_file(g.ws + "/hello.txt", "hello candor\n");
    json a = g.hook("claude-code", g.input("claude-code", "stop"));
    CHECK_FALSE(a.contains("decision"));
    CommandResult everything = g.candor({"report", "last", "--json", "-v"});
    CHECK(everything.out.find("SECRETVALUE") == std::string::npos);
    json r = g.report();
    CHECK(r["tier2"].is_null());
    CHECK(r["usage"]["llm_calls"] == 0);
    CHECK(r["goal"].get<std::string>().find("***") != std::string::npos);
  }

  TEST_CASE(
      "gate: a secret straddling a cut (the 60-byte excerpt of an acceptance why, the 2 KiB of an event) is masked "
      "whole") {
    const std::string token = "ghp_Zq8Xw3Lr5Tn7Vb2Km9Pj4Hs6Dc1Fg0Ya8Uew";
    REQUIRE(token.size() == 40);
    Gate g({{"hello.txt", "hello world\n"},
            {".candor/config.json", R"({"gate": {"acceptance": {"claude-code": {"checkpoints": [
              {"id": "ran_tests", "when": {"type": "ToolResult", "tool": "Bash",
               "predicate": {"left": "{{tool.result}}", "op": "contains", "right": "1 passed"}}}]}}}})"}});
    g.env.push_back("GITHUB_TOKEN=" + token);  // scrubbed by its name: a value known at the start
    g.hook("claude-code", g.input("claude-code", "ups"));
    write_file(g.ws + "/hello.txt", "hello candor\n");
    // The agent prints the token: first where the why's excerpt (60 bytes) cuts it after 39 of its
    // 40 bytes, then where an event's string is cut to its first 2 KiB (20 bytes before the cut).
    auto bash = [](const std::string& id, const std::string& output) {
      return json{{"type", "assistant"},
                  {"message",
                   {{"role", "assistant"},
                    {"content",
                     json::array(
                         {{{"type", "tool_use"}, {"id", id}, {"name", "Bash"}, {"input", {{"command", "env"}}}}})}}}}
                 .dump() +
             "\n" +
             json{{"type", "user"},
                  {"message",
                   {{"role", "user"},
                    {"content",
                     json::array(
                         {{{"type", "tool_result"}, {"tool_use_id", id}, {"content", output}, {"is_error", false}}})}}},
                  {"toolUseResult", {{"stdout", output}, {"stderr", ""}, {"interrupted", false}}}}
                 .dump() +
             "\n";
    };
    {
      std::ofstream out(g.transcript("claude-code"), std::ios::binary | std::ios::app);
      out << bash("mask1", "GITHUB_TOKEN(env):   " + token);
      out << bash("mask2", std::string(2048 - 20, 'a') + token + std::string(3000, 'b'));
    }
    json a = g.hook("claude-code", g.input("claude-code", "stop"));
    REQUIRE(a.value("decision", "") == "block");
    std::string reason = a["reason"];
    CAPTURE(reason);
    CHECK(reason.find("ran_tests") != std::string::npos);
    CHECK(reason.find("***") != std::string::npos);
    CHECK(longest_piece(reason, token) <= 8);
    CommandResult everything = g.candor({"report", run_id_in(a), "--json", "-v"});
    REQUIRE(everything.exit_code <= 3);
    CHECK(everything.out.find("GITHUB_TOKEN(env)") != std::string::npos);  // the events were stored
    CHECK(longest_piece(everything.out, token) <= 8);
    // Nor anywhere in the store's database (its events, the report, the gate's rows).
    for (const auto& e : fs::directory_iterator(g.store)) {
      if (!e.is_regular_file()) continue;
      CAPTURE(e.path().string());
      CHECK(longest_piece(read_file(e.path().string()), token) <= 8);
    }
  }

  TEST_CASE("gate: with --llm on the hook, the judge decides a turn that changed nothing but asked for a change") {
    Gate g({{"hello.txt", "hello world\n"}});
    std::string script = make_temp_dir("llm") + "/replies.jsonl";
    write_file(
        script,
        R"({"reply_json": {"questions": ["Does hello.txt say hello candor?"], "asks_for_change": true}})"
        "\n"
        R"({"reply_json": {"answers": [{"question": 1, "answer": "no", "reason": "hello.txt still says hello world"}, {"question": 2, "answer": "yes", "reason": "nothing else changed"}]}})"
        "\n"
        R"({"reply_json": {"questions": ["Does the answer say what hello.txt holds?"], "asks_for_change": false}})"
        "\n"
        R"({"reply_json": {"answers": [{"question": 1, "answer": "yes", "reason": "it does"}, {"question": 2, "answer": "yes", "reason": "nothing changed"}]}})"
        "\n");
    std::vector<std::string> llm = {"--llm", "script:" + script};
    g.hook("claude-code", g.input("claude-code", "ups"), llm);
    json a = g.hook("claude-code", g.input("claude-code", "stop"), llm);
    REQUIRE(a.value("decision", "") == "block");
    std::string reason = a["reason"];
    CHECK(reason.find("[unchanged]") != std::string::npos);
    CHECK(reason.find("hello.txt still says hello world") != std::string::npos);
    json r = g.report();
    CHECK(r["tier2"]["asks_for_change"] == true);
    CHECK(r["verdict_by"] == "tier2");

    // A question: the judge's decomposition says so, and its yes lets it through.
    Gate q({{"hello.txt", "hello world\n"}});
    std::string replies = read_file(script);
    std::string second_half = replies.substr(replies.find("{\"reply_json\": {\"questions\": [\"Does the answer"));
    std::string script2 = make_temp_dir("llm2") + "/replies.jsonl";
    write_file(script2, second_half);
    q.hook("codex", q.input("codex", "ups", {{"prompt", "What does hello.txt say?"}}), {"--llm", "script:" + script2});
    json ok = q.hook("codex", q.input("codex", "stop"), {"--llm", "script:" + script2});
    CHECK_FALSE(ok.contains("decision"));
    CHECK(q.report()["verdict"] == "success");
  }

  TEST_CASE("gate install and status through the binary: idempotent, every other hook kept, uninstall") {
    Gate g({{"hello.txt", "hello world\n"}});
    write_file(g.ws + "/.claude/settings.json",
               R"({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-done"}]}]}, "model": "opus"})");
    CommandResult first = g.candor({"gate", "install", "--agent", "claude-code", "-C", g.ws});
    CAPTURE(first.err);
    REQUIRE(first.exit_code == 0);
    CHECK(first.out.find("added a Stop hook running: " + candor_bin() + " gate claude-code") != std::string::npos);
    CommandResult second = g.candor({"gate", "install", "--agent", "claude-code", "-C", g.ws});
    CHECK(second.out.find("nothing to change") != std::string::npos);
    json settings = json::parse(read_file(g.ws + "/.claude/settings.json"));
    CHECK(settings["model"] == "opus");
    CHECK(settings["hooks"]["Stop"][0]["hooks"][0]["command"] == "notify-done");

    CommandResult codex = g.candor({"gate", "install", "--agent", "codex", "-C", g.ws, "--llm", "script:/j.jsonl"});
    REQUIRE(codex.exit_code == 0);
    CHECK(read_file(g.codex_home + "/config.toml").find("[features]\nhooks = true") != std::string::npos);
    CHECK(codex.out.find("/hooks") != std::string::npos);
    // CANDOR_HOME (the fixture's store) is not the store the hook finds in the agent's environment: pinned.
    CHECK(read_file(g.ws + "/.codex/hooks.json").find("gate codex --store " + g.store + " --llm script:/j.jsonl") !=
          std::string::npos);

    CommandResult status = g.candor({"gate", "status", "-C", g.ws, "--json"});
    REQUIRE(status.exit_code == 0);
    json s = json::parse(status.out);
    REQUIRE(s["installs"].size() == 5);
    CHECK(s["installs"][0]["installed"] == true);   // claude-code, project
    CHECK(s["installs"][1]["installed"] == false);  // claude-code, local
    CHECK(s["installs"][2]["installed"] == false);  // claude-code, user
    CHECK(s["installs"][3]["installed"] == true);   // codex, project
    CHECK(s["installs"][3]["trust"].get<std::string>().find("not trusted") == 0);
    CHECK(s["codex_hooks_feature"] == "on");
    CHECK(g.candor({"gate", "status", "-C", g.ws}).out.find("installed (Stop, UserPromptSubmit)") != std::string::npos);

    CommandResult user = g.candor({"gate", "install", "--agent", "claude-code", "--user"});
    REQUIRE(user.exit_code == 0);
    CHECK(json::parse(read_file(g.claude_config + "/settings.json"))["hooks"]["Stop"].size() == 1);

    CommandResult removed = g.candor({"gate", "install", "--agent", "claude-code", "-C", g.ws, "--uninstall"});
    REQUIRE(removed.exit_code == 0);
    CHECK(json::parse(read_file(g.ws + "/.claude/settings.json")) ==
          json::parse(
              R"({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-done"}]}]}, "model": "opus"})"));

    write_file(g.ws + "/.claude/settings.json", "{\"hooks\": [");
    CommandResult bad = g.candor({"gate", "install", "--agent", "claude-code", "-C", g.ws});
    CHECK(bad.exit_code == 65);
    CHECK(bad.err.find(g.ws + "/.claude/settings.json") != std::string::npos);
    CHECK(read_file(g.ws + "/.claude/settings.json") == "{\"hooks\": [");
  }
}

}  // namespace candor::testing
