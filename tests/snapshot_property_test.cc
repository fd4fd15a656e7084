// Properties of scans: after any sequence of changes, the snapshot holds exactly the files a walk
// from scratch finds that the ignore rules of the run's start do not exclude, or that a snapshot
// of the run held before (the oracle is the git command line, asked about a copy of the starting
// .gitignore files); and a first snapshot seeded from the workspace's own git index is the
// snapshot a store without that index takes.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "snapshot/git_ptr.h"
#include "snapshot/store.h"
#include "tests/test_support.h"

using namespace candor;
using candor::testing::make_temp_dir;
using candor::testing::make_workspace;
using candor::testing::run_command;
using candor::testing::run_git;
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

std::set<std::string> tree_files(const snapshot::SnapshotStore& snap, const std::string& tree) {
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
  TEST_CASE(
      "property: incremental scans hold what a walk from scratch finds that the start's ignore rules do not exclude or "
      "the run held") {
    std::string ws = make_workspace({{".gitignore", "*.log\nbuild/\n/top.tmp\n!keep.log\n"},
                                     {"d/.gitignore", "x*\n"},
                                     {"gen/.gitignore", "*\n"},
                                     {"a.txt", "a\n"}});
    // Ignored, and there at the start: watched (docs/design.md, "Snapshots see everything").
    write_file(ws + "/b.log", "b\n");
    write_file(ws + "/build/o.txt", "o\n");
    write_file(ws + "/d/x1", "x\n");
    std::string rules = make_temp_dir("rules");  // the starting .gitignore files, for the oracle
    REQUIRE(run_command({"/usr/bin/git", "init", "-q", rules}).exit_code == 0);
    for (const auto& g : {".gitignore", "d/.gitignore", "gen/.gitignore"})
      write_file(rules + "/" + g, candor::testing::read_file(ws + "/" + g));

    auto snap = snapshot::SnapshotStore::open(make_temp_dir("store"), ws, system_clock());
    REQUIRE(snap.ok());
    REQUIRE((*snap)->scan().ok());
    REQUIRE((*snap)->freeze_ignore_rules({}).ok());
    // Every path a snapshot of this run has held: the snapshot before the run holds every file.
    std::set<std::string> held_ever = tree_files(**snap, (*snap)->write_tree().value());
    {
      auto all = walk_from_scratch(ws);
      CHECK(held_ever == std::set<std::string>(all.begin(), all.end()));
    }
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
      std::vector<std::string> now = walk_from_scratch(ws);
      std::set<std::string> expected = not_ignored(rules, now);
      for (const auto& f : now) {
        if (held_ever.count(f) != 0) expected.insert(f);
      }
      held_ever.insert(expected.begin(), expected.end());
      std::set<std::string> held = tree_files(**snap, (*snap)->write_tree().value());
      CHECK(missing_from(expected, held) == "");  // files the snapshot lost
      CHECK(missing_from(held, expected) == "");  // files it holds that it should not
      if (held != expected) break;                // one failing change says it; the rest repeat it
    }
  }
}

namespace {

// Sets the mtime of `path` (not following a symlink) to `seconds` since the epoch.
void set_mtime(const std::string& path, std::int64_t seconds, long nanoseconds = 0) {
  struct timespec times[2] = {{seconds, nanoseconds}, {seconds, nanoseconds}};
  REQUIRE(::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW) == 0);
}

std::int64_t now_s() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// A first run's snapshot of `ws` in a store that has never seen it: the tree id and `git ls-tree -r`.
std::pair<std::string, std::string> first_snapshot(const std::string& ws) {
  auto snap = snapshot::SnapshotStore::open(make_temp_dir("store"), ws, system_clock());
  REQUIRE(snap.ok());
  REQUIRE((*snap)->scan().ok());
  REQUIRE((*snap)->freeze_ignore_rules({}).ok());
  std::string tree = (*snap)->write_tree().value();
  auto listing = run_command({"/usr/bin/git", "--git-dir=" + (*snap)->repository_path(), "ls-tree", "-r", tree});
  return {tree, listing.out};
}

// The same, of a copy of `ws` without its repository: every file hashed.
std::pair<std::string, std::string> snapshot_from_scratch(const std::string& ws) {
  std::string copy = make_temp_dir("copy") + "/ws";
  fs::copy(ws, copy, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  fs::remove_all(copy + "/.git");
  return first_snapshot(copy);
}

const std::vector<std::string> kTracked = {"a.txt", "b.txt", "d/c.txt", "d/e/f.txt", "run.sh", "link", "new.txt"};

// A git workspace holding kTracked (but new.txt), committed, with an ignored x.log. Its files are
// old, so the index vouches for them (outside git's racy window) until they change.
std::string tracked_workspace() {
  std::string ws = make_temp_dir("ws");
  for (const auto& f : kTracked) {
    if (f != "link" && f != "new.txt") write_file(ws + "/" + f, "initial " + f + "\n");
  }
  fs::create_symlink("a.txt", ws + "/link");
  write_file(ws + "/.gitignore", "*.log\n");
  write_file(ws + "/x.log", "ignored\n");
  REQUIRE(run_git(ws, {"init", "-q"}).exit_code == 0);
  for (const auto& f : kTracked) {
    if (fs::exists(fs::symlink_status(ws + "/" + f))) set_mtime(ws + "/" + f, now_s() - 100);
  }
  REQUIRE(run_git(ws, {"add", "-A"}).exit_code == 0);
  REQUIRE(run_git(ws, {"commit", "-qm", "base"}).exit_code == 0);
  return ws;
}

// One of kTracked at random: its name, its path in `ws`, and whether anything is there now.
std::tuple<std::string, std::string, bool> pick_tracked(std::mt19937& rng, const std::string& ws) {
  std::string name = kTracked[rng() % kTracked.size()];
  std::string file = ws + "/" + name;
  return {name, file, fs::exists(fs::symlink_status(file))};
}

void toggle_owner_exec(const std::string& file) {
  bool executable = (fs::status(file).permissions() & fs::perms::owner_exec) != fs::perms::none;
  fs::permissions(file, fs::perms::owner_exec, executable ? fs::perm_options::remove : fs::perm_options::add);
}

}  // namespace

TEST_SUITE("verify") {
  TEST_CASE("property: a first snapshot seeded from the workspace's index equals one hashed from scratch") {
    std::string ws = tracked_workspace();

    std::mt19937 rng(20261122);
    for (int i = 0; i < 40; ++i) {
      CAPTURE(i);
      auto [name, file, present] = pick_tracked(rng, ws);
      std::string change;
      switch (rng() % 10) {
        case 0:  // an edit that keeps the size: only the stat tells
          change = "write " + name;
          fs::remove(file);
          write_file(file, "edited " + std::to_string(rng() % 10) + name + "\n");
          break;
        case 1:  // a touch inside git's racy window: same content, the index written in the same second
          change = "touch and stage " + name;
          if (present) set_mtime(file, now_s());
          run_git(ws, {"add", "-A", "--", name});
          break;
        case 2:  // an edit right after staging, in the same second, with the same size
          change = "stage, then edit " + name;
          write_file(file, "staged " + std::to_string(rng() % 10) + "\n");
          run_git(ws, {"add", "-A", "--", name});
          write_file(file, "edited " + std::to_string(rng() % 10) + "\n");
          break;
        case 3:
          change = "chmod " + name;
          if (present && !fs::is_symlink(file)) toggle_owner_exec(file);
          break;
        case 4:
          change = "stage the mode only " + name;
          run_git(ws, {"update-index", rng() % 2 ? "--chmod=+x" : "--chmod=-x", "--", name});
          break;
        case 5:
          change = "delete " + name;
          fs::remove(file);
          break;
        case 6:
          change = "stage " + name + " (not committed)";
          if (!present) write_file(file, "created " + name + "\n");
          run_git(ws, {"add", "-A", "--", name});
          break;
        case 7:
          change = "commit";
          run_git(ws, {"commit", "-qam", "step"});
          break;
        case 8:
          change = "untrack " + name;
          run_git(ws, {"rm", "-q", "--cached", "--", name});
          break;
        case 9:
          change = "intent to add " + name;
          if (!present) write_file(file, "intended " + name + "\n");
          run_git(ws, {"add", "-N", "--", name});
          break;
      }
      CAPTURE(change);
      auto seeded = first_snapshot(ws);
      auto scratch = snapshot_from_scratch(ws);
      CHECK(seeded.second == scratch.second);
      if (seeded.first != scratch.first) break;  // one failing change says it; the rest repeat it
    }
  }

  TEST_CASE("a first snapshot trusts the workspace's index as git does: a stat match outside the racy window only") {
    // The index is made to lie: b.txt's entry carries b.txt's exact stat and a.txt's content.
    std::string ws = make_workspace({{"a.txt", "content of a\n"}, {"b.txt", "content of b\n"}});
    REQUIRE(run_git(ws, {"init", "-q"}).exit_code == 0);
    REQUIRE(run_git(ws, {"add", "-A"}).exit_code == 0);
    std::int64_t file_time = now_s() - 100;
    set_mtime(ws + "/b.txt", file_time);
    struct stat st {};
    REQUIRE(::lstat((ws + "/b.txt").c_str(), &st) == 0);
    {
      git_init_once();
      GitIndex index;
      REQUIRE(git_index_open(index.out(), (ws + "/.git/index").c_str()) == 0);
      git_index_entry lie = *git_index_get_bypath(index.get(), "b.txt", 0);
      lie.id = git_index_get_bypath(index.get(), "a.txt", 0)->id;
      lie.ctime = {static_cast<std::int32_t>(st.st_ctim.tv_sec), static_cast<std::uint32_t>(st.st_ctim.tv_nsec)};
      lie.mtime = {static_cast<std::int32_t>(st.st_mtim.tv_sec), static_cast<std::uint32_t>(st.st_mtim.tv_nsec)};
      lie.ino = static_cast<std::uint32_t>(st.st_ino);
      lie.file_size = static_cast<std::uint32_t>(st.st_size);
      REQUIRE(git_index_add(index.get(), &lie) == 0);
      REQUIRE(git_index_write(index.get()) == 0);
    }
    auto b_in = [](const std::string& listing) { return listing.substr(listing.find("\tb.txt") - 40, 40); };
    std::string a_id = run_git(ws, {"rev-parse", ":a.txt"}).out.substr(0, 40);

    // Written in the same second as the file's mtime: racy, so b.txt is read.
    set_mtime(ws + "/.git/index", file_time, 999999999);
    auto racy = first_snapshot(ws);
    CHECK(racy.second == snapshot_from_scratch(ws).second);

    // Written well after it: the stat vouches for the entry and the file is not read, as `git
    // status` would not read it (this is what makes a first run cheap).
    set_mtime(ws + "/.git/index", file_time + 10);
    auto trusted = first_snapshot(ws);
    CHECK(b_in(trusted.second) == a_id);
  }
}

namespace {

// One run on `ws` with the store at `store`: the before tree, a step that writes `step_file` (when
// given) and its scan, the after tree, the index saved. Returns the before and after listings.
std::pair<std::string, std::string> one_run(const std::string& store, const std::string& ws,
                                            const std::string& step_file, std::string& before_tree,
                                            std::string& after_tree) {
  auto snap = snapshot::SnapshotStore::open(store, ws, system_clock());
  REQUIRE(snap.ok());
  REQUIRE((*snap)->scan().ok());
  REQUIRE((*snap)->freeze_ignore_rules({}).ok());
  before_tree = (*snap)->write_tree().value();
  if (!step_file.empty()) {
    write_file(ws + "/" + step_file, "step " + std::to_string(now_s()) + step_file + "\n");
    REQUIRE((*snap)->scan().ok());
  }
  after_tree = (*snap)->write_tree().value();
  REQUIRE((*snap)->flush().ok());
  auto listing = [&](const std::string& tree) {
    return run_command({"/usr/bin/git", "--git-dir=" + (*snap)->repository_path(), "ls-tree", "-r", tree}).out;
  };
  return {listing(before_tree), listing(after_tree)};
}

}  // namespace

TEST_SUITE("verify") {
  TEST_CASE(
      "property: a warm run's trees equal snapshots from scratch, whatever changed between runs or in the store") {
    std::string ws = tracked_workspace();
    std::string store = make_temp_dir("store");
    std::string repo = snapshot::snapshot_repository_path(store, fs::canonical(ws).string());
    std::string old_index;  // a copy of the store's index from an earlier run, to put back
    std::mt19937 rng(20261123);
    for (int i = 0; i < 40; ++i) {
      CAPTURE(i);
      auto [name, file, present] = pick_tracked(rng, ws);
      std::string change;
      switch (rng() % 11) {
        case 0:  // right after the last run's save, in the same second, with the same size
          change = "write " + name;
          fs::remove(file);
          write_file(file, "edited " + std::to_string(rng() % 10) + name + "\n");
          break;
        case 1:
          change = "touch " + name;
          if (present) set_mtime(file, now_s());
          break;
        case 2:
          change = "add " + name + ".new";
          write_file(file + ".new", "added\n");
          break;
        case 3:
          change = "delete " + name;
          fs::remove(file);
          break;
        case 4:
          change = "chmod " + name;
          if (present && !fs::is_symlink(file)) toggle_owner_exec(file);
          break;
        case 5:
          change = "nothing";
          break;
        case 6:
          change = "delete the store's index";
          fs::remove(repo + "/index");
          break;
        case 7:
          change = "put an earlier index of the store back";
          if (!old_index.empty()) write_file(repo + "/index", old_index);
          break;
        case 8:
          change = "delete the store's saved tree";
          fs::remove(repo + "/candor-index-tree");
          break;
        case 9: {  // the same size and mtime: only the ctime (and inode) tell
          change = "edit keeping size and mtime " + name;
          if (!present || fs::is_symlink(file)) break;
          struct stat st {};
          REQUIRE(::lstat(file.c_str(), &st) == 0);
          std::string text = candor::testing::read_file(file);
          text[0] = text[0] == 'x' ? 'y' : 'x';
          write_file(file, text);
          set_mtime(file, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
          break;
        }
        case 10:
          change = "stage " + name + " in the workspace's own index";
          run_git(ws, {"add", "-A", "--", name});
          break;
      }
      CAPTURE(change);
      if (fs::exists(repo + "/index") && rng() % 3 == 0) old_index = candor::testing::read_file(repo + "/index");
      std::string scratch_before = snapshot_from_scratch(ws).second;
      std::string before, after;
      std::string step = rng() % 2 ? kTracked[rng() % kTracked.size()] : "";
      CAPTURE(step);
      auto [held_before, held_after] = one_run(store, ws, step, before, after);
      CHECK(held_before == scratch_before);
      CHECK(held_after == snapshot_from_scratch(ws).second);
      if (held_before != scratch_before) break;  // one failing change says it; the rest repeat it
    }
  }
}
