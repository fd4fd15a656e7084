// The process sandbox and the credential-file refusal, through the built binary.
#include <doctest/doctest.h>

#include <unistd.h>

#include <fmt/format.h>

#include "tests/e2e_support.h"
#include "tests/kernel_facts.h"

using namespace candor::testing;
using nlohmann::json;

namespace {

std::string shell_plan(const std::string& command, const std::vector<std::string>& asserts) {
  json step = {{"id", "s1"}, {"tool", "shell"}, {"args", {{"command", command}}}};
  for (const auto& a : asserts) step["assert"].push_back(json::parse(a));
  return json({{"goal_kind", "modify"}, {"steps", json::array({step})}, {"then", "finish"}}).dump();
}
std::string shell_plan(const std::string& command, const std::string& extra_assert = "") {
  return shell_plan(command,
                    extra_assert.empty() ? std::vector<std::string>{} : std::vector<std::string>{extra_assert});
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("a shell step writing outside the workspace fails and the canary is unchanged; inside succeeds") {
    Env env;
    std::string outside = make_temp_dir("outside");
    write_file(outside + "/canary", "untouched\n");
    auto r = env.exec(env.plan_file(shell_plan(fmt::format("echo pwned > {}/canary", outside))));
    json j = parse_stdout(r);
    CHECK(read_file(outside + "/canary") == "untouched\n");
    CHECK(j["verdict"] != "success");
    CHECK(j["step_results"][0]["ok"] == false);
    CHECK(j["sandbox"]["network"] != "none");  // a namespace, or seccomp where there is none

    auto inside = env.exec(env.plan_file(
        shell_plan("echo done > inside.txt", R"({"type": "file_contains", "path": "inside.txt", "text": "done"})")));
    CHECK(inside.exit_code == 0);
    CHECK(parse_stdout(inside)["verdict"] == "success");
  }

  TEST_CASE("a shell step cannot reach a listener on 127.0.0.1 unless --allow-network") {
    Env env;
    LoopbackListener listener;
    int port = listener.port();
    std::string plan = env.plan_file(
        shell_plan(fmt::format("bash -c 'exec 3<>/dev/tcp/127.0.0.1/{}' && echo connected > net.txt", port),
                   R"({"type": "file_contains", "path": "net.txt", "text": "connected"})"));
    auto denied = env.exec(plan);
    CHECK(denied.exit_code != 0);
    CHECK_FALSE(exists(env.ws + "/net.txt"));

    auto allowed = env.exec(plan, {"--allow-network"});
    CHECK(allowed.exit_code == 0);
    json j = parse_stdout(allowed);
    CHECK(j["verdict"] == "success");
    CHECK(j["sandbox"]["network"] == "allowed");
  }

  TEST_CASE("an API key planted in candor's environment is not visible to a shell step") {
    Env env;
    env.env.push_back("OPENAI_API_KEY=sk-planted-e2e");
    // file_not_contains alone passes on an empty file and covers nothing; PATH= is positive evidence.
    auto r = env.exec(env.plan_file(
        shell_plan("test -z \"$OPENAI_API_KEY\" && env > env.txt",
                   std::vector<std::string>{R"({"type": "file_not_contains", "path": "env.txt", "text": "sk-planted"})",
                                            R"({"type": "file_contains", "path": "env.txt", "text": "PATH="})"})));
    CHECK(r.exit_code == 0);
    CHECK(read_file(env.ws + "/env.txt").find("sk-planted") == std::string::npos);
    CHECK(read_file(env.ws + "/env.txt").find("PATH=") != std::string::npos);
  }

  TEST_CASE("reading .env is refused with a clear step error; the config can allow a file") {
    Env env;
    write_file(env.ws + "/.env", "STRIPE_KEY=sk_live_123\n");
    std::string plan = env.plan_file(
        R"({"goal_kind": "inspect", "steps": [{"id": "look", "tool": "file_read", "args": {"path": "./.env"}}], "then": "finish"})");
    auto r = env.exec(plan);
    json j = parse_stdout(r);
    CHECK(j["step_results"][0]["ok"] == false);
    std::string error = j["step_results"][0]["error"];
    CHECK(error.find("refused: ./.env looks like a credential file") != std::string::npos);

    // A symlink with an innocent name is no way round it.
    std::filesystem::create_symlink(".env", env.ws + "/notes.txt");
    auto linked = env.exec(env.plan_file(
        R"({"goal_kind": "inspect", "steps": [{"id": "look", "tool": "file_read", "args": {"path": "notes.txt"}}], "then": "finish"})"));
    CHECK(parse_stdout(linked)["step_results"][0]["ok"] == false);
    // file_search skips it and says so.
    auto search =
        env.candor({"exec", env.plan_file(R"({"goal_kind": "inspect", "steps": [{"id": "find", "tool": "file_search",
        "args": {"pattern": "sk_live"}}], "then": "finish"})"),
                    "-C", env.ws, "--json"});
    CHECK(parse_stdout(search)["step_results"][0]["ok"] == true);
    auto events = env.candor({"report", "last", "-v"});
    CHECK(events.out.find("0 matches") != std::string::npos);
    CHECK(events.out.find("credential file") != std::string::npos);

    write_file(env.ws + "/.candor/config.json", R"({"secrets": {"allow": [".env"]}})");
    auto allowed = env.exec(plan);
    CHECK(parse_stdout(allowed)["step_results"][0]["ok"] == true);
  }

  TEST_CASE("--require-sandbox refuses to run without every protection, and records nothing") {
    Env env;
    env.env.push_back("CANDOR_SANDBOX_DISABLE=landlock");
    std::string plan = env.plan_file(shell_plan("echo ran > ran.txt"));
    auto refused = env.exec(plan, {"--require-sandbox"});
    CHECK(refused.exit_code == 77);
    CHECK(refused.err.find("--require-sandbox") != std::string::npos);
    CHECK(refused.err.find("landlock") != std::string::npos);
    CHECK_FALSE(exists(env.ws + "/ran.txt"));
    CHECK(env.candor({"runs", "--json"}).out.find("ran.txt") == std::string::npos);

    // Without the flag the run goes ahead and its report says what was missing.
    auto ran = env.exec(plan);
    json j = parse_stdout(ran);
    CHECK(j["sandbox"]["filesystem"] == false);
    CHECK(j["sandbox"]["missing"][0] == "landlock");
    CHECK(env.candor({"report", "last"}).out.find("missing landlock") != std::string::npos);
  }

  TEST_CASE("candor doctor's claims match what the kernel does when the test asks it directly") {
    Env env;
    const KernelFacts& k = kernel_facts();
    CAPTURE(k.landlock_abi);
    CAPTURE(k.network_namespace);
    CAPTURE(k.seccomp_filter);
    CAPTURE(k.pids_cgroup);
    env.env.push_back("CANDOR_SANDBOX_DISABLE=");  // whatever the caller's environment says
    auto full = env.candor({"doctor", "--json"});
    json j = parse_stdout(full);
    CHECK(j["landlock_abi"] == k.landlock_abi);
    CHECK(j["filesystem"] == (k.landlock_abi > 0));
    CHECK(j["read_only_dirs"] == k.network_namespace);
    CHECK(j["seccomp"] == k.seccomp_filter);
    CHECK(j["network"] == (k.network_namespace ? "namespace" : k.seccomp_filter ? "seccomp" : "none"));
    CHECK(j["processes"] == (!k.pids_cgroup.empty() ? "cgroup" : ::getuid() != 0 ? "rlimit" : "none"));
    if (!k.pids_cgroup.empty()) {
      CHECK(j["details"]["processes"].get<std::string>().find("pids cgroup under " + k.pids_cgroup + ":") !=
            std::string::npos);
    }
    json missing = json::array();
    if (k.landlock_abi == 0) missing.push_back("landlock");
    if (!k.network_namespace) missing.push_back("mount namespace");
    if (!k.network_namespace && !k.seccomp_filter) missing.push_back("network isolation");
    if (!k.seccomp_filter) missing.push_back("seccomp");
    if (k.pids_cgroup.empty() && ::getuid() == 0) missing.push_back("process limit");
    CHECK(j["missing"] == missing);
    CHECK(full.exit_code == (missing.empty() ? 0 : 1));
    for (const char* key :
         {"landlock", "namespaces", "seccomp", "network", "processes", "rlimits", "environment", "privileges"}) {
      CAPTURE(key);
      CHECK(j["details"].contains(key));
    }
    env.env.back() = "CANDOR_SANDBOX_DISABLE=seccomp,namespaces";
    auto reduced = env.candor({"doctor"});
    CHECK(reduced.exit_code == 1);
    CHECK(reduced.out.find("seccomp      NO") != std::string::npos);
    CHECK(reduced.out.find("network      NO") != std::string::npos);
  }
}
