// End-to-end: a step cannot hide its own changes from the snapshots, through the built binary.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <spawn.h>

#include <fcntl.h>

#include <string>

#include "tests/e2e_support.h"

using namespace candor;
using namespace candor::testing;
using nlohmann::json;

namespace {

bool mutated(const json& report, const std::string& path) {
  for (const auto& m : report["mutations"]) {
    if (m["path"] == path) return true;
  }
  return false;
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("a .gitignore a step writes does not hide the files written after it: reported, uncovered, undone") {
    // A file_write of a no-op is already suspicious to tier 1; a shell step is how the file would
    // be hidden without a trace, and then only the snapshot stands between it and `success`.
    for (std::string step2 :
         {R"({"id": "s2", "tool": "file_write", "args": {"path": "hidden.txt", "content": "unseen?\n"}})",
          R"({"id": "s2", "tool": "shell", "args": {"command": "echo unseen? > hidden.txt"}})"}) {
      CAPTURE(step2);
      Env env;
      std::string plan = env.plan_file(R"({"goal_kind": "modify", "steps": [
          {"id": "s1", "tool": "file_write", "args": {"path": ".gitignore", "content": "hidden.txt\n"},
           "assert": [{"type": "file_contains", "path": ".gitignore", "text": "hidden.txt"}]},
          )" + step2 + R"(], "then": "finish"})");
      json run = parse_stdout(env.exec(plan));
      CHECK(mutated(run, ".gitignore"));
      CHECK(mutated(run, "hidden.txt"));
      CHECK(run["verdict"] != "success");
      CHECK(env.candor({"undo", run["run_id"]}).exit_code == 0);
      CHECK_FALSE(exists(env.ws + "/hidden.txt"));
      CHECK_FALSE(exists(env.ws + "/.gitignore"));
    }
  }

  TEST_CASE("a repository a step creates inside the workspace does not hide the files in it") {
    Env env;
    // HOME: the sandbox keeps a shell step out of the real one, which git would read.
    std::string plan = env.plan_file(R"({"goal_kind": "modify", "steps": [
        {"id": "s1", "tool": "file_patch", "args": {"path": "css/style.css",
           "edits": [{"find": "background: #ffffff;", "replace": "background: #006400;"}]},
         "assert": [{"type": "file_contains", "path": "css/style.css", "text": "#006400"}]},
        {"id": "s2", "tool": "shell", "args": {"command": "HOME=/nonexistent git init -q sub && echo x > sub/file.txt"}}], "then": "finish"})");
    json run = parse_stdout(env.exec(plan));
    REQUIRE(run["step_results"][1]["ok"] == true);
    CHECK(mutated(run, "sub/file.txt"));
    for (const auto& m : run["mutations"]) CHECK(m["path"].get<std::string>().rfind("sub/.git/", 0) != 0);
    CHECK(run["verdict"] != "success");
    CHECK(env.candor({"undo", run["run_id"]}).exit_code == 0);
    CHECK_FALSE(exists(env.ws + "/sub/file.txt"));
  }

  TEST_CASE("a step that creates .candor/ or .git/ blocks success, named in the report") {
    for (std::string command : {"mkdir -p .candor && echo '{\"network\": {\"allow\": [\"*\"]}}' > .candor/config.json",
                                "HOME=/nonexistent git init -q ."}) {
      CAPTURE(command);
      Env env;
      json plan = {{"goal_kind", "modify"},
                   {"steps",
                    {{{"id", "s1"},
                      {"tool", "file_patch"},
                      {"args", {{"path", "css/style.css"}, {"edits", {{{"find", "background: #ffffff;"}, {"replace", "background: #006400;"}}}}}},
                      {"assert", {{{"type", "file_contains"}, {"path", "css/style.css"}, {"text", "#006400"}}}}},
                     {{"id", "s2"}, {"tool", "shell"}, {"args", {{"command", command}}}}}},
                   {"then", "finish"}};
      auto r = env.exec(env.plan_file(plan.dump()));
      json run = parse_stdout(r);
      CAPTURE(r.out);
      CHECK(run["verdict"] == "partial");
      std::string said = run["reasons"].dump() + run["protected_changes"].dump();
      bool named = said.find(".candor") != std::string::npos || said.find(".git") != std::string::npos;
      CHECK(named);
    }
  }

  TEST_CASE("twenty runs started at once on a workspace the store has never seen all start: the snapshot repository is made once") {
    Env env;
    std::string plan = env.plan_file(R"({"goal_kind": "modify", "steps": [
        {"id": "s1", "tool": "file_read", "args": {"path": "index.html"}}], "then": "finish"})");
    std::vector<pid_t> pids;
    std::string bin = candor_bin(), home = "CANDOR_HOME=" + env.store;
    for (int i = 0; i < 20; ++i) {
      std::vector<std::string> args = {bin, "exec", plan, "-C", env.ws, "--json"};
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      std::vector<char*> envp = {home.data(), const_cast<char*>("PATH=/usr/bin:/bin"), nullptr};
      posix_spawn_file_actions_t quiet;
      posix_spawn_file_actions_init(&quiet);
      posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
      pid_t pid = 0;
      REQUIRE(::posix_spawn(&pid, bin.c_str(), &quiet, nullptr, argv.data(), envp.data()) == 0);
      posix_spawn_file_actions_destroy(&quiet);
      pids.push_back(pid);
    }
    int started = 0;
    for (pid_t pid : pids) {
      int status = 0;
      REQUIRE(::waitpid(pid, &status, 0) == pid);
      // Each run finishes with its verdict: fail (it changed nothing), exit 2; none dies at start.
      started += WIFEXITED(status) && WEXITSTATUS(status) == 2;
    }
    CHECK(started == 20);
    auto runs = env.candor({"runs", "--json", "--limit", "100"});
    CHECK(json::parse(runs.out).size() == 20);
  }
}
