// End-to-end tests of `candor run`: the planner loop through the built binary, offline through
// the script provider, and over real HTTP to a test server for the anthropic provider.
#include <doctest/doctest.h>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "store/run_store.h"
#include "tests/e2e_support.h"
#include "tests/llm_server.h"

using namespace candor;
using namespace candor::testing;
using nlohmann::json;

namespace {

// One script line: the reply is `plan` as JSON text.
std::string line(const json& plan, const std::string& expect = "", std::int64_t in = 0, std::int64_t out = 0) {
  json l = {{"reply_json", plan}};
  if (!expect.empty()) l["expect"] = expect;
  if (in > 0) l["usage"] = {{"input_tokens", in}, {"output_tokens", out}};
  return l.dump() + "\n";
}

json read_step(const std::string& id, const std::string& path) {
  return {{"id", id}, {"tool", "file_read"}, {"args", {{"path", path}}}};
}

json discovery_plan(const std::string& id, const std::string& path, bool first) {
  json p = {{"steps", {read_step(id, path)}}, {"then", "replan"}};
  if (first) {
    p["goal_kind"] = "modify";
    p["questions"] = {"Is the background dark green?"};
  }
  return p;
}

json patch_plan(const std::string& id, const std::string& find, const std::string& replace, const std::string& check) {
  return {{"steps",
           {{{"id", id},
             {"tool", "file_patch"},
             {"args", {{"path", "css/style.css"}, {"edits", {{{"find", find}, {"replace", replace}}}}}},
             {"assert", {{{"type", "file_contains"}, {"path", "css/style.css"}, {"text", check}}}}}}},
          {"then", "finish"},
          {"final_answer", "The background is dark green."}};
}

json merged(json a, const json& b) {
  a.update(b);
  return a;
}

// The user's own expectation of the change: it decides at tier 1, where the planner's checks
// alone (the model's words) would leave the run to the judge.
const std::vector<std::string> kExpectGreen = {
    "--expect", R"({"type": "file_contains", "path": "css/style.css", "text": "background: #006400;"})"};

int llm_calls_in_store(const std::string& store_dir, const std::string& run_id) {
  auto store = store::RunStore::open(store_dir);
  auto run = (*store)->load(run_id);
  int n = 0;
  for (const auto& e : run->events) n += e.type == "llm_call";
  return n;
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("run: the discovery-only run burns its replans reading files and is partial") {
    Env env;
    std::string script =
        line(discovery_plan("s1", "index.html", true)) + line(discovery_plan("s2", "css/style.css", false)) +
        line(discovery_plan("s3", "css/style.css", false)) + line(discovery_plan("s4", "index.html", false));
    auto r = env.run("Change the background to dark green", script, {"--max-replans", "3"});
    CHECK(r.exit_code == 1);
    json j = parse_stdout(r);
    CHECK(j["status"] == "budget_exhausted");
    CHECK(j["verdict"] == "partial");
    CHECK(j["goal_actions_executed"] == false);
    CHECK(j["budget"]["exhausted"] == "replans");
    CHECK(j["budget"]["replans"] == json::array({3, 3}));
    CHECK(j["usage"]["llm_calls"] == 4);
    CHECK(llm_calls_in_store(env.store, j["run_id"]) == 4);
    CHECK(j["reasons"][0] == "the replan budget (3) ran out before any effect tool ran: tried, never made the change");
  }

  TEST_CASE("run: a failed assertion reaches the next prompt as recovery instructions, and the fix succeeds") {
    Env env;
    std::string script = line(merged(json{{"goal_kind", "modify"}, {"questions", {"Dark green?"}}},
                                     patch_plan("s1", "background: #ffffff;", "background: darkgreen;", "#006400"))) +
                         line(patch_plan("s2", "background: darkgreen;", "background: #006400;", "#006400"),
                              "assertion file_contains failed: css/style.css does not contain \"#006400\"");
    auto r = env.run("Change the background to dark green", script, kExpectGreen);
    CHECK(r.exit_code == 0);
    json j = parse_stdout(r);
    CHECK(j["verdict"] == "success");
    CHECK(j["budget"]["replans"] == json::array({1, 3}));
    CHECK(j["mutations"][0]["steps"] == json::array({"s1", "s2"}));
    CHECK(j["final_answer"] == "The background is dark green.");
  }

  TEST_CASE("run: prose first is repaired; two invalid replies end the run error, fail, exit 2") {
    Env env;
    std::string good = line(merged(json{{"goal_kind", "modify"}},
                                   patch_plan("s1", "background: #ffffff;", "background: #006400;", "#006400")));
    auto repaired = env.run("Make it green",
                            json{{"reply", "Sure! I'll change the background."}}.dump() + "\n" +
                                json{{"reply", "```json\n" + json::parse(good)["reply_json"].dump() + "\n```"},
                                     {"expect", "not a valid plan: the reply contains no JSON object"}}
                                    .dump() +
                                "\n",
                            kExpectGreen);
    CHECK(repaired.exit_code == 0);
    CHECK(parse_stdout(repaired)["usage"]["llm_calls"] == 2);

    Env bad;
    auto failed = bad.run("Make it green",
                          json{{"reply", "Sure!"}}.dump() + "\n" + json{{"reply", "{\"steps\": 1}"}}.dump() + "\n");
    CHECK(failed.exit_code == 2);
    json j = parse_stdout(failed);
    CHECK(j["status"] == "error");
    CHECK(j["verdict"] == "fail");
    CHECK(j["status_detail"].get<std::string>().find("the planner's reply was invalid twice") != std::string::npos);
  }

  TEST_CASE("run: the token budget ends a run") {
    Env env;
    std::string script = line(discovery_plan("s1", "index.html", true), "", 150000, 2000) +
                         line(discovery_plan("s2", "css/style.css", false), "", 60000, 2000);
    json j = parse_stdout(env.run("Make it green", script, {"--max-tokens", "200000"}));
    CHECK(j["status"] == "budget_exhausted");
    CHECK(j["budget"]["exhausted"] == "tokens");
    CHECK(j["budget"]["tokens"] == json::array({214000, 200000}));
    CHECK(j["verdict"] == "partial");
  }

  TEST_CASE("run: the wall-clock budget ends a run inside a running step") {
    Env env;
    json plan = {{"goal_kind", "modify"},
                 {"steps", {{{"id", "s1"}, {"tool", "shell"}, {"args", {{"command", "sleep 30"}}}}}},
                 {"then", "finish"}};
    auto start = std::chrono::steady_clock::now();
    json j = parse_stdout(env.run("Wait", line(plan), {"--timeout", "2"}));
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(8));
    CHECK(j["status"] == "budget_exhausted");
    CHECK(j["budget"]["exhausted"] == "timeout");
    CHECK(j["verdict"] == "partial");
  }

  TEST_CASE("run: stagnation ends the run early instead of burning the rest of the budget") {
    Env env;
    std::string script = line(discovery_plan("s1", "index.html", true));
    for (int i = 0; i < 8; ++i) script += line(discovery_plan("s1", "index.html", false));
    auto r = env.run("Make it green", script, {"--max-replans", "8"});
    json j = parse_stdout(r);
    CHECK(j["status"] == "budget_exhausted");
    CHECK(j["budget"]["exhausted"] == "stagnation");
    CHECK(j["usage"]["llm_calls"] == 4);  // round 1 is new; rounds 2, 3 and 4 repeat it
    auto store = store::RunStore::open(env.store);
    auto run = (*store)->load(j["run_id"]);
    int notes = 0;
    for (const auto& e : run->events) notes += e.type == "stagnation";
    CHECK(notes == 1);
  }

  TEST_CASE("run: a script that runs out is a provider failure, exit 69, still recorded") {
    Env env;
    auto r = env.run("Make it green", line(discovery_plan("s1", "index.html", true)));
    CHECK(r.exit_code == 69);
    CHECK(r.err.find("no line left for call 2") != std::string::npos);
    json j = parse_stdout(r);
    CHECK(j["status"] == "error");
    CHECK(j["verdict"] == "fail");
  }

  TEST_CASE("run: usage errors, and a malformed script is invalid input") {
    Env env;
    auto no_llm = env.candor({"run", "Make it green", "-C", env.ws});
    CHECK(no_llm.exit_code == 64);
    CHECK(no_llm.err.find("no LLM provider") != std::string::npos);
    auto bad_script = env.run("Make it green", "{\"reply\": 1}\n");
    CHECK(bad_script.exit_code == 65);
    CHECK(bad_script.err.find(":1: reply: expected a string") != std::string::npos);
    CHECK(env.candor({"run", "Make it green", "-C", env.ws, "--llm", "gemini"}).exit_code == 64);
  }

  TEST_CASE(
      "run over HTTP: anthropic against a local server; the planted key is in no file of the store and no output") {
    LlmServer server;
    const std::string key = "sk-ant-PLANTED-" + std::to_string(::getpid()) + "-do-not-leak";
    json first = merged(json{{"goal_kind", "modify"}},
                        patch_plan("s1", "background: #ffffff;", "background: #006400;", "#006400"));
    server.set_replies({"```json\n" + first.dump() + "\n```"});
    Env env;
    env.env = {"NO_COLOR=1", "ANTHROPIC_API_KEY=" + key, "ANTHROPIC_BASE_URL=" + server.base_url()};
    auto r = env.candor({"run", "Make the background dark green", "-C", env.ws, "--llm", "anthropic:test-model",
                         "--json", kExpectGreen[0], kExpectGreen[1]});
    CHECK(r.exit_code == 0);
    json j = parse_stdout(r);
    CHECK(j["verdict"] == "success");
    CHECK(j["usage"] == json{{"llm_calls", 1}, {"input_tokens", 1200}, {"output_tokens", 90}, {"estimated_calls", 0}});
    CHECK(server.last_header("x-api-key") == key);
    CHECK(server.last_body()["system"].get<std::string>().find("You are the planner of candor") == 0);

    server.set_mode(LlmServer::Mode::kUnauthorizedEcho);
    auto denied = env.candor({"run", "Make it green", "-C", env.ws, "--llm", "anthropic", "--json"});
    CHECK(denied.exit_code == 69);
    CHECK(denied.err.find("HTTP 401") != std::string::npos);
    for (const auto& [path, content] : tree_contents(env.store)) {
      CAPTURE(path);
      CHECK(content.find(key) == std::string::npos);
      CHECK(content.find("PLANTED") == std::string::npos);
    }
    for (const std::string& out : {r.out, r.err, denied.out, denied.err}) {
      CHECK(out.find("PLANTED") == std::string::npos);
    }
    auto report = env.candor({"report", "--json"});
    CHECK(report.out.find("PLANTED") == std::string::npos);
  }

  TEST_CASE("run: Ctrl-C ends the run cancelled, still verified and stored") {
    Env env;
    json plan = {{"goal_kind", "modify"},
                 {"steps",
                  {{{"id", "s1"}, {"tool", "file_write"}, {"args", {{"path", "a.txt"}, {"content", "x"}}}},
                   {{"id", "s2"}, {"tool", "shell"}, {"args", {{"command", "sleep 30"}}}}}},
                 {"then", "finish"}};
    std::string script = make_temp_dir("script") + "/s.jsonl";
    write_file(script, line(plan));
    pid_t pid = spawn_until_step(env, {"run", "Write a file", "-C", env.ws, "--llm", "script:" + script}, "s2");
    REQUIRE(pid > 0);
    auto start = std::chrono::steady_clock::now();
    ::kill(pid, SIGINT);
    int status = 0;
    ::waitpid(pid, &status, 0);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 130);  // cancelled by Ctrl-C (the verdict, partial, is in the report)
    json j = parse_stdout(env.candor({"report", "--json"}));
    CHECK(j["status"] == "cancelled");
    CHECK(j["verdict"] == "partial");
    CHECK(j["mutations"][0]["path"] == "a.txt");
  }
}
