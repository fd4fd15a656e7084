// Told about a run as it happens, for people watching. The executor, the run loop and the session
// call it; report/ renders it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/run_record.h"

namespace candor {

// What the run waits on when no step runs: an LLM call that may take a while.
enum class WaitKind { kPlanner, kJudge, kReviewer };

// Every call comes from the thread that runs the run; an observer that draws from a thread of its
// own synchronises itself. A started step or wait is always followed by its finish, and the two
// never nest: a step is never started during a wait, nor a wait during a step.
class ProgressObserver {
 public:
  virtual ~ProgressObserver() = default;
  virtual void round_started(int /*round*/, std::size_t /*steps*/) {}
  // `step` carries its id, round, tool and target; nothing about its outcome yet.
  virtual void step_started(const StepRecord& /*step*/) {}
  virtual void step_finished(const StepRecord& /*step*/, const std::vector<AssertionRecord>& /*assertions*/) {}
  virtual void wait_started(WaitKind /*kind*/) {}
  virtual void wait_finished(WaitKind /*kind*/) {}
  virtual void note(const std::string& /*line*/) {}
};

// wait_started on construction, wait_finished when it goes, so an early return cannot leave a wait
// shown as running. `observer` may be null (no progress).
class ProgressWait {
 public:
  ProgressWait(ProgressObserver* observer, WaitKind kind) : observer_(observer), kind_(kind) {
    if (observer_ != nullptr) observer_->wait_started(kind_);
  }
  ~ProgressWait() {
    if (observer_ != nullptr) observer_->wait_finished(kind_);
  }
  ProgressWait(const ProgressWait&) = delete;
  ProgressWait& operator=(const ProgressWait&) = delete;

 private:
  ProgressObserver* observer_;
  WaitKind kind_;
};

}  // namespace candor
