// The terminal through the built binary (docs/design.md, Trust boundary: The terminal). candor runs on
// a pseudo-terminal as under a user's shell; a stand-in for that shell, run after candor exits,
// reads what is waiting in the terminal's input, which is what the user's shell would run. A step
// (or a user's own `command_succeeds`, as a reviewer's CI job runs on a pull request) that pushes
// a command there must leave nothing; one that writes escape sequences to the terminal must not
// reach it.
#include <doctest/doctest.h>

#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/e2e_support.h"
#include "tests/kernel_facts.h"

using namespace candor;
using namespace candor::testing;
using nlohmann::json;

namespace {

// Opens /dev/tty and the terminal named in the workspace's `ttyname` (written by the wrapper below),
// and pushes "ZQZQ" + newline into each with TIOCSTI; the marker is built at run time so no
// command line or plan holds it.
const std::string kInject =
    "python3 -c '\n"
    "import fcntl, os, termios\n"
    "marker = bytes([90, 81, 90, 81, 10])\n"
    "for path in [\"/dev/tty\", open(\"ttyname\").read().strip()]:\n"
    "    try:\n"
    "        fd = os.open(path, os.O_RDONLY | os.O_NOCTTY)\n"
    "        for c in marker: fcntl.ioctl(fd, termios.TIOCSTI, bytes([c]))\n"
    "        print(path, \"injected\")\n"
    "    except OSError as e:\n"
    "        print(path, \"refused\", e.errno)\n"
    "'";

// The user's shell after candor: what its terminal holds for it to read, within a second.
const std::string kShellAfter =
    "python3 -c 'import os, select; r = select.select([0], [], [], 1)[0]; "
    "print(\"QUEUED[\" + (os.read(0, 100).decode() if r else \"\") + \"]\")'";

// Runs `candor ARGS` on a terminal, as `sh -c` would from a user's shell, then kShellAfter.
// candor's stdout goes to `json_out`; its stderr (progress) stays on the terminal.
CommandResult candor_in_a_shell(Env& env, const std::vector<std::string>& args, const std::string& json_out) {
  std::string line = "tty > " + env.ws + "/ttyname; " + candor_bin();
  for (const auto& a : args) {
    std::string quoted;
    for (char c : a) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += " '" + quoted + "'";
  }
  line += " > " + json_out + "; echo exit=$?; " + kShellAfter;
  std::vector<std::string> e = env.env;
  e.push_back("CANDOR_HOME=" + env.store);
  e.push_back("PATH=/usr/local/bin:/usr/bin:/bin");
  return run_in_terminal({"/bin/sh", "-c", line}, e, 100);
}

json shell_step_plan(const std::string& command) {
  json plan = json::parse(R"({"goal_kind": "modify", "steps": [{"id": "s1", "tool": "shell", "args": {"command": ""}}],
                              "then": "finish", "final_answer": "done"})");
  plan["steps"][0]["args"]["command"] = command;
  return plan;
}

const needs kPython{::system("python3 -c 1 >/dev/null 2>&1") == 0, "python3"};

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("a shell step cannot push a command into the terminal candor runs in" * kPython) {
    Env env;
    std::string out = make_temp_dir("out") + "/report.json";
    auto r = candor_in_a_shell(
        env, {"exec", env.plan_file(shell_step_plan(kInject).dump()), "-C", env.ws, "--json", "-q"}, out);
    CAPTURE(r.out);
    CHECK(r.out.find("QUEUED[]") != std::string::npos);
    CHECK(r.out.find("ZQZQ") == std::string::npos);
    json report = json::parse(read_file(out));
    CHECK(report["steps"]["executed"] == 1);

    // Control: the same program run by the shell itself, outside candor, does reach the terminal.
    std::string control = "tty > " + env.ws + "/ttyname; cd " + env.ws + " && " + kInject + "; " + kShellAfter;
    auto c = run_in_terminal({"/bin/sh", "-c", control}, {"PATH=/usr/local/bin:/usr/bin:/bin"}, 100);
    CAPTURE(c.out);
    CHECK(c.out.find("QUEUED[ZQZQ") != std::string::npos);
  }

  TEST_CASE("a user's command_succeeds expectation runs without the terminal too (a reviewer's CI on a pull request)" *
            kPython) {
    Env env;
    std::string out = make_temp_dir("out") + "/report.json";
    json expect = {{"type", "command_succeeds"}, {"command", kInject}};
    auto r = candor_in_a_shell(env,
                               {"exec", env.plan_file(shell_step_plan("echo hi > hello.txt").dump()), "-C", env.ws,
                                "--json", "-q", "--expect", expect.dump()},
                               out);
    CAPTURE(r.out);
    CHECK(r.out.find("QUEUED[]") != std::string::npos);
    CHECK(r.out.find("ZQZQ") == std::string::npos);
  }

  TEST_CASE("a shell step cannot write escape sequences to candor's terminal; its output is shown escaped") {
    Env env;
    std::string out = make_temp_dir("out") + "/report.json";
    // OSC 0 sets the window title; ESC[2J clears the screen.
    std::string attack =
        "printf '\\033]0;TITLE-VIA-TTY\\007\\033[2J' > /dev/tty; echo tty=$?; printf "
        "'out\\033]0;TITLE-VIA-OUT\\007\\n'";
    auto r =
        candor_in_a_shell(env, {"exec", env.plan_file(shell_step_plan(attack).dump()), "-C", env.ws, "--json"}, out);
    CAPTURE(r.out);
    CHECK(r.out.find("\x1b]0;TITLE-VIA-TTY") == std::string::npos);
    CHECK(r.out.find("\x1b]0;TITLE-VIA-OUT") == std::string::npos);
    CHECK(r.out.find("\x1b[2J") == std::string::npos);
    json report = json::parse(read_file(out));
    CHECK(report["steps"]["executed"] == 1);
  }
}
