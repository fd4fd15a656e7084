// Time behind an interface so budgets and timestamps can be tested without sleeping.
#pragma once

#include <atomic>
#include <chrono>
#include <string>

namespace candor {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual std::chrono::system_clock::time_point wall() = 0;       // for timestamps
  virtual std::chrono::steady_clock::time_point monotonic() = 0;  // for deadlines
  // Waits `d` (a retry's delay), waking early when `cancel` (borrowed; may be null) is set: false
  // then. A real clock sleeps; a test's fake clock moves by `d` at once.
  virtual bool sleep_for(std::chrono::milliseconds d, const std::atomic<bool>* cancel);
};

class SystemClock final : public Clock {
 public:
  std::chrono::system_clock::time_point wall() override { return std::chrono::system_clock::now(); }
  std::chrono::steady_clock::time_point monotonic() override { return std::chrono::steady_clock::now(); }
};

// A SystemClock for the whole process (it holds no state, so sharing it is safe from any thread):
// for a caller that lends a Clock to something that may outlive the caller's own scope.
Clock& system_clock();

// RFC 3339 UTC with milliseconds: 2026-11-22T03:16:07.123Z
std::string format_timestamp(std::chrono::system_clock::time_point t);

}  // namespace candor
