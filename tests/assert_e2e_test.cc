// `candor assert` and `candor evaluators` with a workspace's external evaluators, through the binary;
// and an external evaluator and `not` in a real run.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include "tests/e2e_support.h"

using namespace candor::testing;
using nlohmann::json;

TEST_SUITE("e2e") {
  TEST_CASE("candor assert: exit 0 only when every assertion passes; invalid ones exit 65 naming the argument") {
    Env env;
    auto pass = env.candor({"assert", "-C", env.ws, R"({"type": "file_exists", "path": "index.html"})",
                            R"({"type": "file_matches", "path": "css/style.css", "pattern": "background"})"});
    CHECK(pass.exit_code == 0);
    CHECK(pass.out.find("PASS  file_exists: index.html exists") != std::string::npos);
    auto fail = env.candor({"assert", "-C", env.ws, "--json", R"({"type": "file_exists", "path": "index.html"})",
                            R"({"type": "not", "assertion": {"type": "file_exists", "path": "index.html"}})"});
    CHECK(fail.exit_code == 2);
    json j = parse_stdout(fail);
    CHECK(j["passed"] == false);
    CHECK(j["results"][0]["passed"] == true);
    CHECK(j["results"][1]["passed"] == false);
    auto invalid =
        env.candor({"assert", "-C", env.ws, R"({"type": "json_path_eq", "path": "a.json", "json_path": "a"})"});
    CHECK(invalid.exit_code == 65);
    CHECK(invalid.err.find("assertion #1.value: missing required json argument") != std::string::npos);
    auto broken = env.candor({"assert", "-C", env.ws, R"({"type": )"});
    CHECK(broken.exit_code == 65);
    CHECK(broken.err.find("assertion #1:1:") != std::string::npos);
  }

  TEST_CASE("external evaluators from .candor/config.json: listed, used by assert and by a run, never shadowing") {
    Env env;
    std::filesystem::create_directories(env.ws + "/.candor/evaluators");
    std::filesystem::copy_file(source_root() + "/examples/evaluators/html_has_title.sh",
                               env.ws + "/.candor/evaluators/html_has_title.sh");
    write_file(env.ws + "/.candor/config.json", R"({"evaluators": {"html_has_title": {
        "command": ["sh", ".candor/evaluators/html_has_title.sh"], "description": "the page has a <title>",
        "args": {"path": {"type": "string", "required": true}}}}})");
    auto listed = env.candor({"evaluators", "-C", env.ws});
    CHECK(listed.out.find("html_has_title     path: string") != std::string::npos);
    auto checked = env.candor({"assert", "-C", env.ws, R"({"type": "html_has_title", "path": "index.html"})"});
    CHECK(checked.exit_code == 0);
    CHECK(checked.out.find("index.html has the title") != std::string::npos);

    // In a run: the step deletes a page; `not file_exists` covers the deletion and the external
    // evaluator checks the page that stays. Both hold, so the run is a success.
    std::string plan = env.plan_file(R"({"goal_kind": "modify", "steps": [
        {"id": "rm", "tool": "file_delete", "args": {"path": "about.html"},
         "assert": [{"type": "not", "assertion": {"type": "file_exists", "path": "about.html"}},
                    {"type": "html_has_title", "path": "index.html"}]}], "then": "finish"})");
    if (!exists(env.ws + "/about.html")) write_file(env.ws + "/about.html", "<title>About</title>\n");
    auto run = env.exec(plan);
    json j = parse_stdout(run);
    CHECK(run.exit_code == 0);
    CHECK(j["verdict"] == "success");
    CHECK(j["assertions"].size() == 2);

    write_file(env.ws + "/.candor/config.json", R"({"evaluators": {"file_exists": {"command": ["true"]}}})");
    auto shadow = env.candor({"evaluators", "-C", env.ws});
    CHECK(shadow.exit_code == 65);
    CHECK(shadow.err.find("evaluators.file_exists: \"file_exists\" is a built-in assertion type") != std::string::npos);
    auto refused_run = env.exec(plan);
    CHECK(refused_run.exit_code == 65);
  }
}
