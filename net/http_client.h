// The one HTTP transport (libcurl). Used by the http_get tool, the http_200 assertion and the LLM
// providers (llm/http_provider.cc).
#pragma once

#include <atomic>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"

namespace candor::net {

struct NetworkPolicy {
  // Hosts (exact names or literal addresses) that may be reached although they are not loopback.
  // Empty: loopback only (127.0.0.0/8, ::1).
  std::vector<std::string> allowed_hosts;
  bool allows(const std::string& host) const;
};

// "candor/VERSION": what every request candor makes says it is.
std::string user_agent_string();

struct HttpRequest {
  std::string method = "GET";
  std::string url;
  std::vector<std::string> headers;
  std::string body;
  long connect_timeout_ms = 5000;
  long total_timeout_ms = 30000;
  std::size_t max_body_bytes = 1 << 20;          // the rest is counted, not kept
  const std::atomic<bool>* cancel = nullptr;     // borrowed; aborts the transfer when set
  std::string user_agent = user_agent_string();  // sent as User-Agent on every request
};

struct HttpResponse {
  long status = 0;
  std::string body;
  std::size_t body_bytes_total = 0;
  // The final response's header fields, names in lower case, in the order received (at most 100;
  // a field past 8 KiB is cut).
  std::vector<std::pair<std::string, std::string>> headers;
  // The last value of the field `name` (lower case), or "" when absent.
  std::string header(std::string_view name) const;
};

// Performs one request. Connections to non-loopback addresses are refused (kRefused) unless the
// URL's host is allowed by `policy`; the check is made on the resolved address at connect time,
// so a name that resolves elsewhere, a redirect or a proxy cannot get around it. Only http and
// https; redirects are not followed. Transport failures are kUnavailable (kTimeout on a timeout,
// kUnavailable "cancelled" when `cancel` was set).
Result<HttpResponse> http_request(const HttpRequest& request, const NetworkPolicy& policy);

// The host part of an http(s) URL, or an error naming what is wrong with the URL.
Result<std::string> url_host(const std::string& url);

// True for "localhost", 127.0.0.0/8 and ::1 literals.
bool is_loopback_host(const std::string& host);

}  // namespace candor::net
