// A step never holds candor's terminal (docs/design.md, Trust boundary: The terminal). Each case runs
// candor's process runner inside a child that has a pseudo-terminal as its controlling terminal,
// as a user's shell gives candor one, and shows the same command reaching that terminal when it
// is run directly, so a runner that stopped protecting it would fail here.
#include <doctest/doctest.h>

#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <string>

#include <fmt/format.h>

#include "sandbox/process.h"
#include "sandbox/process_sandbox.h"
#include "tests/kernel_facts.h"
#include "tests/test_support.h"

using namespace candor;
using namespace std::chrono_literals;
using candor::testing::kernel_facts;
using candor::testing::make_temp_dir;
using candor::testing::needs;
using candor::testing::read_file;
using candor::testing::write_file;

namespace {

// Runs `body` in a child whose controlling terminal is a new pseudo-terminal (in raw mode, so
// nothing is echoed), and returns what the child wrote to `out` (a file: the terminal is the
// subject of the test, not its channel). The parent holds the master and reads nothing from it.
std::string in_a_terminal(const std::function<std::string()>& body) {
  std::string out = make_temp_dir("tty") + "/out";
  struct termios raw {};
  raw.c_cflag = CS8 | CREAD;
  int master = -1;
  pid_t pid = ::forkpty(&master, nullptr, &raw, nullptr);
  REQUIRE(pid >= 0);
  if (pid == 0) {
    write_file(out, body());
    ::_exit(0);
  }
  int status = 0;
  for (int i = 0; i < 600 && ::waitpid(pid, &status, WNOHANG) == 0; ++i) {
    char buf[256];
    pollfd p{master, POLLIN, 0};
    if (::poll(&p, 1, 100) > 0) (void)!::read(master, buf, sizeof buf);  // keep the terminal from filling
  }
  ::close(master);
  return read_file(out);
}

// What the calling process finds in its own terminal's input within `wait`, "" if nothing.
std::string pending_input(std::chrono::milliseconds wait) {
  pollfd p{STDIN_FILENO, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(wait.count())) <= 0) return "";
  char buf[256];
  ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "";
}

// A python program that pushes "ZQ" + "ZQ" into the terminals named: the controlling one
// (/dev/tty) and the test's own /dev/pts/N by its path (never any other terminal of the machine,
// should the protection fail). The marker is built at run time, so the program's own text never
// contains it. Prints what each attempt met.
std::string inject(const std::string& pts) {
  return "python3 -c '\n"
         "import fcntl, os, termios\n"
         "marker = bytes([90, 81, 90, 81]) + b\"\\n\"\n"
         "for path in [\"/dev/tty\", \"" +
         pts +
         "\"]:\n"
         "    try:\n"
         "        fd = os.open(path, os.O_RDONLY | os.O_NOCTTY)\n"
         "    except OSError as e:\n"
         "        print(path, \"open\", e.errno); continue\n"
         "    try:\n"
         "        for c in marker: fcntl.ioctl(fd, termios.TIOCSTI, bytes([c]))\n"
         "        print(path, \"injected\")\n"
         "    except OSError as e:\n"
         "        print(path, \"ioctl\", e.errno)\n"
         "'";
}

sandbox::ProcessSpec spec_for(const std::string& command, const std::string& cwd,
                              const sandbox::SandboxPolicy* policy) {
  sandbox::ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", command};
  spec.cwd = cwd;
  spec.timeout = 20s;
  spec.sandbox = policy;
  return spec;
}

const needs kPython{::system("python3 -c 1 >/dev/null 2>&1") == 0, "python3"};

}  // namespace

TEST_SUITE("sandbox") {
  TEST_CASE("a step has no controlling terminal: /dev/tty cannot be opened, stdin is /dev/null") {
    std::string ws = make_temp_dir("ws");
    // Field 7 of /proc/self/stat is the controlling terminal's device number (0: none).
    const std::string probe =
        "cut -d' ' -f7 /proc/self/stat; (exec 3</dev/tty) 2>/dev/null && echo tty-open || echo no-tty; "
        "readlink /proc/self/fd/0";
    std::string seen = in_a_terminal([&] {
      std::string direct = testing::run_command({"/bin/sh", "-c", probe}, {}).out;
      auto r = sandbox::run_process(spec_for(probe, ws, nullptr));
      auto boxed_policy = sandbox::SandboxPolicy{};
      boxed_policy.workspace = ws;
      auto boxed = sandbox::run_process(spec_for(probe, ws, &boxed_policy));
      return "direct:\n" + direct + "runner:\n" + (r.ok() ? r->output.text() : r.error().message) + "sandboxed:\n" +
             (boxed.ok() ? boxed->output.text() : boxed.error().message);
    });
    CAPTURE(seen);
    // Control: the child itself has the terminal.
    CHECK(seen.find("direct:\n0\n") == std::string::npos);
    CHECK(seen.find("tty-open") != std::string::npos);
    std::string runner = seen.substr(seen.find("runner:\n"));
    CHECK(runner.find("runner:\n0\nno-tty\n/dev/null\n") == 0);
    std::string sandboxed = seen.substr(seen.find("sandboxed:\n"));
    CHECK(sandboxed.find("sandboxed:\n0\nno-tty\n/dev/null\n") == 0);
  }

  TEST_CASE("a step cannot push input into the user's terminal (TIOCSTI), by /dev/tty or /dev/pts/N" * kPython) {
    std::string ws = make_temp_dir("ws");
    sandbox::SandboxPolicy policy;
    policy.workspace = ws;
    std::string seen = in_a_terminal([&] {
      const std::string attack = inject(::ttyname(STDIN_FILENO));
      auto r = sandbox::run_process(spec_for(attack, ws, &policy));
      std::string report = "step:\n" + (r.ok() ? r->output.text() : r.error().message);
      report += "queued after step:[" + pending_input(300ms) + "]\n";
      // Control: the same program run directly reaches this terminal.
      std::string direct = testing::run_command({"/bin/sh", "-c", attack}, {}).out;
      report += "direct:\n" + direct + "queued after direct:[" + pending_input(1000ms) + "]\n";
      return report;
    });
    CAPTURE(seen);
    CHECK(seen.find("queued after step:[]") != std::string::npos);
    CHECK(seen.find("queued after direct:[ZQZQ") != std::string::npos);
    std::string step = seen.substr(0, seen.find("queued after step"));
    CHECK(step.find("injected") == std::string::npos);
    // ENXIO: no controlling terminal; or EACCES: Landlock grants no /dev/tty.
    CHECK((step.find("/dev/tty open 6") != std::string::npos || step.find("/dev/tty open 13") != std::string::npos));
  }

  TEST_CASE("the seccomp filter refuses TIOCSTI and TIOCLINUX whatever the descriptor" * kPython *
            needs(kernel_facts().seccomp_filter, "seccomp")) {
    std::string ws = make_temp_dir("ws");
    sandbox::SandboxPolicy policy;
    policy.workspace = ws;
    // On a descriptor that is no terminal the kernel says ENOTTY (25); the filter answers first, EPERM (1).
    // The upper 32 bits set on the request do not get around it (the kernel ignores them).
    const std::string probe =
        "python3 -c '\n"
        "import fcntl, termios\n"
        "for name, req in [(\"sti\", termios.TIOCSTI), (\"sti-high\", termios.TIOCSTI | (1 << 32)), (\"linux\", "
        "0x541C)]:\n"
        "    try:\n"
        "        fcntl.ioctl(1, req, b\"x\")\n"
        "        print(name, \"ok\")\n"
        "    except OverflowError:\n"
        "        print(name, \"overflow\")\n"
        "    except OSError as e:\n"
        "        print(name, e.errno)\n"
        "'";
    auto boxed = sandbox::run_process(spec_for(probe, ws, &policy));
    REQUIRE(boxed.ok());
    CAPTURE(boxed->output.text());
    CHECK(boxed->output.text().find("sti 1\n") != std::string::npos);
    CHECK(boxed->output.text().find("linux 1\n") != std::string::npos);
    CHECK(boxed->output.text().find("sti-high ok") == std::string::npos);
    // Control: unsandboxed, the same calls reach the kernel, which says ENOTTY.
    auto direct = sandbox::run_process(spec_for(probe, ws, nullptr));
    REQUIRE(direct.ok());
    CHECK(direct->output.text().find("sti 25\n") != std::string::npos);
  }

  TEST_CASE("a step cannot read a raw disk or another device beneath the workspace's rules" *
            needs(kernel_facts().landlock_abi > 0, "Landlock")) {
    std::string ws = make_temp_dir("ws");
    sandbox::SandboxPolicy policy;
    policy.workspace = ws;
    // /dev/null and /dev/urandom stay usable; a block device, a terminal's slave and /dev/tty do not.
    const std::string probe =
        "head -c1 /dev/urandom >/dev/null && echo urandom-ok; : > /dev/null && echo null-ok; "
        "for d in $(ls /dev | grep -E '^(sd|vd|nvme|xvd|loop)' | head -3); do head -c1 /dev/$d >/dev/null 2>&1 && echo "
        "read-$d; done; "
        "echo end";
    auto boxed = sandbox::run_process(spec_for(probe, ws, &policy));
    REQUIRE(boxed.ok());
    CAPTURE(boxed->output.text());
    CHECK(boxed->output.text().find("urandom-ok") != std::string::npos);
    CHECK(boxed->output.text().find("null-ok") != std::string::npos);
    CHECK(boxed->output.text().find("read-") == std::string::npos);
    CHECK(boxed->output.text().find("end") != std::string::npos);
    if (::geteuid() == 0) {
      // Control: root reads a raw disk without the sandbox (when the machine has one).
      auto direct = sandbox::run_process(spec_for(probe, ws, nullptr));
      REQUIRE(direct.ok());
      if (direct->output.text().find("read-") == std::string::npos)
        MESSAGE("no readable block device here: the control shows nothing");
    }
  }
}
