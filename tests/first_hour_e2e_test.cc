// The first hour, round two (issue 42, item 6): what a new user meets through the binary, each
// with its output and exit code asserted — the messages before the change were true but unhelpful.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/e2e_support.h"
#include "tests/git_repo_fixture.h"

namespace candor::testing {
namespace {

using nlohmann::json;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

constexpr const char* kWriteCandor =
    R"({"goal_kind": "modify", "steps": [{"id": "s1", "tool": "file_write", "args": {"path": "a.txt", "content": "hello candor\n"}, "assert": [{"type": "file_contains", "path": "a.txt", "text": "candor"}]}], "then": "finish"})";

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("first hour: verify last --markdown prints Markdown; report --html says what it wrote") {
    Env env(make_workspace({{"a.txt", "hello world\n"}}));
    auto r = env.candor({"exec", env.plan_file(kWriteCandor), "--goal", "Say candor"});
    REQUIRE(r.exit_code == 0);
    auto md = env.candor({"verify", "last", "--markdown"});
    CHECK(md.exit_code == 0);
    CHECK(md.out.rfind("### ✅ candor: **success** — Say candor\n", 0) == 0);
    std::string html = make_temp_dir("html") + "/report.html";
    auto h = env.candor({"report", "--html", html});
    CHECK(h.exit_code == 0);
    CHECK(h.out.empty());
    CHECK(h.err.rfind("wrote " + html + " (the HTML report of run ", 0) == 0);
    CHECK(has(h.err, " KB)\n"));
    // With --json beside it, stdout stays one JSON document.
    auto both = env.candor({"report", "--html", html, "--json"});
    CHECK(json::parse(both.out)["verdict"] == "success");
    // A transcript's check has no Markdown rendering: said, not ignored.
    auto t = env.candor({"verify", "--trajectory", "x.jsonl", "--format", "claude-code", "--markdown"});
    CHECK(t.exit_code == 64);
    CHECK(has(t.err, "--markdown: a transcript's check is printed as text or --json"));
  }

  TEST_CASE("first hour: undo after a revert by hand says the files are already as before, and exits 0") {
    Env env(make_workspace({{"a.txt", "hello world\n"}}));
    REQUIRE(env.candor({"exec", env.plan_file(kWriteCandor), "--goal", "Say candor"}).exit_code == 0);
    write_file(env.ws + "/a.txt", "hello world\n");  // put back by hand
    auto u = env.candor({"undo", "last"});
    CHECK(u.exit_code == 0);
    CHECK(has(u.out, "every file it changed in " + env.ws +
                         " is already as it was before the run (restored by hand?): nothing to undo"));
    CHECK(has(u.out, "already   a.txt (as it was before the run)"));
    CHECK_FALSE(has(u.err, "--force"));
    // Control: a file changed again after the run still needs --force, and is named.
    REQUIRE(env.candor({"exec", env.plan_file(kWriteCandor), "--goal", "Say candor"}).exit_code == 0);
    write_file(env.ws + "/a.txt", "someone else's words\n");
    auto drifted = env.candor({"undo", "last"});
    CHECK(drifted.exit_code == 65);
    CHECK(has(drifted.err, "changed after run"));
    CHECK(read_file(env.ws + "/a.txt") == "someone else's words\n");
  }

  TEST_CASE("first hour: -C names the workspace when it is missing; --color always, never and a bad value") {
    Env env(make_workspace({{"a.txt", "hello world\n"}}));
    for (std::vector<std::string> args : {std::vector<std::string>{"exec", env.plan_file(kWriteCandor), "-C", "nosuch"},
                                          std::vector<std::string>{"run", "x", "-C", "nosuch", "--llm", "script:/x"}}) {
      auto r = env.candor(args);
      CHECK(r.exit_code == 64);
      CHECK(has(r.err, "candor: the workspace nosuch: No such file or directory (give the workspace with -C DIR)"));
    }
    REQUIRE(env.candor({"exec", env.plan_file(kWriteCandor), "--goal", "Say candor"}).exit_code == 0);
    // Not a terminal: no colour by default; --color always paints, before or after the command.
    CHECK_FALSE(has(env.candor({"report"}).out, "\x1b["));
    CHECK(env.candor({"report", "--color", "always"}).out.rfind("\x1b[1;32mSUCCESS\x1b[0m", 0) == 0);
    CHECK(env.candor({"--color=always", "report"}).out.rfind("\x1b[1;32mSUCCESS", 0) == 0);
    auto never = env.in_terminal({"report", "--color", "never"});
    CHECK_FALSE(has(never.out, "\x1b[1;32m"));
    auto bad = env.candor({"report", "--color", "sometimes"});
    CHECK(bad.exit_code == 64);
    CHECK(has(bad.err, "--color: expected auto, always or never, got \"sometimes\""));
    // The rest of the command line is still checked as before.
    auto typo = env.candor({"--color", "never", "runs", "--limt", "3"});
    CHECK(typo.exit_code == 64);
    CHECK(has(typo.err, "unknown option --limt (did you mean --limit?)"));
  }

  TEST_CASE("first hour: help shows value names, not CLI11's INT:INT and TEXT:{...}; --help ends with exit codes") {
    Env env;
    auto top = env.candor({"--help"});
    CHECK(top.exit_code == 0);
    for (const char* line : {"Exit status:\n", "  64                          usage:", "Environment:\n",
                             "  CANDOR_HOME ", "Files:\n", "  --color auto|always|never"})
      CHECK_MESSAGE(has(top.out, line), line);
    for (const char* sub : {"run", "exec", "runs", "report", "verify", "check", "undo", "assert", "doctor", "gc"}) {
      auto help = env.candor({sub, "--help"});
      CAPTURE(sub);
      CHECK(help.exit_code == 0);
      CHECK_FALSE(has(help.out, "INT:INT"));
      CHECK_FALSE(has(help.out, "TEXT:{"));
    }
    CHECK(has(env.candor({"run", "--help"}).out, "--judge auto|always|never"));
    CHECK(has(env.candor({"verify", "--help"}).out, "--timeout SECONDS"));
    CHECK(has(env.candor({"gate", "install", "--help"}).out, "--agent claude-code|codex"));
  }

  TEST_CASE("first hour: a goal from a Markdown issue keeps its title and its lines") {
    Repo repo;
    repo.edit("css/style.css", "background: #ffffff;", "background: #006400;");
    std::string head = repo.commit("dark green");
    std::string issue = make_temp_dir("issue") + "/issue.md";
    write_file(issue,
               "## Bug: the background is white\n\nThe page should be dark green.\n- every page\n- no other change\n");
    auto r = repo.candor({"verify", "--git", "HEAD~1..HEAD", "-C", repo.ws, "--goal-file", issue, "--judge", "never",
                          "--markdown", "--expect", kDarkGreen});
    CAPTURE(r.out);
    CHECK(r.out.rfind("### ✅ candor: **success** — Bug: the background is white\n", 0) == 0);
    CHECK(has(r.out,
              "> \\## Bug: the background is white  \n>\n> The page should be dark green.  \n> \\- every page  \n"
              "> \\- no other change  \n"));
    auto text = repo.candor({"report", "last", "-C", repo.ws});
    CHECK(text.out.rfind("SUCCESS  Bug: the background is white\n", 0) == 0);
  }

  TEST_CASE("first hour: usage and script messages count in the singular and the plural") {
    Env env(make_workspace({{"a.txt", "hello world\n"}}));
    // One reply for a run that needs more: the script's error counts it in the singular.
    json plan = json::parse(kWriteCandor);
    plan["then"] = "replan";
    auto r = env.run("Say candor", json{{"reply_json", plan}}.dump() + "\n", {"--judge", "never"});
    CHECK(has(r.err + r.out, "the script has 1 reply"));
    CHECK_FALSE(has(r.err + r.out, "1 replies"));
    // A run of one call: "1 LLM call", its tokens estimated, said as the script's.
    write_file(env.ws + "/a.txt", "hello world\n");
    REQUIRE(env.run("Say candor", json{{"reply_json", json::parse(kWriteCandor)}}.dump() + "\n", {"--judge", "never"})
                .exit_code != 64);
    auto shown = env.candor({"report", "last"});
    CHECK(has(shown.out, "1 LLM call, "));
    CHECK_FALSE(has(shown.out, "1 LLM calls"));
    CHECK(has(shown.out, "(estimated: the script gave no usage)"));
  }
}

}  // namespace candor::testing
