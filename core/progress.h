// Told about a run as it happens, for people watching. The executor calls it; report/ renders it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/run_record.h"

namespace candor {

class ProgressObserver {
 public:
  virtual ~ProgressObserver() = default;
  virtual void round_started(int /*round*/, std::size_t /*steps*/) {}
  virtual void step_finished(const StepRecord& /*step*/, const std::vector<AssertionRecord>& /*assertions*/) {}
  virtual void note(const std::string& /*line*/) {}
};

}  // namespace candor
