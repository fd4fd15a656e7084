#include <doctest/doctest.h>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>

#include "sandbox/workspace.h"
#include "tests/test_support.h"

using namespace candor;
using candor::testing::exists;
using candor::testing::make_temp_dir;
using candor::testing::read_file;
using candor::testing::write_file;
namespace fs = std::filesystem;

namespace {

struct Fixture {
  std::string outside;
  std::string root;
  std::unique_ptr<sandbox::Workspace> ws;
};

Fixture make_fixture(bool fallback, std::vector<std::string> protected_dirs = {}) {
  Fixture f;
  std::string base = make_temp_dir("ws");
  f.outside = base + "/outside";
  f.root = base + "/root";
  write_file(f.outside + "/secret.txt", "SECRET\n");
  write_file(f.root + "/a.txt", "alpha\n");
  write_file(f.root + "/sub/b.txt", "beta\n");
  write_file(f.root + "/.git/config", "[core]\n");
  fs::create_symlink(f.outside + "/secret.txt", f.root + "/link-out");
  fs::create_symlink(f.outside, f.root + "/dir-out");
  fs::create_symlink("a.txt", f.root + "/link-in");
  fs::create_symlink(".git", f.root + "/git-alias");
  for (auto& p : protected_dirs) p = f.root + "/" + p;
  auto ws =
      sandbox::Workspace::open(f.root, {.force_fallback = fallback, .protected_dirs = protected_dirs, .secrets = {}});
  REQUIRE(ws.ok());
  f.ws = std::move(ws.value());
  return f;
}

void check_refused(const Status& s, const std::string& words) {
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().code == ErrorCode::kRefused);
  CHECK(s.error().message.find(words) != std::string::npos);
}

template <typename T>
void check_refused(const Result<T>& r, const std::string& words) {
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kRefused);
  CHECK(r.error().message.find(words) != std::string::npos);
}

}  // namespace

TEST_SUITE("sandbox") {
  TEST_CASE("openat2 is used on this kernel, and the fallback walk can be forced") {
    auto f = make_fixture(false);
    CHECK(f.ws->uses_openat2());
    auto g = make_fixture(true);
    CHECK_FALSE(g.ws->uses_openat2());
  }

  TEST_CASE("paths are checked before any system call") {
    struct Row {
      std::string path, words;
    };
    for (const auto& row : std::vector<Row>{{"/etc/passwd", "absolute paths are not allowed"},
                                            {"../outside/secret.txt", "escapes the workspace"},
                                            {"sub/../../outside/secret.txt", "escapes the workspace"},
                                            {std::string("a.txt\0../x", 10), "NUL byte"},
                                            {"", "empty path"}}) {
      CAPTURE(row.path);
      check_refused(sandbox::Workspace::check_relative(row.path), row.words);
    }
    CHECK(sandbox::Workspace::check_relative("./sub//b.txt").value() == "sub/b.txt");
  }

  TEST_CASE("reads stay inside; symlinks out are refused in both modes") {
    for (bool fallback : {false, true}) {
      CAPTURE(fallback);
      auto f = make_fixture(fallback);
      CHECK(f.ws->read_file("sub/b.txt", 1000).value() == "beta\n");
      check_refused(f.ws->read_file("link-out", 1000),
                    fallback ? "symbolic links are not followed" : "outside the workspace");
      check_refused(f.ws->read_file("dir-out/secret.txt", 1000), fallback ? "symbolic links" : "outside the workspace");
      check_refused(f.ws->read_file("sub", 1000), "is a directory");
      auto missing = f.ws->read_file("nope.txt", 1000);
      REQUIRE_FALSE(missing.ok());
      CHECK(missing.error().code == ErrorCode::kNotFound);
      if (fallback) {
        check_refused(f.ws->read_file("link-in", 1000), "symbolic links");
      } else {
        CHECK(f.ws->read_file("link-in", 1000).value() == "alpha\n");
      }
    }
  }

  TEST_CASE("FIFOs and device files are refused without being opened") {
    auto f = make_fixture(false);
    REQUIRE(::mkfifo((f.root + "/pipe").c_str(), 0600) == 0);
    check_refused(f.ws->read_file("pipe", 100), "not a regular file");  // would block if opened
    if (::mknod((f.root + "/null").c_str(), S_IFCHR | 0600, makedev(1, 3)) == 0) {
      check_refused(f.ws->read_file("null", 100), "not a regular file");
      check_refused(f.ws->write_file("null", "x"), "not a regular file");
    } else {
      MESSAGE("mknod not permitted here; the device-file case is covered by the FIFO case only");
    }
  }

  TEST_CASE("writes are atomic, create parents, keep the mode, and leave no temp files") {
    for (bool fallback : {false, true}) {
      CAPTURE(fallback);
      auto f = make_fixture(fallback);
      ::chmod((f.root + "/a.txt").c_str(), 0640);
      REQUIRE(f.ws->write_file("a.txt", "new\n").ok());
      CHECK(read_file(f.root + "/a.txt") == "new\n");
      struct stat st {};
      ::stat((f.root + "/a.txt").c_str(), &st);
      CHECK((st.st_mode & 0777) == 0640);
      REQUIRE(f.ws->write_file("deep/er/c.txt", "c").ok());
      CHECK(read_file(f.root + "/deep/er/c.txt") == "c");
      for (const auto& e : fs::recursive_directory_iterator(f.root)) {
        CHECK(e.path().filename().string().rfind(".candor-tmp-", 0) == std::string::npos);
      }
    }
  }

  TEST_CASE("writes never reach .git, .candor, a protected store, or through symlinks") {
    for (bool fallback : {false, true}) {
      CAPTURE(fallback);
      auto f = make_fixture(fallback, {"store"});
      fs::create_directories(f.root + "/store");
      auto g = sandbox::Workspace::open(
          f.root, {.force_fallback = fallback, .protected_dirs = {f.root + "/store"}, .secrets = {}});
      REQUIRE(g.ok());
      const auto& ws = **g;
      check_refused(ws.write_file(".git/config", "x"), "writes beneath .git/ are not allowed");
      check_refused(ws.write_file("sub/.git/hooks/pre-commit", "x"), "writes beneath .git/");
      check_refused(ws.write_file(".candor/config.json", "{}"), "writes beneath .candor/ are not allowed");
      check_refused(ws.delete_file(".git/config"), ".git/");
      check_refused(ws.write_file("store/candor.db", "x"), "protected directory");
      CHECK_FALSE(exists(f.root + "/store/candor.db"));
      auto alias = ws.write_file("git-alias/config", "x");
      REQUIRE_FALSE(alias.ok());
      CHECK(read_file(f.root + "/.git/config") == "[core]\n");
      check_refused(ws.write_file("link-out", "x"), "is a symbolic link");
      CHECK(read_file(f.outside + "/secret.txt") == "SECRET\n");
      CHECK(ws.write_file("dir-out/new.txt", "x").ok() == false);
      CHECK_FALSE(exists(f.outside + "/new.txt"));
      check_refused(ws.write_file(".", "x"), "the workspace itself");
    }
  }

  TEST_CASE("delete removes files only") {
    auto f = make_fixture(false);
    REQUIRE(f.ws->delete_file("sub/b.txt").ok());
    CHECK_FALSE(exists(f.root + "/sub/b.txt"));
    check_refused(f.ws->delete_file("sub"), "is a directory");
    REQUIRE(f.ws->delete_file("link-out").ok());  // removes the link, not its target
    CHECK(read_file(f.outside + "/secret.txt") == "SECRET\n");
  }

  TEST_CASE("walk lists sorted entries, skips .git and does not follow symlinks") {
    auto f = make_fixture(false);
    std::vector<std::string> seen;
    REQUIRE(f.ws->walk(".", 5,
                       [&](const sandbox::WalkEntry& e) {
                         seen.push_back(e.path);
                         return true;
                       })
                .ok());
    CHECK(seen == std::vector<std::string>{"a.txt", "dir-out", "git-alias", "link-in", "link-out", "sub", "sub/b.txt"});
    std::vector<std::string> shallow;
    REQUIRE(f.ws->walk(".", 1,
                       [&](const sandbox::WalkEntry& e) {
                         shallow.push_back(e.path);
                         return true;
                       })
                .ok());
    CHECK(std::find(shallow.begin(), shallow.end(), "sub/b.txt") == shallow.end());
  }
}
