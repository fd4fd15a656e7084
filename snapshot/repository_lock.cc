#include "snapshot/repository_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

namespace candor::snapshot {
namespace {

Error lock_error(const std::string& path, int err) {
  return make_error(ErrorCode::kIo, fmt::format("snapshot: cannot lock {}: {}", path, std::strerror(err)));
}

// Whether `fd` is still the file at `path`: a gc that removed the repository unlinked it, and a
// lock on an unlinked file protects nothing.
bool still_there(int fd, const std::string& path) {
  struct stat held {
  }, now{};
  return ::fstat(fd, &held) == 0 && ::stat(path.c_str(), &now) == 0 && held.st_dev == now.st_dev &&
         held.st_ino == now.st_ino;
}

// Opens (creating) the lock file and flocks it with `op`. Not valid(): LOCK_NB and someone holds it.
Result<sandbox::UniqueFd> lock(const std::string& path, int op) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  for (;;) {
    sandbox::UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (!fd.valid()) return lock_error(path, errno);
    int rc;
    do {
      rc = ::flock(fd.get(), op);
    } while (rc != 0 && errno == EINTR);
    if (rc != 0) {
      if (errno == EWOULDBLOCK) return sandbox::UniqueFd();
      return lock_error(path, errno);
    }
    if (still_there(fd.get(), path)) return fd;
  }
}

}  // namespace

std::string repository_lock_path(const std::string& repository_path) { return repository_path + ".in-use"; }

Result<RepositoryLock> RepositoryLock::shared(const std::string& repository_path) {
  std::string path = repository_lock_path(repository_path);
  TRY(sandbox::UniqueFd fd, lock(path, LOCK_SH));
  return RepositoryLock(std::move(fd), path);
}

Result<std::optional<RepositoryLock>> RepositoryLock::try_exclusive(const std::string& repository_path) {
  std::string path = repository_lock_path(repository_path);
  TRY(sandbox::UniqueFd fd, lock(path, LOCK_EX | LOCK_NB));
  if (!fd.valid()) return std::optional<RepositoryLock>();
  return std::optional<RepositoryLock>(RepositoryLock(std::move(fd), path));
}

bool RepositoryLock::held_by_others(const std::string& repository_path) {
  sandbox::UniqueFd fd(::open(repository_lock_path(repository_path).c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) return false;  // no lock file: nobody has opened the repository since its last gc
  return ::flock(fd.get(), LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
}

void RepositoryLock::remove_file() { ::unlink(path_.c_str()); }

}  // namespace candor::snapshot
