// What a step leaves behind: processes (threads of a process whose main thread ended), IPC objects,
// connections to sockets outside the workspace, protected folders it created, credential files it
// moved. Each attack is shown to work without the protection (the control), then to fail with it.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "sandbox/process.h"
#include "sandbox/process_sandbox.h"
#include "sandbox/workspace_policy.h"
#include "tests/kernel_facts.h"
#include "tests/test_support.h"

using namespace candor;
using namespace std::chrono_literals;
using candor::testing::exists;
using candor::testing::kernel_facts;
using candor::testing::make_temp_dir;
using candor::testing::needs;
using candor::testing::read_file;
using candor::testing::write_file;

namespace {

struct Step {
  std::string ws = make_temp_dir("ws");
  sandbox::SandboxPolicy policy;

  Step() {
    policy.workspace = ws;
    policy.read_only_dirs = {ws + "/.git", ws + "/.candor"};
    policy.limits.processes = 64;
  }
  Result<sandbox::ProcessResult> run(const std::string& command, bool sandboxed = true) {
    sandbox::ProcessSpec spec;
    spec.argv = {"/bin/bash", "-c", command};
    spec.cwd = ws;
    spec.timeout = 20s;
    spec.sandbox = sandboxed ? &policy : nullptr;
    return sandbox::run_process(spec);
  }
};

std::uintmax_t size_of(const std::string& path) {
  std::error_code ec;
  auto n = std::filesystem::file_size(path, ec);
  return ec ? 0 : n;
}

// True when `path` still grows over `window`: something is still writing it.
bool still_growing(const std::string& path, std::chrono::milliseconds window = 600ms) {
  auto before = size_of(path);
  std::this_thread::sleep_for(window);
  return size_of(path) != before;
}

// A process whose main thread ends with SYS_exit (so it shows as a zombie) while another thread
// appends to late.txt; it leaves the process group first, and its pid goes to zombie.pid.
const char* kZombieLeader =
    "import ctypes, os, threading, time\n"
    "open('zombie.pid', 'w').write(str(os.getpid()))\n"
    "def write():\n"
    "    for _ in range(1500):\n"
    "        with open('late.txt', 'a') as f: f.write('x')\n"
    "        time.sleep(0.02)\n"
    "threading.Thread(target=write).start()\n"
    "time.sleep(0.1)\n"
    "ctypes.CDLL(None).syscall(60, 0)\n";  // SYS_exit: this thread only
const char* kStartZombieLeader =
    "setsid python3 zombie.py > /dev/null 2>&1 < /dev/null & "
    "while [ ! -s late.txt ]; do sleep 0.02; done; sleep 0.3; echo started";

bool sysv_queue_exists(key_t key) { return ::msgget(key, 0) >= 0; }

// Starts kZombieLeader in a step: with the step's protections (`processes`, when given, names the
// one that must have applied) the writing thread stops with the step; without them it writes on.
void check_zombie_thread_stops(Step& step, const std::string& processes = "") {
  write_file(step.ws + "/zombie.py", kZombieLeader);
  auto r = step.run(kStartZombieLeader);
  REQUIRE(r.ok());
  CHECK(r->output.text().find("started") != std::string::npos);
  if (!processes.empty()) CHECK(r->protections->processes == processes);
  CHECK_FALSE(still_growing(step.ws + "/late.txt"));

  // Control: without the sandbox the thread writes on after the step has ended.
  std::filesystem::remove(step.ws + "/late.txt");
  auto open = step.run(kStartZombieLeader, false);
  REQUIRE(open.ok());
  CHECK(still_growing(step.ws + "/late.txt"));
  ::kill(std::stoi(read_file(step.ws + "/zombie.pid")), SIGKILL);
}

const needs kPidsCgroup{!kernel_facts().pids_cgroup.empty(), "a pids cgroup it can make children in"};
// Mount namespaces make .git/.candor read-only and credential files read as empty.
const needs kNamespaces{kernel_facts().network_namespace, "unprivileged network and mount namespaces"};

}  // namespace

TEST_SUITE("sandbox") {
  TEST_CASE("threads of a process whose main thread ended do not outlive their step, in a PID namespace") {
    Step step;
    check_zombie_thread_stops(step);
  }

  TEST_CASE("threads of a process whose main thread ended do not outlive their step, through the cgroup alone" *
            kPidsCgroup) {
    Step step;
    step.policy.mechanisms.namespaces = false;
    check_zombie_thread_stops(step, "cgroup");
  }

  TEST_CASE("a SysV message queue a step creates does not outlive it") {
    static std::mt19937 rng{std::random_device{}()};
    key_t key = static_cast<key_t>(0x5a000000 + rng() % 0xffffff);
    std::string make = fmt::format("python3 -c 'import ctypes; print(ctypes.CDLL(None).msgget({}, 0o1600))'", key);
    Step step;
    auto r = step.run(make);
    REQUIRE(r.ok());
    CHECK(r->exit_code == 0);
    CHECK_FALSE(sysv_queue_exists(key));

    // Control: without the sandbox it stays after the step, owned by nobody.
    auto open = step.run(make, false);
    REQUIRE(open.ok());
    CHECK(sysv_queue_exists(key));
    ::msgctl(::msgget(key, 0), IPC_RMID, nullptr);
  }

  TEST_CASE("a unix socket outside the workspace cannot be connected to; the step's own sockets work") {
    std::string outside = make_temp_dir("outside");
    std::string path = outside + "/daemon.sock";
    int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(listener >= 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
    REQUIRE(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
    REQUIRE(::listen(listener, 8) == 0);
    std::string connect = fmt::format(
        "python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect(\"{}\"); print(\"connected\")'", path);

    Step step;
    auto r = step.run(connect);
    REQUIRE(r.ok());
    CHECK(r->output.text().find("connected") == std::string::npos);
    CHECK(r->exit_code != 0);

    // A server and its client inside the workspace, in one step, still talk.
    auto own = step.run(
        "python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.bind(\"own.sock\"); s.listen(); "
        "c = socket.socket(socket.AF_UNIX); c.connect(\"own.sock\"); print(\"own-ok\")'");
    REQUIRE(own.ok());
    CHECK(own->output.text().find("own-ok") != std::string::npos);

    // Control: without the sandbox the daemon is reachable.
    auto open = step.run(connect, false);
    REQUIRE(open.ok());
    CHECK(open->output.text().find("connected") != std::string::npos);
    ::close(listener);
  }

  TEST_CASE("a step that creates .candor or .git has them removed and is told so") {
    Step step;  // needs no kernel feature: the check runs after the step
    auto r = step.run(
        "mkdir .candor && echo '{\"secrets\": {\"allow\": [\".env\"]}}' > .candor/config.json; "
        "mkdir -p .git/hooks && touch .git/HEAD; echo ok > kept.txt");
    REQUIRE(r.ok());
    CHECK_FALSE(exists(step.ws + "/.candor"));
    CHECK_FALSE(exists(step.ws + "/.git"));
    CHECK(read_file(step.ws + "/kept.txt") == "ok\n");
    CHECK(r->protected_created == std::vector<std::string>{".git", ".candor"});  // in the policy's order

    // A symlink by that name is removed, not followed.
    std::string outside = make_temp_dir("outside");
    write_file(outside + "/keep.txt", "keep\n");
    auto link = step.run(fmt::format("ln -s {} .candor", outside));
    REQUIRE(link.ok());
    CHECK_FALSE(exists(step.ws + "/.candor"));
    CHECK(read_file(outside + "/keep.txt") == "keep\n");
    CHECK(link->protected_created == std::vector<std::string>{".candor"});
  }

  TEST_CASE("a credential file 40 folders deep reads as empty" * kNamespaces) {
    Step step;
    std::string deep;
    for (int i = 0; i < 40; ++i) deep += "d/";
    write_file(step.ws + "/" + deep + ".env", "DB_PASSWORD=hunter2\n");
    auto ws = sandbox::Workspace::open(step.ws);
    REQUIRE(ws.ok());
    step.policy = sandbox::make_sandbox_policy(**ws, step.policy);
    auto r = step.run("cat " + deep + ".env; echo end");
    REQUIRE(r.ok());
    CHECK(r->output.text().find("hunter2") == std::string::npos);
    CHECK(r->output.text().find("end") != std::string::npos);
  }

  TEST_CASE("a credential file whose folder a step renamed still reads as empty in the next step" * kNamespaces) {
    Step step;
    write_file(step.ws + "/.aws/credentials", "aws_secret_access_key=hunter2\n");
    auto ws = sandbox::Workspace::open(step.ws);
    REQUIRE(ws.ok());
    sandbox::SandboxPolicy at_start = sandbox::make_sandbox_policy(**ws, step.policy);
    step.policy = at_start;
    auto moved = step.run("mv .aws aws");  // aws/credentials is not a credential file by its name
    REQUIRE(moved.ok());
    REQUIRE(moved->exit_code == 0);
    step.policy = at_start;
    REQUIRE(sandbox::refresh_secret_files(**ws, step.policy).ok());
    auto r = step.run("cat aws/credentials; echo end");
    REQUIRE(r.ok());
    CHECK(r->output.text().find("hunter2") == std::string::npos);
    CHECK(read_file(step.ws + "/aws/credentials") == "aws_secret_access_key=hunter2\n");
  }
}
