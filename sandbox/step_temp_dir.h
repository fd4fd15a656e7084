// A step's private temporary folder, `$TMPDIR/candor-step-PID-XXXXXX` (see leftovers.h), locked
// while it lives. Owns it: the destructor removes it with everything in it.
#pragma once

#include <string>

#include "core/result.h"
#include "sandbox/unique_fd.h"

namespace candor::sandbox {

class StepTempDir {
 public:
  static Result<StepTempDir> create();
  StepTempDir() = default;
  StepTempDir(StepTempDir&& other) noexcept;
  StepTempDir& operator=(StepTempDir&& other) noexcept;
  StepTempDir(const StepTempDir&) = delete;
  StepTempDir& operator=(const StepTempDir&) = delete;
  ~StepTempDir() { reset(); }

  const std::string& path() const { return path_; }

 private:
  void reset();

  std::string path_;
  UniqueFd lock_;
};

}  // namespace candor::sandbox
