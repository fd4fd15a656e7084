// A property of scans: after any sequence of changes, the snapshot holds exactly the files a walk
// from scratch finds that the ignore rules of the run's start do not exclude. The oracle is the
// git command line, asked about a copy of the starting .gitignore files.
#include <doctest/doctest.h>

#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tests/test_support.h"
#include "verify/snapshot.h"

using namespace candor;
using candor::testing::make_temp_dir;
using candor::testing::run_command;
using candor::testing::write_file;
namespace fs = std::filesystem;

namespace {

std::set<std::string> lines(const std::string& text) {
  std::set<std::string> out;
  std::size_t start = 0;
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    out.insert(text.substr(start, nl - start));
  return out;
}

// Every file and symlink beneath `ws`, skipping any `.git` and the root's `.candor`.
std::vector<std::string> walk_from_scratch(const std::string& ws) {
  std::vector<std::string> out;
  for (auto it = fs::recursive_directory_iterator(ws); it != fs::recursive_directory_iterator(); ++it) {
    std::string rel = fs::relative(it->path(), ws).string();
    if (it->path().filename() == ".git" || rel == ".candor") {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_symlink() || it->is_regular_file()) out.push_back(rel);
  }
  return out;
}

// The paths of `files` that the .gitignore files in `rules_dir` (a git repository) do not ignore.
std::set<std::string> not_ignored(const std::string& rules_dir, const std::vector<std::string>& files) {
  std::string input;
  for (const auto& f : files) input += f + "\n";
  std::string list = make_temp_dir("paths") + "/list";
  write_file(list, input);
  auto r = run_command(
      {"/bin/sh", "-c", "git -c core.excludesFile=/dev/null check-ignore --no-index --stdin < " + list}, {}, rules_dir);
  REQUIRE((r.exit_code == 0 || r.exit_code == 1));
  std::set<std::string> ignored = lines(r.out);
  std::set<std::string> out;
  for (const auto& f : files) {
    if (ignored.count(f) == 0) out.insert(f);
  }
  return out;
}

// The elements of `a` missing from `b`, one line each: what a failure shows.
std::string missing_from(const std::set<std::string>& a, const std::set<std::string>& b) {
  std::string out;
  for (const auto& x : a) {
    if (b.count(x) == 0) out += x + "\n";
  }
  return out;
}

std::set<std::string> tree_files(const verify::SnapshotStore& snap, const std::string& tree) {
  auto r = run_command({"/usr/bin/git", "--git-dir=" + snap.repository_path(), "ls-tree", "-r", "--name-only", tree});
  REQUIRE(r.exit_code == 0);
  return lines(r.out);
}

// Files and folders the random changes pick from. No file shares a name with a folder.
const std::vector<std::string> kFiles = {"a.txt",   "b.log",     "keep.log",  "top.tmp",     "d/top.tmp", "d/x1",
                                         "d/y.txt", "d/e/f.txt", "d/e/x.log", "build/o.txt", "gen/z.txt", "n/w.txt"};
const std::vector<std::string> kFolders = {"", "d/", "d/e/", "build/", "gen/", "n/"};
const std::vector<std::string> kPatterns = {"*", "*.txt", "a*", "d/", "e/", "!*.log", "x*", "/n/", "*.tmp"};

}  // namespace

TEST_SUITE("verify") {
  TEST_CASE("property: incremental scans hold what a walk from scratch under the start's ignore rules finds") {
    std::string ws = make_temp_dir("ws");
    write_file(ws + "/.gitignore", "*.log\nbuild/\n/top.tmp\n!keep.log\n");
    write_file(ws + "/d/.gitignore", "x*\n");
    write_file(ws + "/gen/.gitignore", "*\n");
    write_file(ws + "/a.txt", "a\n");
    std::string rules = make_temp_dir("rules");  // the starting .gitignore files, for the oracle
    REQUIRE(run_command({"/usr/bin/git", "init", "-q", rules}).exit_code == 0);
    for (const auto& g : {".gitignore", "d/.gitignore", "gen/.gitignore"})
      write_file(rules + "/" + g, candor::testing::read_file(ws + "/" + g));

    auto snap = verify::SnapshotStore::open(make_temp_dir("store"), ws);
    REQUIRE(snap.ok());
    REQUIRE((*snap)->scan().ok());
    REQUIRE((*snap)->freeze_ignore_rules({}).ok());
    std::mt19937 rng(20240612);
    for (int i = 0; i < 200; ++i) {
      CAPTURE(i);
      std::error_code ec;
      std::string file = ws + "/" + kFiles[rng() % kFiles.size()];
      std::string folder = ws + "/" + kFolders[rng() % kFolders.size()];
      std::string change;
      switch (rng() % 6) {
        case 0:
        case 1:
          change = "write " + file;
          write_file(file, "content " + std::to_string(rng() % 4) + "\n");
          break;
        case 2:
          change = "delete " + file;
          fs::remove(file, ec);
          break;
        case 3:
          change = "mkdir " + folder + "new/";
          fs::create_directories(folder + "new", ec);
          break;
        case 4: {
          std::string text = kPatterns[rng() % kPatterns.size()] + "\n" + kPatterns[rng() % kPatterns.size()] + "\n";
          change = "write " + folder + ".gitignore: " + text;
          write_file(folder + ".gitignore", text);
          break;
        }
        case 5:
          change = "git init " + folder;
          write_file(folder + ".git/HEAD", "ref: refs/heads/main\n");
          break;
      }
      CAPTURE(change);
      REQUIRE((*snap)->scan().ok());
      std::set<std::string> expected = not_ignored(rules, walk_from_scratch(ws));
      std::set<std::string> held = tree_files(**snap, (*snap)->write_tree().value());
      CHECK(missing_from(expected, held) == "");  // files the snapshot lost
      CHECK(missing_from(held, expected) == "");  // files it holds that it should not
      if (held != expected) break;                // one failing change says it; the rest repeat it
    }
  }
}
