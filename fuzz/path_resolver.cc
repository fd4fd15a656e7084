// libFuzzer target: the path resolver. Whatever path a tool is given, nothing outside the
// workspace is ever opened: every file the resolver hands back is checked, through /proc, to lie
// beneath the root. Both resolution modes (openat2 and the O_NOFOLLOW walk) are exercised.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "sandbox/workspace.h"

using namespace candor;

namespace {

struct Fixture {
  std::string root;
  std::unique_ptr<sandbox::Workspace> fast, walk;

  Fixture() {
    char tmpl[] = "/tmp/candor-fuzz-XXXXXX";
    std::string base = ::mkdtemp(tmpl);
    root = base + "/ws";
    std::filesystem::create_directories(root + "/dir/sub");
    std::filesystem::create_directories(root + "/.git");
    std::ofstream(root + "/a.txt") << "inside\n";
    std::ofstream(root + "/dir/sub/b.txt") << "inside\n";
    std::ofstream(base + "/outside.txt") << "outside\n";
    std::filesystem::create_symlink("../outside.txt", root + "/escape");
    std::filesystem::create_symlink("/etc/passwd", root + "/absolute");
    std::filesystem::create_symlink("dir/sub", root + "/inner");
    auto a = sandbox::Workspace::open(root, {.force_fallback = false, .protected_dirs = {}, .secrets = {}});
    auto b = sandbox::Workspace::open(root, {.force_fallback = true, .protected_dirs = {}, .secrets = {}});
    if (!a.ok() || !b.ok()) __builtin_trap();
    fast = std::move(a.value());
    walk = std::move(b.value());
    root = fast->root();
  }
};

void check_beneath(const std::string& root, int fd) {
  char target[4096];
  std::string link = "/proc/self/fd/" + std::to_string(fd);
  ssize_t n = ::readlink(link.c_str(), target, sizeof(target) - 1);
  if (n <= 0) __builtin_trap();
  std::string path(target, static_cast<std::size_t>(n));
  if (path != root && path.compare(0, root.size() + 1, root + "/") != 0) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Fixture f;
  std::string path(reinterpret_cast<const char*>(data), size);
  auto rel = sandbox::Workspace::check_relative(path);
  if (rel.ok()) {
    if (!rel->empty() && rel->front() == '/') __builtin_trap();
    if (*rel == ".." || rel->rfind("../", 0) == 0) __builtin_trap();
  }
  for (const auto* ws : {f.fast.get(), f.walk.get()}) {
    auto file = ws->open_regular_file(path);
    if (file.ok()) check_beneath(f.root, file->get());
    auto dir = ws->open_directory(path);
    if (dir.ok()) check_beneath(f.root, dir->get());
    (void)ws->stat(path);
  }
  return 0;
}
