// `candor undo` restores content, mode and the exact bytes of every name (docs/design.md, Trust
// boundary: Undo is exact), and says so when it cannot: through the built binary.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "tests/e2e_support.h"

using namespace candor;
using namespace candor::testing;
using nlohmann::json;

namespace {

unsigned mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

std::string shell_plan(const std::string& command) {
  json plan = json::parse(R"({"goal_kind": "modify", "steps": [{"id": "s1", "tool": "shell", "args": {"command": ""}}],
                              "then": "finish", "final_answer": "done"})");
  plan["steps"][0]["args"]["command"] = command;
  return plan.dump();
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("undo restores credential files as readable as they were (600), not 644") {
    Env env;
    write_file(env.ws + "/.env", "DB_PASSWORD=correct-horse-battery\n");
    write_file(env.ws + "/.ssh/id_rsa",
               "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----\n");
    ::chmod((env.ws + "/.env").c_str(), 0600);
    ::chmod((env.ws + "/.ssh/id_rsa").c_str(), 0600);
    // The step replaces both (new files, default modes), as an agent "fixing" them would.
    json run = parse_stdout(
        env.exec(env.plan_file(shell_plan("rm .env .ssh/id_rsa && echo X=1 > .env && echo key > .ssh/id_rsa && "
                                          "chmod 644 .env .ssh/id_rsa")),
                 {"--judge", "never"}));
    auto undo = env.candor({"undo", run["run_id"]});
    CAPTURE(undo.out);
    CAPTURE(undo.err);
    CHECK(undo.exit_code == 0);
    CHECK(read_file(env.ws + "/.env") == "DB_PASSWORD=correct-horse-battery\n");
    CHECK(mode_of(env.ws + "/.env") == 0600);
    CHECK(mode_of(env.ws + "/.ssh/id_rsa") == 0600);
  }

  TEST_CASE(
      "undo finds names that are not UTF-8 by their exact bytes: an added one is removed, an edited one restored") {
    Env env;
    const std::string edited = env.ws + "/conf\xfe.ini";
    write_file(edited, "port = 8080\n");
    json run =
        parse_stdout(env.exec(env.plan_file(shell_plan("printf 'curl x | sh\\n' > \"$(printf 'payload\\377.sh')\" && "
                                                       "printf 'port = 9090\\n' > \"$(printf 'conf\\376.ini')\"")),
                              {"--judge", "never"}));
    CAPTURE(run.dump(2));
    REQUIRE(exists(env.ws + "/payload\xff.sh"));
    REQUIRE(read_file(edited) == "port = 9090\n");
    // The report stays valid JSON: the name is shown readable, its bytes kept beside it.
    bool kept = false;
    for (const auto& m : run["mutations"])
      kept |= m.value("path_bytes", "") == "7061796c6f6164ff2e7368";  // payload\xff.sh
    CHECK(kept);
    auto undo = env.candor({"undo", run["run_id"]});
    CAPTURE(undo.out);
    CAPTURE(undo.err);
    CHECK(undo.exit_code == 0);
    CHECK_FALSE(exists(env.ws + "/payload\xff.sh"));
    CHECK(read_file(edited) == "port = 8080\n");
    // Nothing was written under a replacement-character name instead.
    for (const auto& e : std::filesystem::directory_iterator(env.ws)) {
      CHECK(e.path().filename().string().find("\xef\xbf\xbd") == std::string::npos);
    }
  }

  TEST_CASE("undo restores a mode the run changed and nothing else of the file") {
    Env env;
    write_file(env.ws + "/run.sh", "#!/bin/sh\n");
    ::chmod((env.ws + "/run.sh").c_str(), 0750);
    json run = parse_stdout(env.exec(env.plan_file(shell_plan("chmod 700 run.sh")), {"--judge", "never"}));
    auto undo = env.candor({"undo", run["run_id"]});
    CHECK(undo.exit_code == 0);
    CHECK(undo.out.find("mode      run.sh") != std::string::npos);
    CHECK(mode_of(env.ws + "/run.sh") == 0750);
  }

  TEST_CASE("a path undo cannot restore is named, the rest is restored, and the exit code is not 0") {
    Env env;
    json run = parse_stdout(
        env.exec(env.plan_file(shell_plan("echo new > added.txt && echo changed > index.html")), {"--judge", "never"}));
    // After the run, a folder takes index.html's place: undo cannot write the file back there.
    std::filesystem::remove(env.ws + "/index.html");
    std::filesystem::create_directories(env.ws + "/index.html/inner");
    auto undo = env.candor({"undo", run["run_id"], "--force"});
    CAPTURE(undo.out);
    CAPTURE(undo.err);
    CHECK(undo.exit_code == 70);
    CHECK(undo.err.find("could not restore index.html") != std::string::npos);
    CHECK_FALSE(exists(env.ws + "/added.txt"));
  }
}
