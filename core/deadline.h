// The run's one time budget. Made once, where a run opens, from BudgetLimits.timeout_s, and passed
// down: every wait, scan, evaluator, judge and hook asks it (passed(), left()) instead of reading a
// clock of its own. It reads the clock it was made with, so a test's fake clock moves every
// reader at once, and no reader mixes a fake moment with a real one.
#pragma once

#include <chrono>

#include "core/clock.h"

namespace candor {

class Deadline {
 public:
  using Ms = std::chrono::milliseconds;

  // Never passes: for work that has no budget of its own.
  Deadline() = default;
  // Ends `budget` after now on `clock` (borrowed: it must outlive every copy).
  Deadline(Clock& clock, Ms budget);
  static Deadline in_seconds(Clock& clock, long long seconds) { return Deadline(clock, std::chrono::seconds(seconds)); }

  bool bounded() const { return clock_ != nullptr; }
  bool passed() const;
  // What is left, rounded up to the millisecond: zero exactly when passed(); Ms::max() when unbounded.
  Ms left() const;
  // min(left(), d): a wait's or a command's share of what is left.
  Ms left_or(Ms d) const;
  // Seconds since it was made (0 when unbounded).
  double elapsed_s() const;

  // A deadline `d` from now that never ends after this one: one part of the run (a stop's scan, a
  // model's answer) given a budget of its own within the run's.
  Deadline within(Ms d) const;
  // A deadline that ends no sooner than `d` from now: the last scan's grace, without which nothing
  // the run did would be known. Unbounded stays unbounded.
  Deadline at_least(Ms d) const;

 private:
  Deadline(Clock* clock, std::chrono::steady_clock::time_point start, std::chrono::steady_clock::time_point end)
      : clock_(clock), start_(start), end_(end) {}

  Clock* clock_ = nullptr;
  std::chrono::steady_clock::time_point start_{};
  std::chrono::steady_clock::time_point end_{};
};

}  // namespace candor
