// Assertions that touch the network: loopback only unless the config allows a host.
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "assertions/builtins.h"

namespace candor::assertions {
namespace {

constexpr int kConnectTimeoutMs = 2000;

// One TCP connect attempt per resolved address; "" on success, else what went wrong.
std::string try_connect(const std::string& host, int port) {
  struct addrinfo hints {};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  struct addrinfo* res = nullptr;
  int gai = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res);
  if (gai != 0) return fmt::format("cannot resolve {}: {}", host, gai_strerror(gai));
  std::string last = "no address";
  for (auto* ai = res; ai != nullptr; ai = ai->ai_next) {
    int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    int rc = ::connect(fd, ai->ai_addr, ai->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      struct pollfd p {
        fd, POLLOUT, 0
      };
      if (::poll(&p, 1, kConnectTimeoutMs) == 1) {
        int err = 0;
        socklen_t len = sizeof(err);
        ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
        rc = err == 0 ? 0 : -1;
        errno = err;
      } else {
        errno = ETIMEDOUT;
      }
    }
    if (rc == 0) {
      ::close(fd);
      ::freeaddrinfo(res);
      return "";
    }
    last = std::strerror(errno);
    ::close(fd);
  }
  ::freeaddrinfo(res);
  return last;
}

class SocketOpen final : public Evaluator {
 public:
  const Signature& signature() const override {
    static const Signature s{"socket_open",
                             "a TCP connect to host:port succeeds",
                             {{"port", ArgType::kInteger, true, "TCP port", 1, 65535},
                              {"host", ArgType::kString, false, "host (default 127.0.0.1; loopback unless allowed)"}}};
    return s;
  }
  Outcome evaluate(const nlohmann::json& a, const Context& ctx) const override {
    int port = a.at("port").get<int>();
    std::string host = a.value("host", "127.0.0.1");
    if (!net::is_loopback_host(host) && !ctx.network.allows(host)) {
      return {false, fmt::format("{} is not a loopback host and the config does not allow it", host), ""};
    }
    std::string err = try_connect(host, port);
    if (err.empty()) return {true, fmt::format("connected to {}:{}", host, port), ""};
    return {false, fmt::format("cannot connect to {}:{}: {}", host, port, err), ""};
  }
};

class Http200 final : public Evaluator {
 public:
  const Signature& signature() const override {
    static const Signature s{"http_200",
                             "GET `url` returns status 200",
                             {{"url", ArgType::kString, true, "http(s) URL (loopback unless allowed)"}}};
    return s;
  }
  Outcome evaluate(const nlohmann::json& a, const Context& ctx) const override {
    net::HttpRequest req;
    req.url = a.at("url").get<std::string>();
    req.total_timeout_ms = 10000;
    req.max_body_bytes = 0;
    auto resp = net::http_request(req, ctx.network);
    if (!resp.ok()) return {false, fmt::format("GET {}: {}", req.url, resp.error().message), ""};
    return {resp->status == 200, fmt::format("GET {} returned {}", req.url, resp->status), ""};
  }
};

}  // namespace

std::unique_ptr<Evaluator> make_socket_open() { return std::make_unique<SocketOpen>(); }
std::unique_ptr<Evaluator> make_http_200() { return std::make_unique<Http200>(); }

}  // namespace candor::assertions
