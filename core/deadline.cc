#include "core/deadline.h"

#include <algorithm>

namespace candor {

Deadline::Deadline(Clock& clock, Ms budget) : clock_(&clock), start_(clock.monotonic()), end_(start_) {
  // Saturates: a budget of Ms::max() (an unbounded deadline's left()) ends at the end of time.
  auto room = std::chrono::duration_cast<Ms>(std::chrono::steady_clock::time_point::max() - start_);
  end_ = budget >= room ? std::chrono::steady_clock::time_point::max() : start_ + std::max(budget, Ms(0));
}

bool Deadline::passed() const { return clock_ != nullptr && clock_->monotonic() >= end_; }

Deadline::Ms Deadline::left() const {
  if (clock_ == nullptr) return Ms::max();
  // Rounded up: zero exactly when passed(), and a budget of a whole second read at once is one.
  return std::max(Ms(0), std::chrono::ceil<Ms>(end_ - clock_->monotonic()));
}

Deadline::Ms Deadline::left_or(Ms d) const { return std::min(left(), d); }

double Deadline::elapsed_s() const {
  if (clock_ == nullptr) return 0;
  return std::chrono::duration<double>(clock_->monotonic() - start_).count();
}

Deadline Deadline::within(Ms d) const {
  if (clock_ == nullptr) return Deadline(system_clock(), d);
  Deadline part(*clock_, d);
  part.end_ = std::min(part.end_, end_);
  return part;
}

Deadline Deadline::at_least(Ms d) const {
  if (clock_ == nullptr) return *this;
  Deadline grace(*clock_, d);
  return Deadline(clock_, start_, std::max(end_, grace.end_));
}

}  // namespace candor
