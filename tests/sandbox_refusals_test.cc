// What candor's own sandbox refused a check (sandbox/refusals.h): table-driven over what a command
// prints, and through the binary, where a check that reads outside the workspace fails as the
// sandbox's refusal, named with sandbox.read_paths, and the gate files it under `sandbox`.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sandbox/refusals.h"
#include "tests/e2e_support.h"
#include "tests/gate_fixture.h"
#include "tests/kernel_facts.h"

namespace candor::testing {
namespace {

using nlohmann::json;

struct Row {
  const char* name;
  std::string output;
  std::vector<std::string> want;
};

}  // namespace

TEST_CASE("refused_paths names the paths outside every read root that a line says were refused") {
  std::string bin_dir = make_temp_dir("refusals-bin");
  write_file(bin_dir + "/pyenv", "#!/bin/sh\n");
  sandbox::SandboxPolicy policy;
  policy.workspace = "/work/ws";
  policy.hidden_paths = {"/root/.local/state/candor"};
  const std::vector<std::string> readable = {"/usr", "/etc", "/opt/tools"};
  std::string path_env = "/usr/bin:" + bin_dir;
  const std::vector<Row> rows = {
      {"a path outside", "cat: /srv/data/x.csv: Permission denied\n", {"/srv/data/x.csv"}},
      {"Python's wording", "PermissionError: [Errno 13] Permission denied: '/home/me/.pyenv/version'\n", {}},
      {"EPERM", "open /home/me/go/pkg: Operation not permitted\n", {"/home/me/go/pkg"}},
      {"inside a read root: the file's own mode, not the sandbox", "cat: /etc/shadow: Permission denied\n", {}},
      {"inside the workspace", "sh: 1: /work/ws/run.sh: Permission denied\n", {}},
      {"the store is hidden on purpose", "cat: /root/.local/state/candor/runs.db: Permission denied\n", {}},
      {"a device is never widened", "bash: /dev/tty: Permission denied\n", {}},
      {"no refusal on the line", "cat: /srv/data/x.csv: No such file or directory\n", {}},
      {"a path after the refusal is not what was refused", "Permission denied (see /srv/help.txt)\n", {}},
      {"a bare name the shell could not run, found on PATH", "sh: 1: pyenv: Permission denied\n", {bin_dir + "/pyenv"}},
      {"a bare name not on PATH", "sh: 1: nosuchtool: Permission denied\n", {}},
      {"each path once", "cat: /srv/a: Permission denied\ncat: /srv/a: Permission denied\n", {"/srv/a"}},
      {"at most five",
       "/s/1: Permission denied\n/s/2: Permission denied\n/s/3: Permission denied\n"
       "/s/4: Permission denied\n/s/5: Permission denied\n/s/6: Permission denied\n",
       {"/s/1", "/s/2", "/s/3", "/s/4", "/s/5"}},
  };
  for (const auto& row : rows) {
    CAPTURE(row.name);
    CHECK(sandbox::refused_paths(row.output, policy, readable, path_env) == row.want);
  }
  // Python's PermissionError names the path after the words: not read as the sandbox's (the row
  // above); the shell's and coreutils' wording is. Without Landlock nothing is the sandbox's doing.
  sandbox::SandboxPolicy off = policy;
  off.mechanisms.landlock = false;
  CHECK(sandbox::refused_paths("cat: /srv/data/x.csv: Permission denied\n", off, readable, path_env).empty());
  off = policy;
  off.enabled = false;
  CHECK(sandbox::refused_paths("cat: /srv/data/x.csv: Permission denied\n", off, readable, path_env).empty());
  CHECK(sandbox::refusal_sentence({"/srv/a"}) ==
        "candor's sandbox refused it /srv/a (outside the workspace and the folders a check may read), so the check "
        "could not run: this is not the work's failure; to let the check read it, add it to \"sandbox\": "
        "{\"read_paths\": [...]} in .candor/config.json");
}

TEST_SUITE("e2e") {
  TEST_CASE("a check candor's sandbox refused says so, names the path and sandbox.read_paths; read_paths lets it run" *
            needs(kernel_facts().landlock_abi > 0, "Landlock")) {
    std::string outside = make_temp_dir("outside-data");
    write_file(outside + "/fixture.txt", "expected\n");
    Env env(make_workspace({{"a.txt", "a\n"}}));
    std::string plan = env.plan_file(
        R"({"goal_kind": "modify", "steps": [{"id": "s1", "tool": "file_write", "args": {"path": "a.txt", "content": "b\n"}}], "then": "finish"})");
    json expect = {{"type", "command_succeeds"}, {"command", "cat " + outside + "/fixture.txt"}};
    auto r = env.exec(plan, {"--expect", expect.dump(), "--judge", "never"});
    json j = json::parse(r.out);
    CAPTURE(r.out);
    CHECK(j["verdict"] == "partial");
    json a;
    for (const auto& x : j["assertions"])
      if (x["type"] == "command_succeeds") a = x;
    REQUIRE(a.is_object());
    CHECK(a["passed"] == false);
    CHECK(a["sandbox_refused"] == json::array({outside + "/fixture.txt"}));
    CHECK(a["message"].get<std::string>().find(": candor's sandbox refused it " + outside +
                                               "/fixture.txt (outside the workspace and the folders a check may "
                                               "read), so the check could not run: this is not the work's failure; "
                                               "to let the check read it, add it to \"sandbox\": {\"read_paths\": "
                                               "[...]} in .candor/config.json; it printed: cat: ") !=
          std::string::npos);
    // The person follows the advice: the same check reads the path and passes.
    Env widened(make_workspace(
        {{"a.txt", "a\n"}, {".candor/config.json", json{{"sandbox", {{"read_paths", {outside}}}}}.dump()}}));
    auto w = widened.exec(
        widened.plan_file(
            R"({"goal_kind": "modify", "steps": [{"id": "s1", "tool": "file_write", "args": {"path": "a.txt", "content": "b\n"}}], "then": "finish"})"),
        {"--expect", expect.dump(), "--judge", "never"});
    json k = json::parse(w.out);
    bool passed = false;
    for (const auto& x : k["assertions"])
      if (x["type"] == "command_succeeds") passed = x["passed"].get<bool>() && !x.contains("sandbox_refused");
    CHECK(passed);
    // Control: a check that fails on its own (a missing file) is not said to be the sandbox's.
    json missing = {{"type", "command_succeeds"}, {"command", "cat nosuch.txt"}};
    auto m = env.exec(
        env.plan_file(
            R"({"goal_kind": "modify", "steps": [{"id": "s1", "tool": "file_write", "args": {"path": "a.txt", "content": "c\n"}}], "then": "finish"})"),
        {"--expect", missing.dump(), "--judge", "never"});
    CHECK(m.out.find("sandbox refused") == std::string::npos);
    CHECK(m.out.find("sandbox_refused") == std::string::npos);
  }

  TEST_CASE("gate: an expectation the sandbox refused blocks as `sandbox`, telling the agent not to edit the check" *
            needs(kernel_facts().landlock_abi > 0, "Landlock")) {
    using namespace gate_fixture;
    std::string outside = make_temp_dir("outside-gate");
    write_file(outside + "/golden.txt", "hello candor\n");
    json config = {
        {"expect", {{{"type", "command_succeeds"}, {"command", "cmp hello.txt " + outside + "/golden.txt"}}}}};
    Gate g({{"hello.txt", "hello world\n"}, {".candor/config.json", config.dump()}});
    g.hook("claude-code", g.input("claude-code", "ups"));
    write_file(g.ws + "/hello.txt", "hello candor\n");
    json a = g.hook("claude-code", g.input("claude-code", "stop"));
    CAPTURE(a.dump());
    REQUIRE(a.value("decision", "") == "block");
    std::string reason = a["reason"];
    CHECK(reason.find("- [sandbox] the expected check command_succeeds `cmp hello.txt " + outside +
                      "/golden.txt` failed: ") != std::string::npos);
    CHECK(reason.find("candor's sandbox refused it " + outside + "/golden.txt") != std::string::npos);
    CHECK(reason.find("- a check failed because candor's sandbox kept it from a path outside the workspace, which "
                      "your work cannot change: do not edit the check; tell the person it needs that path in "
                      "sandbox.read_paths (.candor/config.json)") != std::string::npos);
    CHECK(reason.find("[expectation]") == std::string::npos);
  }
}

}  // namespace candor::testing
