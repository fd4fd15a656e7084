// One glob dialect, git's wildmatch (docs/design.md, Trust boundary: Scope), through the built binary:
// a class in a `sensitive` glob protects what it names; an invalid glob in the config, in --scope
// or in `file_search` is refused by name, never dropped in silence.
#include <doctest/doctest.h>

#include <filesystem>

#include "tests/e2e_support.h"

using namespace candor;
using namespace candor::testing;
using nlohmann::json;

namespace {

// Writes a.cfg with a user assertion that covers it: success, unless something blocks it.
std::string write_cfg_plan(Env& env) {
  return env.plan_file(R"({"goal_kind":"modify","steps":[{"id":"s1","tool":"file_write",
    "args":{"path":"a.cfg","content":"mode = dark\n"},
    "assert":[{"type":"file_contains","path":"a.cfg","text":"mode = dark"}]}],"then":"finish"})");
}

void write_config(Env& env, const std::string& text) {
  std::filesystem::create_directories(env.ws + "/.candor");
  write_file(env.ws + "/.candor/config.json", text);
}

bool has_suspicious(const json& report, const std::string& path) {
  for (const auto& s : report["suspicious"]) {
    if (s.value("path", "") == path) return true;
  }
  return false;
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("a config sensitive glob with a character class protects what it names") {
    Env env;
    write_config(env, R"({"sensitive": ["[[:alpha:]].cfg"]})");
    auto r = env.exec(write_cfg_plan(env));
    json j = parse_stdout(r);
    CHECK(r.exit_code == 1);
    CHECK(j["verdict"] == "partial");
    CHECK(has_suspicious(j, "a.cfg"));
    bool named = false;
    for (const auto& reason : j["reasons"])
      named |= reason.get<std::string>().find("a.cfg was added: a sensitive path") != std::string::npos;
    CHECK(named);

    Env control;  // the same change without the glob: nothing sensitive, success
    write_config(control, R"({"sensitive": ["[[:digit:]].cfg"]})");
    auto ok = control.exec(write_cfg_plan(control));
    CHECK(ok.exit_code == 0);
    CHECK_FALSE(has_suspicious(parse_stdout(ok), "a.cfg"));
  }

  TEST_CASE("an invalid glob in the config is exit 65 naming the config, the entry and what is wrong") {
    struct Row {
      std::string config;
      std::string where;
      std::string why;
    };
    const std::vector<Row> rows = {
        {R"({"scope": ["css/**", "a[b"]})", "scope[1]: invalid glob \"a[b\"", "the '[' at offset 1 is never closed"},
        {R"({"sensitive": ["x[[:nope:]]"]})", "sensitive[0]: invalid glob \"x[[:nope:]]\"",
         "[:nope:] is not a character class"},
        {R"({"secrets": {"allow": ["keys\\"]}})", "secrets.allow[0]: invalid glob \"keys\\\"",
         "ends with a lone backslash"},
        {R"({"snapshot": {"ignore": ["!build[/"]}})", "snapshot.ignore[0]: invalid glob \"!build[/\"", "never closed"},
    };
    for (const auto& row : rows) {
      CAPTURE(row.config);
      Env env;
      write_config(env, row.config);
      auto r = env.exec(example_plan("patch.json"));
      CAPTURE(r.err);
      CHECK(r.exit_code == 65);
      CHECK(r.err.find("candor: " + env.ws + "/.candor/config.json: " + row.where + ": ") == 0);
      CHECK(r.err.find(row.why) != std::string::npos);
      CHECK(read_file(env.ws + "/css/style.css").find("#006400") == std::string::npos);  // nothing ran
    }
  }

  TEST_CASE("--scope with an invalid glob is exit 65 before anything runs, in exec and in verify --git") {
    Env env;
    auto r = env.exec(example_plan("patch.json"), {"--scope", "x[[:nope:]]"});
    CHECK(r.exit_code == 65);
    CHECK(
        r.err ==
        "candor: --scope \"x[[:nope:]]\": invalid glob: [:nope:] is not a character class (alnum, alpha, blank, cntrl, "
        "digit, graph, lower, print, punct, space, upper, xdigit)\n");
    CHECK(read_file(env.ws + "/css/style.css").find("#006400") == std::string::npos);
    auto git = env.candor({"verify", "--git", "HEAD~1..HEAD", "--goal", "g", "-C", env.ws, "--scope", "src/[a"});
    CHECK(git.exit_code == 65);
    CHECK(git.err.find("candor: --scope \"src/[a\": invalid glob: the '[' at offset 4 is never closed") == 0);
  }

  TEST_CASE("file_search with an invalid glob fails the step naming the glob; a valid one is git's wildmatch") {
    Env env;
    std::string plan = env.plan_file(R"({"goal_kind":"inspect","steps":[
      {"id":"good","tool":"file_search","args":{"pattern":"background","glob":"[[:lower:]]ss/*.css"}},
      {"id":"bad","tool":"file_search","args":{"pattern":"background","glob":"css/[a"}}],
      "then":"finish","final_answer":"searched"})");
    auto r = env.exec(plan);
    json j = parse_stdout(r);
    CAPTURE(j.dump());
    auto store = store::RunStore::open(env.store);
    REQUIRE(store.ok());
    auto run = (*store)->load(j["run_id"].get<std::string>());
    REQUIRE(run.ok());
    bool bad_failed = false, good_found = false;
    for (const auto& e : run->events) {
      if (e.type != "tool_result") continue;
      if (e.data.value("step", "") == "bad") {
        bad_failed = e.data.value("ok", true) == false &&
                     e.data.value("error", "").find("invalid glob \"css/[a\": the '[' at offset 4 is never closed") !=
                         std::string::npos;
      }
      if (e.data.value("step", "") == "good") {
        good_found =
            e.data.value("ok", false) && e.data.value("output", "").find("css/style.css:") != std::string::npos;
      }
    }
    CHECK(bad_failed);
    CHECK(good_found);
    CHECK(j["steps"]["failed"] == 1);
  }
}
