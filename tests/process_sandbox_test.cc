// The process sandbox against the attacks a shell step chosen by an LLM can make. Each attack is
// checked to fail under the sandbox; where the test can say so, the same command is shown to
// succeed without it, so a sandbox that stopped working would fail here.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <random>

#include <fmt/format.h>

#include "sandbox/process.h"
#include "sandbox/process_sandbox.h"
#include "sandbox/secret_files.h"
#include "tests/kernel_facts.h"
#include "tests/test_support.h"

using namespace candor;
using namespace std::chrono_literals;
using candor::testing::exists;
using candor::testing::kernel_facts;
using candor::testing::make_temp_dir;
using candor::testing::needs;
using candor::testing::read_file;
using candor::testing::ScopedEnv;
using candor::testing::write_file;

namespace {

struct Box {
  std::string ws = make_temp_dir("ws");
  std::string outside = make_temp_dir("outside");
  sandbox::SandboxPolicy policy;

  Box() {
    std::filesystem::create_directories(ws + "/.git");
    write_file(ws + "/.git/HEAD", "ref: refs/heads/main\n");
    write_file(outside + "/canary", "untouched\n");
    policy.workspace = ws;
    policy.read_only_dirs = {ws + "/.git"};
    policy.limits.processes = 64;
  }
  Result<sandbox::ProcessResult> run(const std::string& command, std::chrono::milliseconds timeout = 20s,
                                     bool sandboxed = true) {
    sandbox::ProcessSpec spec;
    spec.argv = {"/bin/bash", "-c", command};
    spec.cwd = ws;
    spec.timeout = timeout;
    spec.sandbox = sandboxed ? &policy : nullptr;
    return sandbox::run_process(spec);
  }
};

// A non-zombie process whose command line contains `marker`.
bool any_process_with(const std::string& marker) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos || std::stoi(name) == ::getpid()) continue;
    std::string cmdline = read_file(entry.path().string() + "/cmdline");
    for (char& c : cmdline)
      if (c == '\0') c = ' ';
    if (cmdline.find(marker) == std::string::npos) continue;
    std::string stat = read_file(entry.path().string() + "/stat");
    std::size_t close = stat.rfind(')');
    if (close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z' && stat[close + 2] != 'X')
      return true;
  }
  return false;
}

const needs kLandlock{kernel_facts().landlock_abi > 0, "Landlock"};
const needs kNamespaces{kernel_facts().network_namespace, "unprivileged network and mount namespaces"};
const needs kPidsCgroup{!kernel_facts().pids_cgroup.empty(), "a pids cgroup it can make children in"};

std::string unique_marker() {
  static std::mt19937 rng{std::random_device{}()};
  return fmt::format("{}.{:06}", 4000 + rng() % 1000, rng() % 1000000);  // a sleep duration nobody else uses
}

}  // namespace

TEST_SUITE("sandbox") {
  TEST_CASE("a write outside the workspace is refused and the canary is unchanged; inside works" * kLandlock) {
    Box box;
    std::string attack =
        fmt::format("echo pwned > {0}/canary; echo new > {0}/created; echo ok > inside.txt", box.outside);
    auto r = box.run(attack);
    REQUIRE(r.ok());
    CHECK(r->output.text().find("Permission denied") != std::string::npos);
    CHECK(read_file(box.outside + "/canary") == "untouched\n");
    CHECK_FALSE(exists(box.outside + "/created"));
    CHECK(read_file(box.ws + "/inside.txt") == "ok\n");
    REQUIRE(r->protections);
    CHECK(r->protections->filesystem);
    CHECK(r->protections->landlock_abi == kernel_facts().landlock_abi);

    // Control: the same command without the sandbox does reach outside.
    auto unsandboxed = box.run(attack, 20s, false);
    REQUIRE(unsandboxed.ok());
    CHECK(read_file(box.outside + "/canary") == "pwned\n");
  }

  TEST_CASE("the workspace's .git and other protected folders are read-only to a step" * kNamespaces) {
    Box box;
    auto r = box.run("echo evil > .git/HEAD; touch .git/hooks-planted; rm -f .git/HEAD; echo done");
    REQUIRE(r.ok());
    CHECK(read_file(box.ws + "/.git/HEAD") == "ref: refs/heads/main\n");
    CHECK_FALSE(exists(box.ws + "/.git/hooks-planted"));
    CHECK(r->output.text().find("Read-only file system") != std::string::npos);
    // umount is the way out of a bind mount; Landlock and seccomp both refuse it.
    auto umount = box.run(fmt::format("umount {0}/.git 2>&1; echo again > .git/HEAD", box.ws));
    REQUIRE(umount.ok());
    CHECK(read_file(box.ws + "/.git/HEAD") == "ref: refs/heads/main\n");
  }

  TEST_CASE("no network by default: a listener on the host's 127.0.0.1 is unreachable; --allow-network opens it") {
    candor::testing::LoopbackListener listener;
    std::string connect = fmt::format("exec 3<>/dev/tcp/127.0.0.1/{} && echo connected", listener.port());
    Box box;
    auto denied = box.run(connect);
    REQUIRE(denied.ok());
    CHECK(denied->exit_code != 0);
    CHECK(denied->output.text().find("connected") == std::string::npos);
    CHECK(denied->protections->network != "allowed");
    CHECK(denied->protections->network != "none");

    SUBCASE("seccomp closes it too where there is no network namespace") {
      box.policy.mechanisms.namespaces = false;
      auto r = box.run(connect + "; python3 -c 'import socket; socket.socketpair(socket.AF_UNIX)' && echo unix-ok");
      REQUIRE(r.ok());
      CHECK(r->protections->network == "seccomp");
      CHECK(r->output.text().find("connected") == std::string::npos);
      CHECK(r->output.text().find("Address family not supported") != std::string::npos);
    }
    SUBCASE("allowed") {
      box.policy.allow_network = true;
      auto r = box.run(connect);
      REQUIRE(r.ok());
      CHECK(r->exit_code == 0);
      CHECK(r->output.text().find("connected") != std::string::npos);
      CHECK(r->protections->network == "allowed");
    }
  }

  TEST_CASE("a step in its own network namespace can still use its own loopback" * kNamespaces) {
    Box box;
    // A server and a client inside one step: the namespace's loopback is up.
    auto r = box.run(
        "python3 -c 'import socket; s=socket.socket(); s.bind((\"127.0.0.1\",0)); s.listen(); "
        "c=socket.create_connection(s.getsockname()); print(\"loopback-ok\")'");
    REQUIRE(r.ok());
    CHECK(r->protections->network == "namespace");
    CHECK(r->output.text().find("loopback-ok") != std::string::npos);
  }

  TEST_CASE("a listener a step leaves behind answers no later step (steps may share a network namespace)" *
            kNamespaces) {
    Box box;
    // Step 1 starts a server that outlives its shell (setsid, in the background) and proves it
    // answers; the next step finds the port and tries again.
    std::string serve =
        "import socket,sys; s=socket.socket(); s.bind(('127.0.0.1',0)); s.listen(); "
        "open('port','w').write(str(s.getsockname()[1])); sys.stdout.close()\n"
        "while True: s.accept()[0].close()";
    auto left = box.run(
        fmt::format("setsid python3 -c \"{}\" > /dev/null 2>&1 & "
                    "while [ ! -s port ]; do sleep 0.05; done; "
                    "python3 -c \"import socket; socket.create_connection(('127.0.0.1', int(open('port').read())))\" "
                    "&& echo answered",
                    serve));
    REQUIRE(left.ok());
    REQUIRE(left->output.text().find("answered") != std::string::npos);
    auto next = box.run(
        "python3 -c \"import socket; socket.create_connection(('127.0.0.1', int(open('port').read())))\" "
        "2>&1 && echo answered");
    REQUIRE(next.ok());
    CHECK(next->output.text().find("answered") == std::string::npos);
    CHECK(next->output.text().find("Connection refused") != std::string::npos);
  }

  TEST_CASE("a fork bomb is contained and leaves no process behind") {
    Box box;
    std::string marker = unique_marker();
    auto started = std::chrono::steady_clock::now();
    auto r = box.run(fmt::format("bomb() {{ sleep {0} & bomb & bomb; }}; bomb", marker), 4s);
    REQUIRE(r.ok());
    auto took = std::chrono::steady_clock::now() - started;
    CHECK(took < 30s);
    CHECK_FALSE(any_process_with(marker));
    if (!kernel_facts().pids_cgroup.empty()) {
      // The cgroup also kept the bomb small: the machine never ran out of processes.
      CHECK(r->protections->processes == "cgroup");
      CHECK(r->output.text().find("Resource temporarily unavailable") != std::string::npos);
    }
  }

  TEST_CASE("a memory hog stops at the address-space limit") {
    Box box;
    box.policy.limits.memory_bytes = 256ULL << 20;
    auto r = box.run("awk 'BEGIN { s = \"xxxxxxxxxxxxxxxx\"; while (1) s = s s }'", 20s);
    REQUIRE(r.ok());
    CHECK_FALSE(r->timed_out);
    CHECK(r->exit_code != 0);
  }

  TEST_CASE("a 2 GB file write stops at the file-size limit") {
    Box box;
    box.policy.limits.file_size_bytes = 16ULL << 20;
    auto r = box.run("head -c 2G /dev/zero > big.bin", 20s);
    REQUIRE(r.ok());
    CHECK_FALSE(r->timed_out);
    CHECK(r->exit_code != 0);
    CHECK(std::filesystem::file_size(box.ws + "/big.bin") <= (16ULL << 20));
  }

  TEST_CASE("a process that ignores SIGTERM is killed at its timeout") {
    Box box;
    std::string marker = unique_marker();
    auto started = std::chrono::steady_clock::now();
    auto r = box.run(fmt::format("trap '' TERM INT HUP; sleep {}; echo survived", marker), 1s);
    REQUIRE(r.ok());
    CHECK(r->timed_out);
    CHECK(std::chrono::steady_clock::now() - started < 10s);
    CHECK(r->output.text().find("survived") == std::string::npos);
    CHECK_FALSE(any_process_with(marker));
  }

  TEST_CASE("a background child that leaves the process group does not outlive its step" * kPidsCgroup) {
    Box box;
    std::string marker = unique_marker();
    // The parent waits until the child has left the group (it writes its pid from the new session),
    // so the group kill cannot get it first.
    auto r = box.run(fmt::format("setsid sh -c 'echo $$ > escaped.pid; exec sleep {}' > /dev/null 2>&1 < /dev/null & "
                                 "while [ ! -s escaped.pid ]; do sleep 0.05; done; echo started",
                                 marker),
                     10s);
    REQUIRE(r.ok());
    CHECK(r->output.text().find("started") != std::string::npos);
    CHECK(r->protections->processes == "cgroup");
    CHECK(r->stragglers_killed >= 1);
    CHECK_FALSE(any_process_with(marker));
  }

  TEST_CASE("credentials in candor's environment are not in a step's; --pass-env passes one by name") {
    ScopedEnv openai("OPENAI_API_KEY", "sk-planted-in-test");
    ScopedEnv deploy("DEPLOY_TOKEN", "tok-planted");
    Box box;
    auto r = box.run("env");
    REQUIRE(r.ok());
    CHECK(r->output.text().find("sk-planted-in-test") == std::string::npos);
    CHECK(r->output.text().find("tok-planted") == std::string::npos);
    CHECK(r->output.text().find("PATH=") != std::string::npos);
    CHECK(r->output.text().find("TMPDIR=") != std::string::npos);

    box.policy.pass_env = {"DEPLOY_TOKEN"};
    auto passed = box.run("env");
    REQUIRE(passed.ok());
    CHECK(passed->output.text().find("DEPLOY_TOKEN=tok-planted") != std::string::npos);
    CHECK(passed->output.text().find("sk-planted-in-test") == std::string::npos);
  }

  TEST_CASE("a step cannot read candor's own environment through /proc" * kLandlock) {
    Box box;
    // Whether cat can open the file at all: /proc/PID/environ shows the block the process started
    // with, so a variable set here with setenv would never show in it, read or not.
    const std::string read_environ = fmt::format("cat /proc/{}/environ > /dev/null; echo cat=$?", ::getpid());
    auto r = box.run(read_environ);
    REQUIRE(r.ok());
    CHECK(r->output.text().find("cat=1") != std::string::npos);

    // Control: without the sandbox the same read works.
    auto unsandboxed = box.run(read_environ, 20s, false);
    REQUIRE(unsandboxed.ok());
    CHECK(unsandboxed->output.text().find("cat=0") != std::string::npos);
  }

  // Signals are scoped from Landlock ABI 6; below it the SIGSTOP would reach this test process.
  TEST_CASE("a step cannot signal candor" *
            needs(kernel_facts().landlock_abi >= 6, "Landlock ABI 6 (scoped signals)")) {
    Box box;
    auto r = box.run(fmt::format("kill -STOP {}; echo kill=$?", ::getpid()));
    REQUIRE(r.ok());
    CHECK(r->output.text().find("kill=1") != std::string::npos);
  }

  TEST_CASE("credential files in the workspace read as empty inside a step" * kNamespaces) {
    Box box;
    write_file(box.ws + "/.env", "DB_PASSWORD=hunter2\n");
    box.policy.secret_files = {box.ws + "/.env"};
    auto r = box.run("cat .env; echo end");
    REQUIRE(r.ok());
    CHECK(r->output.text().find("hunter2") == std::string::npos);
    CHECK(read_file(box.ws + "/.env") == "DB_PASSWORD=hunter2\n");
  }

  TEST_CASE("the private temporary folder is writable and removed afterwards") {
    Box box;
    auto r = box.run("echo scratch > \"$TMPDIR/x\" && cat \"$TMPDIR/x\" && echo \"$TMPDIR\"");
    REQUIRE(r.ok());
    CHECK(r->exit_code == 0);
    std::string out = r->output.text();
    REQUIRE(out.rfind("scratch\n", 0) == 0);
    std::string tmp = out.substr(8, out.find('\n', 8) - 8);
    CHECK(tmp.find("candor-step-") != std::string::npos);
    CHECK_FALSE(exists(tmp));
  }

  TEST_CASE("caches go to a private folder in the temporary one (XDG_CACHE_HOME), unless pass_env keeps the user's") {
    Box box;
    auto r = box.run("mkdir -p \"$XDG_CACHE_HOME/ccache\" && echo \"$XDG_CACHE_HOME\" && echo \"$TMPDIR\"");
    REQUIRE(r.ok());
    CHECK(r->exit_code == 0);
    std::string out = r->output.text();
    std::string cache = out.substr(0, out.find('\n'));
    std::string tmp = out.substr(cache.size() + 1, out.find('\n', cache.size() + 1) - cache.size() - 1);
    CHECK(cache == tmp + "/cache");
    Box kept;
    kept.policy.pass_env = {"XDG_CACHE_HOME"};
    auto same = kept.run("echo \"[${XDG_CACHE_HOME:-}]\"");
    REQUIRE(same.ok());
    const char* own = std::getenv("XDG_CACHE_HOME");
    CHECK(same->output.text() == "[" + std::string(own != nullptr ? own : "") + "]\n");
  }

  TEST_CASE("--require-sandbox: a policy that cannot get every protection fails to start") {
    Box box;
    box.policy.require_all = true;
    box.policy.mechanisms.landlock = false;
    auto r = box.run("echo ran");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kRefused);
    CHECK(r.error().message.find("missing landlock") != std::string::npos);
  }

  TEST_CASE(
      "the protections probed on a thread beside one that forks and allocates are those probed alone, and a "
      "process's") {
    // A run's start probes on a thread while the main thread walks the workspace: the probe's
    // children must see the same kernel answers, and the report must say what a process gets.
    for (const sandbox::Mechanisms& mechanisms :
         {sandbox::Mechanisms{},
          sandbox::Mechanisms{.landlock = false, .namespaces = true, .seccomp = true, .cgroup = true},
          sandbox::Mechanisms{.landlock = true, .namespaces = false, .seccomp = false, .cgroup = false}}) {
      Box box;
      box.policy.mechanisms = mechanisms;
      nlohmann::json alone = sandbox::expected_protections(box.policy).to_json();
      auto probed = std::async(std::launch::async, [&] { return sandbox::probe_protections(mechanisms); });
      std::vector<std::string> churn;
      for (int i = 0; i < 20000; ++i) churn.push_back(std::string(64 + i % 512, 'x'));
      for (int i = 0; i < 5; ++i) {
        pid_t child = ::fork();
        if (child == 0) ::_exit(0);
        int status = 0;
        ::waitpid(child, &status, 0);
      }
      nlohmann::json beside = sandbox::expected_protections(box.policy, probed.get()).to_json();
      CHECK(beside == alone);
      auto prepared = sandbox::PreparedSandbox::prepare(box.policy, 10);
      REQUIRE(prepared.ok());
      CHECK(prepared->active().to_json() == beside);
    }
  }

  TEST_CASE("expected protections from a probe already made follow the policy: off, or the network allowed") {
    Box box;
    sandbox::Protections probed = sandbox::probe_protections(box.policy.mechanisms);
    box.policy.allow_network = true;
    CHECK(sandbox::expected_protections(box.policy, probed).network == "allowed");
    CHECK(sandbox::expected_protections(box.policy, probed).to_json() ==
          sandbox::expected_protections(box.policy).to_json());
    box.policy.enabled = false;
    CHECK(sandbox::expected_protections(box.policy, probed).to_json() ==
          sandbox::expected_protections(box.policy).to_json());
    CHECK(sandbox::expected_protections(box.policy, probed).processes == "none");
  }

  TEST_CASE("credential variables and files are recognised by name") {
    for (const char* name : {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GITHUB_TOKEN", "AWS_ACCESS_KEY_ID", "DB_PASSWORD",
                             "MY_SECRET", "SSH_AUTH_SOCK", "stripe_secret_key", "NPM_CONFIG_TOKEN",
                             // red team, round four: connection strings and headers by their usual names
                             "REDIS_URL", "MONGODB_URI", "DATABASE_URL", "AUTH_HEADER", "BEARER", "KUBE_CONFIG_DATA",
                             "APP_DATABASE_URL", "X_AUTHORIZATION"}) {
      CAPTURE(name);
      CHECK(sandbox::looks_like_credential_variable(name));
    }
    for (const char* name : {"PATH", "HOME", "LANG", "TERM", "USER", "PWD", "EDITOR", "KEYBOARD_LAYOUT",
                             "GIT_AUTHOR_NAME", "AUTHOR", "SITE_URL", "API_URL"}) {
      CAPTURE(name);
      CHECK_FALSE(sandbox::looks_like_credential_variable(name));
    }
    for (const char* path : {".env", "app/.env", ".env.local", ".env.production", "certs/server.pem", "tls.key",
                             "id_rsa", "home/.ssh/id_ed25519", ".ssh/config", ".aws/credentials", ".netrc", "x/.npmrc",
                             "keystore.p12", ".git-credentials"}) {
      CAPTURE(path);
      CHECK(sandbox::looks_secret(path));
    }
    for (const char* path : {".env.example", ".env.sample", "id_rsa.pub", "keys.txt", "envoy.yaml", "src/key.cc",
                             "environment.md", "README.md", "monkey", "pem/readme"}) {
      CAPTURE(path);
      CHECK_FALSE(sandbox::looks_secret(path));
    }
    sandbox::SecretFilter allow({"test/fixtures/*.pem", ".env.test"});
    CHECK_FALSE(allow.refused("test/fixtures/server.pem"));
    CHECK(allow.refused("certs/server.pem"));
    CHECK_FALSE(allow.refused("app/.env.test"));
    CHECK(allow.refused(".env"));
    // candor's one glob dialect (core/glob.h): classes, and a folder's glob allows what is in it.
    sandbox::SecretFilter dialect({"[[:alpha:]]*.pem", "ci/.aws/", "x[b"});
    CHECK_FALSE(dialect.refused("certs/server.pem"));
    CHECK(dialect.refused("certs/1.pem"));
    CHECK_FALSE(dialect.refused("ci/.aws/credentials"));
    CHECK(dialect.refused(".aws/credentials"));
    CHECK(dialect.refused(".env"));  // "x[b" is invalid (refused when the config is read) and allows nothing
  }
}

TEST_SUITE("sandbox") {
  TEST_CASE("read rules go around hidden paths: a folder holding one is split into its other entries") {
    namespace fs = std::filesystem;
    std::string root = fs::canonical(make_temp_dir("home")).string();
    for (const char* dir :
         {"/.local/bin", "/.local/lib", "/.local/lib-other", "/.local/state/candor/snapshots", "/.local/state/other"}) {
      fs::create_directories(root + dir);
    }
    write_file(root + "/.local/lib/criterion.txt", "secret");
    write_file(root + "/.local/lib/module.py", "");
    fs::create_symlink(root + "/.local/state/candor", root + "/.local/to-store");  // a rule follows symlinks
    fs::create_symlink(root + "/.local", root + "/.local/state/loop");             // back up: split once
    std::string store = root + "/.local/state/candor";
    struct Row {
      std::vector<std::string> paths, hidden, expected;
    };
    const Row rows[] = {
        {{root + "/.local"}, {}, {root + "/.local"}},
        {{root + "/.local"},
         {store},
         {root + "/.local/bin", root + "/.local/lib", root + "/.local/lib-other", root + "/.local/state/other"}},
        {{root + "/.local"},
         {store, root + "/.local/lib/criterion.txt"},
         {root + "/.local/bin", root + "/.local/lib/module.py", root + "/.local/lib-other",
          root + "/.local/state/other"}},
        {{store, store + "/snapshots", root + "/.local/to-store"}, {store}, {}},
        {{root + "/.local/bin", "/usr", root + "/missing"}, {store}, {root + "/.local/bin", "/usr"}},
        {{root + "/.local/bin"}, {root + "/no-such-store"}, {root + "/.local/bin"}},
        // One rule for a folder and what lies beneath it (PATH names /usr/local/bin beside /usr).
        {{root + "/.local/bin", root + "/.local", root + "/.local/lib/module.py", root + "/.local"},
         {},
         {root + "/.local"}},
        {{root + "/.local/lib-other", root + "/.local/lib/module.py", root + "/.local/lib"},
         {},
         {root + "/.local/lib", root + "/.local/lib-other"}},
    };
    for (const auto& row : rows) {
      CAPTURE(row.paths);
      CAPTURE(row.hidden);
      std::vector<std::string> got = sandbox::read_rules_around(row.paths, row.hidden);
      std::sort(got.begin(), got.end());
      std::vector<std::string> expected = row.expected;
      std::sort(expected.begin(), expected.end());
      CHECK(got == expected);
    }
  }

  TEST_CASE("a read path in the workspace cannot be turned into a symlink that opens another folder to steps" *
            kLandlock) {
    // PATH may name a folder in the workspace (direnv's node_modules/.bin): the agent can replace
    // it with a link to ~/.ssh, and a rule made by opening the path would follow the link.
    Box box;
    write_file(box.outside + "/id_rsa", "PRIVATE-KEY\n");
    std::string attack = "cat node_modules/.bin/id_rsa 2>&1";
    box.policy.read_paths = {box.outside};  // the control: a rule on the folder itself opens it
    auto control = box.run(attack + "; cat " + box.outside + "/id_rsa");
    REQUIRE(control.ok());
    CHECK(control->output.text().find("PRIVATE-KEY") != std::string::npos);

    box.policy.read_paths = {box.ws + "/node_modules/.bin"};
    std::filesystem::create_directories(box.ws + "/node_modules/.bin");
    auto swap = box.run("rm -rf node_modules/.bin && ln -s " + box.outside + " node_modules/.bin && echo swapped");
    REQUIRE(swap.ok());
    REQUIRE(swap->output.text().find("swapped") != std::string::npos);
    auto next = box.run(attack);  // the next step, and a later run (the link is there before it starts)
    REQUIRE(next.ok());
    CHECK(next->output.text().find("PRIVATE-KEY") == std::string::npos);
    CHECK(next->output.text().find("Permission denied") != std::string::npos);
  }

  TEST_CASE("a hidden folder inside a readable one stays unreadable to a step; its siblings do not" * kLandlock) {
    Box box;
    std::string home = make_temp_dir("home");
    write_file(home + "/.local/lib/tool.py", "TOOL\n");
    write_file(home + "/.local/state/candor/candor.db", "SNAPSHOT-OF-DOTENV\n");
    box.policy.read_paths = {home + "/.local"};
    std::string attack = fmt::format(
        "cat {0}/.local/lib/tool.py; cat {0}/.local/state/candor/candor.db 2>&1; ls {0}/.local/state/candor "
        "2>/dev/null",
        home);
    auto open = box.run(attack);  // the control: without the hidden path the store is readable
    REQUIRE(open.ok());
    CHECK(open->output.text().find("SNAPSHOT-OF-DOTENV") != std::string::npos);
    box.policy.hidden_paths = {home + "/.local/state/candor"};
    auto hidden = box.run(attack);
    REQUIRE(hidden.ok());
    CHECK(hidden->output.text().find("TOOL") != std::string::npos);
    CHECK(hidden->output.text().find("SNAPSHOT-OF-DOTENV") == std::string::npos);
    CHECK(hidden->output.text().find("Permission denied") != std::string::npos);
    CHECK(hidden->output.text().find("\ncandor.db\n") == std::string::npos);  // no listing either
  }
}
