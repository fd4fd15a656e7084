// The two pieces `verify --git BASE..` reads again by (docs/verify-git.md): BASE's tree as one sorted
// list (snapshot/base_tree.h), and candor's record of the last read of a working tree
// (snapshot/worktree_cache.h): what it keeps, what it refuses to load, and how many it keeps.
#include <doctest/doctest.h>

#include <git2.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "snapshot/base_tree.h"
#include "snapshot/git_ptr.h"
#include "snapshot/tree_update.h"
#include "snapshot/worktree_cache.h"
#include "tests/e2e_support.h"

using namespace candor;
using namespace candor::testing;
namespace fs = std::filesystem;

namespace {

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

snapshot::StatEntry entry(const std::string& path, unsigned char id_byte, std::uint32_t mtime) {
  snapshot::StatEntry e;
  e.path = path;
  e.mode = 0100644;
  e.size = 3;
  e.mtime_s = mtime;
  e.ctime_s = mtime;
  e.ino = 7;
  std::memset(e.id.id, id_byte, GIT_OID_RAWSZ);
  return e;
}

}  // namespace

TEST_CASE("BaseTree: every file, link and submodule of BASE in byte order, a submodule's contents in none") {
  std::string ws = make_temp_dir("base-tree");
  git(ws, {"init", "-q", "-b", "main"});
  write_file(ws + "/a.txt", "a\n");
  write_file(ws + "/a/b.txt", "b\n");  // "a.txt" < "a/b.txt": '.' sorts before '/'
  write_file(ws + "/a-c/d.txt", "d\n");
  fs::create_symlink("a.txt", ws + "/link");
  git(ws, {"add", "-A"});
  git(ws, {"commit", "-qm", "base"});
  std::string blob = first_line(git(ws, {"rev-parse", "HEAD:a.txt"}));
  std::string commit = first_line(git(ws, {"rev-parse", "HEAD"}));
  git(ws, {"update-index", "--add", "--cacheinfo", "160000," + commit + ",vendor/lib"});
  git(ws, {"commit", "-qm", "a submodule"});
  std::string tree = first_line(git(ws, {"rev-parse", "HEAD^{tree}"}));

  git_libgit2_init();
  GitRepo repo;
  REQUIRE(git_repository_open(repo.out(), ws.c_str()) == 0);
  auto base = snapshot::BaseTree::read(repo.get(), tree);
  REQUIRE(base.ok());
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < base->size(); ++i) paths.emplace_back(base->at(i).path);
  CHECK(paths == std::vector<std::string>{"a-c/d.txt", "a.txt", "a/b.txt", "link", "vendor/lib"});
  CHECK(std::is_sorted(paths.begin(), paths.end()));
  REQUIRE(base->find("a.txt") != nullptr);
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, sizeof hex, &base->find("a.txt")->id);
  CHECK(std::string(hex) == blob);
  CHECK(base->find("link")->mode == 0120000);
  CHECK(base->find("vendor/lib")->mode == snapshot::kGitlinkMode);
  CHECK(base->find("a") == nullptr);  // folders are not entries
  CHECK(base->in_submodule("vendor/lib"));
  CHECK(base->in_submodule("vendor/lib/src/x.c"));
  CHECK_FALSE(base->in_submodule("vendor/libx"));
  CHECK_FALSE(base->in_submodule("vendor"));
  CHECK_FALSE(base->in_submodule("a/b.txt"));

  auto empty = snapshot::BaseTree::read(repo.get(), "4b825dc642cb6eb9a060e54bf8d69288fbee4904");
  REQUIRE(empty.ok());
  CHECK(empty->size() == 0);
  auto bad = snapshot::BaseTree::read(repo.get(), "not a tree id");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == ErrorCode::kInvalidInput);
}

TEST_CASE("WorktreeCache: what is saved loads with its clock; a record cut short, foreign or of other files is none") {
  std::string store = make_temp_dir("record-store");
  const std::string root = "/work/some/tree";
  {
    auto none = snapshot::WorktreeCache::load(store, root);
    CHECK(none.files().empty());
    CHECK_FALSE(none.base().has_value());
    CHECK(none.why_none() == "no earlier read of this working tree was saved");
    snapshot::StatIndex files;
    files.put_sorted({entry("a.txt", 1, 1000), entry("b/c.txt", 2, 1000)});
    REQUIRE(none.save(std::move(files), snapshot::WorktreeCacheBase{"c:1:2", "watchman:9:9", "rules"}).ok());
  }
  const std::string dir = snapshot::worktree_cache_dir(store, root);
  {
    auto loaded = snapshot::WorktreeCache::load(store, root);
    REQUIRE(loaded.files().size() == 2);
    CHECK(loaded.files().at(1).path == "b/c.txt");
    CHECK(loaded.files().at(1).id.id[0] == 2);
    REQUIRE(loaded.base().has_value());
    CHECK(*loaded.base() == snapshot::WorktreeCacheBase{"c:1:2", "watchman:9:9", "rules"});
    // The base alone written again: the files stand, with the new clock.
    REQUIRE(loaded.save(std::nullopt, snapshot::WorktreeCacheBase{"c:1:3", "watchman:9:9", "rules"}).ok());
    auto again = snapshot::WorktreeCache::load(store, root);
    CHECK(again.files().size() == 2);
    CHECK(again.base()->clock == "c:1:3");
    // Without a clock: the files vouch by their stat, no answer is asked since.
    REQUIRE(again.save(std::nullopt, std::nullopt).ok());
    auto unclocked = snapshot::WorktreeCache::load(store, root);
    CHECK(unclocked.files().size() == 2);
    CHECK_FALSE(unclocked.base().has_value());
    CHECK(unclocked.why_none() == "the earlier read of this working tree saved no Watchman clock");
  }
  SUBCASE("another working tree's name hashed alike is not taken for this one") {
    auto other = snapshot::WorktreeCache::load(store, root + "/elsewhere");
    CHECK(other.files().empty());
  }
  SUBCASE("the files cut short") {
    std::string bytes = read_file(dir + "/index");
    fs::permissions(dir + "/index", fs::perms::owner_write, fs::perm_options::add);
    write_file(dir + "/index", bytes.substr(0, bytes.size() - 5));
    auto cut = snapshot::WorktreeCache::load(store, root);
    CHECK(cut.files().empty());
    CHECK_FALSE(cut.base().has_value());
    CHECK(cut.why_none().find("is not an index git could read") != std::string::npos);
  }
  SUBCASE("a record whose root is another's") {
    fs::permissions(dir + "/base.json", fs::perms::owner_write, fs::perm_options::add);
    write_file(dir + "/base.json", R"({"root": "/else", "index": "x", "clock": "c"})");
    auto foreign = snapshot::WorktreeCache::load(store, root);
    CHECK(foreign.files().empty());
    CHECK(foreign.why_none().find("damaged or of another working tree") != std::string::npos);
  }
  SUBCASE("a clock saved with other files: the files still vouch by stat, the clock does not") {
    fs::permissions(dir + "/base.json", fs::perms::owner_write, fs::perm_options::add);
    write_file(dir + "/base.json", "{\"root\": \"" + root + "\", \"index\": \"0000\", \"clock\": \"c:1:2\"}");
    auto mixed = snapshot::WorktreeCache::load(store, root);
    CHECK(mixed.files().size() == 2);
    CHECK_FALSE(mixed.base().has_value());
    CHECK(mixed.why_none().find("another candor saved one of them meanwhile") != std::string::npos);
  }
}

TEST_CASE("WorktreeCache: the store keeps the records of the working trees read last, no more") {
  std::string store = make_temp_dir("record-store");
  for (std::size_t i = 0; i < snapshot::kWorktreeCachesKept + 3; ++i) {
    auto cache = snapshot::WorktreeCache::load(store, "/trees/" + std::to_string(i));
    snapshot::StatIndex files;
    files.put_sorted({entry("f.txt", 1, 1000)});
    REQUIRE(cache.save(std::move(files), std::nullopt).ok());
    // Saved in this order, at least a tick apart.
    fs::last_write_time(snapshot::worktree_cache_dir(store, "/trees/" + std::to_string(i)) + "/base.json",
                        fs::file_time_type::clock::now() - std::chrono::hours(100) + std::chrono::minutes(i));
  }
  std::size_t kept = 0;
  for (const auto& e : fs::directory_iterator(store + "/worktrees")) {
    (void)e;
    ++kept;
  }
  CHECK(kept == snapshot::kWorktreeCachesKept);
  // The newest stayed, and the read before it too.
  CHECK(fs::exists(snapshot::worktree_cache_dir(store, "/trees/" + std::to_string(snapshot::kWorktreeCachesKept + 2))));
  CHECK_FALSE(snapshot::WorktreeCache::load(store, "/trees/" + std::to_string(snapshot::kWorktreeCachesKept + 1))
                  .files()
                  .empty());
}

TEST_CASE("tree_update: a file and a folder of one name make no tree, whether or not a name sorts between them") {
  std::string ws = make_temp_dir("tree-names");
  git(ws, {"init", "-q"});
  git_libgit2_init();
  GitRepo repo;
  REQUIRE(git_repository_open(repo.out(), ws.c_str()) == 0);
  snapshot::TreeSink keep_nothing = [](const git_oid&, std::string) { return ok_status(); };
  for (const std::vector<std::string>& paths :
       {std::vector<std::string>{"a", "a/c"}, std::vector<std::string>{"a", "a-b", "a/c"},
        std::vector<std::string>{"a", "a-b", "a.c", "a/c/d"}}) {
    CAPTURE(paths.size());
    snapshot::StatIndex index;
    std::vector<snapshot::StatEntry> entries;
    for (const auto& p : paths) entries.push_back(entry(p, 1, 1000));
    index.put_sorted(entries);
    auto built = snapshot::build_tree(repo.get(), index, keep_nothing);
    REQUIRE_FALSE(built.ok());
    CHECK(built.error().message == "snapshot: the index holds a as a file and as a folder");
  }
  snapshot::StatIndex fine;
  fine.put_sorted({entry("a-b", 1, 1000), entry("a/c", 1, 1000)});
  CHECK(snapshot::build_tree(repo.get(), fine, keep_nothing).ok());
}
