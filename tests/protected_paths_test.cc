#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "snapshot/store.h"
#include "tests/test_support.h"

using namespace candor;
using candor::testing::git;
using candor::testing::make_temp_dir;
using candor::testing::run_command;
using candor::testing::write_file;
using snapshot::ProtectedState;
using snapshot::StatFingerprint;
namespace fs = std::filesystem;

namespace {

StatFingerprint file(std::int64_t size, std::int64_t mtime = 1, std::uint64_t inode = 10, std::uint32_t mode = 0644) {
  return {'f', size, mode, mtime, mtime, inode};
}
StatFingerprint folder(std::uint64_t inode = 20, std::int64_t mtime = 1) {
  return {'d', 4096, 0755, mtime, mtime, inode};
}

// A repository as git leaves it after `git init` and one commit.
ProtectedState base() {
  ProtectedState s;
  s.entries = {{".git", folder(1)},
               {".git/HEAD", file(21, 1, 2)},
               {".git/config", file(92, 1, 3)},
               {".git/index", file(100, 1, 4)},
               {".git/hooks", folder(5)},
               {".git/hooks/pre-commit.sample", file(300, 1, 6, 0755)},
               {".git/objects", StatFingerprint{.type = 'd'}},
               {".git/refs", folder(7)},
               {".git/refs/heads", folder(8)},
               {".git/refs/heads/main", file(41, 1, 9)},
               {".git/logs", folder(10)},
               {".git/logs/HEAD", file(150, 1, 11)},
               {".candor", folder(12)}};
  return s;
}

struct Row {
  const char* name;
  void (*change)(ProtectedState&);
  bool history_recorded;
  std::vector<std::string> expected;
};

}  // namespace

TEST_SUITE("verify") {
  TEST_CASE("protected paths: each change is one sentence; a recorded commit may touch only its history") {
    const std::vector<Row> rows = {
        {"nothing changed", [](ProtectedState&) {}, false, {}},
        {"config created",
         [](ProtectedState& s) { s.entries[".candor/config.json"] = file(10); },
         false,
         {"`.candor/config.json` was created during the run"}},
        {"hook created",
         [](ProtectedState& s) { s.entries[".git/hooks/pre-commit"] = file(50, 9, 99, 0755); },
         true,
         {"`.git/hooks/pre-commit` was created during the run"}},
        {"hook rewritten",
         [](ProtectedState& s) { s.entries[".git/hooks/pre-commit.sample"].mtime_ns = 5; },
         false,
         {"`.git/hooks/pre-commit.sample` was modified"}},
        {"hook replaced by rename, same size and times",
         [](ProtectedState& s) { s.entries[".git/hooks/pre-commit.sample"].inode = 77; },
         false,
         {"`.git/hooks/pre-commit.sample` was modified"}},
        {"chmod",
         [](ProtectedState& s) {
           s.entries[".git/config"].mode = 0600;
           s.entries[".git/config"].ctime_ns = 8;
         },
         false,
         {"`.git/config` had its permissions changed"}},
        {"config deleted",
         [](ProtectedState& s) { s.entries.erase(".git/config"); },
         false,
         {"`.git/config` was deleted during the run"}},
        {"hooks folder became a symlink",
         [](ProtectedState& s) {
           s.entries.erase(".git/hooks/pre-commit.sample");
           s.entries[".git/hooks"] = {'l', 10, 0777, 5, 5, 55};
         },
         false,
         {"`.git/hooks` was replaced by a symlink"}},
        {".git deleted: one sentence",
         [](ProtectedState& s) {
           for (auto it = s.entries.begin(); it != s.entries.end();)
             it = it->first.rfind(".git", 0) == 0 ? s.entries.erase(it) : std::next(it);
         },
         false,
         {"`.git` was deleted during the run"}},
        {"a folder's times move when an entry comes and goes: no sentence",
         [](ProtectedState& s) {
           s.entries[".git"].mtime_ns = 99;
           s.entries[".git"].ctime_ns = 99;
         },
         false,
         {}},
        {"commit history without a commit step",
         [](ProtectedState& s) {
           s.entries[".git/index"].mtime_ns = 5;
           s.entries[".git/refs/heads/main"].mtime_ns = 5;
         },
         false,
         {"`.git/index` was modified", "`.git/refs/heads/main` was modified"}},
        {"commit history with a commit step",
         [](ProtectedState& s) {
           s.entries[".git/index"].mtime_ns = 5;
           s.entries[".git/refs/heads/main"].mtime_ns = 5;
           s.entries[".git/refs/heads/topic"] = file(41);
           s.entries[".git/logs/HEAD"].size = 300;
           s.entries[".git/logs/refs"] = folder(30);
           s.entries[".git/logs/refs/heads/main"] = file(150);
           s.entries[".git/COMMIT_EDITMSG"] = file(6);
           s.entries[".git/ORIG_HEAD"] = file(41);
           s.entries[".git/packed-refs"] = file(100);
         },
         true,
         {}},
        {"a commit step does not excuse HEAD, config or tags",
         [](ProtectedState& s) {
           s.entries[".git/HEAD"].size = 30;
           s.entries[".git/config"].mtime_ns = 5;
           s.entries[".git/refs/tags"] = folder(31);
         },
         true,
         {"`.git/HEAD` was modified", "`.git/config` was modified", "`.git/refs/tags` was created during the run"}},
        {"an unreadable folder",
         [](ProtectedState& s) { s.unread.push_back(".git/refs/"); },
         false,
         {"`.git/refs/` could not be read, so a change to it cannot be ruled out"}},
    };
    for (const auto& row : rows) {
      CAPTURE(row.name);
      ProtectedState after = base();
      row.change(after);
      CHECK(snapshot::protected_changes(base(), after, row.history_recorded) == row.expected);
    }
    ProtectedState none;
    CHECK(snapshot::protected_changes(none, base(), false) ==
          std::vector<std::string>{"`.candor` was created during the run", "`.git` was created during the run"});
  }

  TEST_CASE(
      "protected paths: a capture on a real repository sees hooks, config, objects/info and .candor, but not objects") {
    std::string ws = make_temp_dir("ws");
    REQUIRE(run_command({"/usr/bin/git", "init", "-q", ws}).exit_code == 0);
    write_file(ws + "/a.txt", "a\n");
    auto before = snapshot::capture_protected_state(ws);
    REQUIRE(before.ok());
    CHECK(before->entries.count(".git/HEAD") == 1);
    CHECK(before->entries.count(".candor") == 0);
    CHECK(before->unread.empty());

    // A commit writes objects, the index, refs and logs; nothing else a check should flag.
    git(ws, {"add", "a.txt"});
    git(ws, {"commit", "-q", "-m", "one"});
    auto committed = snapshot::capture_protected_state(ws);
    REQUIRE(committed.ok());
    for (const auto& [path, f] : committed->entries) {
      CHECK((path.rfind(".git/objects/", 0) != 0 || path.rfind(".git/objects/info", 0) == 0));
    }
    CHECK(committed->entries.count(".git/objects/info") == 1);
    CHECK(snapshot::protected_changes(*before, *committed, true).empty());
    CHECK_FALSE(snapshot::protected_changes(*before, *committed, false).empty());

    write_file(ws + "/.git/hooks/pre-commit", "#!/bin/sh\ncurl evil\n");
    write_file(ws + "/.git/objects/info/alternates", "/elsewhere/objects\n");
    write_file(ws + "/.candor/config.json", "{}");
    auto after = snapshot::capture_protected_state(ws);
    REQUIRE(after.ok());
    CHECK(snapshot::protected_changes(*committed, *after, true) ==
          std::vector<std::string>{"`.candor` was created during the run",
                                   "`.git/hooks/pre-commit` was created during the run",
                                   "`.git/objects/info/alternates` was created during the run"});
  }
}
