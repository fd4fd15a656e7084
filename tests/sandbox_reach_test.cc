// What a step can reach through the process sandbox beyond the workspace, found by attacking it
// (issue 23's red team): the host's /dev/null through a credential file's mask, extended
// attributes that change who may write without a mode, system and home-installation secrets
// beneath the read paths. Each case has a control where the test can show one.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

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
using candor::testing::ScopedEnv;
using candor::testing::write_file;

namespace {

Result<sandbox::ProcessResult> run_in(const sandbox::SandboxPolicy* policy, const std::string& cwd,
                                      const std::string& command) {
  sandbox::ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", command};
  spec.cwd = cwd;
  spec.timeout = 20s;
  spec.sandbox = policy;
  return sandbox::run_process(spec);
}

struct stat stat_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st;
}

}  // namespace

TEST_SUITE("sandbox") {
  TEST_CASE("a credential file's mask is read-only: chmod, chown and touch of .env never reach the host's /dev/null" *
            needs(kernel_facts().network_namespace, "mount namespaces")) {
    std::string ws = make_temp_dir("ws");
    write_file(ws + "/.env", "DB_PASSWORD=hunter2-hunter2\n");
    ::chmod((ws + "/.env").c_str(), 0600);
    sandbox::SandboxPolicy policy;
    policy.workspace = ws;
    policy.secret_files = {ws + "/.env"};
    struct stat before = stat_of("/dev/null");
    std::this_thread::sleep_for(10ms);  // a ctime that moved is seen as moved
    // The mode it already has: were the mask writable, the chmod would succeed and move the
    // ctime of the host's /dev/null without changing what it allows.
    auto r = run_in(&policy, ws,
                    fmt::format("chmod {:o} .env; echo chmod=$?; touch .env; echo touch=$?; cat .env; echo end",
                                before.st_mode & 07777));
    REQUIRE(r.ok());
    CAPTURE(r->output.text());
    struct stat after = stat_of("/dev/null");
    CHECK(after.st_ctim.tv_sec == before.st_ctim.tv_sec);
    CHECK(after.st_ctim.tv_nsec == before.st_ctim.tv_nsec);
    CHECK((after.st_mode & 07777) == (before.st_mode & 07777));
    CHECK(r->output.text().find("chmod=0") == std::string::npos);
    CHECK(r->output.text().find("hunter2") == std::string::npos);
    CHECK(read_file(ws + "/.env") == "DB_PASSWORD=hunter2-hunter2\n");
  }

  TEST_CASE("a step cannot set extended attributes (a default ACL would make later files writable by others)" *
            needs(kernel_facts().seccomp_filter, "seccomp")) {
    std::string ws = make_temp_dir("ws");
    std::filesystem::create_directories(ws + "/css");
    sandbox::SandboxPolicy policy;
    policy.workspace = ws;
    // A user xattr: the file system allows it to this user, so only the filter says no.
    const std::string attempt =
        "python3 -c 'import os\ntry:\n    os.setxattr(\"css\", \"user.candor\", b\"x\"); print(\"set\")\nexcept "
        "OSError as e:\n    print(\"refused\", e.errno)'";
    auto boxed = run_in(&policy, ws, attempt);
    REQUIRE(boxed.ok());
    CAPTURE(boxed->output.text());
    CHECK(boxed->output.text().find("refused 95") != std::string::npos);  // ENOTSUP
    auto direct = run_in(nullptr, ws, attempt);
    REQUIRE(direct.ok());
    if (direct->output.text().find("set") == std::string::npos)
      MESSAGE("this file system takes no user xattrs: the control shows nothing");
  }

  TEST_CASE("system secrets beneath the read paths stay unreadable: /etc/shadow as root" *
            needs(kernel_facts().landlock_abi > 0, "Landlock") * needs(::geteuid() == 0, "root")) {
    std::string ws = make_temp_dir("ws");
    sandbox::SandboxPolicy policy;
    policy.workspace = ws;
    const std::string probe =
        "head -c1 /etc/shadow >/dev/null 2>&1 && echo shadow-read || echo shadow-refused; "
        "head -c1 /etc/passwd >/dev/null && echo passwd-read";
    auto boxed = run_in(&policy, ws, probe);
    REQUIRE(boxed.ok());
    CHECK(boxed->output.text().find("shadow-refused") != std::string::npos);
    CHECK(boxed->output.text().find("passwd-read") != std::string::npos);  // /etc itself stays readable
    auto direct = run_in(nullptr, ws, probe);
    REQUIRE(direct.ok());
    CHECK(direct->output.text().find("shadow-read") != std::string::npos);
  }

  TEST_CASE("a credential inside a home installation that PATH opens (~/.cargo/credentials.toml) stays unreadable" *
            needs(kernel_facts().landlock_abi > 0, "Landlock")) {
    std::string home = make_temp_dir("home");
    write_file(home + "/.cargo/bin/tool", "#!/bin/sh\necho tool\n");
    ::chmod((home + "/.cargo/bin/tool").c_str(), 0755);
    write_file(home + "/.cargo/credentials.toml", "[registry]\ntoken = \"cio_TOKEN_FOR_TEST\"\n");
    write_file(home + "/.cargo/config.toml", "[build]\njobs = 2\n");
    ScopedEnv home_env("HOME", home);
    ScopedEnv path_env("PATH", home + "/.cargo/bin:/usr/bin:/bin");
    std::string ws = make_temp_dir("ws");
    sandbox::SandboxPolicy policy;
    policy.workspace = ws;
    auto boxed =
        run_in(&policy, ws, "tool; cat \"$HOME/.cargo/config.toml\"; cat \"$HOME/.cargo/credentials.toml\"; echo end");
    REQUIRE(boxed.ok());
    CAPTURE(boxed->output.text());
    CHECK(boxed->output.text().find("tool") != std::string::npos);      // the installation works
    CHECK(boxed->output.text().find("jobs = 2") != std::string::npos);  // and the rest of it is readable
    CHECK(boxed->output.text().find("cio_TOKEN_FOR_TEST") == std::string::npos);
  }
}
