#include <doctest/doctest.h>

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <random>
#include <set>

#include "snapshot/store.h"
#include "tests/test_support.h"

using namespace candor;
using candor::testing::make_temp_dir;
using candor::testing::make_workspace;
using candor::testing::read_file;
using candor::testing::run_command;
using candor::testing::write_file;
namespace fs = std::filesystem;

TEST_SUITE("verify") {
  TEST_CASE("scans report what changed since the last scan; diffs give sizes and line counts") {
    std::string store = make_temp_dir("store");
    std::string ws = make_workspace({{"a.txt", "one\ntwo\nthree\n"}, {"b.txt", "bee\n"}, {"sub/c.txt", "sea\n"}});
    auto snap = snapshot::SnapshotStore::open(store, ws, system_clock());
    REQUIRE(snap.ok());
    auto s0 = (*snap)->scan();
    REQUIRE(s0.ok());
    CHECK((*s0) == std::vector<std::string>{"a.txt", "b.txt", "sub/c.txt"});  // first scan: all new
    std::string t0 = (*snap)->write_tree().value();

    auto idle = (*snap)->scan();
    REQUIRE(idle.ok());
    CHECK((*idle).empty());

    write_file(ws + "/a.txt", "one\n2\nthree\nfour\n");
    fs::remove(ws + "/b.txt");
    write_file(ws + "/sub/new.txt", "new\n");
    auto s1 = (*snap)->scan();
    REQUIRE(s1.ok());
    CHECK((*s1) == std::vector<std::string>{"a.txt", "b.txt", "sub/new.txt"});
    std::string t1 = (*snap)->write_tree().value();

    auto muts = (*snap)->diff(t0, t1);
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

    CHECK((*snap)->read(t0, "b.txt").value() == std::optional<std::string>("bee\n"));
    CHECK_FALSE((*snap)->read(t1, "b.txt").value().has_value());
    auto patch = (*snap)->patch_text(t0, t1, "a.txt", 10000);
    REQUIRE(patch.ok());
    CHECK(patch->find("-two\n+2\n") != std::string::npos);
  }

  TEST_CASE(
      "a .gitattributes in the workspace cannot make a text change look binary, nor hide its diff; content decides") {
    // The agent writes the workspace, .gitattributes included: `binary` or `-diff` there made
    // libgit2 report a text file as binary with sizes of 0 and no lines, and give the judge and the
    // HTML report "Binary files differ" instead of the change.
    std::string ws = make_workspace({{".gitattributes", "* binary\n*.txt -diff\n*.dat diff\n"},
                                     {"notes.txt", "one\ntwo\n"},
                                     {"real.dat", std::string("a\0b\n", 4)}});
    auto snap = snapshot::SnapshotStore::open(make_temp_dir("store"), ws, system_clock());
    REQUIRE(snap.ok());
    REQUIRE((*snap)->scan().ok());
    std::string t0 = (*snap)->write_tree().value();
    write_file(ws + "/notes.txt", "one\n2\nthree\n");
    write_file(ws + "/real.dat", std::string("a\0c\nd\n", 6));
    REQUIRE((*snap)->scan().ok());
    std::string t1 = (*snap)->write_tree().value();
    auto muts = (*snap)->diff(t0, t1);
    REQUIRE(muts.ok());
    REQUIRE(muts->size() == 2);
    const auto& text = (*muts)[0];
    CHECK(text.path == "notes.txt");
    CHECK_FALSE(text.binary);
    CHECK(text.bytes_before == 8);
    CHECK(text.bytes_after == 12);
    CHECK(text.lines_added == 2);
    CHECK(text.lines_removed == 1);
    const auto& binary = (*muts)[1];
    CHECK(binary.path == "real.dat");
    CHECK(binary.binary);  // a NUL in its first 8000 bytes, as git decides, whatever `diff` says
    CHECK(binary.bytes_before == 4);
    CHECK(binary.bytes_after == 6);
    CHECK(binary.lines_added == 0);
    auto patch = (*snap)->patch_text(t0, t1, "notes.txt", 10000);
    REQUIRE(patch.ok());
    CHECK(patch->find("-two\n+2\n+three\n") != std::string::npos);
    auto binary_patch = (*snap)->patch_text(t0, t1, "real.dat", 10000);
    REQUIRE(binary_patch.ok());
    CHECK(binary_patch->find("Binary files") != std::string::npos);
    CHECK(binary_patch->find('\0') == std::string::npos);
  }

  TEST_CASE("patch_texts gives, from one diff, what patch_text gives path by path") {
    std::string ws = make_workspace({{"a.txt", "one\ntwo\n"},
                                     {"gone.txt", "bye\n"},
                                     {"big.txt", std::string(2 << 20, 'x')},
                                     {"bin.dat", std::string("a\0b", 3)},
                                     {"sub/typed", "file\n"},
                                     {"sub/same.txt", "same\n"}});
    auto snap = snapshot::SnapshotStore::open(make_temp_dir("store"), ws, system_clock());
    REQUIRE(snap.ok());
    REQUIRE((*snap)->scan().ok());
    auto t0 = (*snap)->write_tree();
    REQUIRE(t0.ok());
    write_file(ws + "/a.txt", "one\n2\n");
    fs::remove(ws + "/gone.txt");
    write_file(ws + "/new.txt", "new\n");
    write_file(ws + "/big.txt", std::string(2 << 20, 'y'));
    write_file(ws + "/bin.dat", std::string("a\0c", 3));
    fs::remove(ws + "/sub/typed");
    fs::create_symlink("../a.txt", ws + "/sub/typed");  // a file made a symlink: two deltas, one path
    REQUIRE((*snap)->scan().ok());
    auto t1 = (*snap)->write_tree();
    REQUIRE(t1.ok());
    std::vector<std::string> paths = {"a.txt",   "gone.txt",  "new.txt",     "big.txt",
                                      "bin.dat", "sub/typed", "sub/same.txt"};
    for (std::size_t cap : {std::size_t{10000}, std::size_t{20}}) {
      auto batch = (*snap)->trees().patch_texts(*t0, *t1, paths, cap);
      REQUIRE(batch.ok());
      for (const auto& path : paths) {
        CAPTURE(path);
        auto one = (*snap)->patch_text(*t0, *t1, path, cap);
        REQUIRE(one.ok());
        auto found = batch->find(path);
        CHECK((found == batch->end() ? std::string() : found->second) == *one);
      }
      CHECK(batch->count("sub/same.txt") == 0);  // unchanged: no patch
      CHECK(batch->size() == 6);
    }
    auto whole = (*snap)->trees().patch_texts(*t0, *t1, paths, 10000);
    REQUIRE(whole.ok());
    CHECK(whole->at("a.txt").find("-two\n+2\n") != std::string::npos);
    CHECK(whole->at("big.txt").find("(not shown: ") != std::string::npos);
    CHECK(whole->at("bin.dat").find("Binary files a/bin.dat and b/bin.dat differ") != std::string::npos);
    CHECK(whole->at("gone.txt").find("-bye") != std::string::npos);
  }

  TEST_CASE("a same-size rewrite right after a scan is still seen") {
    std::string ws = make_temp_dir("ws");
    write_file(ws + "/f.txt", "aaaa\n");
    auto snap = snapshot::SnapshotStore::open(make_temp_dir("store"), ws, system_clock());
    REQUIRE(snap.ok());
    REQUIRE((*snap)->scan().ok());
    for (int i = 0; i < 20; ++i) {
      write_file(ws + "/f.txt", std::string(4, static_cast<char>('b' + i)) + "\n");
      auto s = (*snap)->scan();
      REQUIRE(s.ok());
      CAPTURE(i);
      CHECK((*s) == std::vector<std::string>{"f.txt"});
    }
  }

  TEST_CASE(
      "git workspaces: what .gitignore matches is recorded at the start, not made later; the workspace's own .git is "
      "untouched") {
    std::string ws = make_temp_dir("repo");
    REQUIRE(run_command({"/usr/bin/git", "init", "-q", ws}).exit_code == 0);
    write_file(ws + "/.gitignore", "build/\n*.log\n");
    write_file(ws + "/src.c", "int main(){}\n");
    write_file(ws + "/build/out.o", "obj");
    write_file(ws + "/debug.log", "log");
    write_file(ws + "/.candor/config.json", "{}");
    auto git_before = candor::testing::tree_contents(ws + "/.git");
    std::string store = make_temp_dir("store");
    auto snap = snapshot::SnapshotStore::open(store, ws, system_clock());
    REQUIRE(snap.ok());
    auto s0 = (*snap)->scan();
    REQUIRE(s0.ok());
    CHECK((*s0) == std::vector<std::string>{".gitignore", "build/out.o", "debug.log", "src.c"});
    REQUIRE((*snap)->write_tree().ok());  // the snapshot before the run
    write_file(ws + "/build/more.o", "obj");
    write_file(ws + "/src.c", "int main(){return 0;}\n");
    auto s1 = (*snap)->scan();
    REQUIRE(s1.ok());
    CHECK((*s1) == std::vector<std::string>{"src.c"});
    CHECK(candor::testing::tree_contents(ws + "/.git") == git_before);
    CHECK_FALSE(candor::testing::exists(ws + "/.git/index"));
    REQUIRE((*snap)->flush().ok());
    CHECK(fs::exists((*snap)->repository_path() + "/index"));
    CHECK((*snap)->repository_path().rfind(store + "/snapshots/", 0) == 0);
  }

  TEST_CASE(".gitattributes filters do not alter what a snapshot holds") {
    std::string ws = make_workspace({{".gitattributes", "* text=auto eol=lf\n"}, {"crlf.txt", "a\r\nb\r\n"}});
    auto snap = snapshot::SnapshotStore::open(make_temp_dir("store"), ws, system_clock());
    REQUIRE(snap.ok());
    auto s = (*snap)->scan();
    REQUIRE(s.ok());
    CHECK((*snap)->read((*snap)->write_tree().value(), "crlf.txt").value() == std::optional<std::string>("a\r\nb\r\n"));
  }

  TEST_CASE("the stat cache persists across opens: a second run's first scan reports only real changes") {
    std::string ws = make_temp_dir("ws");
    std::string store = make_temp_dir("store");
    for (int i = 0; i < 50; ++i) write_file(ws + "/f" + std::to_string(i), std::to_string(i));
    {
      auto snap = snapshot::SnapshotStore::open(store, ws, system_clock());
      REQUIRE((*snap)->scan().ok());
      REQUIRE((*snap)->flush().ok());
    }
    write_file(ws + "/f7", "changed");
    auto snap = snapshot::SnapshotStore::open(store, ws, system_clock());
    auto s = (*snap)->scan();
    REQUIRE(s.ok());
    CHECK((*s) == std::vector<std::string>{"f7"});
  }

  TEST_CASE("a run that changed a few files of many leaves the saved index as it was; the next run finds them again") {
    std::string ws = make_temp_dir("ws");
    std::string store = make_temp_dir("store");
    for (int i = 0; i < 300; ++i)
      write_file(ws + "/d" + std::to_string(i % 7) + "/f" + std::to_string(i), std::to_string(i) + "\n");
    // Past the racy windows, so that stat data can vouch for the files: their mtimes an hour old
    // (older than the saved index file), and a clock past the two seconds in which a scan distrusts
    // the ctime that setting them gave.
    for (const auto& e : fs::recursive_directory_iterator(ws))
      fs::last_write_time(e.path(), fs::last_write_time(e.path()) - std::chrono::hours(1));
    testing::FakeClock clock(std::chrono::system_clock::now());
    clock.advance(std::chrono::seconds(3));
    // Each run: open, scan, freeze, a step that writes `files`, scan, tree, flush; its trees.
    auto run = [&](const std::vector<std::string>& files, const std::string& content) {
      auto snap = snapshot::SnapshotStore::open(store, ws, clock);
      REQUIRE(snap.ok());
      REQUIRE((*snap)->scan().ok());
      REQUIRE((*snap)->freeze_ignore_rules({}).ok());
      std::string before = (*snap)->write_tree().value();
      for (const auto& f : files) write_file(ws + "/" + f, content);
      REQUIRE((*snap)->scan_paths(files).ok());
      std::string after = (*snap)->write_tree().value();
      REQUIRE((*snap)->flush().ok());
      return std::make_tuple(before, after, (*snap)->repository_path());
    };
    auto from_scratch = [&] {
      auto fresh = snapshot::SnapshotStore::open(make_temp_dir("fresh"), ws, clock);
      REQUIRE((*fresh)->scan().ok());
      return (*fresh)->write_tree().value();
    };
    auto [t0, t0_after, repo] = run({}, "");
    std::string saved = read_file(repo + "/index");
    std::string saved_tree = read_file(repo + "/candor-index-tree");
    // Three of 300: under 1 in 100, so not written again, nor the tree saved beside it.
    auto [t1, t1_after, repo1] = run({"d0/f0", "d1/f1", "new.txt"}, "changed\n");
    CHECK(t1 == t0);
    CHECK(t1_after == from_scratch());
    CHECK(read_file(repo + "/index") == saved);
    CHECK(read_file(repo + "/candor-index-tree") == saved_tree);
    // The next run's first snapshot still has them, and with four more the index is written.
    auto [t2, t2_after, repo2] = run({"d2/f2", "d3/f3", "d4/f4", "d5/f5"}, "changed again\n");
    CHECK(t2 == t1_after);
    CHECK(t2_after == from_scratch());
    CHECK(read_file(repo + "/index") != saved);
    auto [t3, t3_after, repo3] = run({}, "");
    CHECK(t3 == t2_after);
    CHECK(t3_after == t3);
  }

  TEST_CASE("a warm run reuses the saved tree only with the very index it was saved with") {
    std::string ws = make_temp_dir("ws");
    std::string store = make_temp_dir("store");
    write_file(ws + "/a.txt", "one\n");
    write_file(ws + "/b.txt", "bee\n");
    auto run = [&](const std::string& step_content) {
      auto snap = snapshot::SnapshotStore::open(store, ws, system_clock());
      REQUIRE(snap.ok());
      REQUIRE((*snap)->scan().ok());
      REQUIRE((*snap)->freeze_ignore_rules({}).ok());
      std::string before = (*snap)->write_tree().value();
      if (!step_content.empty()) {
        write_file(ws + "/a.txt", step_content);
        REQUIRE((*snap)->scan().ok());
      }
      std::string after = (*snap)->write_tree().value();
      REQUIRE((*snap)->flush().ok());
      auto a = (*snap)->read(before, "a.txt");
      REQUIRE(a.ok());
      return std::make_tuple(before, after, a->value_or("(none)"), (*snap)->repository_path());
    };
    auto [t1, t1_after, a1, repo] = run("");
    CHECK(t1 == t1_after);  // nothing changed: the tree is the same, built once
    CHECK(a1 == "one\n");
    std::string index_one = read_file(repo + "/index");
    auto [t2, t2_after, a2, repo2] = run("two\n");  // the saved tree is now the one with "two"
    CHECK(t2 == t1);
    CHECK(t2_after != t1);
    // The store's index goes back to the first run's, and the workspace to its content: the index
    // then says nothing changed, but the tree saved beside the later index is not this one's.
    write_file(repo + "/index", index_one);
    write_file(ws + "/a.txt", "one\n");
    auto [t3, t3_after, a3, repo3] = run("");
    CHECK(a3 == "one\n");
    CHECK(t3 == t1);
  }
}

TEST_SUITE("verify") {
  TEST_CASE("incremental scans agree with a snapshot taken from scratch, through many kinds of change") {
    // The ignored paths are there at the start: watched through the run, whatever happens to them
    // (deleted and made again, a folder in their place), as a first scan from scratch takes them in.
    std::string ws =
        make_workspace({{".gitignore", "*.tmp\nignored/\n"}, {"g.tmp", "start\n"}, {"ignored/x", "start\n"}});
    auto snap = snapshot::SnapshotStore::open(make_temp_dir("store"), ws, system_clock());
    REQUIRE((*snap)->scan().ok());
    REQUIRE((*snap)->freeze_ignore_rules({}).ok());
    REQUIRE((*snap)->write_tree().ok());
    std::mt19937 rng(42);
    std::vector<std::string> names = {"a", "b", "d/c", "d/e/f", "g.tmp", "ignored/x", "h"};
    for (int round = 0; round < 60; ++round) {
      CAPTURE(round);
      std::string name = names[rng() % names.size()];
      std::string path = ws + "/" + name;
      std::error_code ec;
      switch (rng() % 6) {
        case 0:
          for (fs::path parent = fs::path(path).parent_path(); parent.string().size() > ws.size();
               parent = parent.parent_path()) {
            if (fs::is_regular_file(parent)) fs::remove(parent);  // "d" became a file in an earlier round
          }
          write_file(path, "content " + std::to_string(rng() % 3) + "\n");
          break;
        case 1:
          fs::remove(path, ec);
          break;
        case 2:
          if (fs::exists(path)) fs::last_write_time(path, fs::file_time_type::clock::now(), ec);
          break;  // touch
        case 3:
          if (fs::is_regular_file(path)) fs::permissions(path, fs::perms::owner_exec, fs::perm_options::add, ec);
          break;
        case 4:
          fs::remove_all(ws + "/d", ec);
          write_file(ws + "/d", "d is a file now");
          break;
        case 5:
          fs::remove(ws + "/link", ec);
          fs::create_symlink(name, ws + "/link", ec);
          break;
      }
      auto incremental = (*snap)->scan();
      REQUIRE(incremental.ok());
      auto fresh = snapshot::SnapshotStore::open(make_temp_dir("fresh"), ws, system_clock());
      REQUIRE((*fresh)->scan().ok());
      CHECK((*snap)->write_tree().value() == (*fresh)->write_tree().value());
    }
  }

  TEST_CASE("touching a file is not a change; changing its mode is") {
    std::string ws = make_temp_dir("ws");
    write_file(ws + "/run.sh", "echo hi\n");
    auto snap = snapshot::SnapshotStore::open(make_temp_dir("store"), ws, system_clock());
    REQUIRE((*snap)->scan().ok());
    fs::last_write_time(ws + "/run.sh", fs::file_time_type::clock::now() + std::chrono::seconds(5));
    CHECK((*snap)->scan().value().empty());
    fs::permissions(ws + "/run.sh", fs::perms::owner_exec, fs::perm_options::add);
    CHECK((*snap)->scan().value() == std::vector<std::string>{"run.sh"});
  }
}

namespace {

// The files a tree holds, read back with the git command line (an oracle independent of libgit2).
std::set<std::string> tree_files(const snapshot::SnapshotStore& snap, const std::string& tree) {
  auto r = run_command({"/usr/bin/git", "--git-dir=" + snap.repository_path(), "ls-tree", "-r", "--name-only", tree});
  REQUIRE(r.exit_code == 0);
  std::set<std::string> out;
  std::string line;
  for (char c : r.out) {
    if (c != '\n') {
      line += c;
    } else {
      out.insert(line);
      line.clear();
    }
  }
  return out;
}

std::unique_ptr<snapshot::SnapshotStore> open_frozen(const std::string& ws,
                                                     const std::vector<std::string>& extra = {}) {
  auto snap = snapshot::SnapshotStore::open(make_temp_dir("store"), ws, system_clock());
  REQUIRE(snap.ok());
  REQUIRE((*snap)->scan().ok());
  REQUIRE((*snap)->freeze_ignore_rules(extra).ok());
  return std::move(*snap);
}

}  // namespace

TEST_SUITE("verify") {
  TEST_CASE("a .gitignore written after the rules were frozen hides nothing") {
    std::string ws = make_workspace({{"a.txt", "a\n"}, {"sub/b.txt", "b\n"}});
    auto snap = open_frozen(ws);
    std::string t0 = snap->write_tree().value();

    write_file(ws + "/.gitignore", "hidden.txt\n");
    write_file(ws + "/sub/.gitignore", "*\n");
    write_file(ws + "/hidden.txt", "I hide\n");
    write_file(ws + "/sub/also.txt", "me too\n");
    auto s = snap->scan();
    REQUIRE(s.ok());
    CHECK(*s == std::vector<std::string>{".gitignore", "hidden.txt", "sub/.gitignore", "sub/also.txt"});
    std::string t1 = snap->write_tree().value();
    auto muts = snap->diff(t0, t1);
    REQUIRE(muts.ok());
    std::set<std::string> changed;
    for (const auto& m : *muts) changed.insert(m.path);
    CHECK(changed.count("hidden.txt") == 1);
    CHECK(changed.count("sub/also.txt") == 1);
    CHECK(snap->read(t1, "hidden.txt").value() == std::optional<std::string>("I hide\n"));
  }

  TEST_CASE("ignore rules present at the start keep ignoring, even after their .gitignore is edited or deleted") {
    std::string ws = make_workspace({{".gitignore", "node_modules/\n"}, {"lib/.gitignore", "*.log\n"}});
    write_file(ws + "/build/.gitignore", "*\n");  // meson's build folders ignore themselves
    write_file(ws + "/lib/a.c", "int a;\n");
    auto snap = open_frozen(ws);
    std::string t0 = snap->write_tree().value();
    // build/.gitignore is there at the start: recorded, though its own rule ignores it.
    CHECK(tree_files(*snap, t0) ==
          std::set<std::string>{".gitignore", "build/.gitignore", "lib/.gitignore", "lib/a.c"});

    write_file(ws + "/node_modules/x/index.js", "x\n");
    write_file(ws + "/lib/new.log", "log\n");
    write_file(ws + "/lib/deeper/more.log", "log\n");
    write_file(ws + "/build/out.o", "obj");
    CHECK(snap->scan().value().empty());

    write_file(ws + "/lib/.gitignore", "# nothing ignored any more\n");
    fs::remove(ws + "/.gitignore");
    write_file(ws + "/node_modules/y.js", "y\n");
    CHECK(snap->scan().value() == std::vector<std::string>{".gitignore", "lib/.gitignore"});
  }

  TEST_CASE("snapshot.ignore patterns apply from the freeze on, to files already there too") {
    std::string ws = make_workspace({{"old.tmp", "old\n"}, {"keep.txt", "keep\n"}});
    auto snap = open_frozen(ws, {"*.tmp", "/cache/"});
    CHECK(tree_files(*snap, snap->write_tree().value()) == std::set<std::string>{"keep.txt"});
    write_file(ws + "/d/b.tmp", "tmp\n");
    write_file(ws + "/cache/x", "x\n");
    write_file(ws + "/d/cache/y", "y\n");  // the pattern is anchored at the root
    CHECK(snap->scan().value() == std::vector<std::string>{"d/cache/y"});
  }

  TEST_CASE(
      "snapshot.ignore given to open() spares the first scan; a pattern added between runs prunes the saved index") {
    std::string ws = make_temp_dir("ws");
    std::string store = make_temp_dir("store");
    write_file(ws + "/keep.txt", "keep\n");
    write_file(ws + "/deps/lib.js", "lib\n");
    write_file(ws + "/debug.log", "log\n");
    {
      auto snap = snapshot::SnapshotStore::open(store, ws, system_clock(), {"deps/"});
      REQUIRE(snap.ok());
      CHECK((*snap)->scan().value() == std::vector<std::string>{"debug.log", "keep.txt"});
      REQUIRE((*snap)->freeze_ignore_rules({"deps/"}).ok());
      REQUIRE((*snap)->flush().ok());
    }
    auto snap = snapshot::SnapshotStore::open(store, ws, system_clock(), {"deps/", "*.log"});
    REQUIRE(snap.ok());
    REQUIRE((*snap)->scan().ok());
    REQUIRE((*snap)->freeze_ignore_rules({"deps/", "*.log"}).ok());
    CHECK(tree_files(**snap, (*snap)->write_tree().value()) == std::set<std::string>{"keep.txt"});

    auto dropped = snapshot::SnapshotStore::open(make_temp_dir("store"), ws, system_clock(),
                                                 {"*.log"});  // then the config lost it
    REQUIRE((*dropped)->scan().ok());
    REQUIRE((*dropped)->freeze_ignore_rules({}).ok());
    CHECK(tree_files(**dropped, (*dropped)->write_tree().value()) ==
          std::set<std::string>{"debug.log", "deps/lib.js", "keep.txt"});
  }

  TEST_CASE(
      "a symlink named like an ignored folder is a file to the ignore rules, in the first scan as later (as in git)") {
    std::string ws = make_workspace({{".gitignore", "deps/\n"}, {"real/lib.js", "lib\n"}});
    fs::create_directory_symlink("real", ws + "/deps");
    auto snap = open_frozen(ws);
    CHECK(tree_files(*snap, snap->write_tree().value()) == std::set<std::string>{".gitignore", "deps", "real/lib.js"});
    write_file(ws + "/new.txt", "new\n");
    CHECK(snap->scan().value() == std::vector<std::string>{"new.txt"});
  }

  TEST_CASE("folders holding their own .git are scanned like any folder, their .git excluded") {
    std::string ws = make_temp_dir("ws");
    write_file(ws + "/top.txt", "top\n");
    REQUIRE(run_command({"/usr/bin/git", "init", "-q", ws + "/sub"}).exit_code == 0);
    write_file(ws + "/sub/file.txt", "in a nested repository\n");
    auto snap = open_frozen(ws);
    CHECK(tree_files(*snap, snap->write_tree().value()) == std::set<std::string>{"sub/file.txt", "top.txt"});

    write_file(ws + "/later/.git/HEAD", "ref: refs/heads/main\n");  // a .git a step writes by hand
    write_file(ws + "/later/new.txt", "new\n");
    write_file(ws + "/sub/file.txt", "changed\n");
    CHECK(snap->scan().value() == std::vector<std::string>{"later/new.txt", "sub/file.txt"});
  }
}

TEST_SUITE("verify") {
  TEST_CASE("the snapshot repository is one git fsck accepts, whether or not the workspace has a repository") {
    for (bool with_repository : {false, true}) {
      CAPTURE(with_repository);
      std::string ws = make_workspace({{"a.txt", "a\n"}, {"d/b.txt", "b\n"}, {"empty", ""}});
      std::string big(300000, 'x');  // a size that takes four bytes of a pack entry's header
      for (std::size_t i = 0; i < big.size(); i += 7) big[i] = static_cast<char>('a' + i % 26);
      write_file(ws + "/big.bin", big);
      if (with_repository) {
        for (const char* f : {"/a.txt", "/d/b.txt"})
          fs::last_write_time(ws + f, fs::last_write_time(ws + f) - std::chrono::hours(1));
        testing::git(ws, {"init", "-q"});
        testing::git(ws, {"add", "-A"});
        testing::git(ws, {"commit", "-qm", "base"});
      }
      // With the repository, a clock past the two seconds in which a scan distrusts a recent ctime
      // (setting the mtimes moved it), so that the store never holds d/b.txt's content: its trees
      // name a blob only the workspace had.
      testing::FakeClock clock(std::chrono::system_clock::now());
      if (with_repository) clock.advance(std::chrono::seconds(3));
      std::string store = make_temp_dir("store");
      auto snap = snapshot::SnapshotStore::open(store, ws, clock);
      REQUIRE(snap.ok());
      REQUIRE((*snap)->scan().ok());
      REQUIRE((*snap)->freeze_ignore_rules({}).ok());
      std::string before = (*snap)->write_tree().value();
      REQUIRE((*snap)->pin(before, "runs/x/before").ok());
      write_file(ws + "/a.txt", "changed\n");
      write_file(ws + "/c.txt", "new\n");
      REQUIRE((*snap)->scan().ok());
      std::string after = (*snap)->write_tree().value();
      REQUIRE((*snap)->pin(after, "runs/x/after").ok());
      REQUIRE((*snap)->retain({before, after}, {"a.txt", "c.txt"}).ok());
      REQUIRE((*snap)->flush().ok());
      if (with_repository) fs::remove_all(ws + "/.git");  // what the run needs was copied
      auto fsck = testing::run_git("", {"--git-dir=" + (*snap)->repository_path(), "fsck", "--no-progress"});
      CAPTURE(fsck.out + fsck.err);
      CHECK(fsck.exit_code == 0);
      CHECK((*snap)->read(before, "a.txt").value() == std::optional<std::string>("a\n"));
      CHECK((*snap)->read(after, "big.bin").value() == std::optional<std::string>(big));
      // What the clock decides: d/b.txt, vouched for by the workspace's index and never read, is in no
      // object the store holds once that repository is gone.
      CHECK((*snap)->read(before, "d/b.txt").ok() == !with_repository);
      // Objects go to packs, not a file each.
      int loose = 0;
      for (const auto& e : fs::recursive_directory_iterator((*snap)->repository_path() + "/objects")) {
        loose += e.is_regular_file() && e.path().parent_path().filename().string().size() == 2;
      }
      CHECK(loose == 0);
    }
  }
}

namespace {

std::map<std::string, std::string> changes_of(const snapshot::SnapshotStore& snap, const std::string& from,
                                              const std::string& to) {
  auto muts = snap.diff(from, to);
  REQUIRE(muts.ok());
  std::map<std::string, std::string> out;
  for (const auto& m : *muts) out[m.path] = m.change;
  return out;
}

}  // namespace

// docs/design.md, "Snapshots see everything": ignored means "not committed", not "does not matter".
TEST_SUITE("verify") {
  TEST_CASE(
      "a file under an ignored path present at the start is watched: its modification, deletion and mode change are "
      "changes; a new one there is not") {
    for (bool with_repository : {false, true}) {
      CAPTURE(with_repository);
      std::string ws = make_workspace({{".gitignore", "data/\n*.local.yml\nbuild/\n"},
                                       {"src.c", "int main(){}\n"},
                                       {"data/app.sqlite3", std::string("SQLite format 3\0\x01\x02", 18)},
                                       {"data/deep/cache.bin", "cache\n"},
                                       {"app.local.yml", "db: data/app.sqlite3\n"},
                                       {"build/out.o", "obj\n"}});
      // A .gitignore inside an ignored folder is never read (git does not descend there): it
      // re-includes nothing.
      write_file(ws + "/build/.gitignore", "!*\n");
      if (with_repository) {
        REQUIRE(run_command({"/usr/bin/git", "init", "-q", ws}).exit_code == 0);
        REQUIRE(run_command({"/usr/bin/git", "-C", ws, "add", "-A"}).exit_code == 0);
      }
      auto snap = open_frozen(ws);
      std::string t0 = snap->write_tree().value();
      CHECK(tree_files(*snap, t0) == std::set<std::string>{".gitignore", "app.local.yml", "build/.gitignore",
                                                           "build/out.o", "data/app.sqlite3", "data/deep/cache.bin",
                                                           "src.c"});

      fs::remove(ws + "/data/app.sqlite3");
      write_file(ws + "/app.local.yml", "db: elsewhere\n");
      fs::permissions(ws + "/data/deep/cache.bin", fs::perms::owner_exec, fs::perm_options::add);
      write_file(ws + "/build/new.o", "new\n");  // build output: not listed
      write_file(ws + "/build/sub/more.o", "more\n");
      write_file(ws + "/data/new.db", "new\n");
      write_file(ws + "/other.local.yml", "new\n");
      CHECK(snap->scan().value() ==
            std::vector<std::string>{"app.local.yml", "data/app.sqlite3", "data/deep/cache.bin"});
      std::string t1 = snap->write_tree().value();
      CHECK(changes_of(*snap, t0, t1) == std::map<std::string, std::string>{{"app.local.yml", "modified"},
                                                                            {"data/app.sqlite3", "deleted"},
                                                                            {"data/deep/cache.bin", "mode"}});
      CHECK(snap->read(t0, "data/app.sqlite3").value() ==
            std::optional<std::string>(std::string("SQLite format 3\0\x01\x02", 18)));

      // Put back where it was (a whole folder gone and made again, too): the path is still watched.
      write_file(ws + "/data/app.sqlite3", "rewritten\n");
      fs::remove_all(ws + "/build");
      CHECK(snap->scan().value() == std::vector<std::string>{"build/.gitignore", "build/out.o", "data/app.sqlite3"});
      write_file(ws + "/build/out.o", "obj\n");
      write_file(ws + "/build/new.o", "new\n");
      CHECK(snap->scan().value() == std::vector<std::string>{"build/out.o"});
      std::string t2 = snap->write_tree().value();
      CHECK(changes_of(*snap, t0, t2) == std::map<std::string, std::string>{{"app.local.yml", "modified"},
                                                                            {"build/.gitignore", "deleted"},
                                                                            {"data/app.sqlite3", "modified"},
                                                                            {"data/deep/cache.bin", "mode"}});
    }
  }

  TEST_CASE(
      "a FIFO under an ignored path there at the start is watched like a file; one made there later is not listed") {
    std::string ws = make_temp_dir("ws");
    write_file(ws + "/.gitignore", "tmp/\n");
    fs::create_directories(ws + "/tmp/sockets");
    REQUIRE(::mkfifo((ws + "/tmp/sockets/app.fifo").c_str(), 0644) == 0);  // the only entry of its folder
    auto snap = open_frozen(ws);
    REQUIRE(snap->write_tree().ok());
    REQUIRE(snap->scan().ok());
    CHECK(snap->special_changes().empty());  // not "gone" because a later walk skipped its folder
    REQUIRE(::mkfifo((ws + "/tmp/new.fifo").c_str(), 0644) == 0);
    REQUIRE(snap->scan().ok());
    CHECK(snap->special_changes().empty());
    fs::remove(ws + "/tmp/sockets/app.fifo");
    REQUIRE(snap->scan().ok());
    auto changes = snap->special_changes();
    REQUIRE(changes.size() == 1);
    CHECK(changes[0].path == "tmp/sockets/app.fifo");
    CHECK(changes[0].after.mode == 0);
  }

  TEST_CASE(
      "config snapshot.ignore paths are never watched, not after a file tool's write either; paths only .gitignore "
      "matches are") {
    std::string ws = make_temp_dir("ws");
    write_file(ws + "/.gitignore", "cache/\nbuild/\n");
    write_file(ws + "/cache/a.bin", "a\n");  // ignored by both
    write_file(ws + "/tmp/b.txt", "b\n");    // by the config alone
    write_file(ws + "/build/c.o", "c\n");    // by .gitignore alone: watched
    write_file(ws + "/keep.txt", "keep\n");
    for (bool given_to_open : {true, false}) {
      CAPTURE(given_to_open);
      const std::vector<std::string> config = {"cache/", "/tmp/"};
      auto opened = snapshot::SnapshotStore::open(make_temp_dir("store"), ws, system_clock(),
                                                  given_to_open ? config : std::vector<std::string>{});
      REQUIRE(opened.ok());
      auto& snap = *opened;
      REQUIRE(snap->scan().ok());
      REQUIRE(snap->freeze_ignore_rules(config).ok());
      std::string t0 = snap->write_tree().value();
      CHECK(tree_files(*snap, t0) == std::set<std::string>{".gitignore", "build/c.o", "keep.txt"});
      write_file(ws + "/cache/a.bin", "changed\n");
      fs::remove(ws + "/tmp/b.txt");
      write_file(ws + "/build/c.o", "changed\n");
      CHECK(snap->scan().value() == std::vector<std::string>{"build/c.o"});
      write_file(ws + "/tmp/b.txt", "by a tool\n");
      CHECK(snap->scan_paths({"tmp/b.txt"}).value().empty());
      CHECK(snap->scan({"cache/a.bin"}).value().empty());
      write_file(ws + "/cache/a.bin", "a\n");
      write_file(ws + "/tmp/b.txt", "b\n");
      write_file(ws + "/build/c.o", "c\n");
    }
  }

  TEST_CASE("a file tool's own write to an ignored path is a change, a new file too, through either kind of scan") {
    std::string ws = make_workspace({{".gitignore", "build/\n*.local.yml\n"}, {"a.txt", "a\n"}});
    auto snap = open_frozen(ws);
    std::string t0 = snap->write_tree().value();
    write_file(ws + "/config.local.yml", "by file_write\n");
    CHECK(snap->scan_paths({"config.local.yml"}).value() == std::vector<std::string>{"config.local.yml"});
    // After a process, the whole workspace is scanned; what the tool said it wrote is still held,
    // what the process made beside it under an ignored path is not.
    write_file(ws + "/build/deep/tool.o", "by file_write\n");
    write_file(ws + "/build/deep/process.o", "by make\n");
    CHECK(snap->scan({"build/deep/tool.o"}).value() == std::vector<std::string>{"build/deep/tool.o"});
    // Held from then on: a later change to it is seen by any scan.
    write_file(ws + "/build/deep/tool.o", "changed by a process\n");
    CHECK(snap->scan().value() == std::vector<std::string>{"build/deep/tool.o"});
    std::string t1 = snap->write_tree().value();
    CHECK(changes_of(*snap, t0, t1) ==
          std::map<std::string, std::string>{{"build/deep/tool.o", "added"}, {"config.local.yml", "added"}});
  }

  TEST_CASE("a file one run made under an ignored path is there at the next run's start: that run watches it") {
    std::string ws = make_temp_dir("ws");
    std::string store = make_temp_dir("store");
    write_file(ws + "/.gitignore", "build/\n");
    write_file(ws + "/a.txt", "a\n");
    auto run_start = [&] {
      auto snap = snapshot::SnapshotStore::open(store, ws, system_clock());
      REQUIRE(snap.ok());
      REQUIRE((*snap)->scan().ok());
      REQUIRE((*snap)->freeze_ignore_rules({}).ok());
      std::string before = (*snap)->write_tree().value();
      return std::make_pair(std::move(*snap), before);
    };
    {
      auto [snap, before] = run_start();
      write_file(ws + "/build/gen.o", "made by run 1\n");
      CHECK(snap->scan().value().empty());
      CHECK(changes_of(*snap, before, snap->write_tree().value()).empty());
      REQUIRE(snap->flush().ok());
    }
    auto [snap, before] = run_start();
    CHECK(tree_files(*snap, before) == std::set<std::string>{".gitignore", "a.txt", "build/gen.o"});
    write_file(ws + "/build/gen.o", "changed by run 2\n");
    CHECK(snap->scan().value() == std::vector<std::string>{"build/gen.o"});
    CHECK(changes_of(*snap, before, snap->write_tree().value()) ==
          std::map<std::string, std::string>{{"build/gen.o", "modified"}});
    REQUIRE(snap->flush().ok());
    // And the run after that, warm (every path in the saved index), still watches it.
    auto [third, third_before] = run_start();
    fs::remove(ws + "/build/gen.o");
    CHECK(third->scan().value() == std::vector<std::string>{"build/gen.o"});
  }
}
