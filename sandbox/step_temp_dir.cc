#include "sandbox/step_temp_dir.h"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include <fmt/format.h>

#include "sandbox/leftovers.h"

namespace candor::sandbox {

namespace fs = std::filesystem;

Result<StepTempDir> StepTempDir::create() {
  std::error_code ec;
  std::string name = (fs::temp_directory_path(ec) / (owned_prefix("candor-step") + "XXXXXX")).string();
  if (::mkdtemp(name.data()) == nullptr)
    return make_error(ErrorCode::kIo,
                      fmt::format("sandbox: cannot create a temporary folder: {}", std::strerror(errno)));
  StepTempDir dir;
  dir.path_ = name;  // from here on, dir removes it
  TRY(dir.lock_, hold_folder_lock(name));
  return dir;
}

StepTempDir::StepTempDir(StepTempDir&& other) noexcept
    : path_(std::exchange(other.path_, {})), lock_(std::move(other.lock_)) {}

StepTempDir& StepTempDir::operator=(StepTempDir&& other) noexcept {
  if (this != &other) {
    reset();
    path_ = std::exchange(other.path_, {});
    lock_ = std::move(other.lock_);
  }
  return *this;
}

void StepTempDir::reset() {
  if (path_.empty()) return;
  // Most steps leave their folder empty: one rmdir, not remove_all's listing.
  if (::rmdir(path_.c_str()) != 0) {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  lock_.reset();
  path_.clear();
}

}  // namespace candor::sandbox
