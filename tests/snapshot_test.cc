#include <doctest/doctest.h>

#include <filesystem>

#include "tests/test_support.h"
#include "verify/snapshot.h"

using namespace candor;
using candor::testing::make_temp_dir;
using candor::testing::read_file;
using candor::testing::run_command;
using candor::testing::write_file;
namespace fs = std::filesystem;

TEST_SUITE("verify") {
  TEST_CASE("scans report what changed since the last scan; diffs give sizes and line counts") {
    std::string store = make_temp_dir("store");
    std::string ws = make_temp_dir("ws");
    write_file(ws + "/a.txt", "one\ntwo\nthree\n");
    write_file(ws + "/b.txt", "bee\n");
    write_file(ws + "/sub/c.txt", "sea\n");
    auto snap = verify::SnapshotStore::open(store, ws);
    REQUIRE(snap.ok());
    auto s0 = (*snap)->scan();
    REQUIRE(s0.ok());
    CHECK(s0->changed_paths == std::vector<std::string>{"a.txt", "b.txt", "sub/c.txt"});  // first scan: all new

    auto idle = (*snap)->scan();
    REQUIRE(idle.ok());
    CHECK(idle->changed_paths.empty());
    CHECK(idle->tree == s0->tree);

    write_file(ws + "/a.txt", "one\n2\nthree\nfour\n");
    fs::remove(ws + "/b.txt");
    write_file(ws + "/sub/new.txt", "new\n");
    auto s1 = (*snap)->scan();
    REQUIRE(s1.ok());
    CHECK(s1->changed_paths == std::vector<std::string>{"a.txt", "b.txt", "sub/new.txt"});

    auto muts = (*snap)->diff(s0->tree, s1->tree);
    REQUIRE(muts.ok());
    REQUIRE(muts->size() == 3);
    const auto& a = (*muts)[0];
    CHECK(a.path == "a.txt");
    CHECK(a.change == "modified");
    CHECK(a.bytes_before == 14);
    CHECK(a.bytes_after == 17);
    CHECK(a.lines_added == 2);
    CHECK(a.lines_removed == 1);
    CHECK((*muts)[1].path == "b.txt");
    CHECK((*muts)[1].change == "deleted");
    CHECK((*muts)[1].bytes_before == 4);
    CHECK((*muts)[1].lines_removed == 1);
    CHECK((*muts)[2].change == "added");
    CHECK((*muts)[2].bytes_after == 4);

    CHECK((*snap)->read(s0->tree, "b.txt").value() == std::optional<std::string>("bee\n"));
    CHECK_FALSE((*snap)->read(s1->tree, "b.txt").value().has_value());
    auto patch = (*snap)->patch_text(s0->tree, s1->tree, "a.txt", 10000);
    REQUIRE(patch.ok());
    CHECK(patch->find("-two\n+2\n") != std::string::npos);
  }

  TEST_CASE("a same-size rewrite right after a scan is still seen") {
    std::string ws = make_temp_dir("ws");
    write_file(ws + "/f.txt", "aaaa\n");
    auto snap = verify::SnapshotStore::open(make_temp_dir("store"), ws);
    REQUIRE(snap.ok());
    REQUIRE((*snap)->scan().ok());
    for (int i = 0; i < 20; ++i) {
      write_file(ws + "/f.txt", std::string(4, static_cast<char>('b' + i)) + "\n");
      auto s = (*snap)->scan();
      REQUIRE(s.ok());
      CAPTURE(i);
      CHECK(s->changed_paths == std::vector<std::string>{"f.txt"});
    }
  }

  TEST_CASE("git workspaces: .gitignore is respected and the workspace's own .git is untouched") {
    std::string ws = make_temp_dir("repo");
    REQUIRE(run_command({"/usr/bin/git", "init", "-q", ws}).exit_code == 0);
    write_file(ws + "/.gitignore", "build/\n*.log\n");
    write_file(ws + "/src.c", "int main(){}\n");
    write_file(ws + "/build/out.o", "obj");
    write_file(ws + "/debug.log", "log");
    write_file(ws + "/.candor/config.json", "{}");
    auto git_before = candor::testing::tree_contents(ws + "/.git");
    std::string store = make_temp_dir("store");
    auto snap = verify::SnapshotStore::open(store, ws);
    REQUIRE(snap.ok());
    auto s0 = (*snap)->scan();
    REQUIRE(s0.ok());
    CHECK(s0->changed_paths == std::vector<std::string>{".gitignore", "src.c"});
    write_file(ws + "/build/more.o", "obj");
    write_file(ws + "/src.c", "int main(){return 0;}\n");
    auto s1 = (*snap)->scan();
    REQUIRE(s1.ok());
    CHECK(s1->changed_paths == std::vector<std::string>{"src.c"});
    CHECK(candor::testing::tree_contents(ws + "/.git") == git_before);
    CHECK_FALSE(candor::testing::exists(ws + "/.git/index"));
    CHECK(fs::exists((*snap)->repository_path() + "/index"));
    CHECK((*snap)->repository_path().rfind(store + "/snapshots/", 0) == 0);
  }

  TEST_CASE(".gitattributes filters do not alter what a snapshot holds") {
    std::string ws = make_temp_dir("ws");
    write_file(ws + "/.gitattributes", "* text=auto eol=lf\n");
    write_file(ws + "/crlf.txt", "a\r\nb\r\n");
    auto snap = verify::SnapshotStore::open(make_temp_dir("store"), ws);
    REQUIRE(snap.ok());
    auto s = (*snap)->scan();
    REQUIRE(s.ok());
    CHECK((*snap)->read(s->tree, "crlf.txt").value() == std::optional<std::string>("a\r\nb\r\n"));
  }

  TEST_CASE("the stat cache persists across opens: a second run's first scan reports only real changes") {
    std::string ws = make_temp_dir("ws");
    std::string store = make_temp_dir("store");
    for (int i = 0; i < 50; ++i) write_file(ws + "/f" + std::to_string(i), std::to_string(i));
    {
      auto snap = verify::SnapshotStore::open(store, ws);
      REQUIRE((*snap)->scan().ok());
    }
    write_file(ws + "/f7", "changed");
    auto snap = verify::SnapshotStore::open(store, ws);
    auto s = (*snap)->scan();
    REQUIRE(s.ok());
    CHECK(s->changed_paths == std::vector<std::string>{"f7"});
  }
}
