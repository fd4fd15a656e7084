// Scans that read on worker threads: the snapshot is what git itself would hold (the oracle: git
// add -A --force for a run's first scan, which records ignored files too; then git add -A on that
// index, which keeps watching them and adds no new ignored file), with files changed between the
// walk and the reads or during them; the ignore prefilter never lets a path git ignores through;
// read_files under a tight budget and on errors.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <atomic>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "snapshot/file_reads.h"
#include "snapshot/git_ptr.h"
#include "snapshot/ignore_prefilter.h"
#include "snapshot/store.h"
#include "tests/test_support.h"

using namespace candor;
using candor::testing::make_temp_dir;
using candor::testing::make_workspace;
using candor::testing::read_file;
using candor::testing::run_command;
using candor::testing::write_file;
namespace fs = std::filesystem;

namespace {

// A repository kept outside the workspace (so the scan under test never meets it) whose work tree
// is `ws`: `add(force)` runs git add -A (--force: ignored files too) into its index and returns
// the tree git writes of it.
struct GitOracle {
  std::string ws;
  std::string git_dir = make_temp_dir("oracle") + "/repo.git";
  std::string add(bool force) {
    if (!candor::testing::exists(git_dir))
      REQUIRE(run_command({"/usr/bin/git", "init", "-q", "--bare", git_dir}).exit_code == 0);
    std::vector<std::string> env = {"GIT_CONFIG_NOSYSTEM=1", "HOME=/nonexistent", "GIT_DIR=" + git_dir,
                                    "GIT_WORK_TREE=" + ws};
    std::vector<std::string> add = {"/usr/bin/git", "-c", "core.excludesFile=/dev/null", "-c", "core.bare=false",
                                    "add",          "-A"};
    if (force) add.push_back("--force");
    REQUIRE(run_command(add, env, ws).exit_code == 0);
    auto tree = run_command({"/usr/bin/git", "write-tree"}, env, ws);
    REQUIRE(tree.exit_code == 0);
    return tree.out.substr(0, 40);
  }
};

// The tree a run's first scan of `ws` as it is now holds: every file, ignored ones too.
std::string tree_git_makes(const std::string& ws) { return GitOracle{ws}.add(true); }

const std::vector<std::string> kNames = {"a.txt", "b.log", "c.tmp", "Makefile", "run.sh", "x1", "keep.log", "data.bin"};

// Adds about `files` files to `ws`, named from `first` on, in nested folders: random contents
// (empty, small, some larger), some executable, some symlinks.
void add_random_files(std::mt19937& rng, const std::string& ws, int files, int first = 0) {
  for (int i = first; i < first + files; ++i) {
    std::string dir =
        "d" + std::to_string(rng() % 4) + "/s" + std::to_string(rng() % 5) + (rng() % 3 == 0 ? "/build" : "");
    if (rng() % 10 == 0) dir = "top";
    std::string path = ws + "/" + dir + "/" + std::to_string(i) + "-" + kNames[rng() % kNames.size()];
    if (rng() % 12 == 0) {
      fs::create_directories(fs::path(path).parent_path());
      fs::create_symlink("../elsewhere/" + std::to_string(rng() % 7), path);
      continue;
    }
    std::string content;
    switch (rng() % 4) {
      case 0:
        break;
      case 1:
        content = "line " + std::to_string(rng()) + "\n";
        break;
      case 2:
        content = std::string(1000 + rng() % 70000, static_cast<char>('a' + rng() % 26));
        break;
      default:
        content = std::to_string(i) + "\n";
        break;
    }
    write_file(path, content);
    if (rng() % 5 == 0) fs::permissions(path, fs::perms::owner_exec, fs::perm_options::add);
  }
}

// A workspace of about `files` random files, and .gitignore files with rules that match some.
std::string random_workspace(std::mt19937& rng, int files) {
  std::string ws =
      make_workspace({{".gitignore", "*.log\n!keep.log\nbuild/\n/top/\n"}, {"d1/.gitignore", "x*\n*.tmp\n"}});
  add_random_files(rng, ws, files);
  return ws;
}

std::unique_ptr<snapshot::SnapshotStore> open_store(const std::string& ws) {
  auto snap = snapshot::SnapshotStore::open(make_temp_dir("store"), ws, system_clock());
  REQUIRE(snap.ok());
  return std::move(*snap);
}

// Every regular file beneath `ws` but the .gitignore files (relative): the rules stay those of the
// scan's start, for the oracle too.
std::vector<std::string> files_in(const std::string& ws) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(ws)) {
    if (!e.is_symlink() && e.is_regular_file() && e.path().filename() != ".gitignore")
      out.push_back(fs::relative(e.path(), ws).string());
  }
  return out;
}

}  // namespace

TEST_SUITE("verify") {
  TEST_CASE(
      "a first scan reading on worker threads holds what git add -A --force holds, with files changed after its walk") {
    std::mt19937 rng(20261122);
    for (int round = 0; round < 3; ++round) {
      CAPTURE(round);
      std::string ws = random_workspace(rng, 400);
      auto snap = open_store(ws);
      std::vector<std::string> files = files_in(ws);
      // Between the walk and the reads: rewrites (same size and not), deletions, a file swapped
      // for a symlink, a mode change. The reads must see the workspace as the hook leaves it.
      snap->set_after_walk_hook_for_tests([&] {
        for (std::size_t i = 0; i < files.size(); i += 7) {
          std::string path = ws + "/" + files[i];
          switch (i % 4) {
            case 0:
              write_file(path, "rewritten " + std::to_string(i) + "\n");
              break;
            case 1:
              fs::remove(path);
              break;
            case 2:
              fs::remove(path);
              fs::create_symlink("swapped", path);
              break;
            case 3:
              fs::permissions(path, fs::perms::owner_exec, fs::perm_options::add);
              break;
          }
        }
      });
      REQUIRE(snap->scan().ok());
      snap->set_after_walk_hook_for_tests(nullptr);
      REQUIRE(snap->freeze_ignore_rules({}).ok());
      CHECK(snap->write_tree().value() == tree_git_makes(ws));
    }
  }

  TEST_CASE("a snapshot's trees are the ones git writes, where byte order and git's tree order could part") {
    // A folder sorts in a tree as its name followed by '/': "a-b" < "a/" < "a.txt"? No: '.' (0x2e) <
    // '/' (0x2f) < '0' (0x30), and '-' (0x2d) before both. Names around each of those bytes, a
    // UTF-8 name, upper case, an executable, a symlink, an empty file, an empty folder (no tree).
    std::string ws = make_temp_dir("order");
    for (const char* path : {"a-b", "a/b", "a/b-c/d", "a/b.c", "a/b0", "a.txt", "a0", "a b", "A", "_", "\xc3\xa9/x",
                             "z/a/b/c/d.txt", "z/a.b", "z/a/.hidden", "empty"}) {
      write_file(ws + "/" + path, std::string(path) == "empty" ? "" : std::string(path) + "\n");
    }
    fs::permissions(ws + "/a/b0", fs::perms::owner_exec, fs::perm_options::add);
    fs::create_symlink("a/b", ws + "/a+");
    fs::create_directories(ws + "/nothing/here");
    auto snap = open_store(ws);
    REQUIRE(snap->scan().ok());
    REQUIRE(snap->freeze_ignore_rules({}).ok());
    CHECK(snap->write_tree().value() == tree_git_makes(ws));
    // And the trees written again where a path changed, on top of those.
    write_file(ws + "/a/b-c/d", "changed\n");
    fs::remove(ws + "/a0");
    fs::remove(ws + "/a/b");
    write_file(ws + "/a/b/new", "new\n");  // b was a file: now a folder
    REQUIRE(snap->scan().ok());
    CHECK(snap->write_tree().value() == tree_git_makes(ws));
  }

  TEST_CASE("a scan while files keep changing under its readers settles on their last contents at the next scan") {
    std::mt19937 rng(7);
    std::string ws = random_workspace(rng, 300);
    auto snap = open_store(ws);
    std::vector<std::string> files = files_in(ws);
    std::atomic<bool> stop{false};
    std::thread writer([&] {
      for (unsigned n = 0; !stop; ++n) {
        const std::string& f = files[n % files.size()];
        write_file(ws + "/" + f, std::string(n % 5000, 'w') + std::to_string(n) + "\n");
      }
    });
    auto first = snap->scan();
    stop = true;
    writer.join();
    REQUIRE(first.ok());
    REQUIRE(snap->freeze_ignore_rules({}).ok());
    REQUIRE(snap->scan().ok());
    CHECK(snap->write_tree().value() == tree_git_makes(ws));
  }

  TEST_CASE("a later scan on worker threads holds what git add -A does on an index of every file there at the start") {
    // Files that were there at the start are watched wherever they are, ignored or not; new ones
    // are taken in only where the start's .gitignore files do not ignore them (git adds no new
    // ignored file, and keeps updating and removing the ones its index holds).
    std::mt19937 rng(20261127);
    std::string ws = random_workspace(rng, 400);
    auto snap = open_store(ws);
    REQUIRE(snap->scan().ok());
    REQUIRE(snap->freeze_ignore_rules({}).ok());
    GitOracle oracle{ws};
    CHECK(snap->write_tree().value() == oracle.add(true));
    std::vector<std::string> files = files_in(ws);
    for (std::size_t i = 0; i < files.size(); i += 3) {
      std::string path = ws + "/" + files[i];
      if (i % 2 == 0) {
        write_file(path, "changed " + std::to_string(i) + "\n");
      } else {
        fs::remove(path);
      }
    }
    add_random_files(rng, ws, 400, 1000);
    REQUIRE(snap->scan().ok());
    CHECK(snap->write_tree().value() == oracle.add(false));
  }

  TEST_CASE("property: the ignore prefilter lets through every path git ignores") {
    // Rules from a vocabulary of what .gitignore files hold; paths from names that match them
    // and names that do not. Whatever git check-ignore says is ignored, the prefilter must not
    // clear (it may let through more: libgit2 decides those).
    const std::vector<std::string> patterns = {
        "*.log",  "!keep.log", "build/",       "/top",  "a*",         "d?/",    "**/gen",       "doc/**",  "x/y.txt",
        "*.TXT",  "[ab]*.c",   "\\#lit",       "sp\\ ", "trail  ",    "dir/*/", "# note",       "",        "*",
        "/",      "crlf\r",    "Makefile",     "!*.md", "out/**/*.o", "?",      "[[:digit:]]*", "[!a]*.c", "x[a/]y",
        "[A-Z]*", "\\a*",      "d[[:alpha:]]/"};
    const std::vector<std::string> names = {"a.c",    "b.c",   "keep.log", "x.log", "top",   "gen",  "doc",
                                            "y.txt",  "Y.TXT", "#lit",     "sp ",   "trail", "crlf", "Makefile",
                                            "m.md",   "z.o",   "q",        "out",   "build", "dir",  "d1",
                                            "ab.txt", "7z",    "xay",      "Bc.c"};
    std::mt19937 rng(20261123);
    for (int round = 0; round < 60; ++round) {
      CAPTURE(round);
      std::string rules = make_temp_dir("rules");
      REQUIRE(run_command({"/usr/bin/git", "init", "-q", rules}).exit_code == 0);
      snapshot::IgnorePrefilter prefilter;
      for (const std::string& dir : {std::string(), std::string("d1/"), std::string("d1/e/")}) {
        std::string text;
        for (int k = 0; k < 3; ++k) text += patterns[rng() % patterns.size()] + "\n";
        fs::create_directories(rules + "/" + dir);
        write_file(rules + "/" + dir + ".gitignore", text);
        prefilter.add(text);
      }
      std::string input;
      std::vector<std::string> paths;
      for (int k = 0; k < 60; ++k) {
        std::string path;
        for (unsigned depth = 1 + rng() % 3; depth > 0; --depth)
          path += (path.empty() ? "" : "/") + names[rng() % names.size()];
        paths.push_back(path);
        input += path + "\n";
      }
      std::string list = make_temp_dir("list") + "/paths";
      write_file(list, input);
      auto r =
          run_command({"/bin/sh", "-c", "git -c core.excludesFile=/dev/null check-ignore --no-index --stdin < " + list},
                      {"GIT_CONFIG_NOSYSTEM=1", "HOME=/nonexistent"}, rules);
      REQUIRE((r.exit_code == 0 || r.exit_code == 1));
      std::string missed;
      for (std::size_t start = 0, nl; (nl = r.out.find('\n', start)) != std::string::npos; start = nl + 1) {
        std::string ignored = r.out.substr(start, nl - start);
        if (!prefilter.may_be_ignored(ignored)) missed += ignored + "\n";
      }
      CAPTURE(read_file(rules + "/.gitignore") + read_file(rules + "/d1/.gitignore") +
              read_file(rules + "/d1/e/.gitignore"));
      CHECK(missed == "");
    }
  }

  TEST_CASE("the ignore prefilter clears paths no rule can match") {
    snapshot::IgnorePrefilter prefilter;
    prefilter.add("*.log\nbuild/\n!keep.txt\n# *.txt\n");
    CHECK_FALSE(prefilter.may_be_ignored("src/main.c"));
    CHECK_FALSE(prefilter.may_be_ignored("keep.txt"));
    CHECK(prefilter.may_be_ignored("src/x.log"));
    CHECK(prefilter.may_be_ignored("build/main.c"));  // inside an ignored folder
    prefilter.add("[ab].c\n[[:digit:]]*.tmp\n");      // git's wildmatch, brackets and classes too
    CHECK_FALSE(prefilter.may_be_ignored("src/main.c"));
    CHECK(prefilter.may_be_ignored("src/a.c"));
    CHECK(prefilter.may_be_ignored("src/7.tmp"));
    prefilter.add("[!x]y\n");  // a negated bracket, which case folding narrows: judged by libgit2 alone
    CHECK(prefilter.may_be_ignored("src/main.c"));
  }

  TEST_CASE("read_files hands over every request once, under a budget smaller than one file") {
    std::string ws = make_temp_dir("ws");
    std::vector<snapshot::FileReadRequest> requests;
    for (int i = 0; i < 200; ++i) {
      write_file(ws + "/f" + std::to_string(i), std::string(100 + i, 'x'));
      requests.push_back({"f" + std::to_string(i), false});
    }
    requests.push_back({"missing", false});
    auto root = snapshot::BeneathRoot::open(ws);
    REQUIRE(root.ok());
    snapshot::FileReadOptions options;
    options.threads = 4;
    options.budget = 1;
    std::vector<int> seen(requests.size(), 0);
    Status done = snapshot::read_files(*root, requests, options, [&](snapshot::FileRead& read) {
      ++seen[read.request];
      if (read.request + 1 == requests.size()) {
        CHECK(read.kind == snapshot::Entry::Kind::kGone);
      } else {
        CHECK(read.content == std::string(100 + read.request, 'x'));
        git_oid id = candor::testing::blob_id(read.content);
        CHECK(git_oid_equal(&id, &read.id));
      }
      return ok_status();
    });
    CHECK(done.ok());
    CHECK(std::count(seen.begin(), seen.end(), 1) == static_cast<long>(requests.size()));
  }

  TEST_CASE("read_files stops at the first error and returns it") {
    std::string ws = make_temp_dir("ws");
    std::vector<snapshot::FileReadRequest> requests;
    for (int i = 0; i < 500; ++i) {
      write_file(ws + "/f" + std::to_string(i), "x");
      requests.push_back({"f" + std::to_string(i), true});
    }
    auto root = snapshot::BeneathRoot::open(ws);
    REQUIRE(root.ok());
    snapshot::FileReadOptions options;
    options.threads = 3;
    options.make_ignore_check = [](bool) -> Result<snapshot::IgnoreCheck> {
      return snapshot::IgnoreCheck([](const std::string&) { return false; });
    };
    int taken = 0;
    Status done = snapshot::read_files(*root, requests, options, [&](snapshot::FileRead&) -> Status {
      if (++taken == 10) return make_error(ErrorCode::kIo, "disk full");
      return ok_status();
    });
    REQUIRE_FALSE(done.ok());
    CHECK(done.error().message == "disk full");
    CHECK(taken == 10);

    options.make_ignore_check = [](bool) -> Result<snapshot::IgnoreCheck> {
      return make_error(ErrorCode::kIo, "no rules");
    };
    done = snapshot::read_files(*root, requests, options, [&](snapshot::FileRead&) { return ok_status(); });
    REQUIRE_FALSE(done.ok());
    CHECK(done.error().message == "no rules");
  }
}
