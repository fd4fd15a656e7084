// End-to-end tests of the command line itself: mistakes get a hint, help is for a person.
#include <doctest/doctest.h>

#include <set>

#include "tests/e2e_support.h"

using namespace candor::testing;
using nlohmann::json;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("an unknown command or option gets a did-you-mean, not 'a subcommand is required'") {
    Env env;
    auto rn = env.candor({"rn"});
    CHECK(rn.exit_code == 64);
    CHECK(has(rn.err, "unknown command \"rn\" (did you mean \"run\"?)"));
    CHECK_FALSE(has(rn.err, "A subcommand is required"));

    auto version = env.candor({"version"});
    CHECK(version.exit_code == 64);
    CHECK(has(version.err, "did you mean candor --version?"));
    auto right = env.candor({"--version"});
    CHECK(right.exit_code == 0);
    CHECK(right.out.rfind("candor ", 0) == 0);

    auto bogus = env.candor({"--bogus"});
    CHECK(bogus.exit_code == 64);
    CHECK(has(bogus.err, "unknown option --bogus"));
    CHECK(has(bogus.err, "run, exec, runs"));

    auto verfy = env.candor({"verfy", "last"});
    CHECK(has(verfy.err, "did you mean \"verify\"?"));

    auto option = env.candor({"runs", "--limt", "3"});
    CHECK(option.exit_code == 64);
    CHECK(has(option.err, "unknown option --limt (did you mean --limit?)"));
  }

  TEST_CASE("an unquoted goal gets a hint to quote it, in the order it was typed") {
    Env env;
    auto r = env.candor({"run", "Change", "the", "background", "-C", env.ws, "--llm", "script:/nonexistent"});
    CHECK(r.exit_code == 64);
    CHECK(has(r.err, "quote it"));
    CHECK(has(r.err, "candor run \"Change the background\""));
    CHECK_FALSE(has(r.err, "not expected"));
  }

  TEST_CASE("a typed value's error says what was expected") {
    Env env;
    auto r = env.candor({"run", "x", "--timeout", "abc"});
    CHECK(r.exit_code == 64);
    CHECK(has(r.err, "--timeout: expected a whole number of seconds"));
    CHECK_FALSE(has(r.err, "not in range"));
    auto steps = env.candor({"exec", "p.json", "--max-steps", "-3"});
    CHECK(steps.exit_code == 64);
    CHECK(has(steps.err, "--max-steps: expected a whole number of steps"));
  }

  TEST_CASE("help names the program candor and every command's help ends with two examples") {
    Env env;
    auto top = env.candor({"--help"});
    CHECK(top.exit_code == 0);
    CHECK(has(top.out, "Usage: candor "));
    CHECK_FALSE(has(top.out, "/candor "));
    for (const char* cmd :
         {"run", "exec", "runs", "report", "verify", "check", "undo", "evaluators", "assert", "doctor", "gc"}) {
      CAPTURE(cmd);
      auto h = env.candor({cmd, "--help"});
      CHECK(h.exit_code == 0);
      CHECK(has(h.out, std::string("Usage: candor ") + cmd));
      auto at = h.out.rfind("Examples:\n");
      REQUIRE(at != std::string::npos);
      std::string tail = h.out.substr(at);
      int lines = 0;
      for (std::size_t p = tail.find("\n  candor "); p != std::string::npos; p = tail.find("\n  candor ", p + 1))
        ++lines;
      CHECK(lines == 2);
    }
  }
}

TEST_SUITE("e2e") {
  TEST_CASE("RUN may be the random part of the id; an ambiguous suffix names the candidates") {
    Env env;
    json first = parse_stdout(env.exec(example_plan("patch.json")));
    std::string id = first["run_id"];
    std::string suffix = id.substr(id.find('-') + 1);
    auto by_suffix = env.candor({"report", suffix, "--json"});
    CHECK(by_suffix.exit_code == 0);
    CHECK(parse_stdout(by_suffix)["run_id"] == id);
    CHECK(env.candor({"verify", suffix, "--json"}).exit_code == 0);

    {
      auto store = candor::store::RunStore::open(env.store);
      REQUIRE(store.ok());
      REQUIRE((*store)->create_run("20260101T000000-abc123", "2026-01-01T00:00:00.000Z", "a", env.ws).ok());
      REQUIRE((*store)->create_run("20260101T000001-ffc123", "2026-01-01T00:00:01.000Z", "b", env.ws).ok());
      // Two runs started in the same second still get different ids.
      auto now = std::chrono::system_clock::now();
      std::set<std::string> ids;
      for (int i = 0; i < 20; ++i) {
        auto made = (*store)->create_new_run(now, "2026-01-01T00:00:02.000Z", "same second", env.ws);
        REQUIRE(made.ok());
        ids.insert(*made);
      }
      CHECK(ids.size() == 20);
    }
    auto ambiguous = env.candor({"report", "c123"});
    CHECK(ambiguous.exit_code == 65);
    CHECK(has(ambiguous.err, "\"c123\" matches several runs"));
    CHECK(has(ambiguous.err, "20260101T000000-abc123"));
    CHECK(has(ambiguous.err, "20260101T000001-ffc123"));
    CHECK(parse_stdout(env.candor({"report", "abc123", "--json"})).is_object());
  }

  TEST_CASE("runs shows age, workspace and the goal to the terminal's width; --json keeps its fields") {
    Env env;
    std::string goal = "Make the background dark green and keep every footer link readable on the new colour, please";
    json r = parse_stdout(env.exec(example_plan("patch.json"), {"--goal", goal}));
    std::string ws_tail = std::filesystem::path(env.ws).filename().string();

    env.env.push_back("COLUMNS=200");
    auto wide = env.candor({"runs"});
    CHECK(wide.exit_code == 0);
    CAPTURE(wide.out);
    CHECK(wide.out.rfind("RUN ", 0) == 0);
    CHECK(has(wide.out, "AGE"));
    CHECK(has(wide.out, "WORKSPACE"));
    CHECK(has(wide.out, "s ago"));
    CHECK(has(wide.out, ws_tail));
    CHECK(has(wide.out, goal));  // 200 columns: the whole goal
    for (std::size_t at = 0, nl; (nl = wide.out.find('\n', at)) != std::string::npos; at = nl + 1)
      CHECK(nl - at <= 200);

    env.env.back() = "COLUMNS=100";
    auto narrow = env.candor({"runs"});
    CAPTURE(narrow.out);
    CHECK_FALSE(has(narrow.out, goal));
    CHECK(has(narrow.out, goal.substr(0, 12)));
    for (std::size_t at = 0, nl; (nl = narrow.out.find('\n', at)) != std::string::npos; at = nl + 1)
      CHECK(nl - at <= 100);

    // Piped (no terminal, no COLUMNS): nothing is cut, so runs stay told apart by goal and workspace.
    env.env.back() = "COLUMNS=";
    auto piped = env.candor({"runs"});
    CAPTURE(piped.out);
    CHECK(has(piped.out, goal));
    CHECK(has(piped.out, env.ws));

    json listed = parse_stdout(env.candor({"runs", "--json"}));
    REQUIRE(listed.size() == 1);
    std::set<std::string> keys;
    for (const auto& [k, v] : listed[0].items()) keys.insert(k);
    CHECK(keys == std::set<std::string>{"run_id", "created_at", "goal", "workspace", "status", "verdict", "verdict_by",
                                        "source", "machine"});
    CHECK(listed[0]["goal"] == goal);
    CHECK(listed[0]["source"] == "exec");
    CHECK(has(wide.out, "SOURCE"));
  }
}

TEST_SUITE("e2e") {
  TEST_CASE(
      "exit 3: success but the acceptance spec did not pass, in exec, run, verify and verify --trajectory alike") {
    Env env;
    // patch.json never calls shell: the spec cannot pass, while the verdict is success.
    std::string spec =
        env.plan_file(R"({"checkpoints": [{"id": "ran_shell", "when": {"type": "ToolCalled", "tool": "shell"}}]})");
    auto ex = env.exec(example_plan("patch.json"), {"--acceptance", spec});
    CHECK(ex.exit_code == 3);
    json j = parse_stdout(ex);
    CHECK(j["verdict"] == "success");
    CHECK(j["acceptance"]["passed"] == false);
    std::string id = j["run_id"];
    CHECK(env.candor({"verify", id, "--acceptance", spec}).exit_code == 3);
    CHECK(env.candor({"verify", id}).exit_code == 3);  // the stored acceptance still did not pass

    auto terminal = env.candor({"report", id});
    CHECK(terminal.out.find("SUCCESS") < terminal.out.find("acceptance NOT PASSED"));
    CHECK(terminal.out.find("acceptance NOT PASSED") < terminal.out.find("why"));
    CHECK(has(env.candor({"report", id, "--markdown"}).out, "· acceptance **NOT PASSED**"));
    std::string dir = make_temp_dir("out");
    REQUIRE(env.candor({"report", id, "--html", dir + "/r.html", "--junit", dir + "/r.xml"}).exit_code == 0);
    CHECK(has(read_file(dir + "/r.html"), "<span id=\"banner-acceptance\">acceptance NOT PASSED</span>"));
    std::string junit = read_file(dir + "/r.xml");
    CHECK(has(junit, "<property name=\"acceptance\" value=\"not_passed\"/>"));
    CHECK(has(junit, "<failure type=\"acceptance\""));

    Env ran;
    json plan = json::parse(read_file(example_plan("patch.json")));
    // The user's --expect proves the change at tier 1 (the planner's own checks alone never do).
    auto r = ran.run("Make it dark green", json{{"reply_json", plan}}.dump() + "\n",
                     {"--acceptance", spec, "--judge", "never", "--expect",
                      R"({"type": "file_contains", "path": "css/style.css", "text": "background: #006400;"})"});
    CHECK(r.exit_code == 3);
    CHECK(parse_stdout(r)["verdict"] == "success");

    std::string never = env.plan_file(R"({"checkpoints": [{"id": "never", "when": {"type": "ToolCalled", "tool": "Bash",
        "input": {"left": "{{tool.input.command}}", "op": "contains", "right": "zz-never-typed"}}}]})");
    std::string file = data_dir() + "/trajectories/claude-code/sample_session.synthetic.jsonl";
    CHECK(env.candor({"verify", "--trajectory", file, "--format", "claude-code", "--acceptance", never}).exit_code ==
          3);
  }

  TEST_CASE("exec: Ctrl-C exits 130, and the run is still verified, recorded and printed") {
    Env env;
    std::string plan = env.plan_file(R"({"goal_kind": "modify", "steps": [
        {"id": "s1", "tool": "file_write", "args": {"path": "a.txt", "content": "x"}},
        {"id": "s2", "tool": "shell", "args": {"command": "sleep 30"}}], "then": "finish"})");
    pid_t pid = spawn_until_step(env, {"exec", plan, "-C", env.ws}, "s2");
    REQUIRE(pid > 0);
    ::kill(pid, SIGINT);
    int status = 0;
    ::waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 130);
    json j = parse_stdout(env.candor({"report", "--json"}));
    CHECK(j["status"] == "cancelled");
    CHECK(j["mutations"][0]["path"] == "a.txt");
  }

  TEST_CASE("I/O failures exit 70 naming the path and the OS reason") {
    Env env;
    REQUIRE(env.exec(example_plan("patch.json")).exit_code == 0);
    auto html = env.candor({"report", "last", "--html", "/nonexistent-dir/r.html"});
    CHECK(html.exit_code == 70);
    CHECK(has(html.err, "/nonexistent-dir/r.html"));
    CHECK(has(html.err, "No such file or directory"));
    env.store = "/etc/passwd/store";
    auto store = env.candor({"runs"});
    CHECK(store.exit_code == 70);
    CHECK(has(store.err, "/etc/passwd/store"));
    CHECK(has(store.err, "Not a directory"));
  }
}

TEST_SUITE("e2e") {
  TEST_CASE("undo is history: report, runs and HTML say undone at <time>; a second undo says so, not drift") {
    Env env;
    json r = parse_stdout(env.exec(example_plan("patch.json")));
    std::string id = r["run_id"];
    auto undo = env.candor({"undo", id});
    REQUIRE(undo.exit_code == 0);
    CHECK(has(undo.out, "restored  css/style.css"));

    json report = parse_stdout(env.candor({"report", id, "--json"}));
    REQUIRE(report["undone"].is_object());
    std::string at = report["undone"]["at"];
    CHECK(at.size() >= 20);
    CHECK(report["undone"]["restored"] == json::array({"css/style.css"}));
    CHECK(has(env.candor({"report", id}).out, "undone at " + at));
    CHECK(has(env.candor({"report", id, "--markdown"}).out, "**undone at " + at + "**"));
    std::string dir = make_temp_dir("out");
    REQUIRE(env.candor({"report", id, "--html", dir + "/r.html", "--junit", dir + "/r.xml"}).exit_code == 0);
    CHECK(has(read_file(dir + "/r.html"), "<span id=\"banner-undone\">undone at " + at + "</span>"));
    CHECK(has(read_file(dir + "/r.xml"), "<property name=\"undone_at\" value=\"" + at + "\"/>"));
    CHECK(has(env.candor({"runs"}).out, "undone"));
    CHECK(parse_stdout(env.candor({"verify", id, "--json"}))["undone"]["at"] == at);

    auto again = env.candor({"undo", id});
    CHECK(again.exit_code == 0);
    CHECK(has(again.out, "already undone at " + at));
    CHECK_FALSE(has(again.out + again.err, "drift"));
    CHECK_FALSE(has(again.out + again.err, "changed again"));
  }
}
