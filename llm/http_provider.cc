#include "llm/http_provider.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/deadline.h"
#include "core/json_text.h"
#include "llm/wire.h"
#include "net/http_client.h"
#include "net/retry.h"

namespace candor::llm {
namespace {

using std::chrono::milliseconds;

std::string trim_slash(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

std::uint64_t seed_or_random(std::uint64_t seed) {
  if (seed != 0) return seed;
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

// "6 s", "1.5 s": a wait as a person reads it.
std::string seconds(milliseconds d) {
  return d.count() % 1000 == 0 ? fmt::format("{} s", d.count() / 1000) : fmt::format("{:.1f} s", d.count() / 1000.0);
}

// One wire format over HTTP: retries, Retry-After, the time budget, cancellation, and keeping every
// part of the key out of what it returns. The format itself (body, headers, reading the reply, what
// to change after a 400) is the subclass's.
class WireProvider : public Provider {
 public:
  explicit WireProvider(HttpProviderConfig config)
      : config_(std::move(config)),
        clock_(config_.options.clock != nullptr ? *config_.options.clock : system_clock()),
        seed_(seed_or_random(config_.options.jitter_seed)) {}

  Result<Reply> complete(const Request& request) override {
    auto host = net::url_host(endpoint());
    if (!host.ok()) return failure(ErrorCode::kUnavailable, host.error().message);
    net::NetworkPolicy policy{{*host}};  // the provider's own endpoint may be remote
    const RetryPolicy& retry = config_.options.retry;
    const Deadline deadline(clock_, request.deadline);
    net::Backoff backoff(retry.first_delay, retry.max_delay, seed_ + calls_++);
    std::string last_error;
    for (int attempt = 1; attempt <= retry.max_attempts; ++attempt) {
      milliseconds left = deadline.left();
      if (left.count() <= 0) {
        return failure(ErrorCode::kTimeout, fmt::format("no answer within the time left ({})",
                                                        last_error.empty() ? "no attempt made" : last_error));
      }
      auto resp = net::http_request(http_request(request, left), policy);
      if (resp.ok() && resp->status >= 200 && resp->status < 300) return parse(resp->body, request);
      if (cancelled()) return failure(ErrorCode::kUnavailable, "cancelled");
      std::optional<milliseconds> asked;  // what the server's Retry-After asks for
      if (!resp.ok()) {
        last_error = resp.error().message;
        bool transient = resp.error().code == ErrorCode::kTimeout || resp.error().code == ErrorCode::kUnavailable;
        if (!transient) return failure(ErrorCode::kUnavailable, last_error);
      } else {
        WireError error = read_error_body(resp->body);
        last_error = error.describe(resp->status);
        // The server refused a field or a role this model does not take: send what it does take
        // instead, at once (each change is made once, so this ends).
        if ((resp->status == 400 || resp->status == 422) && adapt(error)) {
          --attempt;
          continue;
        }
        if (!net::retryable_status(resp->status)) return failure(ErrorCode::kUnavailable, last_error);
        asked = net::parse_retry_after(resp->header("retry-after"), clock_.wall());
      }
      if (attempt == retry.max_attempts) break;
      left = deadline.left();
      if (asked && *asked > left) {
        return failure(ErrorCode::kUnavailable,
                       fmt::format("{}; the server asks to wait {} before trying again (Retry-After), more than the {} "
                                   "left of the time budget",
                                   last_error, seconds(*asked), seconds(left)));
      }
      if (!clock_.sleep_for(asked ? *asked : std::min(backoff.next(), left), config_.options.cancel)) {
        return failure(ErrorCode::kUnavailable, "cancelled");
      }
    }
    return failure(ErrorCode::kUnavailable,
                   fmt::format("gave up after {} attempts; last: {}", retry.max_attempts, last_error));
  }

  std::string describe() const override { return name() + ":" + config_.model; }

 protected:
  virtual std::string name() const = 0;
  virtual std::string endpoint() const = 0;
  virtual std::vector<std::string> headers() const = 0;
  virtual nlohmann::json body(const Request& request) = 0;
  virtual Result<Reply> read_reply(const nlohmann::json& j, const Request& request) = 0;
  // After a 400 or 422: whether the request was changed so that sending it again may succeed.
  virtual bool adapt(const WireError&) { return false; }

  const HttpProviderConfig config_;

 private:
  bool cancelled() const { return config_.options.cancel != nullptr && config_.options.cancel->load(); }

  net::HttpRequest http_request(const Request& request, milliseconds left) {
    net::HttpRequest http;
    http.method = "POST";
    http.url = endpoint();
    http.headers = headers();
    http.headers.push_back("content-type: application/json");
    http.body = body(request).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    http.connect_timeout_ms = config_.connect_timeout_ms;
    http.total_timeout_ms = static_cast<long>(left.count());
    http.max_body_bytes = kMaxWireBytes;
    http.cancel = config_.options.cancel;
    return http;
  }

  // Every message leaves through here: prefixed with the provider's name, and without the key or
  // any part of it a server echoed.
  Error failure(ErrorCode code, const std::string& message) const {
    return make_error(code, redact(name() + ": " + message, {config_.api_key}));
  }

  Result<Reply> parse(const std::string& text, const Request& request) {
    // Past the JSON limits the answer is refused, never parsed (and never quoted: it is not JSON
    // anyone should read): invalid input, exit 65 when it was the planner's.
    if (Status within = check_json_limits(text, name() + ": the reply", kWireLimits); !within.ok()) {
      return make_error(ErrorCode::kInvalidInput, redact(within.error().message, {config_.api_key}));
    }
    auto j = parse_within_limits_or_discarded(text);
    if (j.is_discarded() || !j.is_object()) {
      return failure(ErrorCode::kUnavailable, "the reply is not JSON: " + describe_non_json(text));
    }
    auto reply = read_reply(j, request);
    if (!reply.ok()) return failure(reply.error().code, reply.error().message);
    return reply;
  }

  Clock& clock_;
  const std::uint64_t seed_;
  std::atomic<std::uint64_t> calls_{0};
};

class Anthropic final : public WireProvider {
 public:
  using WireProvider::WireProvider;

 protected:
  std::string name() const override { return "anthropic"; }
  std::string endpoint() const override { return trim_slash(config_.base_url) + "/v1/messages"; }
  std::vector<std::string> headers() const override {
    return {"x-api-key: " + config_.api_key, "anthropic-version: 2023-06-01"};
  }
  nlohmann::json body(const Request& request) override { return anthropic_body(request, config_.model); }
  Result<Reply> read_reply(const nlohmann::json& j, const Request& request) override {
    return read_anthropic_reply(j, request);
  }
};

class OpenAi final : public WireProvider {
 public:
  explicit OpenAi(HttpProviderConfig config) : WireProvider(std::move(config)) {
    if (!config_.max_completion_tokens_first) dialect_.limit = OpenAiDialect::Limit::kMaxTokens;
  }

 protected:
  std::string name() const override { return "openai"; }
  std::string endpoint() const override { return trim_slash(config_.base_url) + "/chat/completions"; }
  std::vector<std::string> headers() const override {
    if (config_.api_key.empty()) return {};
    return {"authorization: Bearer " + config_.api_key};
  }
  nlohmann::json body(const Request& request) override {
    std::lock_guard<std::mutex> lock(mu_);
    return openai_body(request, config_.model, dialect_);
  }
  Result<Reply> read_reply(const nlohmann::json& j, const Request& request) override {
    return read_openai_reply(j, request);
  }
  bool adapt(const WireError& error) override {
    std::lock_guard<std::mutex> lock(mu_);
    return adapt_dialect(dialect_, error);
  }

 private:
  std::mutex mu_;
  OpenAiDialect dialect_;  // what this server accepts, for the provider's lifetime
};

}  // namespace

std::unique_ptr<Provider> make_anthropic(HttpProviderConfig config) {
  return std::make_unique<Anthropic>(std::move(config));
}
std::unique_ptr<Provider> make_openai(HttpProviderConfig config) { return std::make_unique<OpenAi>(std::move(config)); }

}  // namespace candor::llm
