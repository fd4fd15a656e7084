// The agent names files, writes step output and a final answer; all of it reaches the reports a
// person reads. Through the built binary: `report --markdown` ends and is inert, the terminal
// report and the step log carry no escape sequence of the agent's.
#include <doctest/doctest.h>

#include <unistd.h>

#include "tests/e2e_support.h"
#include "tests/kernel_facts.h"
#include "tests/render_check.h"

using namespace candor::testing;

namespace {

// A plan that writes files with hostile names and prints escape sequences, and a hostile answer.
const char* const kHostilePlan = R"plan({
  "goal_kind": "modify",
  "steps": [
    {"id": "s1", "tool": "file_write", "args": {"path": "# Forged heading", "content": "x\n"}},
    {"id": "s2", "tool": "file_write", "args": {"path": "![x](http:/evil/x.png)", "content": "x\n"}},
    {"id": "s3", "tool": "file_write", "args": {"path": "a|b\\|c.txt", "content": "x\n"}},
    {"id": "s4", "tool": "shell",
     "args": {"command": "printf x > \"$(printf '\\033]0;owned\\007\\033[2J')esc.txt\"; printf '\\033]0;title\\007\\033[2Jcleared\\n'"},
     "assert": [{"type": "file_exists", "path": "\u001b]0;owned\u0007\u001b[2Jesc.txt"},
                {"type": "output_contains", "text": "\u001b[2Jcleared"}]}
  ],
  "then": "finish",
  "final_answer": "\u001b]0;title\u0007\u001b[2J\u001b[1;32mSUCCESS\u001b[0m\n# Forged\n![x](http://evil/x.png)"
})plan";

const char* const kHostileGoal = "\x1b]0;goal\x07# Forged | goal ![x](http://evil/x.png)";

CommandResult exec_hostile_plan(Env& env) {
  return env.candor({"exec", env.plan_file(kHostilePlan), "-C", env.ws, "--goal", kHostileGoal});
}

// `report --markdown` of the workspace's last run. It used to loop forever on a '|' in a cell:
// bounded here by timeout(1).
CommandResult markdown_report(const Env& env) {
  std::vector<std::string> e = env.env;
  e.push_back("CANDOR_HOME=" + env.store);
  return run_command({"/usr/bin/timeout", "20", candor_bin(), "report", "--markdown"}, e, env.ws);
}

const needs kCmarkGfm{::access("/usr/bin/cmark-gfm", X_OK) == 0, "cmark-gfm (a GFM renderer)"};

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE(
      "hostile file names and output: report --markdown ends and is inert, the terminal gets no escape sequence") {
    Env env;  // NO_COLOR=1: any ESC in the output is the agent's
    auto ran = exec_hostile_plan(env);
    CAPTURE(ran.out);
    CAPTURE(ran.err);
    REQUIRE(ran.exit_code <= 2);  // a verdict, whichever
    CHECK(ran.out.find('\x1b') == std::string::npos);
    CHECK(ran.err.find('\x1b') == std::string::npos);
    CHECK(ran.out.find("␛]0;title␇␛[2J␛[1;32mSUCCESS␛[0m") != std::string::npos);

    auto md = markdown_report(env);
    REQUIRE(md.exit_code == 0);
    CAPTURE(md.out);
    CHECK_FALSE(has_raw_control(md.out));
    std::string stranger;
    CHECK_MESSAGE(lines_are_ours(md.out, &stranger), stranger);
    std::size_t rows = 0;
    for (const auto& line : lines_of(md.out)) {
      if (line.rfind("| ", 0) != 0) continue;
      CAPTURE(line);
      CHECK(gfm_cells(line) == 5);
      ++rows;
    }
    CHECK(rows == 1 + 4 + 1 + 2);  // changes: header and 4 files; assertions: header and 2
    CHECK(md.out.find("| `a|b") == std::string::npos);
    CHECK(md.out.find("| `a\\|b\\\\\\|c.txt` |") != std::string::npos);

    auto terminal = env.candor({"report"});
    CHECK(terminal.exit_code == 0);
    CHECK(terminal.out.find('\x1b') == std::string::npos);
    CHECK(terminal.out.find("\n# Forged") == std::string::npos);  // the answer's lines stay indented
    auto verbose = env.candor({"report", "--verbose"});
    CHECK(verbose.out.find('\x1b') == std::string::npos);
    CHECK(verbose.out.find("    | ␛]0;title␇␛[2Jcleared") != std::string::npos);
    auto runs = env.candor({"runs"});
    CHECK(runs.out.find('\x1b') == std::string::npos);
  }

  TEST_CASE("hostile file names and output: a GFM renderer makes no heading, image, link or tag of report --markdown" *
            kCmarkGfm) {
    Env env;
    REQUIRE(exec_hostile_plan(env).exit_code <= 2);
    auto md = markdown_report(env);
    REQUIRE(md.exit_code == 0);
    std::string md_file = make_temp_dir("md") + "/report.md";
    write_file(md_file, md.out);
    auto html = run_command({"/usr/bin/cmark-gfm", "-e", "table", "-e", "autolink", "-e", "strikethrough", md_file});
    CAPTURE(html.out);
    CHECK(html.out.find("<img") == std::string::npos);
    CHECK(html.out.find("<a ") == std::string::npos);
    CHECK(html.out.find("<h1") == std::string::npos);
    CHECK(html.out.find("<h3>") == html.out.rfind("<h3>"));
    CHECK(html.out.find("<td><code># Forged heading</code></td>") != std::string::npos);
  }
}
