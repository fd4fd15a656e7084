#include "app/age.h"

#include <cctype>

#include <fmt/format.h>

#include "core/clock.h"

namespace candor::app {

std::optional<std::chrono::seconds> parse_age(const std::string& text) {
  if (text.size() < 2 || !std::isdigit(static_cast<unsigned char>(text[0]))) return std::nullopt;
  std::string digits = text.substr(0, text.size() - 1);
  if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() >= 9) return std::nullopt;
  long n = std::stol(digits);
  switch (text.back()) {
    case 'd':
      return std::chrono::seconds(n * 86400);
    case 'h':
      return std::chrono::seconds(n * 3600);
    case 'm':
      return std::chrono::seconds(n * 60);
    case 's':
      return std::chrono::seconds(n);
    default:
      return std::nullopt;
  }
}

Result<std::string> since_cutoff(const std::string& since, std::chrono::system_clock::time_point now) {
  if (auto age = parse_age(since)) return format_timestamp(now - *age);
  if (since.size() >= 10 && since[4] == '-' && since[7] == '-') return since;  // an RFC 3339 date or time
  return make_error(ErrorCode::kUsage,
                    fmt::format("--since \"{}\": expected 2d, 12h, 30m, 45s or an RFC 3339 time", since));
}

}  // namespace candor::app
