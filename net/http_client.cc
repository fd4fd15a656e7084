#include "net/http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <mutex>

#include <curl/curl.h>
#include <fmt/format.h>

#include "core/version.h"

namespace candor::net {
namespace {

void global_init_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

bool is_loopback_sockaddr(const struct sockaddr* addr) {
  if (addr->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const struct sockaddr_in*>(addr);
    return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
  }
  if (addr->sa_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const struct sockaddr_in6*>(addr);
    if (IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr)) return true;
    if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) return in6->sin6_addr.s6_addr[12] == 127;
  }
  return false;
}

struct TransferState {
  const HttpRequest* request = nullptr;
  HttpResponse* response = nullptr;
  bool refused_address = false;
};

curl_socket_t open_socket(void* clientp, curlsocktype /*purpose*/, struct curl_sockaddr* address) {
  auto* state = static_cast<TransferState*>(clientp);
  if (state != nullptr && !is_loopback_sockaddr(&address->addr)) {
    state->refused_address = true;
    return CURL_SOCKET_BAD;
  }
  return socket(address->family, address->socktype, address->protocol);
}

int check_cancel(void* clientp, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto* state = static_cast<const TransferState*>(clientp);
  return state->request->cancel != nullptr && state->request->cancel->load() ? 1 : 0;
}

std::string trim_spaces(std::string_view s) {
  std::size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  std::size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

// One header line at a time; a status line starts a new response (a 100 Continue, or a proxy's
// answer before the server's), so only the final response's fields are kept.
std::size_t read_header(char* data, std::size_t size, std::size_t nmemb, void* userp) {
  constexpr std::size_t kMaxFields = 100, kMaxField = 8192;
  auto* headers = static_cast<std::vector<std::pair<std::string, std::string>>*>(userp);
  std::size_t n = size * nmemb;
  std::string_view line(data, n);
  if (line.rfind("HTTP/", 0) == 0) {
    headers->clear();
    return n;
  }
  std::size_t colon = line.find(':');
  if (colon == std::string_view::npos || headers->size() >= kMaxFields) return n;
  std::string name = trim_spaces(line.substr(0, colon));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  headers->emplace_back(std::move(name), trim_spaces(line.substr(colon + 1, kMaxField)));
  return n;
}

std::size_t write_body(char* data, std::size_t size, std::size_t nmemb, void* userp) {
  auto* state = static_cast<TransferState*>(userp);
  std::size_t n = size * nmemb;
  state->response->body_bytes_total += n;
  std::size_t room =
      state->request->max_body_bytes - std::min(state->request->max_body_bytes, state->response->body.size());
  state->response->body.append(data, std::min(n, room));
  return n;
}

}  // namespace

std::string user_agent_string() { return "candor/" CANDOR_VERSION; }

std::string HttpResponse::header(std::string_view name) const {
  for (auto it = headers.rbegin(); it != headers.rend(); ++it) {
    if (it->first == name) return it->second;
  }
  return "";
}

bool NetworkPolicy::allows(const std::string& host) const {
  return std::find(allowed_hosts.begin(), allowed_hosts.end(), host) != allowed_hosts.end();
}

bool is_loopback_host(const std::string& raw) {
  std::string host = raw;
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host == "localhost") return true;
  struct in_addr a4 {};
  if (inet_pton(AF_INET, host.c_str(), &a4) == 1) return (ntohl(a4.s_addr) >> 24) == 127;
  struct in6_addr a6 {};
  if (inet_pton(AF_INET6, host.c_str(), &a6) == 1) return IN6_IS_ADDR_LOOPBACK(&a6);
  return false;
}

Result<std::string> url_host(const std::string& url) {
  global_init_once();
  std::unique_ptr<CURLU, decltype(&curl_url_cleanup)> u(curl_url(), curl_url_cleanup);
  if (curl_url_set(u.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK) {
    return make_error(ErrorCode::kInvalidInput, fmt::format("not a valid URL: \"{}\"", url));
  }
  char* scheme = nullptr;
  curl_url_get(u.get(), CURLUPART_SCHEME, &scheme, 0);
  std::string s = scheme ? scheme : "";
  curl_free(scheme);
  if (s != "http" && s != "https") {
    return make_error(ErrorCode::kRefused, fmt::format("only http and https URLs are allowed, got \"{}\"", s));
  }
  char* host = nullptr;
  if (curl_url_get(u.get(), CURLUPART_HOST, &host, 0) != CURLUE_OK || host == nullptr) {
    return make_error(ErrorCode::kInvalidInput, fmt::format("URL has no host: \"{}\"", url));
  }
  std::string h = host;
  curl_free(host);
  return h;
}

Result<HttpResponse> http_request(const HttpRequest& request, const NetworkPolicy& policy) {
  TRY(std::string host, url_host(request.url));
  bool restrict_to_loopback = !policy.allows(host);
  global_init_once();
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return make_error(ErrorCode::kInternal, "curl_easy_init failed");

  HttpResponse response;
  TransferState state{&request, &response, false};
  CURL* h = curl.get();
  curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, request.connect_timeout_ms);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, request.total_timeout_ms);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, write_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &state);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, read_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &response.headers);
  if (!request.user_agent.empty()) curl_easy_setopt(h, CURLOPT_USERAGENT, request.user_agent.c_str());
  if (request.cancel != nullptr) {
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, check_cancel);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, &state);
  }
  if (restrict_to_loopback) {
    curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, open_socket);
    curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, &state);
  }
  if (request.method == "POST") {
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.c_str());
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  } else if (request.method != "GET") {
    return make_error(ErrorCode::kInternal, "unsupported HTTP method " + request.method);
  }
  struct curl_slist* headers = nullptr;
  for (const auto& hd : request.headers) headers = curl_slist_append(headers, hd.c_str());
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headers_guard(headers, curl_slist_free_all);
  if (headers != nullptr) curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);

  CURLcode rc = curl_easy_perform(h);
  if (state.refused_address) {
    return make_error(ErrorCode::kRefused,
                      fmt::format("{} is not a loopback address and is not allowed by the network policy", host));
  }
  if (rc == CURLE_ABORTED_BY_CALLBACK) {
    return make_error(ErrorCode::kUnavailable, fmt::format("request to {} cancelled", host));
  }
  if (rc == CURLE_OPERATION_TIMEDOUT) {
    return make_error(ErrorCode::kTimeout, fmt::format("request to {} timed out", host));
  }
  if (rc != CURLE_OK) {
    return make_error(ErrorCode::kUnavailable, fmt::format("request to {} failed: {}", host, curl_easy_strerror(rc)));
  }
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

}  // namespace candor::net
