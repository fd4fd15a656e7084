#include "net/retry.h"

#include <algorithm>
#include <ctime>
#include <string>

namespace candor::net {

bool retryable_status(long status) { return status == 408 || status == 429 || (status >= 500 && status <= 599); }

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// An HTTP-date in any of its three forms, as UTC.
std::optional<std::time_t> parse_http_date(std::string_view value) {
  const std::string text(value);
  for (const char* format : {"%a, %d %b %Y %H:%M:%S GMT", "%A, %d-%b-%y %H:%M:%S GMT", "%a %b %e %H:%M:%S %Y"}) {
    std::tm tm{};
    const char* end = strptime(text.c_str(), format, &tm);
    if (end != nullptr && *end == '\0') return timegm(&tm);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view raw,
                                                           std::chrono::system_clock::time_point now) {
  std::string_view value = trim(raw);
  if (value.empty()) return std::nullopt;
  if (value.find_first_not_of("0123456789") == std::string_view::npos) {
    if (value.size() > 9) return std::chrono::milliseconds(std::chrono::hours(24 * 365));  // "forever"
    return std::chrono::milliseconds(std::stoll(std::string(value)) * 1000);
  }
  auto date = parse_http_date(value);
  if (!date) return std::nullopt;
  auto at = std::chrono::system_clock::from_time_t(*date);
  if (at <= now) return std::chrono::milliseconds(0);
  return std::chrono::duration_cast<std::chrono::milliseconds>(at - now);
}

Backoff::Backoff(std::chrono::milliseconds first, std::chrono::milliseconds max, std::uint64_t seed)
    : step_(first), max_(max), random_(seed) {}

std::chrono::milliseconds Backoff::next() {
  std::chrono::milliseconds d = std::min(step_, max_);
  step_ = std::min(step_ * 2, max_);
  auto half = d.count() / 2;
  if (d.count() - half <= 0) return d;
  std::uniform_int_distribution<long long> pick(half, d.count());
  return std::chrono::milliseconds(pick(random_));
}

}  // namespace candor::net
