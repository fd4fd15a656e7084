#include <doctest/doctest.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/version.h"
#include "llm/http_provider.h"
#include "llm/local_providers.h"
#include "net/retry.h"
#include "tests/llm_server.h"
#include "tests/test_support.h"

using namespace candor;
using candor::testing::LlmServer;
using nlohmann::json;

namespace {

llm::HttpProviderConfig config(const LlmServer& server, const std::string& key = "sk-test-0123456789") {
  llm::HttpProviderConfig c;
  c.base_url = server.base_url();
  c.api_key = key;
  c.model = "test-model";
  c.options.retry = {4, std::chrono::milliseconds(10), std::chrono::milliseconds(40)};
  return c;
}

llm::Request request(std::chrono::milliseconds deadline = std::chrono::seconds(10)) {
  llm::Request r;
  r.role = "planner";
  r.system = "You plan.";
  r.messages = {{"user", "Goal: make it green"}};
  r.deadline = deadline;
  return r;
}

}  // namespace

TEST_SUITE("llm") {
  TEST_CASE("anthropic: the Messages wire format, both ways") {
    LlmServer server;
    server.set_replies({"the plan"});
    auto p = llm::make_anthropic(config(server));
    auto r = p->complete(request());
    REQUIRE(r.ok());
    CHECK(r->text == "the plan");
    CHECK(r->input_tokens == 1200);
    CHECK(r->output_tokens == 90);
    CHECK_FALSE(r->usage_estimated);
    CHECK(server.last_header("x-api-key") == "sk-test-0123456789");
    CHECK(server.last_header("anthropic-version") == "2023-06-01");
    json body = server.last_body();
    CHECK(body["model"] == "test-model");
    CHECK(body["system"] == "You plan.");
    CHECK(body["messages"] == json::array({{{"role", "user"}, {"content", "Goal: make it green"}}}));
    CHECK(body["max_tokens"] == 4096);
    CHECK(server.last_header("User-Agent") == std::string("candor/") + CANDOR_VERSION);
    CHECK(p->describe() == "anthropic:test-model");
  }

  TEST_CASE("openai: the chat-completions wire format, both ways") {
    LlmServer server;
    server.set_replies({"the plan"});
    auto c = config(server);
    c.base_url += "/v1";
    auto p = llm::make_openai(c);
    auto r = p->complete(request());
    REQUIRE(r.ok());
    CHECK(r->text == "the plan");
    CHECK(r->input_tokens == 700);
    CHECK(r->output_tokens == 60);
    CHECK(server.last_header("authorization") == "Bearer sk-test-0123456789");
    json body = server.last_body();
    CHECK(body["messages"][0] == json{{"role", "system"}, {"content", "You plan."}});
    CHECK(body["messages"][1]["content"] == "Goal: make it green");
    // A server other than OpenAI's own API: max_tokens, which every compatible server knows.
    CHECK(body["max_tokens"] == 4096);
    CHECK_FALSE(body.contains("max_completion_tokens"));
    CHECK(server.last_header("User-Agent") == std::string("candor/") + CANDOR_VERSION);

    // OpenAI's own API: max_completion_tokens (its o-series and GPT-5 refuse max_tokens).
    c.max_completion_tokens_first = true;
    REQUIRE(llm::make_openai(c)->complete(request()).ok());
    CHECK(server.last_body()["max_completion_tokens"] == 4096);
    CHECK_FALSE(server.last_body().contains("max_tokens"));
  }

  TEST_CASE("a 429 is retried with backoff; a 500 forever gives up after the bounded attempts") {
    LlmServer server;
    server.set_replies({"ok"});
    server.set_mode(LlmServer::Mode::kFirst429);
    auto r = llm::make_anthropic(config(server))->complete(request());
    REQUIRE(r.ok());
    CHECK(server.requests() == 2);

    LlmServer broken;
    broken.set_mode(LlmServer::Mode::kAlways500);
    auto openai = config(broken);
    openai.base_url += "/v1";
    auto failed = llm::make_openai(openai)->complete(request());
    REQUIRE_FALSE(failed.ok());
    CHECK(failed.error().code == ErrorCode::kUnavailable);
    CHECK(failed.error().message.find("gave up after 4 attempts; last: HTTP 500") != std::string::npos);
    CHECK(broken.requests() == 4);
  }

  TEST_CASE("a reply slower than the deadline is a timeout, promptly") {
    LlmServer server;
    server.set_mode(LlmServer::Mode::kSlow);
    auto start = std::chrono::steady_clock::now();
    auto r = llm::make_anthropic(config(server))->complete(request(std::chrono::milliseconds(400)));
    auto took = std::chrono::steady_clock::now() - start;
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kTimeout);
    CHECK(took < std::chrono::milliseconds(1500));
  }

  TEST_CASE("a 4xx is not retried, and a key the server echoes never reaches the error") {
    LlmServer server;
    server.set_mode(LlmServer::Mode::kUnauthorizedEcho);
    auto r = llm::make_anthropic(config(server, "sk-ant-PLANTED-SECRET-42"))->complete(request());
    REQUIRE_FALSE(r.ok());
    CHECK(server.requests() == 1);
    CHECK(r.error().message.find("HTTP 401") != std::string::npos);
    CHECK(r.error().message.find("PLANTED") == std::string::npos);
    CHECK(r.error().message.find("[redacted]") != std::string::npos);
  }

  TEST_CASE("an unreachable endpoint is unavailable after the retries") {
    LlmServer server;
    auto c = config(server);
    c.base_url = "http://127.0.0.1:1";
    auto r = llm::make_openai(c)->complete(request());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kUnavailable);
    CHECK(r.error().message.find("gave up after 4 attempts") != std::string::npos);
  }

  TEST_CASE("script: replies in order, expect checks the prompt, running out is an error") {
    std::string path = candor::testing::make_temp_dir("script") + "/replies.jsonl";
    candor::testing::write_file(path, R"({"reply": "first", "usage": {"input_tokens": 5, "output_tokens": 7}}

{"reply_json": {"steps": []}, "expect": "make it green"}
{"reply": "third", "expect": "not in the prompt"}
)");
    auto p = llm::make_script_provider(path);
    REQUIRE(p.ok());
    auto a = (*p)->complete(request());
    CHECK(a->text == "first");
    CHECK(a->input_tokens == 5);
    auto b = (*p)->complete(request());
    CHECK(b->text == R"({"steps":[]})");
    CHECK(b->usage_estimated);
    auto c = (*p)->complete(request());
    REQUIRE_FALSE(c.ok());
    CHECK(c.error().message ==
          "script " + path + ":4: the planner prompt does not contain the expected text \"not in the prompt\"");
    auto d = (*p)->complete(request());
    REQUIRE_FALSE(d.ok());
    CHECK(d.error().code == ErrorCode::kUnavailable);
    CHECK(d.error().message.find("no line left for call 4") != std::string::npos);
  }

  TEST_CASE("script: a malformed line is invalid input naming FILE:LINE") {
    struct Row {
      std::string text, message;
    };
    for (const auto& row :
         std::vector<Row>{{"not json", ":1: not a JSON object"},
                          {R"({"reply": "a"})"
                           "\n"
                           R"({"replay": "b"})",
                           ":2: unknown field \"replay\""},
                          {R"({"expect": "x"})", ":1: needs reply or reply_json"},
                          {R"({"reply": 3})", ":1: reply: expected a string"},
                          {R"({"reply": "a", "usage": {"input_tokens": -1, "output_tokens": 2}})", ":1: usage:"}}) {
      CAPTURE(row.text);
      std::string path = candor::testing::make_temp_dir("script") + "/s.jsonl";
      candor::testing::write_file(path, row.text);
      auto p = llm::make_script_provider(path);
      REQUIRE_FALSE(p.ok());
      CHECK(p.error().code == ErrorCode::kInvalidInput);
      CHECK(p.error().message.find(path + row.message) != std::string::npos);
    }
  }

  TEST_CASE("command: the program gets the conversation on stdin and its stdout is the reply") {
    std::string dir = candor::testing::make_temp_dir("cmd");
    candor::testing::write_file(dir + "/llm.sh",
                                "#!/bin/sh\ncat > " + dir + "/seen.json\necho 'plan from the command'\n");
    candor::testing::write_file(dir + "/bad.sh", "#!/bin/sh\necho 'model not loaded' >&2\nexit 3\n");
    auto p = llm::make_command_provider("sh " + dir + "/llm.sh", {});
    auto r = p->complete(request());
    REQUIRE(r.ok());
    CHECK(r->text == "plan from the command\n");
    CHECK(r->usage_estimated);
    json seen = json::parse(candor::testing::read_file(dir + "/seen.json"));
    CHECK(seen["system"] == "You plan.");
    CHECK(seen["messages"][0] == json{{"role", "user"}, {"content", "Goal: make it green"}});
    auto bad = llm::make_command_provider("sh " + dir + "/bad.sh", {})->complete(request());
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message == "command sh " + dir + "/bad.sh: exited with 3: model not loaded\n");
  }

  TEST_CASE("which provider: --llm, then CANDOR_LLM, then an Anthropic key, then an OpenAI key or endpoint") {
    struct Row {
      std::string flag;
      std::map<std::string, std::string> env;
      std::string spec, source;
    };
    const std::vector<Row> rows = {
        {"", {}, "", ""},
        {"script:r.jsonl", {{"CANDOR_LLM", "openai"}, {"ANTHROPIC_API_KEY", "k"}}, "script:r.jsonl", "--llm"},
        {"", {{"CANDOR_LLM", "openai:qwen"}, {"ANTHROPIC_API_KEY", "k"}}, "openai:qwen", "CANDOR_LLM"},
        {"",
         {{"ANTHROPIC_API_KEY", "k"}, {"OPENAI_API_KEY", "k"}, {"OPENAI_BASE_URL", "http://h/v1"}},
         "anthropic",
         "ANTHROPIC_API_KEY"},
        {"", {{"OPENAI_API_KEY", "k"}}, "openai", "OPENAI_API_KEY"},
        {"", {{"OPENAI_BASE_URL", "http://127.0.0.1:11434/v1"}}, "openai", "OPENAI_BASE_URL"},
        {"",
         {{"CANDOR_LLM", ""}, {"ANTHROPIC_API_KEY", ""}, {"OPENAI_BASE_URL", "http://h/v1"}},
         "openai",
         "OPENAI_BASE_URL"},                                 // empty = unset
        {"", {{"ANTHROPIC_BASE_URL", "http://h"}}, "", ""},  // an endpoint without a key names nothing
    };
    for (const auto& row : rows) {
      CAPTURE(row.flag);
      CAPTURE(row.spec);
      auto choice = llm::choose_provider(row.flag, [&](const char* name) {
        auto it = row.env.find(name);
        return it == row.env.end() ? std::string() : it->second;
      });
      CHECK(choice.spec == row.spec);
      CHECK(choice.source == row.source);
    }
  }

  TEST_CASE("provider specs") {
    CHECK(llm::make_provider("gemini", {}).error().code == ErrorCode::kUsage);
    CHECK(llm::make_provider("script:", {}).error().code == ErrorCode::kUsage);
    {
      testing::ScopedEnv no_key("ANTHROPIC_API_KEY", std::nullopt);
      auto missing = llm::make_provider("anthropic", {});
      REQUIRE_FALSE(missing.ok());
      CHECK(missing.error().code == ErrorCode::kUnavailable);
      CHECK(missing.error().message == "anthropic: ANTHROPIC_API_KEY is not set");
    }
    testing::ScopedEnv key("ANTHROPIC_API_KEY", "sk-ant-xyz-123456");
    auto ok = llm::make_provider("anthropic:claude-test", {});
    REQUIRE(ok.ok());
    CHECK((*ok)->describe() == "anthropic:claude-test");
  }

  TEST_CASE("redact replaces keys of 8 characters or more, everywhere, and every part of one a server echoes") {
    CHECK(llm::redact("key sk-12345678 and sk-12345678", {"sk-12345678"}) == "key [redacted] and [redacted]");
    CHECK(llm::redact("short", {"sho"}) == "short");
    const std::string key = "sk-proj-Zq8Xw3Lm9Tn2Vb7Kc4Rd6Yf1abcd";
    struct Row {
      std::string text, redacted;
    };
    for (const auto& row : std::vector<Row>{
             // OpenAI's masked echo (a made-up key here, the shape as the API sends it)
             {"Incorrect API key provided: sk-proj-********************************abcd. You can find your API key.",
              "Incorrect API key provided: [redacted]. You can find your API key."},
             {"key sk-proj-Zq8...abcd rejected",
              "key [redacted]...[redacted] rejected"},  // its first and last characters
             {"key ending in abcd", "key ending in [redacted]"},
             {"masked ****abcd", "masked [redacted]"},
             {"an abcdef word and sk- alone stay", "an abcdef word and sk- alone stay"},  // not the key's ends
         }) {
      CAPTURE(row.text);
      CHECK(llm::redact(row.text, {key}) == row.redacted);
    }
  }

  TEST_CASE("Retry-After: seconds or an HTTP-date, from now") {
    using std::chrono::milliseconds;
    auto now = std::chrono::system_clock::from_time_t(1445412480);  // Wed, 21 Oct 2015 07:28:00 GMT
    struct Row {
      std::string value;
      std::optional<milliseconds> delay;
    };
    for (const auto& row : std::vector<Row>{
             {"6", milliseconds(6000)},
             {" 120 ", milliseconds(120000)},
             {"0", milliseconds(0)},
             {"Wed, 21 Oct 2015 07:28:06 GMT", milliseconds(6000)},       // IMF-fixdate
             {"Wednesday, 21-Oct-15 07:29:00 GMT", milliseconds(60000)},  // RFC 850
             {"Wed Oct 21 07:28:30 2015", milliseconds(30000)},           // asctime
             {"Wed, 21 Oct 2015 07:00:00 GMT", milliseconds(0)},          // already past
             {"", std::nullopt},
             {"soon", std::nullopt},
             {"-5", std::nullopt},
             {"1.5", std::nullopt},
         }) {
      CAPTURE(row.value);
      CHECK(net::parse_retry_after(row.value, now) == row.delay);
    }
  }

  TEST_CASE("backoff: exponential, capped, each delay jittered within its upper half, reproducible by seed") {
    using std::chrono::milliseconds;
    net::Backoff a(milliseconds(500), milliseconds(3000), 7), b(milliseconds(500), milliseconds(3000), 7);
    std::vector<long> steps = {500, 1000, 2000, 3000, 3000};
    std::vector<long> seen;
    for (long step : steps) {
      CAPTURE(step);
      long d = a.next().count();
      CHECK(d >= step / 2);
      CHECK(d <= step);
      CHECK(b.next().count() == d);
      seen.push_back(d);
    }
    // Another seed draws other delays: retries of clients that failed together spread out.
    net::Backoff c(milliseconds(500), milliseconds(3000), 8);
    std::vector<long> other;
    for (std::size_t i = 0; i < steps.size(); ++i) other.push_back(c.next().count());
    CHECK(other != seen);
    CHECK(net::retryable_status(429));
    CHECK(net::retryable_status(529));
    CHECK(net::retryable_status(503));
    CHECK(net::retryable_status(408));
    CHECK_FALSE(net::retryable_status(400));
    CHECK_FALSE(net::retryable_status(401));
  }
}
