// End-to-end: the built `candor` binary on temporary workspaces.
#include <doctest/doctest.h>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "store/run_store.h"
#include "tests/e2e_support.h"

using namespace candor;
using namespace candor::testing;
using nlohmann::json;
namespace fs = std::filesystem;

TEST_SUITE("e2e") {
  TEST_CASE("the bundled patch plan succeeds and the stylesheet is dark green") {
    Env env;
    auto r = env.exec(example_plan("patch.json"));
    CHECK(r.exit_code == 0);
    json j = parse_stdout(r);
    CHECK(j["verdict"] == "success");
    CHECK(j["verdict_by"] == "tier1");
    CHECK(j["status"] == "completed");
    CHECK(j["goal_actions_executed"] == true);
    REQUIRE(j["mutations"].size() == 1);
    CHECK(j["mutations"][0]["path"] == "css/style.css");
    CHECK(j["mutations"][0]["change"] == "modified");
    CHECK(j["mutations"][0]["lines_added"] == 2);
    CHECK(j["mutations"][0]["lines_removed"] == 2);
    CHECK(j["mutations"][0]["steps"] == json::array({"s3"}));
    CHECK(j["suspicious"].empty());
    CHECK(j["assertions"].size() == 3);
    CHECK(read_file(env.ws + "/css/style.css").find("background: #006400;") != std::string::npos);
  }

  TEST_CASE("the bundled discovery-only plan is partial: tried, never made the change") {
    Env env;
    auto before = tree_contents(env.ws);
    auto r = env.exec(example_plan("discover.json"));
    CHECK(r.exit_code == 1);
    json j = parse_stdout(r);
    CHECK(j["verdict"] == "partial");
    CHECK(j["status"] == "budget_exhausted");
    CHECK(j["goal_actions_executed"] == false);
    CHECK(j["budget"]["exhausted"] == "replans");
    CHECK(j["budget"]["replans"] == json::array({0, 0}));
    CHECK(j["steps"] == json{{"planned", 4}, {"executed", 4}, {"failed", 0}});
    CHECK(j["mutations"].empty());
    CHECK(j["reasons"][0] == "the replan budget (0) ran out before any effect tool ran: tried, never made the change");
    CHECK(tree_contents(env.ws) == before);
  }

  TEST_CASE("the terminal report a person reads starts with the verdict") {
    Env env;
    auto r = env.candor({"exec", example_plan("patch.json"), "-C", env.ws});
    CHECK(r.exit_code == 0);
    CHECK(r.out.rfind("SUCCESS  exec ", 0) == 0);
    CHECK(r.out.find("\nwhy\n") != std::string::npos);
    CHECK(r.out.find("M css/style.css  +2 -2  by s3") != std::string::npos);
    CHECK(r.out.find("\033[") == std::string::npos);
  }

  TEST_CASE("runs and report read the store back") {
    Env env;
    json first = parse_stdout(env.exec(example_plan("patch.json")));
    json second = parse_stdout(env.exec(example_plan("discover.json")));
    auto runs = env.candor({"runs", "--json"});
    CHECK(runs.exit_code == 0);
    json list = parse_stdout(runs);
    REQUIRE(list.size() == 2);
    CHECK(list[0]["run_id"] == second["run_id"]);
    CHECK(list[0]["verdict"] == "partial");
    CHECK(list[1]["verdict"] == "success");
    auto last = env.candor({"report", "--json"});
    CHECK(last.exit_code == 0);
    CHECK(parse_stdout(last) == second);
    // The shortest prefix of the first id that the second does not share: strictly shorter than
    // the id, and enough to name the first run alone.
    const std::string a = first["run_id"], b = second["run_id"];
    std::size_t common = std::mismatch(a.begin(), a.end(), b.begin(), b.end()).first - a.begin();
    REQUIRE(common > 0);  // both ids begin with the year
    REQUIRE(common + 1 < a.size());
    auto by_prefix = env.candor({"report", a.substr(0, common + 1), "--json"});
    CHECK(by_prefix.exit_code == 0);
    CHECK(parse_stdout(by_prefix) == first);
    auto ambiguous = env.candor({"report", a.substr(0, common), "--json"});
    CHECK(ambiguous.exit_code == 65);
    CHECK(ambiguous.out.empty());
    CHECK(ambiguous.err.find("\"" + a.substr(0, common) + "\" matches several runs") != std::string::npos);
    // The shared part, then a character neither id has next: a well-formed prefix of no run.
    std::string unknown_prefix = a.substr(0, common);
    for (char c : std::string("0123456789abcdef")) {
      if (c != a[common] && c != b[common]) {
        unknown_prefix += c;
        break;
      }
    }
    auto unknown = env.candor({"report", unknown_prefix, "--json"});
    CHECK(unknown.exit_code == 65);
    CHECK(unknown.err.find("no run matches") != std::string::npos);
    auto text = env.candor({"runs"});
    CHECK(text.out.rfind("RUN ", 0) == 0);
    auto missing = env.candor({"report", "nosuchrun"});
    CHECK(missing.exit_code == 65);
    CHECK(missing.err.find("no run matches \"nosuchrun\"") != std::string::npos);
  }

  TEST_CASE("invalid plans exit 65 naming the JSON path, and nothing runs") {
    Env env;
    auto before = tree_contents(env.ws);
    struct Row {
      std::string plan, message;
    };
    std::string step = R"({"id": "s1", "tool": "file_write", "args": {"path": "x.txt", "content": "y"}})";
    std::vector<Row> rows = {
        {R"({"goal_kind": "modify", "steps": [)" + step + R"(,
            {"id": "s2", "tool": "file_read", "args": {"path": "x.txt"}},
            {"id": "s3", "tool": "file_read", "args": {"path": "x.txt"}, "assert": [{"type": "file_containz", "path": "x.txt", "text": "y"}]}],
            "then": "finish"})",
         "steps[2].assert[0].type: unknown assertion type \"file_containz\""},
        {R"({"goal_kind": "modify", "steps": [{"id": "s1", "tool": "rm_rf", "args": {}}], "then": "finish"})",
         "steps[0].tool: unknown tool \"rm_rf\""},
        {R"({"goal_kind": "modify", "steps": [{"id": "s1", "tool": "file_read", "args": {"path": 1}}], "then": "finish"})",
         "steps[0].args.path: expected a string, got integer 1"},
        {R"({"goal_kind": "modify", "steps": [)" + step + R"(], "then": "finish", "confidence": 0.9})",
         "confidence: unknown field \"confidence\""},
        {R"({"goal_kind": "modify", "steps": [)" + step + R"(], "then": "finish")", "not valid JSON"},
        {R"({"steps": [], "then": "finish"})", "goal_kind: missing"},
    };
    for (const auto& row : rows) {
      CAPTURE(row.plan);
      std::string plan = env.plan_file(row.plan);
      auto r = env.exec(plan);
      CHECK(r.exit_code == 65);
      CHECK(r.err.find(plan + ":") != std::string::npos);
      CHECK(r.err.find(row.message) != std::string::npos);
      CHECK(r.out.empty());
    }
    auto missing = env.exec(env.ws + "/no-such-plan.json");
    CHECK(missing.exit_code == 65);
    CHECK(missing.err.find("cannot read " + env.ws + "/no-such-plan.json") != std::string::npos);
    CHECK(tree_contents(env.ws) == before);
    CHECK(parse_stdout(env.candor({"runs", "--json"})).empty());
  }

  TEST_CASE("usage errors exit 64") {
    Env env;
    for (const auto& args :
         std::vector<std::vector<std::string>>{{},
                                               {"frobnicate"},
                                               {"exec"},
                                               {"exec", example_plan("patch.json"), "--max-steps", "0"},
                                               {"exec", example_plan("patch.json"), "--no-such-flag"}}) {
      CAPTURE(args.size());
      CHECK(env.candor(args).exit_code == 64);
    }
  }

  TEST_CASE("a malformed .candor/config.json exits 65 naming the file; a valid one sets the budget") {
    Env env;
    write_file(env.ws + "/.candor/config.json", R"({"budget": {"max_stepz": 3}})");
    auto bad = env.exec(example_plan("patch.json"));
    CHECK(bad.exit_code == 65);
    CHECK(bad.err.find(".candor/config.json: budget.max_stepz: unknown argument") != std::string::npos);
    write_file(env.ws + "/.candor/config.json", R"({"budget": {"max_steps": 2}})");
    json j = parse_stdout(env.exec(example_plan("patch.json")));
    CHECK(j["status"] == "budget_exhausted");
    CHECK(j["budget"]["exhausted"] == "steps");
    CHECK(j["budget"]["steps"] == json::array({2, 2}));
    CHECK(j["verdict"] == "partial");
  }

  TEST_CASE("--expect adds goal-level assertions; a failing one makes the run partial") {
    Env env;
    auto r = env.exec(example_plan("patch.json"),
                      {"--expect", R"({"type": "file_contains", "path": "index.html", "text": "dark green"})"});
    CHECK(r.exit_code == 1);
    json j = parse_stdout(r);
    CHECK(j["verdict"] == "partial");
    CHECK(j["reasons"][0].get<std::string>().find(
              "goal-level file_contains: index.html does not contain \"dark green\"") != std::string::npos);
    auto bad = env.exec(example_plan("patch.json"), {"--expect", R"({"type": "file_contains", "path": "a"})"});
    CHECK(bad.exit_code == 65);
    CHECK(bad.err.find("--expect #1.text: missing required string argument") != std::string::npos);
  }

  TEST_CASE("shell steps: a timeout returns fast and a 10 MB flood is capped, said, and stored capped") {
    Env env;
    std::string plan = env.plan_file(R"({"goal_kind": "modify", "steps": [
        {"id": "flood", "tool": "shell", "args": {"command": "head -c 10000000 /dev/zero | tr '\\0' x; echo > made.txt"},
         "assert": [{"type": "file_exists", "path": "made.txt"}]},
        {"id": "hang", "tool": "shell", "args": {"command": "sleep 100.4242", "timeout_s": 1}}], "then": "finish"})");
    auto start = std::chrono::steady_clock::now();
    auto r = env.exec(plan);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
    CHECK(r.exit_code == 1);
    json j = parse_stdout(r);
    CHECK(j["status"] == "budget_exhausted");
    CHECK(j["step_results"][1]["error"].get<std::string>().rfind("timed out after", 0) == 0);
    CHECK(j["mutations"][0]["path"] == "made.txt");
    CHECK(j["mutations"][0]["steps"] == json::array({"flood"}));
    auto store = store::RunStore::open(env.store);
    auto run = (*store)->load(j["run_id"].get<std::string>());
    REQUIRE(run.ok());
    bool seen = false;
    for (const auto& e : run->events) {
      if (e.type == "tool_result" && e.data["step"] == "flood") {
        seen = true;
        CHECK(e.data["output_bytes"] == 10000000);
        CHECK(e.data["output_truncated"] == true);
        CHECK(e.data["output"].get<std::string>().size() < 70000);
      }
    }
    CHECK(seen);
    CHECK(run_command({"/usr/bin/pgrep", "-f", "sleep 100[.]4242"}).exit_code == 1);
  }

  TEST_CASE("escapes through the binary are step failures, and the outside is untouched") {
    Env env;
    std::string outside = make_temp_dir("outside");
    write_file(outside + "/secret.txt", "SECRET");
    fs::create_symlink(outside, env.ws + "/out");
    std::string plan = env.plan_file(R"({"goal_kind": "modify", "steps": [
        {"id": "s1", "tool": "file_write", "args": {"path": "out/secret.txt", "content": "PWNED"}}], "then": "finish"})");
    json j = parse_stdout(env.exec(plan));
    CHECK(j["verdict"] == "partial");
    CHECK(j["step_results"][0]["error"] == "out/secret.txt: resolves outside the workspace");
    CHECK(read_file(outside + "/secret.txt") == "SECRET");
  }

  TEST_CASE("a real small website (MDN's beginner site): change the html background") {
    Env env(data_dir() + "/workspaces/mdn-beginner-html-site-styled");
    std::string plan = env.plan_file(R"({"goal_kind": "modify",
      "questions": ["Is the page background dark green?"],
      "steps": [
        {"id": "s1", "tool": "file_search", "args": {"pattern": "background(-color)?:", "glob": "*.css"}},
        {"id": "s2", "tool": "file_patch", "args": {"path": "styles/style.css",
           "edits": [{"find": "background-color: #00539F;", "replace": "background-color: #006400;"}]},
         "assert": [{"type": "file_contains", "path": "styles/style.css", "text": "#006400"}]}],
      "then": "finish", "final_answer": "The html background is dark green."})");
    json j = parse_stdout(env.exec(plan));
    CHECK(j["verdict"] == "success");
    CHECK(j["mutations"][0]["path"] == "styles/style.css");
    // The same change with no assertion is not proven: partial, unverified.
    Env again(data_dir() + "/workspaces/mdn-beginner-html-site-styled");
    std::string unchecked = again.plan_file(R"({"goal_kind": "modify", "steps": [
        {"id": "s1", "tool": "file_patch", "args": {"path": "styles/style.css",
           "edits": [{"find": "background-color: #00539F;", "replace": "background-color: #006400;"}]}}],
      "then": "finish"})");
    json u = parse_stdout(again.exec(unchecked));
    CHECK(u["verdict"] == "partial");
    CHECK(u["reasons"][0].get<std::string>().rfind("unverified", 0) == 0);
  }

  TEST_CASE("a run killed mid-step keeps its events, and report says it never ended") {
    Env env;
    std::string plan = env.plan_file(R"({"goal_kind": "modify", "steps": [
        {"id": "s1", "tool": "file_write", "args": {"path": "a.txt", "content": "x"}},
        {"id": "s2", "tool": "shell", "args": {"command": "sleep 30"}}], "then": "finish"})");
    pid_t pid = spawn_until_step(env, {"exec", plan, "-C", env.ws}, "s2");
    REQUIRE(pid > 0);
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    auto r = env.candor({"report", "last", "--json"});
    CHECK(r.exit_code == 1);
    json j = parse_stdout(r);
    CHECK(j["verdict"].is_null());
    CHECK(j["status"] == "running");
    CHECK(j["events"].get<int>() >= 6);
    CHECK(j["message"].get<std::string>().find("never ended") != std::string::npos);

    // runs lists it; verify reports it cancelled from the events it recorded.
    json listed = parse_stdout(env.candor({"runs", "--json"}));
    REQUIRE(listed.size() == 1);
    CHECK(listed[0]["status"] == "running");
    CHECK(listed[0]["verdict"].is_null());
    auto verified = env.candor({"verify", "last", "--json"});
    json v = parse_stdout(verified);
    CHECK(v["status"] == "cancelled");
    CHECK(v["verdict"] == "partial");  // a.txt was written before the kill: rule 3
    CHECK(verified.exit_code == 1);
    CHECK(v["goal_actions_executed"] == true);
    CHECK(v["mutations"][0]["path"] == "a.txt");
    CHECK(v["steps"]["executed"] == 2);
    CHECK(v["step_results"][1]["error"] == "no result was recorded: the run ended during this step");
    CHECK(v["status_detail"].get<std::string>().find("the run was killed: no run_ended event") != std::string::npos);
  }

  TEST_CASE("evaluators lists every built-in with its arguments") {
    Env env;
    auto r = env.candor({"evaluators", "--json"});
    CHECK(r.exit_code == 0);
    json j = parse_stdout(r);
    std::vector<std::string> types;
    for (const auto& e : j) types.push_back(e["type"]);
    CHECK(types == std::vector<std::string>{"file_exists", "file_contains", "file_not_contains", "file_size_gt",
                                            "file_unchanged", "content_changed", "file_matches", "json_valid",
                                            "json_path_eq", "git_clean", "command_succeeds", "not", "output_contains",
                                            "exit_code_eq", "socket_open", "http_200"});
    CHECK(j[1]["args"][1] ==
          json{{"name", "text"}, {"type", "string"}, {"required", true}, {"description", "exact text to look for"}});
    auto text = env.candor({"evaluators"});
    CHECK(text.out.find("file_contains      path: string, text: string") != std::string::npos);
  }
}
