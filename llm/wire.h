// The two wire formats, as pure functions over JSON: the request body each API documents, and
// every reply shape real servers send, read by name (stop and finish reasons, refusals, content as
// a list of parts, missing usage, error bodies). llm/http_provider.cc does the HTTP around them.
// No key ever reaches these functions.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "llm/provider.h"

namespace candor::llm {

// A failed request in the server's own words.
struct WireError {
  std::string message;  // error.message (OpenAI, Anthropic, OpenRouter, Groq, llama.cpp), Mistral's and
                        // vLLM's top-level message, Ollama's error string, FastAPI's detail; an HTML
                        // page's title; else the start of the body on one line
  std::string type;     // error.type, when given ("rate_limit_error", "invalid_request_error")
  std::string param;    // error.param, when given ("max_tokens", "messages[0].role")
  std::string code;     // error.code, when a string ("unsupported_parameter")
  // "HTTP 429 (rate_limit_error): Number of request tokens has exceeded ..."
  std::string describe(long status) const;
};
WireError read_error_body(const std::string& body);

// What a body that is not JSON is, for a message: "an HTML page (\"502 Bad Gateway\")", "empty",
// or its first 200 characters on one line.
std::string describe_non_json(const std::string& body);

// Usage from reply["usage"][in_key] and [out_key]; a count absent, null or negative (or `usage`
// itself: null from NVIDIA Dynamo, absent from some servers) is estimated from the request's or
// the text's bytes, and the reply marked usage_estimated, so the token budget still counts it.
void read_usage(const nlohmann::json& reply, const char* in_key, const char* out_key, const Request& request, Reply& r);

// A model that declined to answer: kUnavailable (the call ends there: a repair would ask the same
// again), carrying the model's own explanation (cut at 1,000 characters) and how the server said it
// (`how`: "stop_reason \"refusal\"").
Error refusal_error(const std::string& how, const std::string& explanation);

// --- Anthropic Messages API (https://docs.anthropic.com/en/api/messages) ---

// {model, max_tokens, system, messages}; the anthropic-version header goes with it.
nlohmann::json anthropic_body(const Request& request, const std::string& model);

// The text blocks of `content`, read by `stop_reason`: end_turn/stop_sequence are whole answers;
// max_tokens is cut; refusal is an error carrying the model's explanation (kUnavailable, no
// repair); tool_use and pause_turn are incomplete; thinking without text is said as such. Usage
// absent → estimated from `request` and the text.
Result<Reply> read_anthropic_reply(const nlohmann::json& reply, const Request& request);

// --- OpenAI chat completions, and every compatible server ---

// What this server accepts, learned from its errors and kept for the provider's lifetime. The
// first guess of the output limit's field: `max_completion_tokens` for OpenAI's own API (its
// o-series and GPT-5 models refuse max_tokens), `max_tokens` for any other server (every
// compatible server knows it; Ollama and LM Studio silently ignore max_completion_tokens, so no
// error would ever correct that guess). Either way, an error naming the field moves to the other.
struct OpenAiDialect {
  enum class Limit { kMaxCompletionTokens, kMaxTokens };
  enum class SystemRole { kSystem, kDeveloper, kFirstUserMessage };
  Limit limit = Limit::kMaxCompletionTokens;
  SystemRole system_role = SystemRole::kSystem;
  bool tried_max_completion_tokens = false;
  bool tried_max_tokens = false;
  const char* limit_field() const { return limit == Limit::kMaxTokens ? "max_tokens" : "max_completion_tokens"; }
};

// {model, messages, <limit field>}: the system prompt as a `system` message, a `developer`
// message, or in front of the first user message, as the dialect says.
nlohmann::json openai_body(const Request& request, const std::string& model, const OpenAiDialect& dialect);

// Moves `dialect` on when a 400/422 error says the server refuses what it was sent: the limit
// field it names as unsupported (then the other one), or the system prompt's role (system →
// developer → the first user message). False when the error is about something else or every
// alternative was tried: the error then stands.
bool adapt_dialect(OpenAiDialect& dialect, const WireError& error);

// choices[0].message read by `finish_reason`: stop is whole; length is cut; content_filter and a
// `refusal` are errors (kUnavailable, no repair); content as a string or a list of parts (text
// parts kept, thinking parts not); `reasoning_content`/`reasoning` and a leading <think> block
// are thinking, never text. `usage` null or absent → estimated. A body with no `choices` is an
// error saying so (its `error.message` when it carries one).
Result<Reply> read_openai_reply(const nlohmann::json& reply, const Request& request);

}  // namespace candor::llm
