// `candor verify RUN` asks the judge the way the run was recorded (docs/design.md, The CLI: verify keeps the
// recorded judge policy), `--judge` overrides it, and a verdict that differs from the stored one is
// said aloud.
#include <doctest/doctest.h>

#include "store/run_store.h"
#include "tests/e2e_support.h"

using namespace candor;
using namespace candor::testing;
using nlohmann::json;

namespace {

std::string reply(const json& j) { return json{{"reply_json", j}}.dump() + "\n"; }

// An inspect run that only the planner's own checks back: tier 1 leaves it to the judge.
json inspect_plan() {
  return {{"goal_kind", "inspect"},
          {"questions", {"Does the answer give the page's title from index.html?"}},
          {"steps",
           {{{"id", "s1"},
             {"tool", "file_read"},
             {"args", {{"path", "index.html"}}},
             {"assert", {{{"type", "file_exists"}, {"path", "index.html"}}}}}}},
          {"then", "finish"},
          {"final_answer", "The title is in index.html."}};
}

// The judge's goal-only call, then its answers: one per question, the last to the question candor
// appends.
json judge_questions() { return {{"questions", {"Does the answer give the page's title?"}}}; }
json judge_yes() {
  return {{"answers",
           {{{"question", 1}, {"answer", "yes"}, {"reason", "the answer names it"}},
            {{"question", 2}, {"answer", "yes"}, {"reason", "nothing changed"}}}}};
}

std::string script_file(const std::string& text) {
  std::string path = make_temp_dir("judge") + "/replies.jsonl";
  write_file(path, text);
  return path;
}

json run_started_of(const Env& env, const std::string& run_id) {
  auto store = store::RunStore::open(env.store);
  REQUIRE(store.ok());
  auto run = (*store)->load(run_id);
  REQUIRE(run.ok());
  for (const auto& e : run->events) {
    if (e.type == "run_started") return e.data;
  }
  return json();
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE(
      "verify: without --judge it asks the judge as the run was recorded (always), and agrees with the stored "
      "verdict") {
    Env env;
    auto r = env.run("What is the page's title?", reply(inspect_plan()) + reply(judge_questions()) + reply(judge_yes()),
                     {"--judge", "always"});
    json stored = parse_stdout(r);
    REQUIRE(stored["verdict"] == "success");
    REQUIRE(stored["verdict_by"] == "tier2");
    CHECK(stored["judge_policy"] == "always");
    CHECK(run_started_of(env, stored["run_id"]).value("judge_policy", "") == "always");

    // The judge is asked again with the questions the run's judge recorded (no goal-only call: the
    // script's one reply is its answer) and says yes again.
    auto again =
        env.candor({"verify", stored["run_id"], "--json", "--llm", "script:" + script_file(reply(judge_yes()))});
    json j = parse_stdout(again);
    CAPTURE(again.err);
    CHECK(again.exit_code == 0);
    CHECK(j["verdict"] == "success");
    CHECK(j["verdict_by"] == "tier2");
    CHECK(j["tier2"].is_object());
    CHECK(again.err.find("differs") == std::string::npos);
    CHECK(again.err.find("stored verdict") == std::string::npos);

    // --judge never overrides the record: tier 1 alone leaves it unverified, and verify says it differs.
    auto never = env.candor({"verify", stored["run_id"], "--json", "--judge", "never"});
    CHECK(parse_stdout(never)["verdict"] == "partial");
    CHECK(never.exit_code == 1);
    CHECK(never.err.find(
              "stored verdict success (by tier2), recomputed partial (by tier1) with judge policy never (--judge)") !=
          std::string::npos);
  }

  TEST_CASE("a judge reply with too few answers: the report, the events and stderr say why it was refused") {
    Env env;
    json one_answer = {{"answers", {{{"question", 1}, {"answer", "yes"}, {"reason", "the answer names it"}}}}};
    // The script ends there: the repair call finds no line, as a provider that fails would.
    auto r = env.run("What is the page's title?", reply(inspect_plan()) + reply(judge_questions()) + reply(one_answer),
                     {"--judge", "always"});
    json report = parse_stdout(r);
    CAPTURE(r.err);
    CHECK(report["verdict"] == "partial");
    REQUIRE(report["tier2"].is_object());
    const std::string why = "expected 2 answers (one per question), got 1: question 2 has no answer";
    REQUIRE(report["tier2"]["rejected_replies"].size() == 1);
    CHECK(report["tier2"]["rejected_replies"][0]["why"] == why);
    CHECK(report["tier2"]["error"].get<std::string>().find("the judge's reply was malformed: " + why +
                                                           "; its repair could not be asked") == 0);
    auto store = store::RunStore::open(env.store);
    REQUIRE(store.ok());
    auto run = (*store)->load(report["run_id"]);
    REQUIRE(run.ok());
    int judged = 0;
    for (const auto& e : run->events) {
      if (e.type != "judge") continue;
      ++judged;
      CHECK(e.data["rejected_replies"][0]["why"] == why);
    }
    CHECK(judged == 1);
  }

  TEST_CASE("verify: a run recorded with --judge never is recomputed without the judge; no LLM is needed") {
    Env env;
    auto r = env.run("What is the page's title?", reply(inspect_plan()), {"--judge", "never"});
    json stored = parse_stdout(r);
    REQUIRE(stored["verdict"] == "partial");
    CHECK(stored["judge_policy"] == "never");
    // No provider named anywhere, and none needed: the record says never.
    auto again = env.candor({"verify", stored["run_id"], "--json"});
    CAPTURE(again.err);
    CHECK(again.exit_code == 1);
    CHECK(parse_stdout(again)["tier2"].is_null());
    CHECK(again.err.find("stored verdict") == std::string::npos);
    CHECK(again.err.find("no LLM provider") == std::string::npos);
  }

  TEST_CASE("verify: a recorded judge with no LLM named here falls back to tier 1 and says so") {
    Env env;
    auto r = env.run("What is the page's title?", reply(inspect_plan()) + reply(judge_questions()) + reply(judge_yes()),
                     {"--judge", "auto"});
    json stored = parse_stdout(r);
    REQUIRE(stored["verdict_by"] == "tier2");
    auto again = env.candor({"verify", stored["run_id"], "--json"});
    CAPTURE(again.err);
    CHECK(parse_stdout(again)["verdict"] == "partial");
    CHECK(again.err.find("recorded with --judge auto, but no LLM provider is named here") != std::string::npos);
    CHECK(again.err.find("recomputed partial (by tier1) with judge policy never (no LLM provider)") !=
          std::string::npos);
    // An explicit --judge that needs an LLM is still a usage error.
    CHECK(env.candor({"verify", stored["run_id"], "--judge", "always"}).exit_code == 64);
  }

  TEST_CASE("verify: exec without an LLM records the judge-less policy it ran under") {
    Env env;
    auto r = env.exec(example_plan("patch.json"));
    json stored = parse_stdout(r);
    CHECK(stored["judge_policy"] == "never");
  }
}
