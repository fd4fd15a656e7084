// The LLM behind an interface: messages in, text and token usage out. Implementations:
// anthropic (Messages API), openai (chat completions, any compatible server), script (replies from
// a file) and command (an external program). Keys never leave the provider: not in errors, not in
// events, not in reports.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "core/secret_masker.h"

namespace candor::llm {

struct Message {
  std::string role;  // "user" or "assistant"
  std::string content;
};

struct Request {
  std::string role;    // what the call is for: planner, repair, judge, reviewer (events, scripts)
  std::string system;  // the system prompt
  std::vector<Message> messages;
  int max_output_tokens = 4096;
  // The call may take at most this long (the run's time budget bounds it).
  std::chrono::milliseconds deadline{std::chrono::minutes(5)};
};

struct Reply {
  std::string text;  // the answer's text parts only (never the model's thinking)
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  bool usage_estimated = false;  // the provider reported no usage: counted as characters / 4
  // Set when the model's turn did not end with a whole answer, saying why in words a message can
  // carry: "the reply was cut at the output limit (4096 tokens)", "the reply holds only the
  // model's thinking, no answer text", ... Empty for a reply that ended normally. A caller that
  // cannot use the text says this instead of what it could not find in it.
  std::string incomplete;
  // The reply stopped at the output limit (stop_reason "max_tokens", finish_reason "length"): a
  // repair asks for a shorter answer, not the same one again.
  bool cut = false;
};

class Provider {
 public:
  virtual ~Provider() = default;
  // kUnavailable when the provider cannot answer (after its retries); kInvalidInput for a
  // malformed script; kTimeout when the deadline passed.
  virtual Result<Reply> complete(const Request& request) = 0;
  virtual std::string describe() const = 0;  // "anthropic:claude-...", never a key
};

// Retries of transient failures (408, 429, 5xx, timeouts, refused connections): bounded, with
// jittered exponential backoff, or after the delay a Retry-After header asks for when it fits the
// time left (net/retry.h). Tests shorten the delays.
struct RetryPolicy {
  int max_attempts = 4;
  std::chrono::milliseconds first_delay{500};
  std::chrono::milliseconds max_delay{8000};
};

struct ProviderOptions {
  RetryPolicy retry;
  const std::atomic<bool>* cancel = nullptr;  // borrowed; stops waits and transfers when set
  // Borrowed; deadlines, waits between retries and the "now" of a Retry-After date. Null: the
  // system clock. Tests pass a FakeClock, so waits take no time and are recorded.
  Clock* clock = nullptr;
  // Seeds the jitter of the retry backoff; 0 takes a seed from std::random_device.
  std::uint64_t jitter_seed = 0;
  // The run's secret values: every request's system prompt and messages are masked with it before
  // the provider sees them (mask_requests). Null: nothing is masked.
  std::shared_ptr<const SecretMasker> masker;
};

// `spec` is PROVIDER[:MODEL]: anthropic[:MODEL], openai[:MODEL], script:FILE, command:PROG.
// Reads keys and endpoints from the environment (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL,
// OPENAI_API_KEY, OPENAI_BASE_URL). kUsage for an unknown provider; kUnavailable when a key is
// missing; kInvalidInput for a malformed script.
Result<std::unique_ptr<Provider>> make_provider(const std::string& spec, const ProviderOptions& options);

// Which provider a command uses (docs/design.md, The CLI): `flag` (--llm) when given, else $CANDOR_LLM, else
// anthropic when ANTHROPIC_API_KEY is set, else openai when OPENAI_API_KEY or OPENAI_BASE_URL is
// set. The one place that decides it, for `run`, `exec`'s judge and `verify --judge`.
struct ProviderChoice {
  std::string spec;    // PROVIDER[:MODEL] for make_provider; "" when nothing names a provider
  std::string source;  // where it came from: "--llm" or the variable's name (never its value)
};
using EnvLookup = std::function<std::string(const char* name)>;  // "" when unset or empty
ProviderChoice choose_provider(const std::string& flag, const EnvLookup& env);
ProviderChoice choose_provider(const std::string& flag);  // from the process environment

// What to set when choose_provider found nothing; for the usage error.
inline constexpr const char* kNoProviderHint =
    "pass --llm PROVIDER[:MODEL] (anthropic, openai, script:FILE, command:PROG), or set ANTHROPIC_API_KEY "
    "(anthropic), OPENAI_API_KEY or OPENAI_BASE_URL (openai), or CANDOR_LLM";

// `provider`, whose every request is masked with `masker` first; `provider` itself when there is
// nothing to mask.
std::unique_ptr<Provider> mask_requests(std::unique_ptr<Provider> provider, std::shared_ptr<const SecretMasker> masker);

// Usage for providers that report none: bytes / 4, rounded up (a reply's text, or a request's
// system prompt and messages).
std::int64_t estimate_tokens(const std::string& text);
std::int64_t estimate_tokens(const Request& request);

// Replaces every occurrence of each secret (of 8 characters or more) with "[redacted]", and every
// part of one a server echoes back: a masked echo (a word holding "***", as OpenAI's "Incorrect
// API key provided: sk-proj-****...abcd"), the secret's first 8 or more characters, or its last 4
// or more, each as a word of its own.
std::string redact(std::string text, const std::vector<std::string>& secrets);

}  // namespace candor::llm
