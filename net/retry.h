// When to try an HTTP request again, and how long to wait first: the server's Retry-After when it
// gives one, else a jittered exponential backoff. Pure: the caller owns the clock and the waiting.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string_view>

namespace candor::net {

// 408 (request timeout), 429 (rate limited), 5xx (529 is Anthropic's "overloaded"): a later try
// may succeed. Other statuses will answer the same again.
bool retryable_status(long status);

// The delay a Retry-After value asks for (RFC 9110, 10.2.3): delay-seconds ("6") or an HTTP-date
// ("Wed, 21 Oct 2015 07:28:00 GMT", the obsolete RFC 850 and asctime forms too), measured from
// `now`. A date already past is zero. nullopt when the value is empty or neither form.
std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value,
                                                           std::chrono::system_clock::time_point now);

// Exponential backoff with jitter: the n-th delay is drawn uniformly from [d/2, d] where
// d = min(first * 2^(n-1), max), so clients that failed together do not retry together, and no
// delay is shorter than half its step. The generator is seeded: a test fixes the seed, a run takes
// one from std::random_device. Not thread-safe.
class Backoff {
 public:
  Backoff(std::chrono::milliseconds first, std::chrono::milliseconds max, std::uint64_t seed);
  std::chrono::milliseconds next();

 private:
  std::chrono::milliseconds step_;
  std::chrono::milliseconds max_;
  std::mt19937_64 random_;
};

}  // namespace candor::net
