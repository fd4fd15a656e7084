#include "llm/http_provider.h"

#include <algorithm>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/json_text.h"
#include "net/http_client.h"

namespace candor::llm {
namespace {

using Clock = std::chrono::steady_clock;

std::string trim_slash(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

bool transient_status(long status) { return status == 429 || status == 408 || status >= 500; }

// Sleeps up to `d`, waking early when cancelled. False when cancelled.
bool pause(std::chrono::milliseconds d, const std::atomic<bool>* cancel) {
  auto until = Clock::now() + d;
  while (Clock::now() < until) {
    if (cancel != nullptr && cancel->load()) return false;
    std::this_thread::sleep_for(std::min<Clock::duration>(std::chrono::milliseconds(20), until - Clock::now()));
  }
  return cancel == nullptr || !cancel->load();
}

// One wire format: how to build the body and the headers, and how to read the reply.
class WireProvider : public Provider {
 public:
  explicit WireProvider(HttpProviderConfig config) : config_(std::move(config)) {}

  Result<Reply> complete(const Request& request) override {
    net::HttpRequest http;
    http.method = "POST";
    http.url = endpoint();
    http.headers = headers();
    http.headers.push_back("content-type: application/json");
    http.body = body(request).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    http.connect_timeout_ms = config_.connect_timeout_ms;
    http.max_body_bytes = 16 << 20;
    http.cancel = config_.options.cancel;
    auto host = net::url_host(http.url);
    if (!host.ok()) return make_error(ErrorCode::kUnavailable, fmt::format("{}: {}", name(), host.error().message));
    net::NetworkPolicy policy{{*host}};  // the provider's own endpoint may be remote

    auto deadline = Clock::now() + request.deadline;
    std::chrono::milliseconds delay = config_.options.retry.first_delay;
    std::string last_error;
    for (int attempt = 1; attempt <= config_.options.retry.max_attempts; ++attempt) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) {
        return make_error(ErrorCode::kTimeout, scrub(fmt::format("{}: no answer within the time left ({})", name(),
                                                                 last_error.empty() ? "no attempt made" : last_error)));
      }
      http.total_timeout_ms = static_cast<long>(left.count());
      auto resp = net::http_request(http, policy);
      if (resp.ok() && resp->status >= 200 && resp->status < 300) return parse(resp->body);
      bool retry = false;
      if (!resp.ok()) {
        last_error = resp.error().message;
        retry = resp.error().code == ErrorCode::kTimeout || resp.error().code == ErrorCode::kUnavailable;
        if (config_.options.cancel != nullptr && config_.options.cancel->load()) {
          return make_error(ErrorCode::kUnavailable, name() + ": cancelled");
        }
      } else {
        last_error = fmt::format("HTTP {}: {}", resp->status, resp->body.substr(0, 300));
        retry = transient_status(resp->status);
      }
      if (!retry) return make_error(ErrorCode::kUnavailable, scrub(fmt::format("{}: {}", name(), last_error)));
      if (attempt == config_.options.retry.max_attempts) break;
      if (!pause(std::min(delay, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now())),
                 config_.options.cancel)) {
        return make_error(ErrorCode::kUnavailable, name() + ": cancelled");
      }
      delay = std::min(delay * 2, config_.options.retry.max_delay);
    }
    return make_error(ErrorCode::kUnavailable, scrub(fmt::format("{}: gave up after {} attempts; last: {}", name(),
                                                                 config_.options.retry.max_attempts, last_error)));
  }

  std::string describe() const override { return name() + ":" + config_.model; }

 protected:
  virtual std::string name() const = 0;
  virtual std::string endpoint() const = 0;
  virtual std::vector<std::string> headers() const = 0;
  virtual nlohmann::json body(const Request& request) const = 0;
  virtual Result<Reply> read_reply(const nlohmann::json& j) const = 0;

  const HttpProviderConfig config_;

 private:
  std::string scrub(std::string text) const { return redact(std::move(text), {config_.api_key}); }

  Result<Reply> parse(const std::string& text) const {
    // Past the JSON limits the answer is refused, never parsed (and never quoted: it is not JSON
    // anyone should read): invalid input, exit 65 when it was the planner's.
    if (Status within = check_json_limits(text, name() + ": the reply", kWireLimits); !within.ok()) {
      return make_error(ErrorCode::kInvalidInput, scrub(within.error().message));
    }
    auto j = parse_within_limits_or_discarded(text);
    if (j.is_discarded() || !j.is_object()) {
      return make_error(ErrorCode::kUnavailable,
                        scrub(fmt::format("{}: the reply is not JSON: {}", name(), text.substr(0, 200))));
    }
    try {
      auto reply = read_reply(j);
      if (!reply.ok()) return make_error(reply.error().code, scrub(reply.error().message));
      return reply;
    } catch (const nlohmann::json::exception& e) {
      return make_error(ErrorCode::kUnavailable,
                        scrub(fmt::format("{}: unexpected reply shape: {}", name(), e.what())));
    }
  }
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
  nlohmann::json body(const Request& request) const override {
    nlohmann::json messages = nlohmann::json::array();
    for (const auto& m : request.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
    return {{"model", config_.model},
            {"max_tokens", request.max_output_tokens},
            {"system", request.system},
            {"messages", messages}};
  }
  Result<Reply> read_reply(const nlohmann::json& j) const override {
    Reply r;
    for (const auto& block : j.at("content")) {
      if (block.value("type", "") == "text") r.text += block.at("text").get<std::string>();
    }
    if (j.contains("usage")) {
      r.input_tokens = j["usage"].value("input_tokens", std::int64_t{0});
      r.output_tokens = j["usage"].value("output_tokens", std::int64_t{0});
    } else {
      r.usage_estimated = true;
      r.output_tokens = estimate_tokens(r.text);
    }
    return r;
  }
};

class OpenAi final : public WireProvider {
 public:
  using WireProvider::WireProvider;

 protected:
  std::string name() const override { return "openai"; }
  std::string endpoint() const override { return trim_slash(config_.base_url) + "/chat/completions"; }
  std::vector<std::string> headers() const override {
    if (config_.api_key.empty()) return {};
    return {"authorization: Bearer " + config_.api_key};
  }
  nlohmann::json body(const Request& request) const override {
    nlohmann::json messages = nlohmann::json::array({{{"role", "system"}, {"content", request.system}}});
    for (const auto& m : request.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
    return {{"model", config_.model}, {"max_tokens", request.max_output_tokens}, {"messages", messages}};
  }
  Result<Reply> read_reply(const nlohmann::json& j) const override {
    const auto& choices = j.at("choices");
    if (!choices.is_array() || choices.empty()) {
      return make_error(ErrorCode::kUnavailable, "openai: the reply has no choices");
    }
    Reply r;
    const auto& content = choices[0].at("message").at("content");
    r.text = content.is_string() ? content.get<std::string>() : "";
    if (j.contains("usage") && j["usage"].is_object()) {
      r.input_tokens = j["usage"].value("prompt_tokens", std::int64_t{0});
      r.output_tokens = j["usage"].value("completion_tokens", std::int64_t{0});
    } else {
      r.usage_estimated = true;
      r.output_tokens = estimate_tokens(r.text);
    }
    return r;
  }
};

}  // namespace

std::unique_ptr<Provider> make_anthropic(HttpProviderConfig config) {
  return std::make_unique<Anthropic>(std::move(config));
}
std::unique_ptr<Provider> make_openai(HttpProviderConfig config) { return std::make_unique<OpenAi>(std::move(config)); }

}  // namespace candor::llm
