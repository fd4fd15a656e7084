// `verify --trajectory` on the built binary: a 200 MB session imported in bounded memory, a file
// that is not the named format refused (exit 65, the file and what was expected named), and specs
// naming MCP tools and the tools the transcript itself calls.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <filesystem>

#include <fstream>
#include <functional>

#include <fmt/format.h>

#include "tests/e2e_support.h"
#include "tests/git_repo_fixture.h"
#include "tests/kernel_facts.h"

using namespace candor;
using namespace candor::testing;
using nlohmann::json;

namespace {

// A Claude Code session of `calls` Bash calls whose results print `output_bytes` each (twice:
// the result's text and toolUseResult.stdout, as Claude Code writes them), then an answer.
std::string big_session(int calls, std::size_t output_bytes) {
  std::string path = make_temp_dir("big") + "/session.jsonl";
  std::ofstream out(path, std::ios::binary);
  std::string output(output_bytes, 'x');
  out << R"({"type":"user","message":{"role":"user","content":"go"}})" << '\n';
  for (int i = 0; i < calls; ++i) {
    out << fmt::format(
               R"({{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"tool_use","id":"t{}","name":"Bash","input":{{"command":"make test {}"}}}}]}}}})",
               i, i)
        << '\n';
    out << fmt::format(
               R"({{"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t{}","content":"{}{}","is_error":false}}]}},"toolUseResult":{{"stdout":"{}","stderr":"","interrupted":false}}}})",
               i, output, i, output)
        << '\n';
  }
  out << R"({"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"all 10000 passed"}]}})"
      << '\n';
  return path;
}

CommandResult verify_under_limit(Env& env, const std::string& file, const std::string& spec, long kib) {
  std::string line =
      fmt::format("ulimit -v {}; exec {} verify --trajectory {} --format claude-code --acceptance {} --json", kib,
                  candor_bin(), file, spec);
  std::vector<std::string> e = env.env;
  e.push_back("CANDOR_HOME=" + env.store);
  return run_command({"/bin/sh", "-c", line}, e);
}

// A Claude Code session that prints the two secrets: DB_PASS's value as a Bash result, GITHUB_TOKEN's
// as the answer, and the token again where the result's string is cut to its first 2 KiB.
const std::string kDbPass = "hunter2hunter2secret";
const std::string kToken = "ghp_Zq8Xw3Lr5Tn7Vb2Km9Pj4Hs6Dc1Fg0Ya8Uew";

std::string leaking_session() {
  std::string path = make_temp_dir("leak") + "/session.jsonl";
  auto call = [](const std::string& id, const std::string& output) {
    return fmt::format(
        R"({{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"tool_use","id":"{}","name":"Bash","input":{{"command":"echo $DB_PASS"}}}}]}}}})"
        "\n"
        R"({{"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{}","content":"{}","is_error":false}}]}}}})"
        "\n",
        id, id, output);
  };
  write_file(path, call("t1", kDbPass) + call("t2", std::string(2048 - 20, 'a') + kToken + std::string(3000, 'b')) +
                       R"({"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":")" +
                       kToken + "\"}]}}\n");
  return path;
}

const char* kLeakSpec = R"({"checkpoints": [
  {"id": "a", "when": {"type": "ToolResult", "tool": "Bash", "predicate": {"left": "{{tool.result}}", "op": "eq", "right": "nothing"}}},
  {"id": "fa", "when": {"type": "FinalAnswer", "predicate": {"left": "{{final_answer}}", "op": "eq", "right": "x"}}}]})";

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("verify --trajectory: the environment's secret values are masked in the terminal and --json output") {
    Env env;
    env.env.push_back("DB_PASS=" + kDbPass);      // scrubbed by its name (*_PASS)
    env.env.push_back("GITHUB_TOKEN=" + kToken);  // and *_TOKEN
    std::string file = leaking_session();
    std::string spec = env.plan_file(kLeakSpec);
    for (bool json_out : {false, true}) {
      CAPTURE(json_out);
      std::vector<std::string> args = {"verify", "--trajectory", file, "--format", "claude-code", "--acceptance", spec};
      if (json_out) args.emplace_back("--json");
      CommandResult r = env.candor(args);
      CAPTURE(r.out);
      CAPTURE(r.err);
      CHECK(r.exit_code == 3);  // acceptance not passed: the checkpoints' whys were said
      CHECK(r.out.find("***") != std::string::npos);
      CHECK(longest_piece(r.out + r.err, kDbPass) <= 8);
      CHECK(longest_piece(r.out + r.err, kToken) <= 8);
    }
  }

  TEST_CASE("verify --git --trajectory: the stored run holds none of the environment's secret values") {
    Repo repo;
    repo.env.push_back("DB_PASS=" + kDbPass);
    repo.env.push_back("GITHUB_TOKEN=" + kToken);
    std::string base = repo.head();
    repo.edit("css/style.css", "background: #ffffff", "background: #006400");
    repo.commit("dark green");
    CommandResult r =
        repo.verify(base + "..HEAD", {"--judge", "never", "--expect", kDarkGreen, "--trajectory", leaking_session(),
                                      "--format", "claude-code", "--acceptance", repo.plan_file(kLeakSpec), "--json"});
    CAPTURE(r.err);
    REQUIRE(r.exit_code <= 3);
    CHECK(r.out.find("closest:") != std::string::npos);  // the acceptance whys are in the report
    CommandResult everything = repo.candor({"report", "last", "--json", "-v"});
    REQUIRE(everything.exit_code <= 3);
    for (const std::string& text : {r.out + r.err, everything.out}) {
      CHECK(longest_piece(text, kDbPass) <= 8);
      CHECK(longest_piece(text, kToken) <= 8);
    }
  }

  TEST_CASE(
      "verify --trajectory: a 200 MB session is imported under 300 MB of memory, every call counted" *
      needs(!kAddressSanitizer, "a build without AddressSanitizer (ulimit -v leaves no room for its shadow memory)")) {
    Env env;
    std::string file = big_session(10000, 10000);  // 10,000 calls x 2 x 10 KB: 204 MB
    CHECK(std::filesystem::file_size(file) > 200'000'000);
    std::string spec = env.plan_file(R"({"ordered": false, "checkpoints": [
        {"id": "last", "when": {"type": "ToolResult", "tool": "Bash", "predicate": {"left": "{{tool.input.command}}", "op": "eq", "right": "make test 9999"}}},
        {"id": "kept_the_end", "when": {"type": "ToolResult", "tool": "Bash", "predicate": {"left": "{{tool.result.output}}", "op": "ends_with", "right": "x9999"}}},
        {"id": "said", "when": {"type": "FinalAnswer", "predicate": {"left": "{{final_answer}}", "op": "eq", "right": "all 10000 passed"}}}]})");
    // 300 MB of address space for the whole process: reading the file whole (as before) cannot fit.
    auto r = verify_under_limit(env, file, spec, 300'000);
    CAPTURE(r.err);
    CAPTURE(r.out);
    REQUIRE(r.exit_code == 0);
    json j = json::parse(r.out);
    CHECK(j["events"] == json({{"tool_called", 10000}, {"tool_result", 10000}, {"final_answer", 1}}));
    CHECK(j["records"] == 20002);
    CHECK(j["acceptance"]["passed"] == true);
  }

  TEST_CASE("verify --trajectory: a file that is not the named format is exit 65 naming it, never an empty run") {
    struct Row {
      const char* name;
      const char* format;
      std::string text;
      std::string message;  // after "candor: FILE"
    };
    std::vector<Row> rows = {
        {"a one-line JSON array as claude-code", "claude-code", R"([{"type":"user","message":{"content":"hi"}}])",
         ":1: not a JSON Lines record: the line is JSON, but not an object (a array)"},
        {"an OpenHands V1 page as claude-code", "claude-code", "{\"items\": [{\"kind\": \"ActionEvent\"}]}\n",
         ": not a Claude Code session (JSON Lines): none of its 1 records is one ((untyped) x1)"},
        {"a Codex rollout as claude-code", "claude-code",
         R"({"type":"session_meta","payload":{"id":"s"}})"
         "\n",
         ": not a Claude Code session (JSON Lines): none of its 1 records is one (session_meta x1)"},
        {"an empty file", "codex", "", ": no records: not a Codex rollout (JSON Lines)"},
        {"a Claude Code session as openhands", "openhands",
         R"({"type":"user","message":{"role":"user","content":"go"}})"
         "\n",
         ": not an OpenHands event stream: none of its 1 records is one (user x1)"},
        {"Markdown that is no aider history", "aider", "# Notes\n\nsome text\n",
         ": not an aider chat history: no \"# aider chat started at\" or \"#### \" line"},
        {"a SWE-agent .traj as mini-swe-agent", "mini-swe-agent", "{\n  \"history\": [],\n  \"info\": {}\n}\n",
         ": not a mini-swe-agent trajectory (an object with a \"messages\" array, or an array): the object has no "
         "\"messages\" array"},
        {"a one-line object of another agent as mini-swe-agent", "mini-swe-agent", R"({"history": [], "info": {}})",
         ": not a mini-swe-agent trajectory (.traj.json): none of its 1 records is one ((untyped) x1)"},
    };
    for (const auto& row : rows) {
      CAPTURE(row.name);
      Env env;
      std::string file = make_temp_dir("wrong") + "/transcript";
      write_file(file, row.text);
      auto r = env.candor({"verify", "--trajectory", file, "--format", row.format, "--json"});
      CAPTURE(r.err);
      CHECK(r.exit_code == 65);
      CHECK(r.err == "candor: " + file + row.message + "\n");
      CHECK(r.out.empty());
    }
  }

  TEST_CASE(
      "verify --trajectory: a spec may name an MCP tool or a tool the transcript calls; a typo is still refused") {
    Env env;
    std::string file = make_temp_dir("t") + "/session.jsonl";
    write_file(
        file,
        R"({"type":"assistant","message":{"content":[{"type":"tool_use","id":"a","name":"mcp__github__create_pull_request","input":{"title":"Fix"}}]}})"
        "\n"
        R"({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"a","content":"created #7"}]}})"
        "\n"
        R"({"type":"assistant","message":{"content":[{"type":"tool_use","id":"b","name":"PluginDeploy","input":{}}]}})"
        "\n");
    std::string spec = env.plan_file(R"({"checkpoints": [
        {"id": "pr", "when": {"type": "ToolResult", "tool": "mcp__github__create_pull_request", "predicate": {"left": "{{tool.result}}", "op": "contains", "right": "#7"}}},
        {"id": "deployed", "when": {"type": "ToolCalled", "tool": "PluginDeploy"}},
        {"id": "worktree", "essential": false, "when": {"type": "ToolCalled", "tool": "EnterWorktree"}}]})");
    auto r = env.candor({"verify", "--trajectory", file, "--format", "claude-code", "--acceptance", spec, "--json"});
    CAPTURE(r.err);
    CHECK(r.exit_code == 0);
    CHECK(json::parse(r.out)["acceptance"]["passed"] == true);
    // `check` has no transcript: the catalogue and MCP tools only.
    std::string mcp = env.plan_file(
        R"({"checkpoints": [{"id": "pr", "when": {"type": "ToolCalled", "tool": "mcp__github__create_pull_request"}}]})");
    CHECK(env.candor({"check", mcp, "--format", "claude-code"}).exit_code == 0);
    CHECK(env.candor({"check", spec, "--format", "claude-code"}).exit_code == 65);  // PluginDeploy: none of them
    std::string typo =
        env.plan_file(R"({"checkpoints": [{"id": "x", "when": {"type": "ToolCalled", "tool": "Bsh"}}]})");
    auto refused = env.candor({"verify", "--trajectory", file, "--format", "claude-code", "--acceptance", typo});
    CHECK(refused.exit_code == 65);
    CHECK(refused.err.find("names the tool \"Bsh\", which this agent cannot call") != std::string::npos);
    std::string bare =
        env.plan_file(R"({"checkpoints": [{"id": "x", "when": {"type": "ToolCalled", "tool": "mcp__"}}]})");
    CHECK(env.candor({"check", bare, "--format", "claude-code"}).exit_code == 65);  // a prefix is no tool
  }

  TEST_CASE(
      "verify --trajectory: an OpenHands V1 conversation folder is read; a folder for another format is exit 65") {
    Env env;
    // As OpenHands-CLI keeps it: ~/.openhands/conversations/<id>/events/event-NNNNN-<id>.json.
    std::string conversation = make_temp_dir("conversation");
    std::filesystem::copy(data_dir() + "/trajectories/openhands/confirmation_mode", conversation + "/events");
    write_file(conversation + "/base_state.json", "{}");
    std::string spec = env.plan_file(R"({"checkpoints": [
        {"id": "ran", "when": {"type": "ToolResult", "tool": "terminal", "predicate": {"left": "{{tool.result.exit_code}}", "op": "eq", "right": 0}}},
        {"id": "said", "when": {"type": "FinalAnswer", "predicate": {"left": "{{final_answer}}", "op": "eq", "right": "hello world"}}}]})");
    for (const std::string& dir : {conversation, conversation + "/events"}) {
      CAPTURE(dir);
      auto r = env.candor({"verify", "--trajectory", dir, "--format", "openhands", "--acceptance", spec, "--json"});
      CAPTURE(r.err);
      REQUIRE(r.exit_code == 0);
      json j = json::parse(r.out);
      CHECK(j["records"] == 13);
      CHECK(j["events"] == json({{"tool_called", 3}, {"tool_result", 3}, {"final_answer", 1}}));
      CHECK(j["acceptance"]["passed"] == true);
    }
    auto other = env.candor({"verify", "--trajectory", conversation, "--format", "claude-code"});
    CHECK(other.exit_code == 65);
    CHECK(other.err == "candor: " + conversation +
                           ": a folder, not a Claude Code session (JSON Lines): only --format openhands reads a folder "
                           "(an OpenHands V1 conversation's events/); give the transcript file\n");
    std::string empty = make_temp_dir("empty");
    auto none = env.candor({"verify", "--trajectory", empty, "--format", "openhands"});
    CHECK(none.exit_code == 65);
    CHECK(none.err == "candor: " + empty +
                          ": no event-NNNNN-<id>.json files in it or in its events/ folder: not an OpenHands V1 "
                          "conversation folder\n");
  }

  TEST_CASE(
      "verify --trajectory, hostile: a FIFO or a link among the event files, or as the file, is refused at once") {
    Env env;
    std::string secret = make_temp_dir("outside") + "/token";
    write_file(secret, "\"ghp_16C7e42F292c6912E7710c838347Ae178B4a\n");
    struct Row {
      const char* what;
      std::function<void(const std::string& events)> plant;
      std::string refused;  // the file named
    };
    const std::vector<Row> rows = {
        {"a FIFO", [](const std::string& d) { REQUIRE(::mkfifo((d + "/event-00099-fifo.json").c_str(), 0600) == 0); },
         "event-00099-fifo.json"},
        {"a link to a file outside",
         [&](const std::string& d) { std::filesystem::create_symlink(secret, d + "/event-00099-link.json"); },
         "event-00099-link.json"},
    };
    for (const auto& row : rows) {
      CAPTURE(row.what);
      std::string conversation = make_temp_dir("conversation");
      std::filesystem::copy(data_dir() + "/trajectories/openhands/confirmation_mode", conversation + "/events");
      row.plant(conversation + "/events");
      // A FIFO read would block for ever: the test's own timeout is the guard.
      auto r = env.candor({"verify", "--trajectory", conversation, "--format", "openhands", "--json"});
      CHECK(r.exit_code == 65);
      CHECK(r.err == "candor: " + conversation + "/events/" + row.refused +
                         ": refused: not a regular file (a link, a FIFO or a device)\n");
      CHECK(r.out.find("ghp_") == std::string::npos);
      CHECK(r.err.find("ghp_") == std::string::npos);
    }
    // An events/ that is a link to another folder is not followed.
    std::string conversation = make_temp_dir("conversation");
    std::string elsewhere = make_temp_dir("elsewhere");
    std::filesystem::copy(data_dir() + "/trajectories/openhands/confirmation_mode", elsewhere + "/events");
    std::filesystem::create_symlink(elsewhere + "/events", conversation + "/events");
    auto linked = env.candor({"verify", "--trajectory", conversation, "--format", "openhands"});
    CHECK(linked.exit_code == 65);
    CHECK(linked.err.find("refused: a link, not the conversation's own events folder") != std::string::npos);
    // A FIFO given as the transcript itself is refused before it is opened.
    std::string fifo = make_temp_dir("fifo") + "/session.jsonl";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    auto named = env.candor({"verify", "--trajectory", fifo, "--format", "claude-code"});
    CHECK(named.exit_code == 65);
    CHECK(named.err == "candor: cannot read " + fifo + ": not a regular file\n");
  }
}
