// Through the built binary: nothing a step starts outlives candor, leftovers of a killed run are
// removed by the next, a step cannot change how the next run is checked, and a credential file
// stays masked whatever a step did to its folder.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "sandbox/pids_cgroup.h"
#include "tests/e2e_support.h"

using namespace candor::testing;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

std::string shell_steps(const std::vector<std::string>& commands) {
  json steps = json::array();
  for (std::size_t i = 0; i < commands.size(); ++i) {
    steps.push_back({{"id", fmt::format("s{}", i + 1)}, {"tool", "shell"}, {"args", {{"command", commands[i]}}}});
  }
  return json({{"goal_kind", "modify"}, {"steps", steps}, {"then", "finish"}}).dump();
}

std::uintmax_t size_of(const std::string& path) {
  std::error_code ec;
  auto n = std::filesystem::file_size(path, ec);
  return ec ? 0 : n;
}

// Entries of `dir` whose name starts with `prefix`.
std::vector<std::string> entries_starting(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path().string());
  }
  return out;
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE(
      "SIGKILL to candor mid-step: the step's background writer dies with it; the next start clears its leftovers") {
    Env env;
    std::string tmp = make_temp_dir("tmp");
    env.env.push_back("TMPDIR=" + tmp);
    std::string plan = env.plan_file(
        shell_steps({"(for i in $(seq 1 300); do echo x >> bg.txt; sleep 0.1; done) > /dev/null 2>&1 & sleep 30"}));
    pid_t pid = spawn_until_step(env, {"exec", plan, "-C", env.ws, "--json"}, "s1", {"TMPDIR=" + tmp});
    REQUIRE(pid > 0);
    for (int i = 0; i < 100 && size_of(env.ws + "/bg.txt") == 0; ++i) std::this_thread::sleep_for(50ms);
    REQUIRE(size_of(env.ws + "/bg.txt") > 0);
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);

    std::this_thread::sleep_for(1500ms);  // "within a few seconds"
    auto settled = size_of(env.ws + "/bg.txt");
    std::this_thread::sleep_for(800ms);
    CHECK(size_of(env.ws + "/bg.txt") == settled);

    // What the killed run left: its step's temporary folder and, with a pids cgroup, its cgroup.
    CHECK(entries_starting(tmp, "candor-step-").size() == 1);
    auto parent = candor::sandbox::pids_cgroup_parent();
    std::string cgroup_prefix = fmt::format("candor-{}-", pid);
    // The cgroup is in a folder every candor on this machine sweeps: another candor starting
    // meanwhile may have removed it already, which is what should happen.
    bool cgroup_left = parent.ok() && entries_starting(*parent, cgroup_prefix).size() == 1;
    if (parent.ok() && !cgroup_left) MESSAGE("the killed run's cgroup was already removed by another candor's start");

    auto next = env.exec(env.plan_file(shell_steps({"echo next > next.txt"})));
    CHECK(next.exit_code != -1);  // it ran (no assertion: not a success, and that is not the point)
    CHECK(entries_starting(tmp, "candor-step-").empty());
    if (cgroup_left) CHECK(entries_starting(*parent, cgroup_prefix).empty());
  }

  TEST_CASE("a step that writes .candor/config.json cannot change how the next run is checked") {
    Env env;
    write_file(env.ws + "/.env", "STRIPE_KEY=sk_live_999\n");
    auto first = env.exec(env.plan_file(
        shell_steps({"mkdir -p .candor && echo '{\"secrets\": {\"allow\": [\".env\"]}}' > .candor/config.json"})));
    json j = parse_stdout(first);
    CHECK(j["verdict"] != "success");
    CHECK(j["step_results"][0]["ok"] == false);
    CHECK(j["step_results"][0]["error"].get<std::string>().find(".candor") != std::string::npos);
    CHECK_FALSE(exists(env.ws + "/.candor"));

    auto second = env.exec(env.plan_file(
        R"({"goal_kind": "inspect", "steps": [{"id": "look", "tool": "file_read", "args": {"path": ".env"}}], "then": "finish"})"));
    CHECK(second.out.find("sk_live_999") == std::string::npos);
    CHECK(parse_stdout(second)["step_results"][0]["ok"] == false);
  }

  TEST_CASE("a credential file stays empty to the next step after a step renamed its folder") {
    Env env;
    write_file(env.ws + "/.aws/credentials", "aws_secret_access_key=hunter2\n");
    auto r =
        env.exec(env.plan_file(shell_steps({"mv .aws aws", "cat aws/credentials > seen.txt; cat aws/credentials"})));
    CHECK(r.out.find("hunter2") == std::string::npos);
    CHECK(read_file(env.ws + "/seen.txt").find("hunter2") == std::string::npos);
    CHECK(read_file(env.ws + "/aws/credentials") == "aws_secret_access_key=hunter2\n");
  }
}
