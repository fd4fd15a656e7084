#include "snapshot/ignore_shadow.h"

#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace candor::snapshot {
namespace {

namespace fs = std::filesystem;
constexpr std::string_view kPrefix = "ignore-";

// Removes ignore-<pid>-* folders whose process no longer exists (candor was killed).
void remove_leftovers(const std::string& parent) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(parent, ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind(kPrefix, 0) != 0) continue;
    long pid = std::strtol(name.c_str() + kPrefix.size(), nullptr, 10);
    if (pid > 0 && pid != ::getpid() && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      fs::remove_all(e.path(), ec);
    }
  }
}

}  // namespace

std::vector<std::string> remove_all_shadows(const std::string& parent) {
  std::vector<std::string> removed;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(parent, ec)) {
    if (e.path().filename().string().rfind(kPrefix, 0) != 0) continue;
    std::error_code rm;
    fs::remove_all(e.path(), rm);
    if (!rm) removed.push_back(e.path().string());
  }
  return removed;
}

Result<IgnoreShadow> IgnoreShadow::create(const std::string& parent) {
  remove_leftovers(parent);
  std::string templ = fmt::format("{}/{}{}-XXXXXX", parent, kPrefix, ::getpid());
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr) {
    return make_error(ErrorCode::kIo, fmt::format("snapshot: cannot create {}: {}", templ, std::strerror(errno)));
  }
  return IgnoreShadow(buf.data());
}

IgnoreShadow::~IgnoreShadow() {
  if (path_.empty()) return;
  std::error_code ec;
  fs::remove_all(path_, ec);
}

IgnoreShadow::IgnoreShadow(IgnoreShadow&& other) noexcept : path_(std::exchange(other.path_, std::string())) {}

IgnoreShadow& IgnoreShadow::operator=(IgnoreShadow&& other) noexcept {
  if (this != &other) {
    IgnoreShadow old(std::move(*this));
    path_ = std::exchange(other.path_, std::string());
  }
  return *this;
}

Entry::Kind IgnoreShadow::copy(const BeneathRoot& root, const std::string& rel) const {
  Entry e = root.look(rel);
  if (e.kind == Entry::Kind::kSymlink) return Entry::Kind::kGone;
  if (e.kind != Entry::Kind::kFile) return e.kind;
  std::string content;
  if (!read_to_end(e.fd.get(), content)) return Entry::Kind::kUnreadable;
  // A copy that failed to land would silently drop rules: count it as not read.
  return write(rel, content) ? Entry::Kind::kFile : Entry::Kind::kUnreadable;
}

bool IgnoreShadow::write(const std::string& rel, std::string_view content) const {
  fs::path to = fs::path(path_) / rel;
  std::error_code ec;
  fs::create_directories(to.parent_path(), ec);
  std::ofstream out(to, std::ios::binary | std::ios::trunc);
  out << content;
  out.close();
  return !ec && out;
}

}  // namespace candor::snapshot
