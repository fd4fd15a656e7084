// A run begun by one process and ended by another (SnapshotStore::resume): what the live gate's
// turns rely on. The second process sees every change against the first's snapshot, with the
// ignore rules of the start, and never a .gitignore written since.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "snapshot/store.h"
#include "tests/test_support.h"

namespace candor::testing {
namespace {

namespace fs = std::filesystem;

// The snapshot at a turn's start, as `candor gate` takes it: scan, freeze, tree, pin, flush.
std::string start(const std::string& store, const std::string& ws, const std::vector<std::string>& ignore = {}) {
  auto snap = snapshot::SnapshotStore::open(store, ws, system_clock(), ignore);
  REQUIRE(snap.ok());
  REQUIRE((*snap)->scan().ok());
  REQUIRE((*snap)->freeze_ignore_rules(ignore).ok());
  std::string tree = (*snap)->write_tree().value();
  REQUIRE((*snap)->pin(tree, "runs/test/before").ok());
  REQUIRE((*snap)->flush().ok());
  return tree;
}

// The changes since `before`, as a later process sees them.
std::vector<std::string> changes(const std::string& store, const std::string& ws, const std::string& before,
                                 const std::vector<std::string>& ignore = {}) {
  auto snap = snapshot::SnapshotStore::open(store, ws, system_clock(), ignore);
  REQUIRE(snap.ok());
  REQUIRE((*snap)->resume(before, ignore).ok());
  REQUIRE((*snap)->scan().ok());
  std::string after = (*snap)->write_tree().value();
  auto diff = (*snap)->diff(before, after);
  REQUIRE(diff.ok());
  std::vector<std::string> out;
  for (const auto& m : *diff) out.push_back(m.path + " " + m.change);
  CHECK((*snap)->created_folders().empty());  // a new process knows no folder modes of the start
  return out;
}

}  // namespace

TEST_SUITE("verify") {
  TEST_CASE("resume: a later process sees what changed since the start's snapshot") {
    std::string store = make_temp_dir("store");
    std::string ws = make_workspace({{"a.txt", "one\n"}, {"b.txt", "bee\n"}, {"sub/c.txt", "sea\n"}});
    std::string before = start(store, ws);
    write_file(ws + "/a.txt", "ONE\n");
    fs::remove(ws + "/b.txt");
    write_file(ws + "/sub/d.txt", "dee\n");
    CHECK(changes(store, ws, before) == std::vector<std::string>{"a.txt modified", "b.txt deleted", "sub/d.txt added"});
    // Nothing changed: an empty diff, the same tree.
    std::string again = start(store, ws);
    CHECK(changes(store, ws, again).empty());
  }

  TEST_CASE("resume: the start's .gitignore decides; one the agent writes later hides nothing") {
    std::string store = make_temp_dir("store");
    std::string ws = make_workspace({{".gitignore", "build/\n"}, {"src/x.c", "int x;\n"}, {"build/old.o", "o\n"}});
    std::string before = start(store, ws);
    write_file(ws + "/build/new.o", "n\n");        // build output, ignored at the start: unlisted
    write_file(ws + "/build/old.o", "changed\n");  // existed at the start: watched
    write_file(ws + "/secret-plan.txt", "x\n");
    write_file(ws + "/.gitignore", "build/\nsecret-plan.txt\n");  // written to hide it
    CHECK(changes(store, ws, before) ==
          std::vector<std::string>{".gitignore modified", "build/old.o modified", "secret-plan.txt added"});
  }

  TEST_CASE("resume: correct when another process saved a different index in between") {
    std::string store = make_temp_dir("store");
    std::string ws = make_workspace({{"a.txt", "one\n"}, {"b.txt", "bee\n"}});
    std::string before = start(store, ws);
    write_file(ws + "/a.txt", "two\n");
    write_file(ws + "/c.txt", "sea\n");
    start(store, ws);  // a later turn's start (another session) saves its own index
    write_file(ws + "/a.txt", "three\n");
    CHECK(changes(store, ws, before) == std::vector<std::string>{"a.txt modified", "c.txt added"});
    // An index lost altogether: every file is read again, with the same answer.
    fs::remove(snapshot::snapshot_repository_path(store, ws) + "/index");
    CHECK(changes(store, ws, before) == std::vector<std::string>{"a.txt modified", "c.txt added"});
  }

  TEST_CASE("resume: from a saved index far from the start's snapshot, files become folders, links, and back") {
    std::string store = make_temp_dir("store");
    std::string ws = make_workspace({{"a.txt", "one\n"},
                                     {"dir/x.txt", "x\n"},
                                     {"dir/deep/y.txt", "y\n"},
                                     {"f", "file\n"},
                                     {"run.sh", "#!/bin/sh\n"},
                                     {"same/s.txt", "s\n"}});
    fs::create_symlink("a.txt", ws + "/link");
    std::string before = start(store, ws);
    // Another turn's start saves an index of a workspace changed in kind everywhere: the resumed
    // index must hold exactly `before` again, the unchanged folder keeping its stat data.
    fs::remove_all(ws + "/dir");
    write_file(ws + "/dir", "now a file\n");
    fs::remove(ws + "/f");
    write_file(ws + "/f/inside.txt", "now a folder\n");
    fs::remove(ws + "/link");
    fs::create_symlink("f", ws + "/link");
    fs::permissions(ws + "/run.sh", fs::perms::owner_exec, fs::perm_options::add);
    write_file(ws + "/new.txt", "new\n");
    start(store, ws);
    {
      // Resumed, before any scan, the index holds exactly the start's files.
      auto snap = snapshot::SnapshotStore::open(store, ws, system_clock());
      REQUIRE(snap.ok());
      REQUIRE((*snap)->resume(before, {}).ok());
      CHECK((*snap)->held_paths([](std::string_view) { return true; }) ==
            std::vector<std::string>{"a.txt", "dir/deep/y.txt", "dir/x.txt", "f", "link", "run.sh", "same/s.txt"});
    }
    CHECK(changes(store, ws, before) == std::vector<std::string>{"dir added", "dir/deep/y.txt deleted",
                                                                 "dir/x.txt deleted", "f deleted", "f/inside.txt added",
                                                                 "link modified", "new.txt added", "run.sh mode"});
    // Put back as it was: nothing changed since the start, though the saved index says otherwise.
    fs::remove(ws + "/dir");
    write_file(ws + "/dir/x.txt", "x\n");
    write_file(ws + "/dir/deep/y.txt", "y\n");
    fs::remove_all(ws + "/f");
    write_file(ws + "/f", "file\n");
    fs::remove(ws + "/link");
    fs::create_symlink("a.txt", ws + "/link");
    fs::permissions(ws + "/run.sh", fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::remove);
    fs::remove(ws + "/new.txt");
    CHECK(changes(store, ws, before).empty());
  }

  TEST_CASE("resume: config snapshot.ignore of the start still leaves its paths out; resume after a scan is refused") {
    std::string store = make_temp_dir("store");
    std::string ws = make_workspace({{"keep.txt", "k\n"}, {"cache/a", "a\n"}});
    std::string before = start(store, ws, {"cache/"});
    write_file(ws + "/cache/b", "b\n");
    write_file(ws + "/keep.txt", "K\n");
    CHECK(changes(store, ws, before, {"cache/"}) == std::vector<std::string>{"keep.txt modified"});
    auto snap = snapshot::SnapshotStore::open(store, ws, system_clock());
    REQUIRE(snap.ok());
    REQUIRE((*snap)->scan().ok());
    CHECK_FALSE((*snap)->resume(before, {}).ok());
  }

  TEST_CASE("protected-path captures survive JSON; an agent's own git history is not a finding, its hooks are") {
    std::string ws = make_workspace({{".git/HEAD", "ref: refs/heads/main\n"},
                                     {".git/config", "[core]\n"},
                                     {".git/refs/heads/main", "abc\n"},
                                     {".candor/config.json", "{}"}});
    auto before = snapshot::capture_protected_state(ws);
    REQUIRE(before.ok());
    snapshot::ProtectedState round = snapshot::protected_state_from_json(snapshot::to_json(*before));
    CHECK(round.entries == before->entries);
    write_file(ws + "/.git/refs/heads/main", "def0\n");
    write_file(ws + "/.git/refs/remotes/origin/main", "def0\n");
    write_file(ws + "/.git/FETCH_HEAD", "x\n");
    write_file(ws + "/.git/hooks/pre-commit", "#!/bin/sh\n");
    write_file(ws + "/.candor/config.json", "{\"expect\": []}");
    auto after = snapshot::capture_protected_state(ws);
    REQUIRE(after.ok());
    auto found = snapshot::protected_changes_by_agent(round, *after);
    std::string all;
    for (const auto& f : found) all += f + "\n";
    CAPTURE(all);
    CHECK(all.find(".git/hooks") != std::string::npos);
    CHECK(all.find(".candor/config.json` was modified") != std::string::npos);
    CHECK(all.find("refs/heads") == std::string::npos);
    CHECK(all.find("refs/remotes") == std::string::npos);
    CHECK(all.find("FETCH_HEAD") == std::string::npos);
    CHECK(snapshot::protected_state_from_json(nlohmann::json::array()).entries.empty());
  }
}

}  // namespace candor::testing
