#include "app/file_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

namespace candor::app {

Status write_file_atomically(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p(path);
  fs::create_directories(p.parent_path(), ec);
  if (ec)
    return make_error(ErrorCode::kIo, fmt::format("cannot create {}: {}", p.parent_path().string(), ec.message()));
  mode_t mode = 0644;
  if (struct stat st{}; ::stat(path.c_str(), &st) == 0) mode = st.st_mode & 07777;
  std::string tmp = path + fmt::format(".candor-{}.tmp", ::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) return make_error(ErrorCode::kIo, fmt::format("cannot write {}: {}", tmp, std::strerror(errno)));
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) && ::fsync(fd) == 0;
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return make_error(ErrorCode::kIo, fmt::format("cannot write {}: {}", path, std::strerror(err)));
  }
  return ok_status();
}

}  // namespace candor::app
