// Real reply envelopes (tests/data/providers, README.md there says where each comes from) replayed
// through a real HTTP server on 127.0.0.1 to the anthropic and openai providers: each row checks what
// candor makes of it (the text, what is said of a reply that did not end whole, the error and the
// exit code it leads to, the usage counted, how many requests and which waits), and every request
// any row made is checked against the fields its API documents as required.
#include <doctest/doctest.h>

#include <strings.h>

#include <chrono>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "app/session.h"
#include "core/version.h"
#include "llm/http_provider.h"
#include "tests/llm_server.h"
#include "tests/test_support.h"

using namespace candor;
using candor::testing::FakeClock;
using candor::testing::LlmServer;
using nlohmann::json;
using std::chrono::milliseconds;

namespace {

using Canned = LlmServer::Canned;

// A key shaped like OpenAI's project keys: its echo "sk-proj-****...abcd" must not survive.
const std::string kKey = "sk-proj-TESTKEYabcdefghijklmnopqrstuvwxyz0123abcd";

Canned answer(const std::string& name, int status = 200,
              std::vector<std::pair<std::string, std::string>> headers = {}) {
  std::string body = candor::testing::read_file(candor::testing::data_dir() + "/providers/" + name);
  bool html = name.size() > 5 && name.substr(name.size() - 5) == ".html";
  return {status, body, std::move(headers), html ? "text/html" : "application/json"};
}

// An IMF-fixdate (RFC 9110), as a Retry-After date.
std::string http_date(std::chrono::system_clock::time_point t) {
  std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

std::string header(const LlmServer::Received& r, const char* name) {
  for (const auto& [k, v] : r.headers) {
    if (strcasecmp(k.c_str(), name) == 0) return v;
  }
  return "";
}

// https://docs.anthropic.com/en/api/messages: POST /v1/messages with x-api-key, anthropic-version
// and a JSON body holding model, max_tokens (an integer of at least 1) and messages (user first,
// then alternating, each content a string or blocks); system is optional, a string.
void check_anthropic_request(const LlmServer::Received& r) {
  CHECK(r.path == "/v1/messages");
  CHECK(header(r, "x-api-key") == kKey);
  CHECK(header(r, "anthropic-version") == "2023-06-01");
  CHECK(header(r, "content-type") == "application/json");
  CHECK(header(r, "user-agent") == std::string("candor/") + CANDOR_VERSION);
  const json& b = r.body;
  REQUIRE(b.is_object());
  CHECK(b["model"].is_string());
  CHECK_FALSE(b["model"].get<std::string>().empty());
  CHECK(b["max_tokens"].is_number_integer());
  CHECK(b["max_tokens"].get<long>() >= 1);
  REQUIRE(b["messages"].is_array());
  REQUIRE_FALSE(b["messages"].empty());
  CHECK(b["messages"][0]["role"] == "user");
  for (const auto& m : b["messages"]) {
    CHECK((m["role"] == "user" || m["role"] == "assistant"));
    CHECK(m["content"].is_string());
  }
  if (b.contains("system")) CHECK(b["system"].is_string());
}

// https://platform.openai.com/docs/api-reference/chat/create: POST {base}/chat/completions with a
// JSON body holding model and messages (each a role and its content); the output limit is
// max_completion_tokens (max_tokens on servers that only know it): exactly one of them is sent.
void check_openai_request(const LlmServer::Received& r) {
  CHECK(r.path == "/v1/chat/completions");
  CHECK(header(r, "authorization") == "Bearer " + kKey);
  CHECK(header(r, "content-type") == "application/json");
  CHECK(header(r, "user-agent") == std::string("candor/") + CANDOR_VERSION);
  const json& b = r.body;
  REQUIRE(b.is_object());
  CHECK(b["model"].is_string());
  REQUIRE(b["messages"].is_array());
  REQUIRE_FALSE(b["messages"].empty());
  for (const auto& m : b["messages"]) {
    CHECK((m["role"] == "system" || m["role"] == "developer" || m["role"] == "user" || m["role"] == "assistant"));
    CHECK(m["content"].is_string());
  }
  CHECK(b.contains("max_tokens") != b.contains("max_completion_tokens"));
  const json& limit = b.contains("max_tokens") ? b["max_tokens"] : b["max_completion_tokens"];
  CHECK(limit.is_number_integer());
  CHECK(limit.get<long>() >= 1);
}

llm::Request planner_request() {
  llm::Request r;
  r.role = "planner";
  r.system = "You plan.";
  r.messages = {{"user", "Goal: make it green"}};
  r.max_output_tokens = 4096;
  r.deadline = std::chrono::seconds(60);
  return r;
}

constexpr std::int64_t kEstimated = -1;  // the usage was estimated: counted from the bytes

struct Row {
  std::string what = {};
  bool anthropic = false;
  std::vector<Canned> answers = {};
  bool ok = true;
  std::string text = {};                // ok: the reply's text starts with it
  std::vector<std::string> says = {};   // ok: its `incomplete` says each; an error: its message says each
  std::vector<std::string> never = {};  // in neither the text nor the message
  int exit = 0;                         // an error: the exit code it leads to (app::exit_category)
  std::int64_t input = 0, output = 0;   // tokens counted, or kEstimated
  bool cut = false;
  int requests = 1;
  // The waits between tries: exact milliseconds (a Retry-After), or -N for a backoff step of N ms
  // (jittered: anywhere from N/2 to N).
  std::vector<long> waits = {};
  bool official_openai = false;  // openai: OpenAI's own API (max_completion_tokens first)
};

std::vector<Row> rows() {
  const auto retry_date = http_date(std::chrono::system_clock::time_point(FakeClock::kStart) + std::chrono::seconds(6));
  return {
      // --- Anthropic ---
      {.what = "anthropic end_turn",
       .anthropic = true,
       .answers = {answer("anthropic/end_turn.json")},
       .text = "The capital of France is Paris.",
       .input = 20,
       .output = 10},
      {.what = "anthropic thinking then text: only the text is the reply",
       .anthropic = true,
       .answers = {answer("anthropic/thinking_then_text.json")},
       .text = "# How to Cross the Street Safely",
       .never = {"basic question about street safety", "ErUBCkYI"},
       .input = 42,
       .output = 332},
      {.what = "anthropic max_tokens: cut, said as such",
       .anthropic = true,
       .answers = {answer("anthropic/max_tokens.json")},
       .text = "```json",
       .says = {"the reply was cut at the output limit (4096 tokens)"},
       .input = 2095,
       .output = 96,
       .cut = true},
      {.what = "anthropic thinking only",
       .anthropic = true,
       .answers = {answer("anthropic/thinking_only.json")},
       .text = "",
       .says = {"the reply holds only the model's thinking, no answer text"},
       .never = {"read css/style.css first"},
       .input = 266,
       .output = 61},
      {.what = "anthropic thinking cut at max_tokens",
       .anthropic = true,
       .answers = {answer("anthropic/thinking_cut.json")},
       .text = "",
       .says = {"the reply was cut at the output limit (4096 tokens) while the model was still thinking"},
       .input = 1870,
       .output = 64,
       .cut = true},
      {.what = "anthropic refusal: the model's explanation, no second request",
       .anthropic = true,
       .answers = {answer("anthropic/refusal.json"), answer("anthropic/end_turn.json")},
       .ok = false,
       .says = {"anthropic: the model refused to answer (stop_reason \"refusal\"): I can't help with writing code "
                "that disables the safety interlocks of this device."},
       .exit = 69},
      {.what = "anthropic 429 with retry-after: 6 waits 6 s, then answers",
       .anthropic = true,
       .answers = {answer("anthropic/rate_limit_429.json", 429, {{"retry-after", "6"}}),
                   answer("anthropic/end_turn.json")},
       .text = "The capital of France is Paris.",
       .input = 20,
       .output = 10,
       .requests = 2,
       .waits = {6000}},
      {.what = "anthropic 429 with Retry-After as an HTTP-date",
       .anthropic = true,
       .answers = {answer("anthropic/rate_limit_429.json", 429, {{"retry-after", retry_date}}),
                   answer("anthropic/end_turn.json")},
       .text = "The capital of France is Paris.",
       .input = 20,
       .output = 10,
       .requests = 2,
       .waits = {6000}},
      {.what = "anthropic 429 whose retry-after is past the time left: said, not waited for",
       .anthropic = true,
       .answers = {answer("anthropic/rate_limit_429.json", 429, {{"retry-after", "600"}}),
                   answer("anthropic/end_turn.json")},
       .ok = false,
       .says = {"anthropic: HTTP 429 (rate_limit_error): Number of request tokens has exceeded your per-minute rate "
                "limit",
                "the server asks to wait 600 s before trying again (Retry-After), more than the 60 s left of the time "
                "budget"},
       .exit = 69},
      {.what = "anthropic 529 overloaded, then an answer: a jittered backoff",
       .anthropic = true,
       .answers = {answer("anthropic/overloaded_529.json", 529), answer("anthropic/end_turn.json")},
       .text = "The capital of France is Paris.",
       .input = 20,
       .output = 10,
       .requests = 2,
       .waits = {-500}},
      {.what = "anthropic 529 overloaded forever: the provider's message, after the bounded attempts",
       .anthropic = true,
       .answers = {answer("anthropic/overloaded_529.json", 529)},
       .ok = false,
       .says = {"anthropic: gave up after 4 attempts; last: HTTP 529 (overloaded_error): Overloaded"},
       .never = {"{\"type\""},
       .exit = 69,
       .requests = 4,
       .waits = {-500, -1000, -2000}},
      {.what = "anthropic 401: the provider's message",
       .anthropic = true,
       .answers = {answer("anthropic/invalid_key_401.json", 401)},
       .ok = false,
       .says = {"anthropic: HTTP 401 (authentication_error): invalid x-api-key"},
       .exit = 69},
      {.what = "anthropic: a body that is not a Messages reply says what was expected",
       .anthropic = true,
       .answers = {answer("openai/non_chat_200.json")},
       .ok = false,
       .says = {"anthropic: the reply has no `content` list: it is not a Messages API reply"},
       .never = {"json.exception"},
       .exit = 69},
      {.what = "anthropic: a proxy's HTML 502 page, retried, then named by its title",
       .anthropic = true,
       .answers = {answer("openai/bad_gateway_502.html", 502)},
       .ok = false,
       .says = {"anthropic: gave up after 4 attempts; last: HTTP 502: an HTML page (\"502 Bad Gateway\")"},
       .never = {"<html>", "nginx"},
       .exit = 69,
       .requests = 4,
       .waits = {-500, -1000, -2000}},
      // --- OpenAI and compatible servers ---
      {.what = "openai stop (o3-mini)",
       .answers = {answer("openai/stop_o3_mini.json")},
       .text = "Hello there! How can I help you today?",
       .input = 7,
       .output = 87},
      {.what = "openai length: cut, said as such",
       .answers = {answer("openai/length.json")},
       .text = "```json",
       .says = {"the reply was cut at the output limit (4096 tokens)"},
       .input = 1904,
       .output = 64,
       .cut = true},
      {.what = "openai refusal field: the model's explanation",
       .answers = {answer("openai/refusal.json")},
       .ok = false,
       .says = {"openai: the model refused to answer (`refusal`): I'm sorry, I cannot assist with that request."},
       .exit = 69},
      {.what = "openai content_filter (Azure)",
       .answers = {answer("openai/content_filter_azure.json")},
       .ok = false,
       .says = {"openai: the server's content filter withheld the reply (finish_reason \"content_filter\")"},
       .exit = 69},
      {.what = "openai: max_tokens refused (o-series, GPT-5): max_completion_tokens instead, from the error",
       .answers = {answer("openai/max_tokens_unsupported_400.json", 400), answer("openai/stop_o3_mini.json")},
       .text = "Hello there!",
       .input = 7,
       .output = 87,
       .requests = 2},
      {.what = "openai: o1-mini refuses system, then developer: the system prompt goes in the first user message",
       .answers = {answer("openai/system_unsupported_o1_mini_400.json", 400),
                   answer("openai/developer_unsupported_o1_mini_400.json", 400),
                   answer("openai/o1_mini_system_as_user.json")},
       .text = "The capital of France is **Paris**.",
       .input = 30,
       .output = 212,
       .requests = 3},
      {.what = "openai (OpenAI's API first): Mistral refuses max_completion_tokens (422): max_tokens instead",
       .answers = {answer("openai/mistral_extra_forbidden_422.json", 422), answer("openai/mistral_parts.json")},
       .text = "Crossing a river is quite different",
       .input = 664,
       .output = 747,
       .requests = 2,
       .official_openai = true},
      {.what = "openai 401: the masked key echo is stored in no part",
       .answers = {answer("openai/invalid_api_key_401.json", 401)},
       .ok = false,
       .says = {"openai: HTTP 401 (invalid_request_error): Incorrect API key provided: [redacted]. You can find your "
                "API key at https://platform.openai.com/account/api-keys."},
       .never = {"sk-proj", "abcd", "****"},
       .exit = 69},
      {.what = "mistral content as parts: the text part, not the thinking",
       .answers = {answer("openai/mistral_parts.json")},
       .text = "Crossing a river is quite different",
       .never = {"Analogizing"},
       .input = 664,
       .output = 747},
      {.what = "dynamo usage null: estimated, so the budget still counts it",
       .answers = {answer("openai/dynamo_usage_null.json")},
       .text = "Hello! How can I help you today?",
       .input = kEstimated,
       .output = kEstimated},
      {.what = "deepseek reasoning_content is thinking, not text",
       .answers = {answer("openai/deepseek_reasoning_content.json")},
       .text = "Crossing the street safely",
       .never = {"Okay, the user"},
       .input = 12,
       .output = 789},
      {.what = "groq raw format: a <think> block in content is thinking, not text",
       .answers = {answer("openai/groq_think_raw.json")},
       .text = "\n\nTo make Uruguayan alfajores",
       .never = {"<think>", "braces in thinking"},
       .input = 21,
       .output = 1414},
      {.what = "openrouter with reasoning",
       .answers = {answer("openai/openrouter_reasoning.json")},
       .text = "Here's a clear overview of Venus",
       .never = {"Exploring Venus"},
       .input = 17,
       .output = 1763},
      {.what = "openrouter 404: the provider's message",
       .answers = {answer("openai/openrouter_no_endpoints_404.json", 404)},
       .ok = false,
       .says = {"openai: HTTP 404: No endpoints found for google/gemini-2.5-flash:free."},
       .never = {"user_id"},
       .exit = 69},
      {.what = "ollama",
       .answers = {answer("openai/ollama.json")},
       .text = "Hello! How can I assist you today?",
       .input = 30,
       .output = 10},
      {.what = "ollama: a model not pulled",
       .answers = {answer("openai/ollama_model_not_found_404.json", 404)},
       .ok = false,
       .says = {"openai: HTTP 404 (api_error): model \"qwen2.5-coder:14b\" not found, try pulling it first"},
       .exit = 69},
      {.what = "llama.cpp server (timings, its own fingerprint)",
       .answers = {answer("openai/llamacpp.json")},
       .text = "Hello! How can I help you today?",
       .input = 12,
       .output = 10},
      {.what = "vllm with a reasoning parser",
       .answers = {answer("openai/vllm_reasoning_parser.json")},
       .text = "Hello! How can I help you today?",
       .never = {"greet them back"},
       .input = 9,
       .output = 31},
      {.what = "openai: a body that is not a chat completion says what was expected",
       .answers = {answer("openai/non_chat_200.json")},
       .ok = false,
       .says = {"openai: the reply has no `choices`: it is not a chat completion"},
       .never = {"json.exception", "out_of_range"},
       .exit = 69},
      {.what = "openai: an HTML page with status 200 is named, not dumped",
       .answers = {answer("openai/bad_gateway_502.html", 200)},
       .ok = false,
       .says = {"openai: the reply is not JSON: an HTML page (\"502 Bad Gateway\")"},
       .never = {"<hr>"},
       .exit = 69},
  };
}

}  // namespace

TEST_SUITE("llm") {
  TEST_CASE("providers: every recorded envelope, replayed through a local server, reads as what it is") {
    int anthropic_requests = 0, openai_requests = 0;
    for (const Row& row : rows()) {
      CAPTURE(row.what);
      LlmServer server;
      server.set_canned(row.answers);
      FakeClock clock;
      llm::HttpProviderConfig c;
      c.base_url = server.base_url() + (row.anthropic ? "" : "/v1");
      c.api_key = kKey;
      c.model = "test-model";
      c.options.clock = &clock;
      c.options.jitter_seed = 42;
      c.max_completion_tokens_first = row.official_openai;
      auto provider = row.anthropic ? llm::make_anthropic(c) : llm::make_openai(c);
      llm::Request request = planner_request();
      auto reply = provider->complete(request);

      CHECK(server.requests() == row.requests);
      CHECK(reply.ok() == row.ok);
      if (reply.ok()) {
        CHECK(reply->text.substr(0, row.text.size()) == row.text);
        if (row.text.empty()) CHECK(reply->text.find_first_not_of(" \n") == std::string::npos);
        CHECK(reply->cut == row.cut);
        if (row.says.empty()) CHECK(reply->incomplete.empty());
        for (const auto& s : row.says) CHECK(reply->incomplete.find(s) != std::string::npos);
        for (const auto& s : row.never) CHECK(reply->text.find(s) == std::string::npos);
        bool estimated = row.input == kEstimated;
        CHECK(reply->usage_estimated == estimated);
        CHECK(reply->input_tokens == (estimated ? llm::estimate_tokens(request) : row.input));
        CHECK(reply->output_tokens == (estimated ? llm::estimate_tokens(reply->text) : row.output));
        CHECK(reply->input_tokens > 0);  // whatever the server sent, the budget counts something
      } else {
        const std::string& message = reply.error().message;
        CAPTURE(message);
        for (const auto& s : row.says) CHECK(message.find(s) != std::string::npos);
        for (const auto& s : row.never) CHECK(message.find(s) == std::string::npos);
        CHECK(message.find("TESTKEY") == std::string::npos);
        CHECK(static_cast<int>(app::exit_category(reply.error())) == row.exit);
      }
      REQUIRE(clock.sleeps().size() == row.waits.size());
      for (std::size_t i = 0; i < row.waits.size(); ++i) {
        CAPTURE(i);
        long wait = clock.sleeps()[i].count();
        if (row.waits[i] >= 0) {
          CHECK(wait == row.waits[i]);
        } else {
          CHECK(wait >= -row.waits[i] / 2);
          CHECK(wait <= -row.waits[i]);
        }
      }
      for (const auto& received : server.received()) {
        row.anthropic ? check_anthropic_request(received) : check_openai_request(received);
      }
      (row.anthropic ? anthropic_requests : openai_requests) += server.requests();
    }
    // Every row's requests were checked against its API's required fields.
    CHECK(anthropic_requests >= 20);
    CHECK(openai_requests >= 20);
  }

  TEST_CASE("openai: what a server refused is learned once, for the provider's lifetime") {
    LlmServer server;
    server.set_canned({answer("openai/system_unsupported_o1_mini_400.json", 400),
                       answer("openai/developer_unsupported_o1_mini_400.json", 400),
                       answer("openai/o1_mini_system_as_user.json")});
    llm::HttpProviderConfig c;
    c.base_url = server.base_url() + "/v1";
    c.api_key = kKey;
    c.model = "o1-mini";
    FakeClock clock;
    c.options.clock = &clock;
    auto provider = llm::make_openai(c);
    REQUIRE(provider->complete(planner_request()).ok());
    REQUIRE(provider->complete(planner_request()).ok());
    auto seen = server.received();
    REQUIRE(seen.size() == 4);  // three for the first call, one for the second
    CHECK(seen[0].body["messages"][0] == json{{"role", "system"}, {"content", "You plan."}});
    CHECK(seen[1].body["messages"][0] == json{{"role", "developer"}, {"content", "You plan."}});
    CHECK(seen[2].body["messages"] ==
          json::array({{{"role", "user"}, {"content", "You plan.\n\nGoal: make it green"}}}));
    CHECK(seen[3].body["messages"] == seen[2].body["messages"]);
    CHECK(clock.sleeps().empty());  // a changed request is sent at once

    LlmServer reasoning;
    reasoning.set_canned({answer("openai/max_tokens_unsupported_400.json", 400), answer("openai/stop_o3_mini.json")});
    c.base_url = reasoning.base_url() + "/v1";
    auto o3 = llm::make_openai(c);
    REQUIRE(o3->complete(planner_request()).ok());
    REQUIRE(o3->complete(planner_request()).ok());
    auto sent = reasoning.received();
    REQUIRE(sent.size() == 3);
    CHECK(sent[0].body["max_tokens"] == 4096);
    CHECK(sent[1].body["max_completion_tokens"] == 4096);
    CHECK_FALSE(sent[1].body.contains("max_tokens"));
    CHECK(sent[2].body["max_completion_tokens"] == 4096);
  }

  TEST_CASE("openai: an error about something else is not taken for a refused field") {
    LlmServer server;
    server.set_canned({{400, R"({"error": {"message": "max_tokens is too large: 100000. This model supports at most )"
                             R"(16384 completion tokens.", "type": "invalid_request_error", "param": "max_tokens", )"
                             R"("code": null}})"}});
    llm::HttpProviderConfig c;
    c.base_url = server.base_url() + "/v1";
    c.model = "gpt-4o";
    auto r = llm::make_openai(c)->complete(planner_request());
    REQUIRE_FALSE(r.ok());
    CHECK(server.requests() == 1);
    CHECK(r.error().message ==
          "openai: HTTP 400 (invalid_request_error): max_tokens is too large: 100000. This model supports at most "
          "16384 completion tokens.");
  }
}
