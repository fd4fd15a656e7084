// A real HTTP server on 127.0.0.1 speaking the Anthropic Messages and OpenAI chat-completions
// wire formats, with scripted misbehaviour: a 429 first, a 500 forever, a slow reply, a 401 that
// echoes the key it was sent; or canned answers (status, headers, body: the recorded envelopes of
// tests/data/providers) in order. It records every request it received, with when it came.
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace candor::testing {

class LlmServer {
 public:
  enum class Mode { kOk, kFirst429, kAlways500, kSlow, kUnauthorizedEcho };

  // One answer as sent: status, extra header fields, body and its content type.
  struct Canned {
    int status = 200;
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers = {};
    std::string content_type = "application/json";
  };
  // One request as received.
  struct Received {
    std::string path;
    nlohmann::json body;  // discarded when it was not JSON
    std::map<std::string, std::string> headers;
    std::chrono::steady_clock::time_point at;
  };

  LlmServer() {
    server_.Post("/v1/messages",
                 [this](const httplib::Request& req, httplib::Response& res) { handle(req, res, true); });
    server_.Post("/v1/chat/completions",
                 [this](const httplib::Request& req, httplib::Response& res) { handle(req, res, false); });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~LlmServer() {
    server_.stop();
    thread_.join();
  }

  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  void set_mode(Mode m) { mode_ = m; }
  // The replies to send, in order (the last one repeats).
  void set_replies(std::vector<std::string> replies) {
    std::lock_guard<std::mutex> lock(mu_);
    replies_ = std::move(replies);
  }
  // Canned answers, in order (the last one repeats); while set, they replace the mode and the replies.
  void set_canned(std::vector<Canned> canned) {
    std::lock_guard<std::mutex> lock(mu_);
    canned_ = std::move(canned);
  }
  int requests() const { return requests_.load(); }
  std::vector<Received> received() const {
    std::lock_guard<std::mutex> lock(mu_);
    return received_;
  }
  nlohmann::json last_body() const {
    std::lock_guard<std::mutex> lock(mu_);
    return last_body_;
  }
  std::string last_header(const std::string& name) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = last_headers_.find(name);
    return it == last_headers_.end() ? "" : it->second;
  }

 private:
  void handle(const httplib::Request& req, httplib::Response& res, bool anthropic) {
    int n = ++requests_;
    std::string reply;
    std::optional<Canned> canned;
    {
      std::lock_guard<std::mutex> lock(mu_);
      last_body_ = nlohmann::json::parse(req.body, nullptr, false);
      last_headers_.clear();
      for (const auto& [k, v] : req.headers) last_headers_[k] = v;
      received_.push_back({req.path, last_body_, last_headers_, std::chrono::steady_clock::now()});
      std::size_t i =
          std::min<std::size_t>(static_cast<std::size_t>(n - 1), replies_.empty() ? 0 : replies_.size() - 1);
      reply = replies_.empty() ? "{}" : replies_[i];
      if (!canned_.empty())
        canned = canned_[std::min<std::size_t>(static_cast<std::size_t>(n - 1), canned_.size() - 1)];
    }
    if (canned) {
      res.status = canned->status;
      for (const auto& [k, v] : canned->headers) res.set_header(k, v);
      res.set_content(canned->body, canned->content_type);
      return;
    }
    switch (mode_.load()) {
      case Mode::kFirst429:
        if (n == 1) {
          res.status = 429;
          res.set_content(R"({"error": {"type": "rate_limit_error"}})", "application/json");
          return;
        }
        break;
      case Mode::kAlways500:
        res.status = 500;
        res.set_content(R"({"error": "overloaded"})", "application/json");
        return;
      case Mode::kSlow:
        std::this_thread::sleep_for(std::chrono::seconds(3));
        break;
      case Mode::kUnauthorizedEcho: {
        res.status = 401;
        std::string key = anthropic ? req.get_header_value("x-api-key") : req.get_header_value("authorization");
        res.set_content(R"({"error": {"message": "invalid x-api-key: )" + key + R"("}})", "application/json");
        return;
      }
      case Mode::kOk:
        break;
    }
    nlohmann::json body;
    if (anthropic) {
      body = {{"id", "msg_1"},
              {"type", "message"},
              {"role", "assistant"},
              {"content", {{{"type", "text"}, {"text", reply}}}},
              {"stop_reason", "end_turn"},
              {"usage", {{"input_tokens", 1200}, {"output_tokens", 90}}}};
    } else {
      body = {{"id", "chatcmpl-1"},
              {"object", "chat.completion"},
              {"choices",
               {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", reply}}}, {"finish_reason", "stop"}}}},
              {"usage", {{"prompt_tokens", 700}, {"completion_tokens", 60}, {"total_tokens", 760}}}};
    }
    res.set_content(body.dump(), "application/json");
  }

  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<Mode> mode_{Mode::kOk};
  std::atomic<int> requests_{0};
  mutable std::mutex mu_;
  std::vector<std::string> replies_;
  std::vector<Canned> canned_;
  std::vector<Received> received_;
  nlohmann::json last_body_;
  std::map<std::string, std::string> last_headers_;
};

}  // namespace candor::testing
