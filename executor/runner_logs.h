// The logs a test runner that counts programs leaves beside its build (CTest's
// Testing/Temporary/LastTest*.log, meson's meson-logs/testlog.txt): the only place that holds what a
// passing test program printed, its framework's own count among it (evidence/frameworks.h), when
// the runner shows only failing programs' output (`ctest --output-on-failure`, `meson test`).
#pragma once

#include <chrono>
#include <string>

namespace candor::executor {

// Every such log beneath `folder` (a checkout candor made) written at or after `since`, one after
// another: found without following a symbolic link, at most kMaxDepth folders deep and
// kMaxEntries entries looked at, each read up to kMaxLogBytes (its end, where the last programs
// stand, when longer), kMaxTotalBytes in all. "" when there is none.
std::string runner_logs(const std::string& folder, std::chrono::system_clock::time_point since);

inline constexpr int kMaxLogDepth = 8;
inline constexpr std::size_t kMaxLogEntries = 200000;
inline constexpr std::size_t kMaxLogBytes = 4 * 1024 * 1024;
inline constexpr std::size_t kMaxTotalLogBytes = 8 * 1024 * 1024;

}  // namespace candor::executor
