#include "executor/runner_logs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string_view>
#include <vector>

#include "sandbox/unique_fd.h"

namespace candor::executor {
namespace {

namespace fs = std::filesystem;

bool is_runner_log(const fs::path& p) {
  std::string name = p.filename().string();
  std::string parent = p.parent_path().filename().string();
  if (parent == "meson-logs") return name == "testlog.txt";
  if (parent != "Temporary" || p.parent_path().parent_path().filename() != "Testing") return false;
  return name.rfind("LastTest", 0) == 0 && name.size() > 4 && name.substr(name.size() - 4) == ".log";
}

// The log's last `cap` bytes, when it is a regular file written at or after `since`; "" otherwise.
std::string read_log(const fs::path& p, std::chrono::system_clock::time_point since, std::size_t cap) {
  sandbox::UniqueFd fd(::open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
  auto written = std::chrono::system_clock::time_point(std::chrono::seconds(st.st_mtim.tv_sec) +
                                                       std::chrono::nanoseconds(st.st_mtim.tv_nsec));
  // A log the checkout held (the change committed one) was not written by this run.
  if (written + std::chrono::seconds(1) < since) return "";
  off_t from = st.st_size > static_cast<off_t>(cap) ? st.st_size - static_cast<off_t>(cap) : 0;
  std::string out(static_cast<std::size_t>(st.st_size - from), '\0');
  ssize_t n = ::pread(fd.get(), out.data(), out.size(), from);
  out.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return out;
}

}  // namespace

std::string runner_logs(const std::string& folder, std::chrono::system_clock::time_point since) {
  std::string out;
  std::error_code ec;
  // Never follows a symbolic link (the default of the iterator): a link the command left points
  // anywhere.
  fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec);
  std::size_t seen = 0;
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (++seen > kMaxLogEntries || out.size() >= kMaxTotalLogBytes) break;
    if (it.depth() >= kMaxLogDepth) it.disable_recursion_pending();
    if (it->is_symlink(ec) || !it->is_regular_file(ec) || !is_runner_log(it->path())) continue;
    std::string log = read_log(it->path(), since, std::min(kMaxLogBytes, kMaxTotalLogBytes - out.size()));
    if (!log.empty()) out += log + "\n";
  }
  return out;
}

}  // namespace candor::executor
