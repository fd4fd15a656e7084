#include "core/disk_usage.h"

#include <sys/stat.h>

#include <filesystem>

#include <fmt/format.h>

namespace candor {

namespace {

void add_beneath(const std::filesystem::path& p, DiskUsage& out) {
  struct stat st {};
  if (::lstat(p.c_str(), &st) != 0) return;  // gone meanwhile (or never there)
  out.bytes += static_cast<std::uint64_t>(st.st_blocks) * 512;
  if (S_ISREG(st.st_mode)) ++out.files;
  if (!S_ISDIR(st.st_mode)) return;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec))
    add_beneath(it->path(), out);
}

}  // namespace

DiskUsage disk_usage(const std::string& path) {
  DiskUsage out;
  add_beneath(path, out);
  return out;
}

std::string human_bytes(std::uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  double v = static_cast<double>(bytes) / 1024;
  for (const char* unit : {"KiB", "MiB", "GiB"}) {
    if (v < 1024 || std::string(unit) == "GiB")
      return v < 10 ? fmt::format("{:.2f} {}", v, unit) : fmt::format("{:.1f} {}", v, unit);
    v /= 1024;
  }
  return fmt::format("{} B", bytes);
}

}  // namespace candor
