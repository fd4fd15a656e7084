#include <doctest/doctest.h>

#include <signal.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include "sandbox/process.h"
#include "tests/test_support.h"

using namespace candor;
using namespace std::chrono_literals;

namespace {

sandbox::ProcessSpec shell(const std::string& command, std::chrono::milliseconds timeout = 10s) {
  sandbox::ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", command};
  spec.cwd = candor::testing::make_temp_dir("proc");
  spec.timeout = timeout;
  return spec;
}

// Running or sleeping; a zombie (killed, not yet reaped by whoever inherited it) counts as dead.
bool process_alive(pid_t pid) {
  std::string stat = candor::testing::read_file("/proc/" + std::to_string(pid) + "/stat");
  if (stat.empty()) return false;
  std::size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z' && stat[close + 2] != 'X';
}

}  // namespace

TEST_SUITE("sandbox") {
  TEST_CASE("exit codes, signals and output are reported") {
    auto r = sandbox::run_process(shell("echo out; echo err >&2; exit 3"));
    REQUIRE(r.ok());
    CHECK(r->exit_code == 3);
    CHECK(r->signal == 0);
    CHECK_FALSE(r->timed_out);
    CHECK(r->output.text() == "out\nerr\n");
    auto k = sandbox::run_process(shell("kill -TERM $$"));
    REQUIRE(k.ok());
    CHECK(k->signal == SIGTERM);
    CHECK(k->exit_code == 128 + SIGTERM);
  }

  TEST_CASE("stdin is fed and closed") {
    auto spec = shell("wc -c");
    spec.stdin_data = std::string(300000, 'x');  // more than a pipe buffer
    auto r = sandbox::run_process(spec);
    REQUIRE(r.ok());
    CHECK(r->output.text() == "300000\n");
    auto ignore = shell("exit 0");
    ignore.stdin_data = std::string(1 << 20, 'y');  // the child never reads it: no SIGPIPE, no hang
    auto r2 = sandbox::run_process(ignore);
    REQUIRE(r2.ok());
    CHECK(r2->exit_code == 0);
  }

  TEST_CASE("a timeout kills the whole process group, background children included") {
    std::string dir = candor::testing::make_temp_dir("pids");
    auto spec = shell("sleep 100 & echo $! > " + dir + "/bg.pid; echo $$ > " + dir + "/sh.pid; sleep 100", 1s);
    auto start = std::chrono::steady_clock::now();
    auto r = sandbox::run_process(spec);
    auto took = std::chrono::steady_clock::now() - start;
    REQUIRE(r.ok());
    CHECK(r->timed_out);
    CHECK(took < 5s);
    pid_t bg = std::stoi(candor::testing::read_file(dir + "/bg.pid"));
    pid_t sh = std::stoi(candor::testing::read_file(dir + "/sh.pid"));
    std::this_thread::sleep_for(100ms);  // let init reap the orphan
    CHECK_FALSE(process_alive(bg));
    CHECK_FALSE(process_alive(sh));
  }

  TEST_CASE("a background child left running after a normal exit is killed, and does not hold the run") {
    std::string dir = candor::testing::make_temp_dir("bg");
    auto start = std::chrono::steady_clock::now();
    auto r = sandbox::run_process(shell("(sleep 100; echo late) & echo $! > " + dir + "/bg.pid; echo early", 30s));
    REQUIRE(r.ok());
    CHECK(std::chrono::steady_clock::now() - start < 5s);
    CHECK(r->exit_code == 0);
    CHECK(r->output.text() == "early\n");
    std::this_thread::sleep_for(100ms);
    CHECK_FALSE(process_alive(std::stoi(candor::testing::read_file(dir + "/bg.pid"))));
  }

  TEST_CASE("a flood of output is capped and the cap is said") {
    auto spec = shell("head -c 10000000 /dev/zero | tr '\\0' 'x'");
    spec.output_cap = 65536;
    auto r = sandbox::run_process(spec);
    REQUIRE(r.ok());
    CHECK(r->exit_code == 0);
    CHECK(r->output.total_bytes() == 10000000);
    CHECK(r->output.truncated());
    std::string text = r->output.text();
    CHECK(text.size() < 66000);
    CHECK(text.find("[output truncated: 10000000 bytes in total, the first 65536 shown]") != std::string::npos);
  }

  TEST_CASE("a program that cannot be started exits 127 with a message") {
    sandbox::ProcessSpec spec;
    spec.argv = {"/nonexistent/program"};
    spec.cwd = "/";
    auto r = sandbox::run_process(spec);
    REQUIRE(r.ok());
    CHECK(r->exit_code == 127);
    CHECK(r->output.text().find("cannot run /nonexistent/program") != std::string::npos);
  }
}
