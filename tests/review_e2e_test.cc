// End-to-end tests of tier 2 (the judge) and the independent reviewer, through the binary.
#include <doctest/doctest.h>

#include "store/run_store.h"
#include "tests/e2e_support.h"

using namespace candor;
using namespace candor::testing;
using nlohmann::json;

namespace {

std::string line(const json& reply, const std::string& expect = "", std::optional<std::pair<int, int>> usage = {}) {
  json l = {{"reply_json", reply}};
  if (!expect.empty()) l["expect"] = expect;
  if (usage) l["usage"] = {{"input_tokens", usage->first}, {"output_tokens", usage->second}};
  return l.dump() + "\n";
}

// A first plan that changes the background with no assertion: tier 1 cannot confirm it.
json unchecked_patch(std::vector<std::string> questions) {
  return {{"goal_kind", "modify"},
          {"questions", questions},
          {"steps",
           {{{"id", "s1"},
             {"tool", "file_patch"},
             {"args",
              {{"path", "css/style.css"},
               {"edits", {{{"find", "background: #ffffff;"}, {"replace", "background: #006400;"}}}}}}}}},
          {"then", "finish"},
          {"final_answer", "Done."}};
}

json checked_patch(const std::string& id, const std::string& find, const std::string& replace) {
  return {{"goal_kind", "modify"},
          {"questions", {"Is the background dark green?"}},
          {"steps",
           {{{"id", id},
             {"tool", "file_patch"},
             {"args", {{"path", "css/style.css"}, {"edits", {{{"find", find}, {"replace", replace}}}}}},
             {"assert", {{{"type", "file_contains"}, {"path", "css/style.css"}, {"text", replace}}}}}}},
          {"then", "finish"},
          {"final_answer", "Done."}};
}

json answers(std::vector<std::string> yes_no) {
  json a = json::array();
  for (std::size_t i = 0; i < yes_no.size(); ++i)
    a.push_back({{"question", i + 1}, {"answer", yes_no[i]}, {"reason", "from the diff"}});
  return {{"answers", a}};
}

// The goal-only call that fixes the judge's questions before any evidence exists.
json decomposed(std::vector<std::string> questions) { return {{"questions", questions}}; }

// A user --expect that covers the stylesheet's change at tier 1 (a planner's own check does not).
const std::vector<std::string> kExpectGreen = {
    "--expect", R"({"type": "file_contains", "path": "css/style.css", "text": "background: #006400;"})"};

json request(const std::string& dir, int n) {
  return json::parse(read_file(dir + "/req-" + std::to_string(n) + ".json"));
}

// The command provider's documented estimate, a token per four bytes plus one, of what call N sent
// and got back, measured from the files the replay script kept.
std::int64_t sent_tokens(const std::string& dir, int n) {
  return static_cast<std::int64_t>(read_file(dir + "/req-" + std::to_string(n) + ".json").size() / 4 + 1);
}
std::int64_t received_tokens(const std::string& dir, int n) {
  return static_cast<std::int64_t>(read_file(dir + "/reply-" + std::to_string(n) + ".txt").size() / 4 + 1);
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("judge: an ambiguous run is settled by the judge's answers") {
    struct Row {
      std::vector<std::string> answers;
      std::string verdict;
      int exit_code;
    };
    // The third answer is the question every judge is asked: was nothing else changed?
    for (const auto& row : std::vector<Row>{{{"yes", "yes", "yes"}, "success", 0},
                                            {{"yes", "no", "yes"}, "partial", 1},
                                            {{"no", "no", "no"}, "fail", 2}}) {
      CAPTURE(row.verdict);
      Env env;
      auto r = env.run("Make the background dark green",
                       line(unchecked_patch({"Is the planner's own question answered?"})) +
                           line(decomposed({"Is the background dark green?", "Is the text readable?"}),
                                "Make the background dark green") +
                           line(answers(row.answers), "kind=\"diff\" path=\"css/style.css\""));
      CHECK(r.exit_code == row.exit_code);
      json j = parse_stdout(r);
      CHECK(j["verdict"] == row.verdict);
      CHECK(j["verdict_by"] == "tier2");
      CHECK(j["tier1"]["verdict"] == "ambiguous");
      REQUIRE(j["tier2"].is_object());
      CHECK(j["tier2"]["answers"].size() == 3);
      CHECK(j["tier2"]["answers"][0]["text"] == "Is the background dark green?");
      CHECK(j["tier2"]["answers"][2]["text"].get<std::string>().find("leave alone everything the goal did not ask") !=
            std::string::npos);
      CHECK(j["tier2"]["verdict"] == row.verdict);
      CHECK(j["usage"]["llm_calls"] == 3);
    }
  }

  TEST_CASE("judge: malformed twice leaves the run partial, unverified") {
    Env env;
    auto r = env.run("Make it green", line(unchecked_patch({"Green?"})) + line(decomposed({"Green?"})) +
                                          json{{"reply", "Looks fine."}}.dump() + "\n" +
                                          json{{"reply", "{\"answers\": \"yes\"}"}}.dump() + "\n");
    CHECK(r.exit_code == 1);
    json j = parse_stdout(r);
    CHECK(j["verdict"] == "partial");
    CHECK(j["verdict_by"] == "tier1");
    CHECK(j["reasons"][0].get<std::string>().rfind(
              "unverified: tier 1 could not confirm the goal and the judge did not answer", 0) == 0);
    CHECK(j["tier2"]["verdict"].is_null());
    CHECK(j["usage"]["llm_calls"] == 4);
  }

  TEST_CASE("judge: a success the user's own --expect proves makes no judge call (the script has no line for one)") {
    Env env;
    auto r = env.run("Make it green", line(checked_patch("s1", "background: #ffffff;", "background: #006400;")),
                     kExpectGreen);
    CHECK(r.exit_code == 0);
    json j = parse_stdout(r);
    CHECK(j["verdict"] == "success");
    CHECK(j["tier2"].is_null());
    CHECK(j["usage"]["llm_calls"] == 1);
  }

  TEST_CASE("judge: --judge always with a yes on a budget-exhausted run stays partial") {
    Env env;
    json discovery = {{"goal_kind", "modify"},
                      {"questions", {"Green?"}},
                      {"steps", {{{"id", "s1"}, {"tool", "file_read"}, {"args", {{"path", "index.html"}}}}}},
                      {"then", "replan"}};
    auto r = env.run("Make it green", line(discovery) + line(decomposed({"Green?"})) + line(answers({"yes", "yes"})),
                     {"--judge", "always", "--max-replans", "0"});
    CHECK(r.exit_code == 1);
    json j = parse_stdout(r);
    CHECK(j["status"] == "budget_exhausted");
    CHECK(j["verdict"] == "partial");
    CHECK(j["verdict_by"] == "tier1");
    CHECK(j["tier2"]["verdict"] == "success");
  }

  TEST_CASE("reviewer: fail, then pass; the worker sees the reason, never the criterion") {
    Env env;
    std::string dir = make_temp_dir("replay");
    const std::string criterion = "CRITERION-7731: the footer text must be light on the dark background";
    std::string llm = replay_provider(
        dir, {
                 checked_patch("s1", "background: #ffffff;", "background: #006400;"),
                 {{"tool", "file_read"}, {"args", {{"path", "css/style.css"}}}},
                 {{"verdict", "fail"}, {"reason", "the footer colour #666666 is unreadable on #006400"}},
                 checked_patch("s2", "color: #666666;", "color: #dddddd;"),
                 {{"verdict", "pass"}, {"reason", "background #006400, footer #dddddd"}},
             });
    auto r = env.candor({"run", "Make the background dark green", "-C", env.ws, "--llm", llm, "--criterion", criterion,
                         "--json", kExpectGreen[0], kExpectGreen[1]});
    CHECK(r.exit_code == 0);
    json j = parse_stdout(r);
    CHECK(j["verdict"] == "success");
    // Calls 1 and 2 are the first review (a file_read, then the verdict), call 4 the second.
    CHECK(j["goal_validations"] == json::array({{{"attempt", 1},
                                                 {"verdict", "fail"},
                                                 {"reason", "the footer colour #666666 is unreadable on #006400"},
                                                 {"input_tokens", sent_tokens(dir, 1) + sent_tokens(dir, 2)},
                                                 {"output_tokens", received_tokens(dir, 1) + received_tokens(dir, 2)}},
                                                {{"attempt", 2},
                                                 {"verdict", "pass"},
                                                 {"reason", "background #006400, footer #dddddd"},
                                                 {"input_tokens", sent_tokens(dir, 4)},
                                                 {"output_tokens", received_tokens(dir, 4)}}}));
    std::string worker_first = request(dir, 0).dump();
    std::string reviewer_first = request(dir, 1).dump();
    std::string worker_second = request(dir, 3).dump();
    CHECK(worker_first.find("An independent reviewer will check the work") != std::string::npos);
    CHECK(worker_first.find("CRITERION-7731") == std::string::npos);
    CHECK(reviewer_first.find("CRITERION-7731") != std::string::npos);
    CHECK(worker_second.find("the footer colour #666666 is unreadable on #006400") != std::string::npos);
    CHECK(worker_second.find("CRITERION-7731") == std::string::npos);
    // The reviewer's second attempt starts from a fresh history.
    json reviewer_second = request(dir, 4);
    CHECK(reviewer_second["messages"].size() == 1);
  }

  TEST_CASE("reviewer: every attempt failing ends goal_attempts_exhausted, fail, exit 2") {
    Env env;
    // Distinct usage on every line, so a sum that takes the wrong lines or counts one twice shows.
    std::string script = line(checked_patch("s1", "background: #ffffff;", "background: #006400;"), "", {{1000, 100}}) +
                         line({{"verdict", "fail"}, {"reason", "first reason"}}, "", {{2000, 20}}) +
                         line(checked_patch("s2", "color: #666666;", "color: #dddddd;"), "first reason", {{30000, 3}}) +
                         line({{"verdict", "fail"}, {"reason", "second reason"}}, "", {{40000, 4000}});
    auto r = env.run("Make it green", script, {"--criterion", "secret criterion", "--max-goal-attempts", "2"});
    CHECK(r.exit_code == 2);
    json j = parse_stdout(r);
    CHECK(j["status"] == "goal_attempts_exhausted");
    CHECK(j["verdict"] == "fail");
    CHECK(j["verdict_by"] == "reviewer");
    CHECK(j["reasons"][0] == "the independent reviewer failed the work (attempt 2): second reason");
    REQUIRE(j["goal_validations"].size() == 2);
    CHECK(j["goal_validations"][0]["input_tokens"] == 2000);
    CHECK(j["goal_validations"][0]["output_tokens"] == 20);
    CHECK(j["goal_validations"][1]["input_tokens"] == 40000);
    CHECK(j["goal_validations"][1]["output_tokens"] == 4000);
    CHECK(j["usage"] ==
          json{{"llm_calls", 4}, {"input_tokens", 73000}, {"output_tokens", 4123}, {"estimated_calls", 0}});
  }

  TEST_CASE("reviewer: a request for file_write is refused and recorded, and the file is unchanged") {
    Env env;
    std::string script = line(checked_patch("s1", "background: #ffffff;", "background: #006400;")) +
                         line({{"tool", "file_write"}, {"args", {{"path", "css/style.css"}, {"content", "hacked"}}}}) +
                         line({{"verdict", "pass"}, {"reason", "background is #006400"}},
                              "Refused: file_write is not available to the reviewer");
    std::vector<std::string> args = {"--criterion", "dark green background"};
    args.insert(args.end(), kExpectGreen.begin(), kExpectGreen.end());
    auto r = env.run("Make it green", script, args);
    CHECK(r.exit_code == 0);
    json j = parse_stdout(r);
    CHECK(j["verdict"] == "success");
    CHECK(read_file(env.ws + "/css/style.css").find("background: #006400;") != std::string::npos);
    CHECK(read_file(env.ws + "/css/style.css").find("hacked") == std::string::npos);
    auto store = store::RunStore::open(env.store);
    auto run = (*store)->load(j["run_id"]);
    int refused = 0;
    for (const auto& e : run->events) refused += e.type == "review_refused" && e.data["tool"] == "file_write";
    CHECK(refused == 1);
  }
}
