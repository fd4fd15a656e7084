// End-to-end tests of choosing the LLM provider from the environment (docs/design.md, The CLI): a key or an
// endpoint alone is enough, CANDOR_LLM wins over keys, --llm over both; with nothing, exit 64
// saying what to set. Over real HTTP to the local fake server. The report names the provider and
// model; no key reaches the store, a report or an error message.
#include <doctest/doctest.h>

#include <unistd.h>

#include <string>
#include <vector>

#include "tests/e2e_support.h"
#include "tests/llm_server.h"

using namespace candor::testing;
using nlohmann::json;

namespace {

// A plan that makes the background dark green and checks it: with the user's kExpectGreen, success
// at tier 1, one LLM call (the planner's own check alone would leave the run to the judge).
std::string checked_plan_reply() {
  json plan = {{"goal_kind", "modify"},
               {"steps",
                {{{"id", "s1"},
                  {"tool", "file_patch"},
                  {"args",
                   {{"path", "css/style.css"},
                    {"edits", {{{"find", "background: #ffffff;"}, {"replace", "background: #006400;"}}}}}},
                  {"assert", {{{"type", "file_contains"}, {"path", "css/style.css"}, {"text", "#006400"}}}}}}},
               {"then", "finish"},
               {"final_answer", "The background is dark green."}};
  return "```json\n" + plan.dump() + "\n```";
}

// The same change with no assertion: tier 1 cannot confirm it, so the judge is asked (exec, verify).
std::string unchecked_plan(Env& env) {
  return env.plan_file(R"({"goal_kind": "modify", "questions": ["Is the page background dark green?"], "steps": [
      {"id": "s1", "tool": "file_patch", "args": {"path": "css/style.css",
         "edits": [{"find": "background: #ffffff;", "replace": "background: #006400;"}]}}], "then": "finish"})");
}

const std::string kExpect = "--expect";
const std::string kExpectGreen =
    R"({"type": "file_contains", "path": "css/style.css", "text": "background: #006400;"})";

// The judge's two calls: the goal-only call that fixes its questions, then the answers (the last to
// the question candor appends).
const std::string kQuestions = R"({"questions": ["Is the page background dark green?"]})";
const std::string kYes =
    R"({"answers": [{"question": 1, "answer": "yes", "reason": "the diff sets #006400"}, {"question": 2, "answer": "yes", "reason": "nothing else changed"}]})";

std::string planted_key(const std::string& what) {
  return "sk-" + what + "-PLANTED-" + std::to_string(::getpid()) + "-do-not-leak";
}

// A recorded envelope of tests/data/providers whose answer text is `text` (the planner's plan).
std::string envelope_saying(const std::string& name, const std::string& text) {
  json j = json::parse(read_file(data_dir() + "/providers/" + name));
  if (j.contains("content")) {
    j["content"] = json::array({{{"type", "text"}, {"text", text}}});
  } else {
    j["choices"][0]["message"]["content"] = text;
  }
  return j.dump();
}

LlmServer::Canned canned(const std::string& name, int status = 200,
                         std::vector<std::pair<std::string, std::string>> headers = {}) {
  return {status, read_file(data_dir() + "/providers/" + name), std::move(headers)};
}

// No file of the store and none of the outputs holds the key.
void check_no_key(const Env& env, const std::string& key, const std::vector<CommandResult>& results) {
  for (const auto& [path, content] : tree_contents(env.store)) {
    CAPTURE(path);
    CHECK(content.find(key) == std::string::npos);
    CHECK(content.find("PLANTED") == std::string::npos);
  }
  for (const auto& r : results) {
    CHECK(r.out.find("PLANTED") == std::string::npos);
    CHECK(r.err.find("PLANTED") == std::string::npos);
  }
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("provider: ANTHROPIC_API_KEY alone selects anthropic, and every rendering names it") {
    LlmServer server;
    server.set_replies({checked_plan_reply()});
    Env env;
    const std::string key = planted_key("ant");
    // An OpenAI endpoint too: the Anthropic key comes first.
    env.env.insert(env.env.end(), {"ANTHROPIC_API_KEY=" + key, "ANTHROPIC_BASE_URL=" + server.base_url(),
                                   "OPENAI_BASE_URL=" + server.base_url() + "/v1"});
    auto r = env.candor({"run", "Make the background dark green", "-C", env.ws, "--json", kExpect, kExpectGreen});
    CHECK(r.exit_code == 0);
    json j = parse_stdout(r);
    CHECK(j["verdict"] == "success");
    CHECK(j["provider"] == "anthropic:claude-sonnet-4-5");
    CHECK(server.requests() == 1);
    CHECK(server.last_header("x-api-key") == key);

    auto text = env.candor({"report"});
    CHECK(text.out.find("  provider      anthropic:claude-sonnet-4-5\n") != std::string::npos);
    auto markdown = env.candor({"report", "--markdown"});
    CHECK(markdown.out.find("- provider: `anthropic:claude-sonnet-4-5`\n") != std::string::npos);
    auto stored = env.candor({"report", "--json"});
    CHECK(parse_stdout(stored)["provider"] == "anthropic:claude-sonnet-4-5");
    check_no_key(env, key, {r, text, markdown, stored});
  }

  TEST_CASE("provider: OPENAI_BASE_URL alone selects openai (a local server needs no key); with a key, it is sent") {
    LlmServer server;
    server.set_replies({checked_plan_reply()});
    Env env;
    env.env.push_back("OPENAI_BASE_URL=" + server.base_url() + "/v1");
    auto r = env.candor({"run", "Make the background dark green", "-C", env.ws, "--json", kExpect, kExpectGreen});
    CHECK(r.exit_code == 0);
    json j = parse_stdout(r);
    CHECK(j["verdict"] == "success");
    CHECK(j["provider"] == "openai:gpt-4o-mini");
    CHECK(server.requests() == 1);
    CHECK(server.last_body()["model"] == "gpt-4o-mini");

    const std::string key = planted_key("openai");
    Env keyed;
    keyed.env.insert(keyed.env.end(), {"OPENAI_API_KEY=" + key, "OPENAI_BASE_URL=" + server.base_url() + "/v1"});
    auto k = keyed.candor({"run", "Make the background dark green", "-C", keyed.ws, "--json", kExpect, kExpectGreen});
    CHECK(k.exit_code == 0);
    CHECK(parse_stdout(k)["provider"] == "openai:gpt-4o-mini");
    CHECK(server.last_header("authorization") == "Bearer " + key);
    check_no_key(keyed, key, {k, keyed.candor({"report", "--markdown"})});
  }

  TEST_CASE("provider: CANDOR_LLM wins over the keys, and --llm over CANDOR_LLM") {
    LlmServer server;
    server.set_replies({checked_plan_reply()});
    Env env;
    std::string script = make_temp_dir("script") + "/replies.jsonl";
    write_file(script, json{{"reply", checked_plan_reply()}}.dump() + "\n");
    env.env.insert(env.env.end(), {"ANTHROPIC_API_KEY=" + planted_key("ant"), "ANTHROPIC_BASE_URL=" + server.base_url(),
                                   "OPENAI_BASE_URL=" + server.base_url() + "/v1", "CANDOR_LLM=script:" + script});
    auto r = env.candor({"run", "Make the background dark green", "-C", env.ws, "--json", kExpect, kExpectGreen});
    CHECK(r.exit_code == 0);
    CHECK(parse_stdout(r)["provider"] == "script:" + script);
    CHECK(server.requests() == 0);

    Env again;
    again.env = env.env;
    auto flag = again.candor({"run", "Make the background dark green", "-C", again.ws, "--llm", "openai:local-model",
                              "--json", kExpect, kExpectGreen});
    CHECK(flag.exit_code == 0);
    CHECK(parse_stdout(flag)["provider"] == "openai:local-model");
    CHECK(server.requests() == 1);
    CHECK(server.last_body()["model"] == "local-model");
  }

  TEST_CASE("provider: a 429's retry-after is waited for, then the run goes on") {
    LlmServer server;
    server.set_canned({canned("anthropic/rate_limit_429.json", 429, {{"retry-after", "2"}}),
                       {200, envelope_saying("anthropic/end_turn.json", checked_plan_reply())}});
    Env env;
    env.env.insert(env.env.end(),
                   {"ANTHROPIC_API_KEY=" + planted_key("ant"), "ANTHROPIC_BASE_URL=" + server.base_url()});
    auto r = env.candor({"run", "Make the background dark green", "-C", env.ws, "--json", kExpect, kExpectGreen});
    CHECK(r.exit_code == 0);
    CHECK(parse_stdout(r)["verdict"] == "success");
    auto seen = server.received();
    REQUIRE(seen.size() == 2);
    // As the server saw it: the second request came no sooner than the 2 s it asked for (the
    // backoff alone would have waited at most 0.5 s), and not long after.
    auto gap = std::chrono::duration_cast<std::chrono::milliseconds>(seen[1].at - seen[0].at);
    CAPTURE(gap.count());
    CHECK(gap >= std::chrono::milliseconds(1900));
    CHECK(gap < std::chrono::seconds(30));
  }

  TEST_CASE("provider: a refusal ends the run with the model's explanation, no repair, exit 69") {
    LlmServer server;
    server.set_canned({canned("anthropic/refusal.json")});
    Env env;
    env.env.insert(env.env.end(),
                   {"ANTHROPIC_API_KEY=" + planted_key("ant"), "ANTHROPIC_BASE_URL=" + server.base_url()});
    auto r = env.candor({"run", "Disable the interlocks", "-C", env.ws, "--json"});
    CHECK(r.exit_code == 69);
    json j = parse_stdout(r);
    CHECK(j["status"] == "error");
    CHECK(j["status_detail"] ==
          "anthropic: the model refused to answer (stop_reason \"refusal\"): I can't help with writing code that "
          "disables the safety interlocks of this device.");
    CHECK(server.requests() == 1);  // no repair: it would be refused again
  }

  TEST_CASE("provider: a plan cut at the output limit is said as such, and the repair asks for a shorter plan") {
    LlmServer server;
    server.set_canned(
        {canned("anthropic/max_tokens.json"), {200, envelope_saying("anthropic/end_turn.json", checked_plan_reply())}});
    Env env;
    env.env.insert(env.env.end(),
                   {"ANTHROPIC_API_KEY=" + planted_key("ant"), "ANTHROPIC_BASE_URL=" + server.base_url()});
    auto r = env.candor({"run", "Make the background dark green", "-C", env.ws, "--json", kExpect, kExpectGreen});
    CHECK(r.exit_code == 0);
    auto seen = server.received();
    REQUIRE(seen.size() == 2);
    std::string repair = seen[1].body["messages"].back()["content"];
    CHECK(repair.find("the reply was cut at the output limit (4096 tokens), before the plan was complete") !=
          std::string::npos);
    CHECK(repair.find("Reply again with a shorter plan") != std::string::npos);
  }

  TEST_CASE("provider: o1-mini refuses system and developer: learned from its errors, the run goes on") {
    LlmServer server;
    server.set_canned({canned("openai/system_unsupported_o1_mini_400.json", 400),
                       canned("openai/developer_unsupported_o1_mini_400.json", 400),
                       {200, envelope_saying("openai/o1_mini_system_as_user.json", checked_plan_reply())}});
    Env env;
    env.env.push_back("OPENAI_BASE_URL=" + server.base_url() + "/v1");
    auto r = env.candor({"run", "Make the background dark green", "-C", env.ws, "--llm", "openai:o1-mini", "--json",
                         kExpect, kExpectGreen});
    CHECK(r.exit_code == 0);
    auto seen = server.received();
    REQUIRE(seen.size() == 3);
    CHECK(seen[0].body["messages"][0]["role"] == "system");
    CHECK(seen[1].body["messages"][0]["role"] == "developer");
    CHECK(seen[2].body["messages"][0]["role"] == "user");
  }

  TEST_CASE("provider: a reply with usage null counts estimated tokens against the budget") {
    LlmServer server;
    server.set_canned({{200, envelope_saying("openai/dynamo_usage_null.json", checked_plan_reply())}});
    Env env;
    env.env.push_back("OPENAI_BASE_URL=" + server.base_url() + "/v1");
    auto r = env.candor({"run", "Make the background dark green", "-C", env.ws, "--json", kExpect, kExpectGreen});
    CHECK(r.exit_code == 0);
    json j = parse_stdout(r);
    CHECK(j["usage"]["input_tokens"].get<long>() > 100);  // the system prompt alone is kilobytes
    CHECK(j["usage"]["output_tokens"].get<long>() > 10);
    CHECK(j["budget"]["tokens"][0].get<long>() ==
          j["usage"]["input_tokens"].get<long>() + j["usage"]["output_tokens"].get<long>());
    // ... and the report says the tokens are an estimate, in its JSON and in every rendering.
    CHECK(j["usage"]["estimated_calls"] == j["usage"]["llm_calls"]);
    CHECK(j["usage"]["llm_calls"].get<int>() >= 1);
    auto shown = env.candor({"report", j["run_id"].get<std::string>()});
    // Every call estimated is said once, in the singular or plural (issue 42: "1 LLM calls").
    std::string said = j["usage"]["llm_calls"] == 1 ? "1 LLM call, " : " LLM calls, ";
    std::string estimated = j["usage"]["llm_calls"] == 1 ? "(estimated: the server sent no usage)"
                                                         : "(all estimated: the server sent no usage)";
    CHECK(shown.out.find(said) != std::string::npos);
    CHECK(shown.out.find(estimated) != std::string::npos);
    auto markdown = env.candor({"report", j["run_id"].get<std::string>(), "--markdown"});
    CHECK(markdown.out.find(estimated) != std::string::npos);
  }

  TEST_CASE("provider: a key the server echoes masked (its first and last characters) reaches no output and no file") {
    const std::string key = planted_key("openai");
    LlmServer server;
    json echo = json::parse(read_file(data_dir() + "/providers/openai/invalid_api_key_401.json"));
    echo["error"]["message"] = "Incorrect API key provided: " + key.substr(0, 8) + "****************" +
                               key.substr(key.size() - 4) +
                               ". You can find your API key at https://platform.openai.com/account/api-keys.";
    server.set_canned({{401, echo.dump()}});
    Env env;
    env.env.insert(env.env.end(), {"OPENAI_API_KEY=" + key, "OPENAI_BASE_URL=" + server.base_url() + "/v1"});
    auto r = env.candor({"run", "Make the background dark green", "-C", env.ws, "--json"});
    CHECK(r.exit_code == 69);
    CHECK(parse_stdout(r)["status_detail"] ==
          "openai: HTTP 401 (invalid_request_error): Incorrect API key provided: [redacted]. You can find your API key "
          "at https://platform.openai.com/account/api-keys.");
    auto report = env.candor({"report", "--markdown"});
    check_no_key(env, key, {r, report});
    for (const auto& [path, content] : tree_contents(env.store)) {
      CAPTURE(path);
      CHECK(content.find(key.substr(0, 8)) == std::string::npos);
      CHECK(content.find(key.substr(key.size() - 4) + ".") == std::string::npos);
    }
  }

  TEST_CASE("provider: nothing names one: exit 64 saying what to set, and no run is recorded") {
    Env env;
    auto r = env.candor({"run", "Make the background dark green", "-C", env.ws});
    CHECK(r.exit_code == 64);
    CAPTURE(r.err);
    for (const char* what : {"no LLM provider", "--llm PROVIDER[:MODEL]", "ANTHROPIC_API_KEY", "OPENAI_API_KEY",
                             "OPENAI_BASE_URL", "CANDOR_LLM"}) {
      CHECK(r.err.find(what) != std::string::npos);
    }
    CHECK(parse_stdout(env.candor({"runs", "--json"})).empty());
    // ANTHROPIC_BASE_URL is an endpoint, not a choice.
    env.env.push_back("ANTHROPIC_BASE_URL=http://127.0.0.1:9");
    CHECK(env.candor({"run", "Make the background dark green", "-C", env.ws}).exit_code == 64);
  }

  TEST_CASE("provider: exec's judge and verify --judge come from the same environment") {
    LlmServer server;
    server.set_replies({kQuestions, kYes, kQuestions, kYes});
    const std::string key = planted_key("ant");
    std::vector<std::string> anthropic = {"ANTHROPIC_API_KEY=" + key, "ANTHROPIC_BASE_URL=" + server.base_url()};

    Env env;
    env.env.insert(env.env.end(), anthropic.begin(), anthropic.end());
    auto judged = env.exec(unchecked_plan(env));
    CHECK(judged.exit_code == 0);
    json j = parse_stdout(judged);
    CHECK(j["verdict"] == "success");
    CHECK(j["verdict_by"] == "tier2");
    CHECK(j["provider"] == "anthropic:claude-sonnet-4-5");
    CHECK(server.requests() == 2);

    // Without a provider, exec asks no judge and names none; verify --judge then needs one.
    Env bare;
    auto unjudged = bare.exec(unchecked_plan(bare));
    CHECK(unjudged.exit_code == 1);
    CHECK(parse_stdout(unjudged)["provider"].is_null());
    auto refused = bare.candor({"verify", "last", "--judge", "auto"});
    CHECK(refused.exit_code == 64);
    CHECK(refused.err.find("--judge auto needs an LLM provider") != std::string::npos);
    CHECK(refused.err.find("ANTHROPIC_API_KEY") != std::string::npos);

    bare.env.insert(bare.env.end(), anthropic.begin(), anthropic.end());
    auto verified = bare.candor({"verify", "last", "--judge", "auto", "--json"});
    CHECK(verified.exit_code == 0);
    json v = parse_stdout(verified);
    CHECK(v["verdict_by"] == "tier2");
    CHECK(v["provider"] == "anthropic:claude-sonnet-4-5");
    CHECK(server.requests() == 4);  // the run had no judge: verify asks the goal-only call too
    check_no_key(env, key, {judged});
    check_no_key(bare, key, {verified, refused});
  }
}
