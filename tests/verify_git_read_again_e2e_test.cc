// `candor verify --git BASE..` read again (docs/design.md, "Change detection in O(changes)"): candor's
// store keeps its last read of a working tree, so the next reads only what changed: by stat, or
// with BASE's config snapshot.fsmonitor "watchman" by Watchman's answer without a walk. The working
// tree is the change, and untrusted: whatever it does between two reads, the second must read it
// as a read with a fresh store does (the same tree id, the same mutations), or walk and say why.
#include <doctest/doctest.h>

#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/git_repo_fixture.h"
#include "tests/watchman_fixture.h"

namespace candor::testing {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

std::vector<std::string> mutated(const json& report) {
  std::vector<std::string> out;
  for (const auto& m : report["mutations"])
    out.push_back(m["path"].get<std::string>() + " " + m["change"].get<std::string>());
  return out;
}

// A repository whose reads are compared: `read()` verifies with the store that keeps the last
// read; `fresh()` with a store of its own each time, which reads every file.
struct ReadTwice : Repo {
  std::vector<std::string> extra_env;

  // BASE: the example site, more files, `.gitignore` ignoring logs, tmp/ and *.d/ (but keep.log),
  // and `config` as
  // .candor/config.json ("": none).
  explicit ReadTwice(const std::string& config = "") {
    write_file(ws + "/README.md", "# the site\n");
    write_file(ws + "/js/app.js", "console.log('hi');\n");
    write_file(ws + "/docs/guide.md", "read me\n");
    write_file(ws + "/.gitignore", "*.log\ntmp/\n*.d/\n!keep.log\n");
    if (!config.empty()) write_file(ws + "/.candor/config.json", config);
    commit("more");
  }
  json verify_json(const std::string& store_dir, const std::string& range) {
    std::vector<std::string> saved = env;
    env.insert(env.end(), extra_env.begin(), extra_env.end());
    std::string kept = store;
    store = store_dir;
    auto r = verify(range, {"--json", "--judge", "never"});
    store = kept;
    env = saved;
    CAPTURE(r.err);
    REQUIRE((r.exit_code == 0 || r.exit_code == 1 || r.exit_code == 2));
    return parse_stdout(r);
  }
  json read(const std::string& range = "main..") { return verify_json(store, range); }
  // A submodule (a gitlink to this repository's HEAD) at `path` in a new commit on main.
  void add_submodule(const std::string& path) {
    git({"update-index", "--add", "--cacheinfo", "160000," + head() + "," + path});
    git({"commit", "-q", "-m", "a submodule"});
  }
  json fresh(const std::string& range = "main..") { return verify_json(make_temp_dir("fresh-store"), range); }
  // Every file an hour old: no stat is racy (git's rule: changed within a second of the record).
  void settle() {
    for (const auto& e : fs::recursive_directory_iterator(ws)) {
      if (e.is_regular_file() && e.path().string().find("/.git/") == std::string::npos)
        fs::last_write_time(e.path(), fs::file_time_type::clock::now() - std::chrono::hours(1));
    }
  }
  // The second read says what a fresh one says: the tree, and so every mutation.
  json same_as_fresh(const std::string& range = "main..") {
    json again = read(range);
    json walked = fresh(range);
    CHECK(again["git"]["head_tree"] == walked["git"]["head_tree"]);
    CHECK(mutated(again) == mutated(walked));
    CHECK(again["scan"]["complete"] == walked["scan"]["complete"]);
    return again;
  }
};

// A ReadTwice whose BASE asks Watchman, a daemon of the test's own.
struct Watched {
  WatchmanDaemon daemon;
  ReadTwice repo{R"({"snapshot": {"fsmonitor": "watchman"}})"};
  Watched() { repo.extra_env.push_back("WATCHMAN_SOCK=" + daemon.sock); }
};

std::size_t files_in(const std::string& ws) {
  std::size_t n = 0;
  for (auto it = fs::recursive_directory_iterator(ws); it != fs::recursive_directory_iterator(); ++it) {
    if (it->path().filename() == ".git") {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file()) ++n;
  }
  return n;
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("verify --git BASE.. read again: unchanged files are not read; an edit that puts size and mtime back is") {
    ReadTwice repo;
    repo.edit("css/style.css", "background: #ffffff;", "background: #006400;");
    repo.settle();
    const std::size_t files = files_in(repo.ws);
    json first = repo.read();
    CHECK(first["git"]["worktree_read"]["files_hashed"] == files);
    CHECK(first["git"]["worktree_read"]["files_reused"] == 0);
    CHECK(first["git"]["worktree_read"].count("looked") == 0);  // no fsmonitor asked for

    json second = repo.same_as_fresh();
    // The edited file's blob is not in the repository: it is read again. Nothing else is.
    CHECK(second["git"]["worktree_read"]["files_hashed"] == 1);
    CHECK(second["git"]["worktree_read"]["files_reused"] == files - 1);
    CHECK(mutated(second) == std::vector<std::string>{"css/style.css modified"});

    // The agent's cover-up: another file rewritten to the same size, its mtime put back. Its ctime
    // moved (no process can set it), so its stat no longer vouches for it.
    const std::string page = repo.ws + "/index.html";
    std::string text = read_file(page);
    const auto mtime = fs::last_write_time(page);
    std::string same_size = text;
    same_size[same_size.find('<')] = '{';
    write_file(page, same_size);
    fs::last_write_time(page, mtime);
    json third = repo.same_as_fresh();
    CHECK(mutated(third) == std::vector<std::string>{"css/style.css modified", "index.html modified"});
    CHECK(third["git"]["worktree_read"]["files_hashed"] == 2);
    // candor doctor counts the record (a fresh store's reads kept theirs elsewhere).
    auto doctor = repo.candor({"doctor", "--json"});
    json store = parse_stdout(doctor)["store"];
    CHECK(store["worktree_records"] == 1);
    CHECK(store["worktree_record_bytes"].get<std::uint64_t>() > 0);
  }

  TEST_CASE("verify --git BASE.. read again: a damaged or foreign record is no record, and the read is right") {
    ReadTwice repo;
    repo.edit("css/style.css", "background: #ffffff;", "background: #006400;");
    repo.settle();
    (void)repo.read();
    std::vector<fs::path> caches;
    for (const auto& e : fs::directory_iterator(repo.store + "/worktrees")) caches.push_back(e.path());
    REQUIRE(caches.size() == 1);
    const std::string index = (caches[0] / "index").string(), base = (caches[0] / "base.json").string();
    SUBCASE("the files cut short") {
      std::string bytes = read_file(index);
      fs::permissions(index, fs::perms::owner_write, fs::perm_options::add);
      write_file(index, bytes.substr(0, bytes.size() / 2));
    }
    SUBCASE("the record of another working tree") {
      fs::permissions(base, fs::perms::owner_write, fs::perm_options::add);
      json b = json::parse(read_file(base));
      b["root"] = "/somewhere/else";
      write_file(base, b.dump());
    }
    SUBCASE("not JSON") {
      fs::permissions(base, fs::perms::owner_write, fs::perm_options::add);
      write_file(base, "{\"root\": ");
    }
    repo.edit("index.html", "<", "{");
    json again = repo.same_as_fresh();
    CHECK(again["git"]["worktree_read"]["files_reused"] == 0);
    CHECK(mutated(again) == std::vector<std::string>{"css/style.css modified", "index.html modified"});
  }

  TEST_CASE("verify --git BASE.. read again: a store inside the working tree keeps no record the change could write") {
    ReadTwice repo;
    repo.edit("css/style.css", "background: #ffffff;", "background: #006400;");
    repo.settle();
    const std::string inside = repo.ws + "/.store";
    fs::create_directories(inside);
    (void)repo.verify_json(inside, "main..");
    json again = repo.verify_json(inside, "main..");
    CHECK(again["git"]["worktree_read"]["files_reused"] == 0);
    CHECK(!fs::exists(inside + "/worktrees"));
  }

  TEST_CASE(
      "verify --git BASE.. with Watchman: each read after the first looks only where it says, and reads what a "
      "fresh read does") {
    REQUIRE_MESSAGE(have_watchman(), "watchman is not installed (make test installs it)");
    WatchmanDaemon daemon;
    ReadTwice repo(R"({"snapshot": {"fsmonitor": "watchman"}})");
    repo.extra_env.push_back("WATCHMAN_SOCK=" + daemon.sock);
    repo.edit("css/style.css", "background: #ffffff;", "background: #006400;");
    write_file(repo.ws + "/old.log", "ignored when first read\n");
    repo.settle();
    json first = repo.read();
    CHECK(first["git"]["worktree_read"]["looked"] == "walk");
    CHECK(first["git"]["worktree_read"]["reason"] == "no earlier read of this working tree was saved");

    auto looked_by_watchman = [&](const json& r) {
      const json& how = r["git"]["worktree_read"];
      // A loaded machine may keep Watchman from answering in time; then the read walks and says so.
      if (how["looked"] == "walk" && how.value("reason", "").find("in time") != std::string::npos) {
        MESSAGE("walked: " << how.dump());
        return;
      }
      CHECK_MESSAGE(how["looked"] == "watchman", how.dump());
    };
    SUBCASE("files edited, made in new folders, deleted; a folder renamed; a file made a folder") {
      write_file(repo.ws + "/notes/deep/er/new.md", "new\n");
      fs::remove(repo.ws + "/index.html");
      fs::rename(repo.ws + "/css", repo.ws + "/styles");
      fs::remove(repo.ws + "/README.md");
      write_file(repo.ws + "/README.md/inside.txt", "a folder now\n");
    }
    SUBCASE("ignored files stay out; one added with -f is in, though Watchman does not name the index") {
      write_file(repo.ws + "/build.log", "ignored\n");
      write_file(repo.ws + "/tmp/cache/x.txt", "ignored folder\n");
      repo.git({"add", "-f", "build.log", "old.log"});
    }
    SUBCASE("a .gitignore the change writes hides nothing") {
      write_file(repo.ws + "/.gitignore", "*.log\ntmp/\n*.md\n");
      write_file(repo.ws + "/hidden.md", "under the change's own rule\n");
    }
    SUBCASE("a symlink out of the repository, an executable bit") {
      fs::create_symlink("/etc/passwd", repo.ws + "/passwd");
      fs::permissions(repo.ws + "/index.html", fs::perms::owner_exec, fs::perm_options::add);
    }
    SUBCASE("a tracked file replaced by an empty folder (Watchman names the folder alone)") {
      fs::remove(repo.ws + "/README.md");
      fs::create_directory(repo.ws + "/README.md");
    }
    SUBCASE("ignored by a folder pattern, whatever a negation says of the file: not taken in") {
      write_file(repo.ws + "/tmp/keep.log", "in an ignored folder\n");
      write_file(repo.ws + "/x.d/keep.log", "in a folder a pattern ignores\n");
    }
    SUBCASE("a file written back to what BASE holds") {
      repo.edit("css/style.css", "background: #006400;", "background: #ffffff;");
    }
    json again = repo.same_as_fresh();
    looked_by_watchman(again);
    CHECK(again["git"]["worktree_read"]["files_hashed"] < files_in(repo.ws));
    // And once more with nothing changed in between.
    json third = repo.same_as_fresh();
    looked_by_watchman(third);
  }

  TEST_CASE("verify --git BASE.. with Watchman: a file made a folder and then removed is deleted in every read") {
    REQUIRE_MESSAGE(have_watchman(), "watchman is not installed (make test installs it)");
    WatchmanDaemon daemon;
    ReadTwice repo(R"({"snapshot": {"fsmonitor": "watchman"}})");
    repo.extra_env.push_back("WATCHMAN_SOCK=" + daemon.sock);
    fs::create_symlink("index.html", repo.ws + "/link");
    repo.commit("a link");
    repo.settle();
    (void)repo.read();
    fs::remove(repo.ws + "/README.md");
    write_file(repo.ws + "/README.md/inside.txt", "a folder now\n");
    fs::remove(repo.ws + "/link");
    fs::create_directory(repo.ws + "/link");
    json second = repo.same_as_fresh();
    CHECK(mutated(second) ==
          std::vector<std::string>{"README.md deleted", "README.md/inside.txt added", "link deleted"});
    // What the second read kept of README.md must not stand for it once the folder is gone too.
    fs::remove_all(repo.ws + "/README.md");
    json third = repo.same_as_fresh();
    CHECK(mutated(third) == std::vector<std::string>{"README.md deleted", "link deleted"});
  }

  TEST_CASE("verify --git BASE.. with Watchman: a submodule's folder replaced by a file is read") {
    REQUIRE_MESSAGE(have_watchman(), "watchman is not installed (make test installs it)");
    Watched w;
    ReadTwice& repo = w.repo;
    repo.add_submodule("vendor/lib");
    fs::create_directories(repo.ws + "/vendor/lib");
    repo.settle();
    CHECK(mutated(repo.read()).empty());
    fs::remove(repo.ws + "/vendor/lib");
    write_file(repo.ws + "/vendor/lib", "EVIL=1\n");
    json again = repo.same_as_fresh();
    CHECK(mutated(again) == std::vector<std::string>{"vendor/lib modified"});
  }

  TEST_CASE("verify --git BASE.. with Watchman: files the index tracks where BASE has a submodule are read again") {
    REQUIRE_MESSAGE(have_watchman(), "watchman is not installed (make test installs it)");
    Watched w;
    ReadTwice& repo = w.repo;
    repo.add_submodule("sub");
    // The change: the submodule unstaged, a file staged in its place; read once.
    repo.git({"rm", "-q", "--cached", "sub"});
    write_file(repo.ws + "/sub/s", "good\n");
    repo.git({"add", "sub/s"});
    repo.settle();
    CHECK(mutated(repo.read()) == std::vector<std::string>{"sub deleted", "sub/s added"});
    // Then more of it: an edit, and new files staged there.
    write_file(repo.ws + "/sub/s", "EVIL, longer\n");
    write_file(repo.ws + "/sub/run.sh", "echo run\n");
    repo.git({"add", "sub/run.sh"});
    json again = repo.same_as_fresh();
    CHECK(mutated(again) == std::vector<std::string>{"sub deleted", "sub/run.sh added", "sub/s added"});
  }

  TEST_CASE("verify --git BASE.. with Watchman: a file system mounted beneath the working tree walks") {
    REQUIRE_MESSAGE(have_watchman(), "watchman is not installed (make test installs it)");
    if (::geteuid() != 0) {
      MESSAGE("skipped: mounting needs root");
      return;
    }
    WatchmanDaemon daemon;
    ReadTwice repo(R"({"snapshot": {"fsmonitor": "watchman"}})");
    repo.extra_env.push_back("WATCHMAN_SOCK=" + daemon.sock);
    repo.settle();
    (void)repo.read();
    // Another folder's files over a tracked one: no event says so.
    std::string other = make_temp_dir("mounted");
    write_file(other + "/guide.md", "not what BASE holds\n");
    write_file(other + "/added.md", "new\n");
    if (::mount(other.c_str(), (repo.ws + "/docs").c_str(), nullptr, MS_BIND, nullptr) != 0) {
      MESSAGE("skipped: this machine refuses a bind mount");
      return;
    }
    json again = repo.read();
    json walked = repo.fresh();
    // The mount over an edit the agent made, then taken away: no event says so either.
    write_file(repo.ws + "/js/app.js", "edited under the mount to come\n");
    std::string clean = make_temp_dir("clean");
    write_file(clean + "/app.js", "console.log('hi');\n");
    if (::mount(clean.c_str(), (repo.ws + "/js").c_str(), nullptr, MS_BIND, nullptr) != 0) FAIL("the second mount");
    json covered = repo.read();
    ::umount2((repo.ws + "/js").c_str(), MNT_DETACH);
    ::umount2((repo.ws + "/docs").c_str(), MNT_DETACH);
    CHECK(again["git"]["worktree_read"]["looked"] == "walk");
    CHECK(again["git"]["worktree_read"]["reason"].get<std::string>().find(
              "a file system is mounted beneath the working tree") == 0);
    CHECK(mutated(again) == std::vector<std::string>{"docs/added.md added", "docs/guide.md modified"});
    CHECK(again["git"]["head_tree"] == walked["git"]["head_tree"]);
    CHECK(covered["git"]["worktree_read"]["looked"] == "walk");
    json uncovered = repo.same_as_fresh();
    CHECK(uncovered["git"]["worktree_read"]["looked"] == "walk");
    CHECK(mutated(uncovered) == std::vector<std::string>{"js/app.js modified"});
  }

  TEST_CASE("verify --git BASE.. with Watchman: another daemon, or BASE with other ignore rules, walks and says why") {
    REQUIRE_MESSAGE(have_watchman(), "watchman is not installed (make test installs it)");
    WatchmanDaemon daemon;
    ReadTwice repo(R"({"snapshot": {"fsmonitor": "watchman"}})");
    repo.extra_env.push_back("WATCHMAN_SOCK=" + daemon.sock);
    // A branch whose BASE keeps logs: its ignore rules are not main's.
    repo.git({"checkout", "-q", "-b", "keeps-logs"});
    write_file(repo.ws + "/.gitignore", "tmp/\n");
    repo.commit("logs are kept");
    repo.git({"checkout", "-q", "main"});
    repo.settle();
    (void)repo.read();
    SUBCASE("Watchman restarted") {
      daemon.stop();
      daemon.start();
      write_file(repo.ws + "/made-while-down.txt", "x\n");
      json again = repo.same_as_fresh();
      CHECK(again["git"]["worktree_read"]["looked"] == "walk");
      CHECK(again["git"]["worktree_read"]["reason"] ==
            "the clock saved with the earlier read is another Watchman's (it restarted)");
      CHECK(mutated(again) == std::vector<std::string>{"made-while-down.txt added"});
    }
    SUBCASE("BASE's .gitignore differs") {
      // A file the earlier read's BASE ignored, which the other BASE does not: no answer names it.
      write_file(repo.ws + "/kept.log", "ignored by main's rules\n");
      CHECK(mutated(repo.read()).empty());
      json again = repo.same_as_fresh("keeps-logs..");
      CHECK(again["git"]["worktree_read"]["looked"] == "walk");
      CHECK(again["git"]["worktree_read"]["reason"] ==
            "BASE's ignore rules or submodules are not those the earlier read took files in by");
      CHECK(mutated(again) == std::vector<std::string>{".gitignore modified", "kept.log added"});
    }
  }
}

}  // namespace candor::testing
