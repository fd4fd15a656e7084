// SnapshotStore::scan_paths: after a step of candor's own file tools, looking only at the paths the
// tool wrote must give what a scan of the whole workspace gives.
#include <doctest/doctest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "snapshot/store.h"
#include "tests/test_support.h"

using namespace candor;
using candor::testing::make_temp_dir;
using candor::testing::run_command;
using candor::testing::write_file;
namespace fs = std::filesystem;

namespace {

std::unique_ptr<snapshot::SnapshotStore> first_scanned(const std::string& ws) {
  auto snap = snapshot::SnapshotStore::open(make_temp_dir("store"), ws, system_clock());
  REQUIRE(snap.ok());
  REQUIRE((*snap)->scan().ok());
  REQUIRE((*snap)->freeze_ignore_rules({}).ok());
  return std::move(snap.value());
}

std::vector<std::string> scanned(Result<std::vector<std::string>> r) {
  REQUIRE(r.ok());
  return *r;
}

}  // namespace

TEST_SUITE("verify") {
  TEST_CASE("a scan of the paths a tool wrote agrees with a scan of everything, through many kinds of write") {
    std::string ws = make_temp_dir("ws");
    REQUIRE(run_command({"/usr/bin/git", "init", "-q", ws}).exit_code == 0);
    write_file(ws + "/.gitignore", "build/\n*.log\n!keep.log\n");
    write_file(ws + "/src/a.txt", "a\n");
    write_file(ws + "/build/out.o", "obj\n");
    write_file(ws + "/vendor/lib/file.c", "c\n");
    REQUIRE(run_command({"/usr/bin/git", "init", "-q", ws + "/vendor/lib"}).exit_code == 0);
    auto targeted = first_scanned(ws);
    auto full = first_scanned(ws);
    REQUIRE(targeted->write_tree().value() == full->write_tree().value());

    // What file_write, file_patch and file_delete can do: create (in new folders too), rewrite,
    // delete; in tracked, ignored, re-included and nested-repository places, and .gitignore itself.
    const std::vector<std::string> paths = {"src/a.txt",       "src/b.txt",         "new/deep/c.txt",   "build/x.o",
                                            "build/sub/y.txt", "debug.log",         "keep.log",         "src/keep.log",
                                            ".gitignore",      "vendor/lib/file.c", "vendor/lib/new.c", "top.txt"};
    std::mt19937 rng(15);
    for (int i = 0; i < 120; ++i) {
      const std::string& path = paths[rng() % paths.size()];
      CAPTURE(i);
      CAPTURE(path);
      if (rng() % 4 == 0) {
        fs::remove(ws + "/" + path);
      } else {
        write_file(ws + "/" + path, std::string(rng() % 3, 'x') + std::to_string(rng() % 5) + "\n");
      }
      // A tool's write is held wherever it lands, under a path .gitignore ignores too.
      CHECK(scanned(targeted->scan_paths({path})) == scanned(full->scan({path})));
      CHECK(targeted->write_tree().value() == full->write_tree().value());
    }
    CHECK(targeted->unread().empty());
  }

  TEST_CASE("a path written through a symlinked folder is found where it landed: the whole workspace is scanned") {
    std::string ws = make_temp_dir("ws");
    write_file(ws + "/real/a.txt", "a\n");
    fs::create_directory_symlink("real", ws + "/link");
    auto snap = first_scanned(ws);
    write_file(ws + "/link/x.txt", "through the link\n");  // as a tool resolving link/ would
    CHECK(scanned(snap->scan_paths({"link/x.txt"})) == std::vector<std::string>{"real/x.txt"});
    // A folder that is gone (the tool failed, or something removed it) is no proof either.
    write_file(ws + "/real/b.txt", "b\n");
    CHECK(scanned(snap->scan_paths({"gone/x.txt"})) == std::vector<std::string>{"real/b.txt"});
  }

  TEST_CASE("a named path that did not change is no change; the workspace itself or .git names nothing to skip") {
    std::string ws = make_temp_dir("ws");
    write_file(ws + "/a.txt", "a\n");
    auto snap = first_scanned(ws);
    CHECK(scanned(snap->scan_paths({"a.txt"})).empty());
    CHECK(scanned(snap->scan_paths({})).empty());
    write_file(ws + "/other.txt", "written by something else\n");
    CHECK(scanned(snap->scan_paths({".git/config"})).empty());  // no snapshot holds .git
    // "." is no file a tool writes: the whole workspace is looked at.
    CHECK(scanned(snap->scan_paths({"."})) == std::vector<std::string>{"other.txt"});
  }
}

TEST_SUITE("verify") {
  TEST_CASE("a name git refuses to hold (.GIT, git~1, .git.) is named as unread; the scan goes on and holds the rest") {
    std::string ws = make_temp_dir("ws");
    const std::vector<std::string> refused = {".GIT/config", ".Git/x", ".git./h", "GIT~1/z", "git~1/y"};  // sorted
    const std::vector<std::string> held = {".git~1/i", "a/.gitmodules", "con/aux.txt", "dot./f", "space /g"};
    for (const auto& n : refused) write_file(ws + "/" + n, n + "\n");
    for (const auto& n : held) write_file(ws + "/" + n, n + "\n");
    auto snap = snapshot::SnapshotStore::open(make_temp_dir("store"), ws, system_clock());
    REQUIRE(snap.ok());
    CHECK(scanned((*snap)->scan()) == held);
    CHECK((*snap)->unread() == refused);
    std::string tree = (*snap)->write_tree().value();
    for (const auto& n : held) {
      CAPTURE(n);
      CHECK((*snap)->read(tree, n).value() == std::optional<std::string>(n + "\n"));
    }
    // Written after the first scan (by a step, say), on either kind of scan: unread again, no error.
    write_file(ws + "/GIT~1/new", "new\n");
    write_file(ws + "/dot./f", "changed\n");
    CHECK(scanned((*snap)->scan()) == std::vector<std::string>{"dot./f"});
    write_file(ws + "/.GIT/more", "more\n");
    CHECK(scanned((*snap)->scan_paths({".GIT/more"})).empty());
    CHECK(std::count((*snap)->unread().begin(), (*snap)->unread().end(), ".GIT/more") == 1);
    CHECK(std::count((*snap)->unread().begin(), (*snap)->unread().end(), "GIT~1/new") == 1);
  }
}
