// The git tools and git_clean open only the repository whose root is the workspace, one that
// existed when the run started, and none whose .git holds symlinks leading out (libgit2 runs
// unsandboxed, in candor itself).
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>

#include "assertions/builtins.h"
#include "executor/tool.h"
#include "tests/test_support.h"

using namespace candor;
using candor::testing::exists;
using candor::testing::git;
using candor::testing::make_temp_dir;
using candor::testing::read_file;
using candor::testing::run_git;
using candor::testing::write_file;
using nlohmann::json;

namespace {

struct GitFixture {
  std::unique_ptr<sandbox::Workspace> ws;
  executor::ToolRegistry tools = executor::builtin_tools();
  net::NetworkPolicy network;

  // Opening the workspace is what "the run starts" means here.
  void open(const std::string& root) { ws = std::move(sandbox::Workspace::open(root).value()); }
  executor::ToolResult run(const std::string& tool, const json& args) {
    executor::ToolContext ctx{*ws, network, kDefaultOutputCap, std::chrono::milliseconds(60000)};
    return tools.find(tool)->run(args, ctx);
  }
  assertions::Outcome git_clean() {
    assertions::Context ctx{*ws, network, nullptr, {}, nullptr, nullptr, nullptr};
    return assertions::make_git_clean()->evaluate({{"type", "git_clean"}}, ctx);
  }
};

}  // namespace

TEST_SUITE("executor") {
  TEST_CASE("a workspace inside another repository: git tools do not reach the repository above it") {
    std::string parent = make_temp_dir("parent");
    git(parent, {"init", "-q"});
    write_file(parent + "/.env", "DB_PASSWORD=hunter2\n");
    write_file(parent + "/app/index.html", "<p>hi</p>\n");
    GitFixture f;
    f.open(parent + "/app");
    for (const char* tool : {"git_commit", "git_status", "git_diff", "git_log"}) {
      CAPTURE(tool);
      auto r = f.run(tool, {{"message", "take everything"}});
      CHECK_FALSE(r.ok);
      CHECK(r.error.find("no git repository at the workspace root") != std::string::npos);
    }
    CHECK(run_git(parent, {"rev-parse", "--verify", "HEAD"}).exit_code != 0);
    auto clean = f.git_clean();
    CHECK_FALSE(clean.passed);
    CHECK(clean.message.find("no git repository at the workspace root") != std::string::npos);
  }

  TEST_CASE("a repository created after the run started is refused") {
    std::string root = make_temp_dir("ws");
    write_file(root + "/index.html", "<p>hi</p>\n");
    GitFixture f;
    f.open(root);
    git(root, {"init", "-q"});
    auto r = f.run("git_commit", {{"message", "planted"}});
    CHECK_FALSE(r.ok);
    CHECK(r.error.find("created during the run") != std::string::npos);
    CHECK(run_git(root, {"rev-parse", "--verify", "HEAD"}).exit_code != 0);
    auto clean = f.git_clean();
    CHECK_FALSE(clean.passed);
    CHECK(clean.message.find("created during the run") != std::string::npos);
  }

  TEST_CASE("a .git whose reflog is a symlink leading out is refused; nothing is appended outside") {
    std::string root = make_temp_dir("ws");
    std::string outside = make_temp_dir("outside");
    write_file(root + "/index.html", "<p>hi</p>\n");
    git(root, {"init", "-q"});
    git(root, {"add", "-A"});
    git(root, {"commit", "-q", "-m", "init"});
    write_file(outside + "/log", "original\n");
    std::filesystem::remove(root + "/.git/logs/HEAD");
    std::filesystem::create_symlink(outside + "/log", root + "/.git/logs/HEAD");
    write_file(root + "/index.html", "<p>changed</p>\n");
    GitFixture f;
    f.open(root);
    auto r = f.run("git_commit", {{"message", "change"}});
    CHECK_FALSE(r.ok);
    CHECK(r.error.find("symbolic link") != std::string::npos);
    CHECK(read_file(outside + "/log") == "original\n");
    CHECK_FALSE(f.git_clean().passed);
  }

  TEST_CASE("the workspace's own repository still works") {
    std::string root = make_temp_dir("ws");
    write_file(root + "/index.html", "<p>hi</p>\n");
    git(root, {"init", "-q"});
    git(root, {"add", "-A"});
    git(root, {"commit", "-q", "-m", "init"});
    GitFixture f;
    f.open(root);
    CHECK(f.git_clean().passed);
    write_file(root + "/index.html", "<p>changed</p>\n");
    auto r = f.run("git_commit", {{"message", "change"}});
    CHECK(r.ok);
    CHECK(f.run("git_log", json::object()).output.find("change") != std::string::npos);
    CHECK(f.git_clean().passed);
  }
}
