// The verdict the agent cannot steer (docs/design.md, Trust boundary; Verdicts), through the
// built binary: each case is a plan a careless or dishonest planner could write.
#include <doctest/doctest.h>

#include <filesystem>

#include "store/run_store.h"
#include "tests/e2e_support.h"

using namespace candor;
using namespace candor::testing;
using nlohmann::json;

namespace {

std::string reply(const json& j, const std::string& expect = "") {
  json l = {{"reply_json", j}};
  if (!expect.empty()) l["expect"] = expect;
  return l.dump() + "\n";
}

json patch_step(const std::string& id, const std::string& find, const std::string& replace, const json& asserts) {
  return {{"id", id},
          {"tool", "file_patch"},
          {"args", {{"path", "css/style.css"}, {"edits", {{{"find", find}, {"replace", replace}}}}}},
          {"assert", asserts.is_array() ? asserts : json::array({asserts})}};
}

json contains(const std::string& path, const std::string& text) {
  return {{"type", "file_contains"}, {"path", path}, {"text", text}};
}

json judge_reply(const std::vector<std::string>& answers) {
  json list = json::array();
  for (std::size_t i = 0; i < answers.size(); ++i) {
    list.push_back({{"question", i + 1}, {"answer", answers[i]}, {"reason", "from the evidence"}});
  }
  return {{"answers", list}};
}

// A one-round modify plan that finishes after `steps`.
json modify_plan(const json& steps) {
  return {{"goal_kind", "modify"}, {"steps", steps.is_array() ? steps : json::array({steps})}, {"then", "finish"}};
}

std::vector<Event> events_of(const Env& env, const std::string& run_id) {
  auto store = store::RunStore::open(env.store);
  REQUIRE(store.ok());
  auto run = (*store)->load(run_id);
  REQUIRE(run.ok());
  return run->events;
}

std::string reasons_of(const json& report) {
  std::string all;
  for (const auto& r : report["reasons"]) all += r.get<std::string>() + "\n";
  return all;
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("verdict: a red patch 'checked' by a text the stylesheet always had is not success") {
    Env env;
    json plan = modify_plan(
        {patch_step("s1", "background: #ffffff;", "background: #ff0000;", {contains("css/style.css", "background")})});
    auto r = env.exec(env.plan_file(plan.dump()), {"--goal", "Change the background to dark green"});
    json j = parse_stdout(r);
    CAPTURE(r.out);
    CHECK(j["verdict"] != "success");
    CHECK(j["verdict"] == "partial");  // ambiguous at tier 1, no judge: unverified
    REQUIRE(j["assertions"].size() == 1);
    CHECK(j["assertions"][0]["passed"] == true);
    CHECK(j["assertions"][0]["by"] == "user");
    CHECK(j["assertions"][0]["discriminating"] == false);
    // The reason says which check was already true, then what would prove the change (issue 42).
    CHECK(reasons_of(j).find("css/style.css (modified): your check `file_contains css/style.css` passed on its "
                             "content from before the run too (it was already true), so it shows nothing about the "
                             "change; to prove it: check for something the change must make true that is not true "
                             "now") != std::string::npos);
    CHECK(reasons_of(j).find("unverified: tier 1 could not confirm the goal and no judge was asked; to prove it: take "
                             "the step each reason below gives for its path, or pass --llm for a judge") !=
          std::string::npos);
  }

  TEST_CASE("verdict: the same patch checked by the new colour is success: the check failed before the run") {
    Env env;
    json plan = modify_plan(
        {patch_step("s1", "background: #ffffff;", "background: #006400;", {contains("css/style.css", "#006400")})});
    auto r = env.exec(env.plan_file(plan.dump()));
    json j = parse_stdout(r);
    CHECK(r.exit_code == 0);
    CHECK(j["verdict"] == "success");
    CHECK(j["assertions"][0]["discriminating"] == true);
  }

  // Changed in issue 28: file_exists on a new file proves no content (it passes on an empty file),
  // so it covers nothing either; it is still discriminating.
  TEST_CASE("verdict: file_exists covers nothing: not on a file that always existed, not on a new file") {
    Env env;
    json plan =
        modify_plan({patch_step("s1", "#ffffff", "#ff0000", {{{"type", "file_exists"}, {"path", "css/style.css"}}}),
                     {{"id", "s2"},
                      {"tool", "file_write"},
                      {"args", {{"path", "notes.txt"}, {"content", "new\n"}}},
                      {"assert", {{{"type", "file_exists"}, {"path", "notes.txt"}}}}}});
    auto r = env.exec(env.plan_file(plan.dump()));
    json j = parse_stdout(r);
    CHECK(j["verdict"] == "partial");
    CHECK(j["signals"]["uncovered"] == json::array({"css/style.css", "notes.txt"}));
    CHECK(j["assertions"][0]["discriminating"] == false);
    CHECK(j["assertions"][1]["discriminating"] == true);
    CHECK(j["assertions"][1]["positive"] == false);
  }

  TEST_CASE("verdict: a deletion is covered by a discriminating not file_exists") {
    Env env;
    json plan = modify_plan(
        {{{"id", "s1"},
          {"tool", "file_delete"},
          {"args", {{"path", "index.html"}}},
          {"assert", {{{"type", "not"}, {"assertion", {{"type", "file_exists"}, {"path", "index.html"}}}}}}}});
    auto r = env.exec(env.plan_file(plan.dump()));
    json j = parse_stdout(r);
    CHECK(r.exit_code == 0);
    CHECK(j["verdict"] == "success");
    CHECK(j["assertions"][0]["discriminating"] == true);
  }

  TEST_CASE(
      "verdict: a plan cannot switch modify to inspect halfway; the switch is repaired, and nothing changed is fail") {
    Env env;
    json round1 = {{"goal_kind", "modify"},
                   {"questions", {"Is the background dark green?"}},
                   {"steps", {{{"id", "s1"}, {"tool", "file_read"}, {"args", {{"path", "css/style.css"}}}}}},
                   {"then", "replan"}};
    json sneaky = {{"goal_kind", "inspect"},
                   {"steps",
                    {{{"id", "s2"},
                      {"tool", "file_read"},
                      {"args", {{"path", "index.html"}}},
                      {"assert", {contains("index.html", "<")}}}}},
                   {"then", "finish"},
                   {"final_answer", "The page looks fine."}};
    json repaired = sneaky;
    repaired.erase("goal_kind");
    std::string script = reply(round1) + reply(sneaky) + reply(repaired, "fixed by round 1");
    auto r = env.run("Change the background to dark green", script, {"--judge", "never"});
    json j = parse_stdout(r);
    CAPTURE(r.err);
    CHECK(j["goal_kind"] == "modify");
    CHECK(j["status"] == "completed");
    CHECK(j["verdict"] == "fail");
    CHECK(r.exit_code == 2);
    CHECK(reasons_of(j).find("nothing in the workspace changed") != std::string::npos);
    int repairs = 0;
    for (const auto& e : events_of(env, j["run_id"]))
      repairs += e.type == "llm_call" && e.data.value("role", "") == "repair";
    CHECK(repairs == 1);
  }

  TEST_CASE("verdict: --kind fixes the goal kind before the planner speaks") {
    Env env;
    json says_inspect = {{"goal_kind", "inspect"},
                         {"steps", {{{"id", "s1"}, {"tool", "file_read"}, {"args", {{"path", "index.html"}}}}}},
                         {"then", "finish"},
                         {"final_answer", "Nothing to do."}};
    json obeys = says_inspect;
    obeys["goal_kind"] = "modify";
    std::string script = reply(says_inspect, "fixed as \"modify\" by the user") + reply(obeys, "fixed by --kind");
    auto r = env.run("Change the background to dark green", script, {"--kind", "modify", "--judge", "never"});
    json j = parse_stdout(r);
    CAPTURE(r.err);
    CHECK(j["goal_kind"] == "modify");
    CHECK(j["verdict"] == "fail");

    // exec: a plan that names another kind than --kind is invalid input.
    json plan = {{"goal_kind", "inspect"}, {"steps", json::array()}, {"then", "finish"}};
    auto bad = env.exec(env.plan_file(plan.dump()), {"--kind", "modify"});
    CHECK(bad.exit_code == 65);
    CHECK(bad.err.find("goal_kind") != std::string::npos);
    CHECK(bad.err.find("--kind") != std::string::npos);
  }

  TEST_CASE("verdict: a wrong inspect answer backed only by the planner's checks goes to the judge, who says no") {
    Env env;
    json plan = {{"goal_kind", "inspect"},
                 {"questions", {"Does the answer give the page's real title from index.html?"}},
                 {"steps",
                  {{{"id", "s1"},
                    {"tool", "file_read"},
                    {"args", {{"path", "index.html"}}},
                    {"assert", {{{"type", "file_exists"}, {"path", "index.html"}}}}}}},
                 {"then", "finish"},
                 {"final_answer", "The title is 'Totally Wrong'."}};
    // The judge's prompt must carry index.html although it did not change: the question names it.
    // The judge's questions come from the goal alone; the planner's are shown to it as its reading.
    std::string script =
        reply(plan) +
        reply({{"questions", {"Does the answer give the page's real title?"}}}, "What is the page's title?") +
        reply(judge_reply({"no", "yes"}), "<title>");
    auto r = env.run("What is the page's title?", script);
    json j = parse_stdout(r);
    CAPTURE(r.err);
    CHECK(j["goal_kind"] == "inspect");
    CHECK(j["tier1"]["verdict"] == "ambiguous");
    CHECK(j["verdict_by"] == "tier2");
    CHECK(j["verdict"] == "fail");
    CHECK(reasons_of(j).find("backed only by the planner's own checks") != std::string::npos);
    int judge_calls = 0;
    for (const auto& e : events_of(env, j["run_id"]))
      judge_calls += e.type == "llm_call" && e.data.value("role", "") == "judge";
    CHECK(judge_calls == 1);
    CHECK(j["usage"]["llm_calls"] == 3);
    // verify without the judge recomputes tier 1 alone, and says that it differs from the stored verdict.
    auto again = env.candor({"verify", j["run_id"], "--json", "--judge", "never"});
    CHECK(parse_stdout(again)["verdict"] == "partial");
    CHECK(again.err.find("stored verdict fail (by tier2), recomputed partial (by tier1)") != std::string::npos);
    // ... and what would ask the judge this time (issue 42: it said "--judge auto" where --llm was needed).
    CHECK(again.err.find("the judge was not asked (--judge always --llm PROVIDER to ask it)") != std::string::npos);
    auto unnamed = env.candor({"verify", j["run_id"], "--json"});
    CHECK(unnamed.err.find("the judge was not asked (--llm PROVIDER to ask it)") != std::string::npos);
    // The judge's verdict says it is the judge's before tier 1's unproven lines.
    CHECK(reasons_of(j).find("the judge decided this verdict: tier 1 alone could not prove what follows\n") !=
          std::string::npos);
  }

  TEST_CASE("verdict: an inspect answer with a passing user assertion is success at tier 1") {
    Env env;
    json plan = {{"goal_kind", "inspect"},
                 {"steps", {{{"id", "s1"}, {"tool", "file_read"}, {"args", {{"path", "index.html"}}}}}},
                 {"then", "finish"},
                 {"final_answer", "It has a stylesheet link."}};
    std::string script = reply(plan);
    auto r = env.run("Does the page link a stylesheet?", script,
                     {"--expect", R"({"type": "file_contains", "path": "index.html", "text": "stylesheet"})"});
    json j = parse_stdout(r);
    CHECK(j["verdict"] == "success");
    CHECK(j["verdict_by"] == "tier1");
  }

  TEST_CASE("verdict: an --expect that failed in round 1 and passed after the recovery replan is success") {
    Env env;
    json round1 = {
        {"goal_kind", "modify"},
        {"steps",
         {patch_step("s1", "background: #ffffff;", "background: #006401;", {contains("css/style.css", "#006401")})}},
        {"then", "finish"}};
    json round2 = {{"steps", {patch_step("s2", "#006401", "#006400", {contains("css/style.css", "#006400")})}},
                   {"then", "finish"}};
    std::string script = reply(round1) + reply(round2, "goal-level assertion file_contains failed");
    auto r =
        env.run("Change the background to dark green", script,
                {"--expect", R"({"type": "file_contains", "path": "css/style.css", "text": "background: #006400"})"});
    json j = parse_stdout(r);
    CAPTURE(r.err);
    CHECK(j["status"] == "completed");
    CHECK(j["verdict"] == "success");
    CHECK(r.exit_code == 0);
    int goal_level = 0;
    for (const auto& a : j["assertions"]) goal_level += a["step"].is_null();
    CHECK(goal_level == 2);  // evaluated twice: failed, then passed; only the last counts
  }

  TEST_CASE("verdict: nothing changed and the user's goal-level assertions hold: already satisfied") {
    Env env;
    json plan = modify_plan({{{"id", "s1"}, {"tool", "file_read"}, {"args", {{"path", "css/style.css"}}}}});
    auto r = env.exec(env.plan_file(plan.dump()),
                      {"--expect", R"({"type": "file_contains", "path": "css/style.css", "text": "max-width"})"});
    json j = parse_stdout(r);
    CHECK(r.exit_code == 0);
    CHECK(j["verdict"] == "success");
    CHECK(j["tier1"]["rule"] == 4);
    CHECK(reasons_of(j).find("already satisfied") != std::string::npos);
    // Without the user's expectation the same run is the classic "finished, changed nothing".
    auto plain = env.exec(env.plan_file(plan.dump()));
    CHECK(parse_stdout(plain)["verdict"] == "fail");
  }

  TEST_CASE("verdict: a round that finishes with everything passing ends completed even when it is also stagnant") {
    Env env;
    json read = {{"id", "s1"}, {"tool", "file_read"}, {"args", {{"path", "index.html"}}}};
    json first = {{"goal_kind", "inspect"}, {"steps", {read}}, {"then", "replan"}};
    json again = {{"steps", {read}}, {"then", "replan"}};
    json done = {{"steps", {read}}, {"then", "finish"}, {"final_answer", "It is a small page."}};
    // Rounds 2, 3 and 4 repeat round 1's call and change nothing: the fourth would be the third
    // stagnant round, but it finishes with everything passing.
    std::string script = reply(first) + reply(again) + reply(again) + reply(done);
    auto r = env.run("Describe the page", script, {"--judge", "never", "--max-replans", "5"});
    json j = parse_stdout(r);
    CAPTURE(r.err);
    CHECK(j["status"] == "completed");
    CHECK(j["budget"]["exhausted"].is_null());
    CHECK(j["final_answer"] == "It is a small page.");
  }

  TEST_CASE(
      "verdict: a reviewer that reaches no verdict rejects nothing: the worker is not sent back, the run is partial") {
    Env env;
    json plan = modify_plan(
        {patch_step("s1", "background: #ffffff;", "background: #006400;", {contains("css/style.css", "#006400")})});
    std::string script = reply(plan);
    for (int i = 0; i < 9; ++i) script += json({{"reply", "I am still thinking about it."}}).dump() + "\n";
    auto r =
        env.run("Change the background to dark green", script,
                {"--criterion", "the footer stays readable", "--expect", contains("css/style.css", "#006400").dump()});
    json j = parse_stdout(r);
    CAPTURE(r.err);
    CHECK(j["status"] == "completed");
    REQUIRE(j["goal_validations"].size() == 1);
    CHECK(j["goal_validations"][0]["verdict"] == "none");
    CHECK(j["verdict"] == "partial");
    CHECK(j["verdict_by"] == "reviewer");
    CHECK(reasons_of(j).find("unverified by the reviewer") != std::string::npos);
    CHECK(r.exit_code == 1);
    int reviewer_calls = 0;
    for (const auto& e : events_of(env, j["run_id"]))
      reviewer_calls += e.type == "llm_call" && e.data.value("role", "") == "reviewer";
    CHECK(reviewer_calls == 9);
    CHECK(j["usage"]["llm_calls"] == 10);
  }

  TEST_CASE(
      "verdict: an external evaluator covers a change only when declared discriminating, and it is run on the pre-run "
      "copy") {
    Env env;
    // Reads the file beneath the `workspace` it is told (the protocol), or beneath its working folder.
    std::string by_protocol =
        "f=$(python3 -c 'import json,sys; d=json.load(sys.stdin); print(d[\"workspace\"] + \"/\" + "
        "d[\"assertion\"][\"path\"])')\n"
        "if grep -q '#006400' \"$f\"; then echo '{\"passed\": true, \"message\": \"dark green\"}'; "
        "else echo '{\"passed\": false, \"message\": \"not dark green\"}'; fi\n";
    std::string by_cwd =
        "f=$(python3 -c 'import json,sys; print(json.load(sys.stdin)[\"assertion\"][\"path\"])')\n"
        "if grep -q '#006400' \"$f\"; then echo '{\"passed\": true}'; else echo '{\"passed\": false}'; fi\n";
    write_file(env.ws + "/.candor/by_protocol.sh", by_protocol);
    write_file(env.ws + "/.candor/by_cwd.sh", by_cwd);
    write_file(env.ws + "/.candor/config.json",
               json({{"evaluators",
                      {{"dark_green", {{"command", {"sh", ".candor/by_protocol.sh"}}, {"discriminating", true}}},
                       {"dark_green_cwd", {{"command", {"sh", ".candor/by_cwd.sh"}}, {"discriminating", true}}},
                       {"dark_green_undeclared", {{"command", {"sh", ".candor/by_protocol.sh"}}}}}}})
                   .dump());
    auto run_with = [&](const std::string& type) {
      Env fresh;
      std::filesystem::copy(env.ws + "/.candor", fresh.ws + "/.candor");
      json plan = modify_plan({patch_step("s1", "background: #ffffff;", "background: #006400;",
                                          {{"type", type}, {"path", "css/style.css"}})});
      return parse_stdout(fresh.exec(fresh.plan_file(plan.dump())));
    };
    json declared = run_with("dark_green");
    CHECK(declared["assertions"][0]["passed"] == true);
    CHECK(declared["assertions"][0]["discriminating"] == true);
    CHECK(declared["verdict"] == "success");
    json cwd = run_with("dark_green_cwd");  // sees the current file twice: passes twice
    CHECK(cwd["assertions"][0]["discriminating"] == false);
    CHECK(cwd["verdict"] == "partial");
    json undeclared = run_with("dark_green_undeclared");
    CHECK(undeclared["assertions"][0]["passed"] == true);
    CHECK(undeclared["assertions"][0]["discriminating"].is_null());
    CHECK(undeclared["verdict"] == "partial");
  }
}
