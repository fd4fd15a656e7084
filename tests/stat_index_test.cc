// StatIndex: the snapshot store's index, read and written in git's own format without libgit2.
// git itself is the judge of what is written, and what git writes must read back.
#include <doctest/doctest.h>

#include <git2.h>

#include <filesystem>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "snapshot/git_names.h"
#include "snapshot/git_ptr.h"
#include "snapshot/stat_index.h"
#include "snapshot/store.h"
#include "tests/test_support.h"

using namespace candor;
using candor::testing::make_temp_dir;
using candor::testing::make_workspace;
using candor::testing::read_file;
using candor::testing::run_command;
using candor::testing::write_file;
using snapshot::StatEntry;
using snapshot::StatIndex;
namespace fs = std::filesystem;

namespace {

std::string hex(const git_oid& id) {
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof buf, &id);
  return buf;
}

StatEntry entry(std::string_view path, std::uint32_t n, std::uint32_t mode = 0100644) {
  StatEntry e;
  e.ctime_s = 1700000000 + n;
  e.ctime_ns = n * 7;
  e.mtime_s = 1600000000 + n;
  e.mtime_ns = n * 11;
  e.dev = 2049;
  e.ino = 1000 + n;
  e.mode = mode;
  e.uid = 1000;
  e.gid = 100 + n;
  e.size = n * 3;
  e.id = candor::testing::blob_id(std::string(path) + std::to_string(n));
  e.path = path;
  return e;
}

// `git ls-files -s` of `index_file`, as git prints it: "<mode> <id> <stage>\t<path>" a line.
std::string git_ls_files(const std::string& index_file) {
  std::string repo = make_temp_dir("ls");
  REQUIRE(run_command({"/usr/bin/git", "init", "-q", repo}).exit_code == 0);
  auto r = run_command({"/usr/bin/git", "-C", repo, "ls-files", "-s", "-z"}, {"GIT_INDEX_FILE=" + index_file});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::string out = r.out;
  for (char& c : out) {
    if (c == '\0') c = '\n';
  }
  return out;
}

std::string expected_ls(const StatIndex& index) {
  std::string out;
  for (std::size_t i = 0; i < index.size(); ++i) {
    const StatEntry& e = index.at(i);
    std::ostringstream mode;
    mode << std::oct << e.mode;
    out += mode.str() + " " + hex(e.id) + " 0\t" + std::string(e.path) + "\n";
  }
  return out;
}

void check_same(const StatEntry& a, const StatEntry& b) {
  CHECK(a.path == b.path);
  CHECK(a.ctime_s == b.ctime_s);
  CHECK(a.ctime_ns == b.ctime_ns);
  CHECK(a.mtime_s == b.mtime_s);
  CHECK(a.mtime_ns == b.mtime_ns);
  CHECK(a.dev == b.dev);
  CHECK(a.ino == b.ino);
  CHECK(a.mode == b.mode);
  CHECK(a.uid == b.uid);
  CHECK(a.gid == b.gid);
  CHECK(a.size == b.size);
  CHECK(git_oid_equal(&a.id, &b.id));
}

}  // namespace

TEST_SUITE("verify") {
  TEST_CASE("the index StatIndex writes is one git reads, in git's order, and it reads back whole") {
    git_init_once();
    // Byte order, not locale order: '-' (0x2d) < '/' (0x2f) < '0' (0x30), and a UTF-8 byte after all
    // of ASCII. A path of 4,200 bytes does not fit the 12 bits of an entry's name length.
    const std::string long_path = std::string(4200, 'x') + "/end.txt";
    const std::vector<std::string> paths = {"b.txt", "a0",      "a/b", "a-b", "\xc3\xa9t\xc3\xa9.txt",
                                            "a/b/c", long_path, "Z"};
    StatIndex index;
    for (std::size_t i = 0; i < paths.size(); ++i)
      index.put(entry(paths[i], static_cast<std::uint32_t>(i), i == 2 ? 0100755 : 0100644));
    index.put(entry("link", 9, 0120000));
    std::vector<std::string> order;
    for (std::size_t i = 0; i < index.size(); ++i) order.emplace_back(index.at(i).path);
    CHECK(order == std::vector<std::string>{"Z", "a-b", "a/b", "a/b/c", "a0", "b.txt", "link", long_path,
                                            "\xc3\xa9t\xc3\xa9.txt"});

    std::string file = make_temp_dir("idx") + "/index";
    REQUIRE(index.write(file).ok());
    CHECK(git_ls_files(file) == expected_ls(index));
    // libgit2 reads it too, and agrees on its checksum.
    GitIndex theirs;
    REQUIRE(git_index_open(theirs.out(), file.c_str()) == 0);
    CHECK(git_index_entrycount(theirs.get()) == index.size());
    CHECK(hex(*git_index_checksum(theirs.get())) == index.checksum());

    auto loaded = StatIndex::load(file);
    REQUIRE(loaded.ok());
    REQUIRE(loaded->size() == index.size());
    for (std::size_t i = 0; i < index.size(); ++i) check_same(loaded->at(i), index.at(i));
    CHECK(loaded->checksum() == index.checksum());
    CHECK(loaded->checksum().size() == 40);
  }

  TEST_CASE(
      "indexes git writes load: version 2 with extensions, version 3 without intent-to-add entries; version 4 is "
      "refused by name") {
    std::string repo = make_temp_dir("gitidx");
    REQUIRE(run_command({"/usr/bin/git", "init", "-q", repo}).exit_code == 0);
    write_file(repo + "/src/a.txt", "a\n");
    write_file(repo + "/src/b.txt", "b\n");
    write_file(repo + "/top.txt", "t\n");
    candor::testing::git(repo, {"add", "-A"});
    candor::testing::git(repo, {"commit", "-q", "-m", "one"});
    // A commit leaves a tree-cache extension after the entries.
    std::string index_file = repo + "/.git/index";
    REQUIRE(read_file(index_file).find("TREE") != std::string::npos);
    auto v2 = StatIndex::load(index_file);
    REQUIRE_MESSAGE(v2.ok(), v2.error().message);
    CHECK(expected_ls(*v2) == git_ls_files(index_file));
    CHECK(v2->size() == 3);

    // An intent-to-add entry has extended flags: git writes version 3.
    write_file(repo + "/new.txt", "n\n");
    REQUIRE(run_command({"/usr/bin/git", "-C", repo, "add", "-N", "new.txt"}).exit_code == 0);
    REQUIRE(static_cast<unsigned char>(read_file(index_file)[7]) == 3);
    auto v3 = StatIndex::load(index_file);
    REQUIRE_MESSAGE(v3.ok(), v3.error().message);
    // ... whose stat data vouch for nothing (git does not compare it with the file): left out.
    CHECK(v3->size() == 3);
    CHECK(v3->find("new.txt") == StatIndex::npos);
    CHECK(v3->find("src/b.txt") == 1);

    REQUIRE(run_command({"/usr/bin/git", "-C", repo, "update-index", "--index-version", "4"}).exit_code == 0);
    auto v4 = StatIndex::load(index_file);
    REQUIRE_FALSE(v4.ok());
    CHECK(v4.error().code == ErrorCode::kInvalidInput);
    CHECK(v4.error().message.find(index_file) != std::string::npos);
    CHECK(v4.error().message.find("version 4") != std::string::npos);
  }

  TEST_CASE("a damaged index is refused with its file and what is wrong; a missing one is empty") {
    StatIndex index;
    index.put(entry("a.txt", 1));
    index.put(entry("b/c.txt", 2));
    std::string dir = make_temp_dir("damaged");
    std::string good = dir + "/index";
    REQUIRE(index.write(good).ok());
    const std::string bytes = read_file(good);

    auto missing = StatIndex::load(dir + "/none");
    REQUIRE(missing.ok());
    CHECK(missing->empty());
    CHECK(missing->checksum().empty());

    struct Case {
      const char* name;
      std::string content;
      const char* says;
    };
    std::string flipped = bytes;
    flipped[12 + 62] ^= 1;  // the first entry's path
    std::string not_index = bytes;
    not_index[0] = 'X';
    const std::vector<Case> cases = {
        {"cut short", bytes.substr(0, bytes.size() - 30), "checksum"},
        {"a flipped bit", flipped, "checksum"},
        {"no header", not_index, "no index header"},
        {"empty", "", "no index header"},
    };
    for (const Case& c : cases) {
      CAPTURE(c.name);
      std::string file = dir + "/" + c.name;
      write_file(file, c.content);
      auto loaded = StatIndex::load(file);
      REQUIRE_FALSE(loaded.ok());
      CHECK(loaded.error().code == ErrorCode::kInvalidInput);
      CHECK(loaded.error().message.find(file) != std::string::npos);
      CHECK(loaded.error().message.find(c.says) != std::string::npos);
    }
  }

  TEST_CASE("a writer that finds index.lock fails, and leaves the index as it was") {
    StatIndex index;
    index.put(entry("a.txt", 1));
    std::string file = make_temp_dir("locked") + "/index";
    REQUIRE(index.write(file).ok());
    const std::string before = read_file(file);
    write_file(file + ".lock", "");
    index.put(entry("b.txt", 2));
    Status written = index.write(file);
    REQUIRE_FALSE(written.ok());
    CHECK(written.error().message.find("index.lock") != std::string::npos);
    CHECK(read_file(file) == before);
    CHECK(fs::exists(file + ".lock"));  // another writer's: not ours to remove
  }

  TEST_CASE("put, put_sorted, remove and remove_all keep the entries a map of path to entry would hold") {
    const std::vector<std::string> names = {"a", "a-b", "a/b",      "a/b/c", "a0",
                                            "b", "b/x", "\xc3\xa9", "Z/z",   ".gitignore"};
    std::mt19937 rng(42);
    StatIndex index;
    std::map<std::string, std::uint32_t> model;  // path -> the n its entry was made with
    std::uint32_t n = 0;
    for (int round = 0; round < 400; ++round) {
      CAPTURE(round);
      switch (rng() % 4) {
        case 0: {
          const std::string& p = names[rng() % names.size()];
          index.put(entry(p, ++n));
          model[p] = n;
          break;
        }
        case 1: {
          std::map<std::string, std::uint32_t> batch;
          for (int k = 0; k < 3; ++k) batch[names[rng() % names.size()]] = ++n;
          std::vector<std::string> keys;
          std::vector<StatEntry> sorted;
          for (const auto& [p, v] : batch) keys.push_back(p);
          for (const auto& p : keys) sorted.push_back(entry(p, batch[p]));
          index.put_sorted(sorted);
          for (const auto& [p, v] : batch) model[p] = v;
          break;
        }
        case 2: {
          const std::string& p = names[rng() % names.size()];
          CHECK(index.remove(p) == (model.erase(p) == 1));
          break;
        }
        default: {
          std::vector<std::string> drop = {names[rng() % names.size()], names[rng() % names.size()]};
          index.remove_all({drop[0], drop[1]});
          for (const auto& p : drop) model.erase(p);
        }
      }
      REQUIRE(index.size() == model.size());
      std::size_t i = 0;
      for (const auto& [p, v] : model) {
        check_same(index.at(i), entry(p, v));
        CHECK(index.find(p) == i);
        ++i;
      }
    }
    CHECK(index.has_prefix("a/"));
    CHECK_FALSE(index.has_prefix("q/"));
    // A folder's entries, and each path looked up among its folder's alone (as a scan does).
    for (const std::string dir : {"", "a/", "a/b/", "b/", "Z/", "q/", "\xc3/"}) {
      CAPTURE(dir);
      auto range = index.prefix_range(dir);
      std::size_t first = index.size(), end = 0;
      for (std::size_t i = 0; i < index.size(); ++i) {
        if (index.at(i).path.substr(0, dir.size()) != dir) continue;
        first = std::min(first, i);
        end = i + 1;
      }
      if (end == 0) {
        CHECK(range.first == range.second);
      } else {
        CHECK(range == std::pair<std::size_t, std::size_t>(first, end));
      }
    }
    for (const auto& p : names) {
      std::string dir = p.substr(0, p.rfind('/') + 1);
      CHECK(index.find_in(p, index.prefix_range(dir)) == index.find(p));
    }
    std::string file = make_temp_dir("model") + "/index";
    REQUIRE(index.write(file).ok());
    CHECK(git_ls_files(file) == expected_ls(index));
  }

  TEST_CASE("the names git refuses to hold are refused; the rest are held") {
    snapshot::GitNameCheck names;
    for (const char* held : {"src/a.txt", ".gitignore", "a/.gitmodules", "go.mod", "git/x", "gitx~1/a",
                             ".github/workflows/ci.yml", "docs/.git-blame-ignore-revs", "G/g"}) {
      const std::string path = held;
      CAPTURE(path);
      CHECK(names.holds(path));
    }
    for (const char* refused : {".git/config", ".GIT/hooks/x", "git~1/hooks.sh", "GIT~1/x", ".git./x", "a/.Git/b",
                                "a//b", "a/./b", "a/../b", "./a", ".git"}) {
      const std::string path = refused;
      CAPTURE(path);
      CHECK_FALSE(names.holds(path));
    }
  }

  TEST_CASE("a store whose index was damaged starts over: the next snapshot is what a fresh store makes") {
    std::string ws = make_workspace({{"a.txt", "a\n"}, {"d/b.txt", "b\n"}});
    std::string store = make_temp_dir("store");
    std::string tree;
    {
      auto snap = snapshot::SnapshotStore::open(store, ws, system_clock());
      REQUIRE(snap.ok());
      REQUIRE((*snap)->scan().ok());
      tree = (*snap)->write_tree().value();
      REQUIRE((*snap)->flush().ok());
    }
    std::string index_file = snapshot::snapshot_repository_path(store, ws) + "/index";
    std::string bytes = read_file(index_file);
    REQUIRE(bytes.size() > 40);
    write_file(index_file, bytes.substr(0, bytes.size() / 2));  // a crash mid-write, outside git's lock
    write_file(ws + "/d/b.txt", "b changed\n");
    auto fresh = snapshot::SnapshotStore::open(make_temp_dir("fresh"), ws, system_clock());
    REQUIRE(fresh.ok());
    REQUIRE((*fresh)->scan().ok());
    {
      auto snap = snapshot::SnapshotStore::open(store, ws, system_clock());
      REQUIRE_MESSAGE(snap.ok(), snap.error().message);
      REQUIRE((*snap)->scan().ok());
      std::string after = (*snap)->write_tree().value();
      CHECK(after == (*fresh)->write_tree().value());
      CHECK(after != tree);
      REQUIRE((*snap)->flush().ok());
    }
    auto reloaded = StatIndex::load(index_file);
    REQUIRE_MESSAGE(reloaded.ok(), reloaded.error().message);
    CHECK(reloaded->size() == 2);
  }
}
