// The built candor with its runs in PostgreSQL (the team store): written by one command, read by
// the others from the URL alone, as another machine would (suite `postgres`).
#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "tests/e2e_support.h"
#include "tests/postgres_fixture.h"

using namespace candor::testing;
using nlohmann::json;

TEST_SUITE("postgres") {
  TEST_CASE("runs go to the URL --store or CANDOR_STORE_URL names; runs, report and undo read them from there") {
    const std::string url = new_postgres_database();
    Env env;
    auto ran = env.exec(example_plan("patch.json"), {"--store", url});
    REQUIRE_MESSAGE(ran.exit_code == 0, ran.err);
    json report = parse_stdout(ran);
    const std::string id = report["run_id"];
    // Nothing went to the folder but the snapshots: the runs are in PostgreSQL.
    CHECK_FALSE(std::filesystem::exists(env.store + "/candor.db"));

    auto listed = env.candor({"runs", "--store", url, "--json", "--source", "exec"});
    REQUIRE_MESSAGE(listed.exit_code == 0, listed.err);
    json runs = parse_stdout(listed);
    REQUIRE(runs.size() == 1);
    CHECK(runs[0]["run_id"] == id);
    CHECK(runs[0]["source"] == "exec");
    CHECK(runs[0]["verdict"] == report["verdict"]);
    CHECK(parse_stdout(env.candor({"runs", "--store", url, "--json", "--source", "gate"})).empty());

    env.env.push_back("CANDOR_STORE_URL=" + url);
    auto from_env = env.candor({"report", id, "--json"});
    REQUIRE_MESSAGE(from_env.exit_code == 0, from_env.err);
    CHECK(parse_stdout(from_env)["verdict"] == report["verdict"]);
    CHECK(parse_stdout(from_env)["run_id"] == id);

    // Another machine's run: its snapshots are there, and undo says so instead of failing to find them.
    auto moved =
        run_command({"/usr/bin/psql", url, "-qc", "UPDATE runs SET machine = 'build-7' WHERE id = '" + id + "'"});
    REQUIRE_MESSAGE(moved.exit_code == 0, moved.err);
    auto undo = env.candor({"undo", id, "--yes"});
    CHECK(undo.exit_code == 65);
    CHECK(undo.err.find("was made on build-7, and its snapshots are there") != std::string::npos);
    CHECK(undo.err.find(url.substr(0, 20)) != std::string::npos);  // names the store it read

    auto doctor = env.candor({"doctor"});
    CHECK(doctor.out.find("the run store (the team's, PostgreSQL)") != std::string::npos);
    CHECK(doctor.out.find("runs         1") != std::string::npos);
    // One person's gc does not remove the team's runs.
    auto gc = env.candor({"gc", "--keep", "0"});
    CHECK(gc.exit_code == 64);
    CHECK(gc.err.find("the runs in postgresql:///") != std::string::npos);
    CHECK(parse_stdout(env.candor({"runs", "--json"})).size() == 1);
  }

  TEST_CASE("a store URL candor cannot reach is exit 69, naming it without its password") {
    Env env;
    std::string dir = make_temp_dir("nopg");
    std::string url = "postgresql://candor:pw-hunter2@/db?host=" + dir + "&connect_timeout=2";
    auto r = env.exec(example_plan("patch.json"), {"--store", url});
    CHECK(r.exit_code == 69);
    CHECK(r.err.find("pw-hunter2") == std::string::npos);
    CHECK(r.out.find("pw-hunter2") == std::string::npos);
    CHECK(r.err.find("candor:***@") != std::string::npos);
  }
}
