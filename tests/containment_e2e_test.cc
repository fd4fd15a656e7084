// What must stay out of a step's reach beyond the step's own process: the reviewer's criterion
// (in candor's command line, or a file), the run store (its database and snapshots hold the
// workspace's .env) and how the run is checked (.candor/config.json). Through the built binary;
// each attack has a control showing it would work on what is not protected.
#include <doctest/doctest.h>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <filesystem>

#include <fmt/format.h>

#include "store/run_store.h"
#include "tests/e2e_support.h"
#include "tests/kernel_facts.h"

using namespace candor;
using namespace candor::testing;
using nlohmann::json;

namespace {

std::string reply(const json& j) { return json({{"reply_json", j}}).dump() + "\n"; }

json shell_plan(const std::string& command, const std::vector<std::string>& output_has) {
  json step = {{"id", "s1"}, {"tool", "shell"}, {"args", {{"command", command}}}, {"assert", json::array()}};
  for (const auto& text : output_has) step["assert"].push_back({{"type", "output_contains"}, {"text", text}});
  return {{"goal_kind", "modify"}, {"steps", json::array({step})}, {"then", "finish"}, {"final_answer", "done"}};
}

// The output a step printed, from the run's events in the store.
std::string step_output(const std::string& store_dir, const std::string& run_id, const std::string& step) {
  auto store = store::RunStore::open(store_dir);
  REQUIRE(store.ok());
  auto run = (*store)->load(run_id);
  REQUIRE(run.ok());
  for (const auto& e : run->events) {
    if (e.type == "tool_result" && e.data.value("step", "") == step) return e.data.value("output", "");
  }
  return "";
}

// A process whose command line carries `marker` (the control: a step can read other processes'
// command lines), ended when it goes.
struct MarkedProcess {
  pid_t pid = 0;
  explicit MarkedProcess(const std::string& marker) {
    std::string sh = "/bin/sh", c = "-c", script = "sleep 60; :", name = marker;  // ":" keeps sh from exec'ing sleep
    char* argv[] = {sh.data(), c.data(), script.data(), name.data(), nullptr};
    char* envp[] = {nullptr};
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);  // its own group, so sleep goes with it
    REQUIRE(::posix_spawn(&pid, "/bin/sh", nullptr, &attr, argv, envp) == 0);
    posix_spawnattr_destroy(&attr);
  }
  ~MarkedProcess() {
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
};

// Without Landlock a step reads whatever the user can, so there is nothing to check.
const needs kLandlock{kernel_facts().landlock_abi > 0, "Landlock"};

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("--criterion TEXT is not in candor's command line, which a step can read from /proc") {
    for (bool joined : {false, true}) {
      CAPTURE(joined);
      Env env;
      // Without the PID namespace (a kernel that cannot give one), a step sees every process: then
      // only the wiped argv keeps the criterion from it. With the namespace it sees none at all.
      env.env.push_back("CANDOR_SANDBOX_DISABLE=namespaces");
      MarkedProcess control("control-marker-5172");
      // Every command line on the machine with "criterion" or the control's marker in it, and the
      // step's parent's (candor's). The command itself must not hold the secret.
      std::string command =
          "for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' < $f; echo; done | grep -a -i -e criterion -e "
          "control-marker; "
          "echo PARENT: $(tr '\\0' ' ' < /proc/$PPID/cmdline)";
      std::string script = reply(shell_plan(command, {"control-marker-5172", "PARENT: " + candor_bin()})) +
                           reply({{"verdict", "pass"}, {"reason", "fine"}});
      std::vector<std::string> criterion = joined ? std::vector<std::string>{"--criterion=SECRET-CRITERION-123"}
                                                  : std::vector<std::string>{"--criterion", "SECRET-CRITERION-123"};
      auto r = env.run("Make it green", script, criterion);
      json j = parse_stdout(r);
      std::string output = step_output(env.store, j["run_id"], "s1");
      CAPTURE(output);
      CHECK(j["assertions"][0]["passed"] == true);  // the attack reads other processes' command lines
      CHECK(j["assertions"][1]["passed"] == true);  // and candor's
      CHECK(output.find("--criterion") != std::string::npos);
      CHECK(output.find("SECRET-CRITERION-123") == std::string::npos);
      CHECK(j["goal_validations"][0]["verdict"] == "pass");  // the reviewer still had it
    }
  }

  TEST_CASE("--criterion-file inside the workspace is refused before anything is recorded") {
    Env env;
    write_file(env.ws + "/criterion.txt", "SECRET-CRITERION-FILE");
    std::string script = reply(shell_plan("true", {})) + reply({{"verdict", "pass"}, {"reason", "fine"}});
    auto inside = env.run("Make it green", script, {"--criterion-file", env.ws + "/criterion.txt"});
    CHECK(inside.exit_code == 64);
    CHECK(inside.err.find("--criterion-file " + env.ws + "/criterion.txt lies inside the workspace") !=
          std::string::npos);
    CHECK(env.candor({"runs", "--json"}).out.find("run_id") == std::string::npos);  // nothing recorded
  }

  TEST_CASE("--criterion-file outside the workspace: no step can read it, even from a read path" * kLandlock) {
    Env env;
    // Outside, in a folder the workspace's config makes readable to steps.
    std::string shared = make_temp_dir("shared");
    write_file(shared + "/criterion.txt", "SECRET-CRITERION-FILE");
    write_file(shared + "/notes.txt", "READABLE-NOTES");
    write_file(env.ws + "/.candor/config.json", json({{"sandbox", {{"read_paths", {shared}}}}}).dump());
    std::string command = fmt::format("cat {0}/notes.txt; cat {0}/criterion.txt; echo end", shared);
    std::string script =
        reply(shell_plan(command, {"READABLE-NOTES"})) + reply({{"verdict", "pass"}, {"reason", "fine"}});
    json j = parse_stdout(env.run("Make it green", script, {"--criterion-file", shared + "/criterion.txt"}));
    std::string output = step_output(env.store, j["run_id"], "s1");
    CAPTURE(output);
    CHECK(j["assertions"][0]["passed"] == true);
    CHECK(output.find("SECRET-CRITERION-FILE") == std::string::npos);
    CHECK(j["goal_validations"][0]["verdict"] == "pass");
  }

  TEST_CASE("a store inside the workspace is refused, naming both, before anything is recorded") {
    Env env;
    std::string plan = env.plan_file(
        R"({"goal_kind": "modify", "steps": [{"id": "s1", "tool": "file_list", "args": {}}], "then": "finish"})");
    std::string ws = std::filesystem::canonical(env.ws).string();
    struct Row {
      std::string store;
      std::string named;
    };
    const Row rows[] = {
        {env.ws + "/runs", ws + "/runs"}, {env.ws, ws}, {env.ws + "/sub/../.candor/store", ws + "/.candor/store"}};
    for (const auto& row : rows) {
      CAPTURE(row.store);
      auto r = env.candor({"exec", plan, "-C", env.ws, "--store", row.store, "--json"});
      CHECK(r.exit_code == 64);
      CHECK(r.err.find("the run store " + row.named + " and the workspace " + ws + " overlap") != std::string::npos);
      CHECK(r.out.empty());
    }
    CHECK_FALSE(exists(env.ws + "/runs"));
    CHECK_FALSE(exists(env.ws + "/.candor"));
    // CANDOR_HOME is a store path like --store.
    std::vector<std::string> e = env.env;
    e.push_back("CANDOR_HOME=" + env.ws + "/state");
    auto r = run_command({candor_bin(), "exec", plan, "-C", env.ws}, e);
    CHECK(r.exit_code == 64);
    CHECK_FALSE(exists(env.ws + "/state"));
  }

  TEST_CASE("the default store under ~/.local/state stays unreadable although ~/.local/bin on PATH opens ~/.local" *
            kLandlock) {
    Env env;
    write_file(env.ws + "/.env", "DB_PASSWORD=hunter2\n");
    std::string home = make_temp_dir("home");
    write_file(home + "/.local/bin/hello", "#!/bin/sh\necho HELLO-FROM-LOCAL-BIN\n");
    std::filesystem::permissions(home + "/.local/bin/hello", std::filesystem::perms::owner_exec,
                                 std::filesystem::perm_options::add);
    write_file(home + "/.local/lib/python3/site.py", "LOCAL-LIB\n");
    std::string store = home + "/.local/state/candor";
    std::string command =
        "hello; cat $HOME/.local/lib/python3/site.py; "
        "if cat $HOME/.local/state/candor/candor.db > /dev/null 2>&1; then echo STORE-READ; else echo STORE-DENIED; "
        "fi; "
        "find $HOME/.local/state/candor -type f | head -3";
    std::string plan = env.plan_file(shell_plan(command, {"HELLO-FROM-LOCAL-BIN", "LOCAL-LIB", "STORE-DENIED"}).dump());
    std::vector<std::string> e = {"NO_COLOR=1",      "CANDOR_LLM=",  "CANDOR_HOME=",
                                  "XDG_STATE_HOME=", "HOME=" + home, "PATH=" + home + "/.local/bin:/usr/bin:/bin"};
    // Two runs: the second one's steps could read the first one's snapshot of .env.
    for (int run = 0; run < 2; ++run) {
      auto r = run_command({candor_bin(), "exec", plan, "-C", env.ws, "--json"}, e);
      json j = parse_stdout(r);
      std::string output = step_output(store, j["run_id"], "s1");
      CAPTURE(output);
      CHECK(j["assertions"][0]["passed"] == true);  // the installation on PATH still works
      CHECK(j["assertions"][1]["passed"] == true);
      CHECK(j["assertions"][2]["passed"] == true);
      CHECK(output.find(".local/state/candor/") == std::string::npos);  // not even a listing
    }
    CHECK(exists(store + "/candor.db"));
  }

  TEST_CASE(".candor/config.json a step tries to create: the step fails, nothing is left, and no later run reads it") {
    Env env;
    REQUIRE_FALSE(exists(env.ws + "/.candor"));
    json config = {{"budget", {{"max_steps", 1}}}, {"expect", {{{"type", "file_exists"}, {"path", "never-there"}}}}};
    std::string command = "mkdir -p .candor && printf '%s' '" + config.dump() + "' > .candor/config.json";
    json plan = {{"goal_kind", "modify"},
                 {"steps",
                  {{{"id", "s1"}, {"tool", "shell"}, {"args", {{"command", command}}}},
                   {{"id", "s2"}, {"tool", "file_read"}, {"args", {{"path", "index.html"}}}}}},
                 {"then", "finish"}};
    json first = parse_stdout(env.exec(env.plan_file(plan.dump())));
    // .candor/ is protected whether or not it existed: what the step created there is removed.
    CHECK_FALSE(exists(env.ws + "/.candor/config.json"));
    CHECK(first["step_results"][0]["ok"] == false);
    CHECK(first["verdict"] != "success");
    for (const auto& a : first["assertions"]) CHECK(a["path"] != "never-there");  // its expect was never read
    json second = parse_stdout(env.exec(env.plan_file(plan.dump())));
    CHECK(second["budget"]["steps"][1] == 50);  // the next run did not get the planted budget either
  }
}
