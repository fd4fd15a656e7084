// Ages and cut-off times as a person writes them ("90d", "12h"), for what selects runs by age:
// `runs --since` and `gc --older-than`.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "core/result.h"

namespace candor::app {

// "2d", "12h", "30m", "45s" -> that many seconds; nullopt for anything else.
std::optional<std::chrono::seconds> parse_age(const std::string& text);

// "2d" -> the RFC 3339 time two days before `now`; an RFC 3339 time is returned as it is;
// kUsage naming --since for anything else.
Result<std::string> since_cutoff(const std::string& since, std::chrono::system_clock::time_point now);

}  // namespace candor::app
