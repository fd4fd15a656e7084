// A run's start with config snapshot.fsmonitor "watchman" (docs/design.md, "Change detection in
// O(changes)", between processes), through the built binary and a real Watchman of the test's own:
// the snapshot before the run looks where Watchman says changed since the last run, takes the
// folders and special files from the base that run saved, and watches the folders it lists again
// without a walk. Each case runs twice, on twin workspaces, one that asks Watchman and one that
// walks; what changed between the runs is undone by the run's steps, so a stale snapshot before
// the run would show as a missing mutation; `candor undo` must give back the state between runs.
#include <doctest/doctest.h>

#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/e2e_support.h"
#include "tests/test_support.h"
#include "tests/watchman_fixture.h"

using namespace candor::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// The mutations as one comparable text each: path, change, sizes and modes.
std::vector<std::string> mutation_list(const json& report) {
  std::vector<std::string> out;
  for (const auto& m : report.value("mutations", json::array())) {
    out.push_back(m.value("path", "") + " " + m.value("change", "") + " " + m.value("bytes_before", json()).dump() +
                  ">" + m.value("bytes_after", json()).dump() + " " + m.value("mode_before", json()).dump() + ">" +
                  m.value("mode_after", json()).dump());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Every file, folder and link of the workspace but .candor, with its content, kind and mode (what
// `candor undo` restores: not a FIFO).
std::map<std::string, std::string> tree_of(const std::string& ws) {
  std::map<std::string, std::string> out;
  for (auto it = fs::recursive_directory_iterator(ws); it != fs::recursive_directory_iterator(); ++it) {
    std::string rel = fs::relative(it->path(), ws).string();
    if (rel == ".candor") {
      it.disable_recursion_pending();
      continue;
    }
    struct stat st {};
    REQUIRE(::lstat(it->path().c_str(), &st) == 0);
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode)) continue;  // no tree holds a FIFO
    std::string what = std::to_string(st.st_mode);
    if (S_ISREG(st.st_mode)) what += " " + read_file(it->path().string());
    if (S_ISLNK(st.st_mode)) what += " -> " + fs::read_symlink(it->path()).string();
    out[rel] = what;
  }
  return out;
}

// Every file of the workspace an hour old and the last change two seconds past: no stat is racy,
// so the scan before the run looks at a file only where Watchman (or the walk) says.
void settle(const std::string& ws) {
  const auto past = fs::file_time_type::clock::now() - std::chrono::hours(1);
  for (const auto& e : fs::recursive_directory_iterator(ws)) {
    // Only what changed since the last settle: a file touched again is a change Watchman names.
    if (e.is_regular_file() && !e.is_symlink() && fs::last_write_time(e.path()) > past + std::chrono::minutes(30))
      fs::last_write_time(e.path(), past);
  }
}

struct Twin {
  Env env;
  bool watchman;
  Twin(const std::string& from, bool w, const std::string& sock) : env(from), watchman(w) {
    env.env.push_back("WATCHMAN_SOCK=" + sock);
    fs::create_directories(env.ws + "/.candor");
    configure({});
  }
  // .candor/config.json: `more` merged over snapshot.fsmonitor "watchman" (on the twin that asks it).
  void configure(const json& more) {
    json config = watchman ? json{{"snapshot", {{"fsmonitor", "watchman"}}}} : json::object();
    if (more.is_object()) config.merge_patch(more);  // `{}` is null here: nothing more
    write_file(env.ws + "/.candor/config.json", config.dump());
  }
  json exec(const std::vector<std::string>& commands) {
    auto r = env.exec(env.plan_file(shell_plan(commands).dump()), {"--judge", "never"});
    return parse_stdout(r);
  }
};

struct Outcome {
  json watched, walked;
  std::map<std::string, std::string> between;  // the watched workspace between the runs
};

// A first run on both twins (the watched one saves its base), `between` done to each, then a run of
// `commands` on both: their mutations must be the same, and undoing the second run must give back
// the workspace as `between` left it.
Outcome run_twins(WatchmanDaemon& daemon, const std::map<std::string, std::string>& files,
                  const std::function<void(const std::string& ws)>& between, const std::vector<std::string>& commands,
                  const std::function<void()>& before_second = nullptr,
                  const std::function<void(const std::string& ws)>& setup = nullptr,
                  const std::function<void(const std::string& ws)>& before_undo = nullptr) {
  std::string from = make_workspace(files);
  Twin watched(from, true, daemon.sock), walked(from, false, daemon.sock);
  Outcome out;
  for (Twin* t : {&watched, &walked}) {
    if (setup) setup(t->env.ws);
    settle(t->env.ws);
    json first = t->exec({"true"});
    CHECK(first.value("mutations", json::array()).empty());
  }
  for (Twin* t : {&watched, &walked}) between(t->env.ws);
  out.between = tree_of(watched.env.ws);
  CHECK(out.between == tree_of(walked.env.ws));
  for (Twin* t : {&watched, &walked}) settle(t->env.ws);
  ::usleep(2'500'000);
  out.between = tree_of(watched.env.ws);
  if (before_second) before_second();
  out.watched = watched.exec(commands);
  out.walked = walked.exec(commands);
  CAPTURE(out.watched.dump());
  CAPTURE(out.walked.dump());
  CHECK(mutation_list(out.watched) == mutation_list(out.walked));
  CHECK(out.walked["scan"].value("before_run", json()).is_null());
  if (before_undo) before_undo(watched.env.ws);
  auto undone = watched.env.candor({"undo", "last"});
  CAPTURE(undone.out);
  CAPTURE(undone.err);
  CHECK(undone.exit_code == 0);
  auto after_undo = tree_of(watched.env.ws);
  for (const auto& [path, what] : after_undo) {
    if (out.between.count(path) == 0 || out.between.at(path) != what) MESSAGE("after undo, differs: " << path);
  }
  for (const auto& [path, what] : out.between) {
    if (after_undo.count(path) == 0) MESSAGE("after undo, missing: " << path);
  }
  CHECK(after_undo == out.between);
  return out;
}

// Whether the run's start looked by Watchman's answer. A daemon that did not answer in time (a
// loaded CI machine runs many suites beside this one) made it walk, which is correct, and the case
// then checks the walk alone: said, not failed. The first case asserts the answer was used.
bool looked_by_watchman(const json& report) {
  const json before = report.value("scan", json::object()).value("before_run", json::object());
  if (!before.is_object()) return false;
  if (before.value("looked", "") == "watchman") return true;
  std::string reason = before.value("reason", "");
  MESSAGE("the run's start walked: " << reason);
  return reason.find("in time") != std::string::npos;
}

const std::map<std::string, std::string> kFiles = {
    {"README.md", "readme\n"}, {"src/a.txt", "a\n"}, {"src/deep/b.txt", "b\n"}, {"docs/c.txt", "c\n"}};

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE(
      "run fsmonitor: the snapshot before a run looks by Watchman's answer, and a change made between runs is in it") {
    REQUIRE_MESSAGE(have_watchman(), "watchman is not installed (make test installs it)");
    WatchmanDaemon daemon;
    // Between the runs a file changes, one is made and one removed; the run's steps undo each: a
    // snapshot before the run that missed them would see no change at all.
    Outcome o = run_twins(
        daemon, kFiles,
        [](const std::string& ws) {
          write_file(ws + "/src/a.txt", "a, changed between runs\n");
          write_file(ws + "/src/new.txt", "made between runs\n");
          fs::remove(ws + "/src/deep/b.txt");
        },
        {"printf 'a\\n' > src/a.txt && rm src/new.txt && printf 'b\\n' > src/deep/b.txt && echo more >> README.md"});
    CHECK(o.watched["scan"]["before_run"] == json{{"looked", "watchman"}, {"reason", ""}});
    CHECK(mutation_list(o.watched).size() == 4);
    CHECK(o.watched["scan"]["full_walks"].empty());
  }

  TEST_CASE("run fsmonitor: a credential file made or moved in between runs is kept from the steps") {
    REQUIRE_MESSAGE(have_watchman(), "watchman is not installed (make test installs it)");
    WatchmanDaemon daemon;
    std::map<std::string, std::string> files = kFiles;
    files["config/.env"] = "DB_PASSWORD=from-the-base-run-4711\n";
    // The steps copy what they can read of each into the workspace: a credential file is shown
    // empty to them, so each copy must be empty.
    Outcome o =
        run_twins(daemon, files,
                  [](const std::string& ws) {
                    write_file(ws + "/src/.env", "API_TOKEN=made-between-runs-0815\n");
                    fs::create_directories(ws + "/moved");
                    fs::rename(ws + "/config", ws + "/moved/config");
                  },
                  {"cat src/.env > seen-new.txt; cat moved/config/.env > seen-moved.txt; echo more >> README.md"});
    CHECK(looked_by_watchman(o.watched));
    int copies = 0;
    for (const auto& m : o.watched["mutations"]) {
      if (m.value("path", "").rfind("seen-", 0) != 0) continue;
      ++copies;
      CHECK_MESSAGE(m.value("bytes_after", -1) == 0, m.dump());
    }
    CHECK(copies == 2);
  }

  TEST_CASE(
      "run fsmonitor: a folder made between runs in an ignored one: a credential file a step makes there is kept from "
      "the next") {
    REQUIRE_MESSAGE(have_watchman(), "watchman is not installed (make test installs it)");
    WatchmanDaemon daemon;
    std::map<std::string, std::string> files = kFiles;
    files[".gitignore"] = "cache/\n";
    files["cache/old.txt"] = "cached\n";
    Outcome o = run_twins(
        daemon, files, [](const std::string& ws) { fs::create_directories(ws + "/cache/new/deeper"); },
        {"echo API_TOKEN=made-by-step-one-2024 > cache/new/deeper/.env", "cat cache/new/deeper/.env > seen.txt"},
        nullptr, nullptr,
        // What an ignored folder holds is no snapshot's: undo leaves it, so it goes first.
        [](const std::string& ws) { fs::remove(ws + "/cache/new/deeper/.env"); });
    CHECK(looked_by_watchman(o.watched));
    bool seen = false;
    for (const auto& m : o.watched["mutations"]) {
      if (m.value("path", "") != "seen.txt") continue;
      seen = true;
      CHECK_MESSAGE(m.value("bytes_after", -1) == 0, m.dump());
    }
    CHECK(seen);
  }

  TEST_CASE("run fsmonitor: a credential file the config allowed until now is kept from the steps") {
    REQUIRE_MESSAGE(have_watchman(), "watchman is not installed (make test installs it)");
    WatchmanDaemon daemon;
    std::map<std::string, std::string> files = kFiles;
    files["config/.env"] = "DB_PASSWORD=allowed-until-now-4711\n";
    Twin watched(make_workspace(files), true, daemon.sock);
    watched.configure({{"secrets", {{"allow", {"config/.env"}}}}});
    json first = watched.exec({"cat config/.env > seen.txt"});
    CHECK(read_file(watched.env.ws + "/seen.txt") == "DB_PASSWORD=allowed-until-now-4711\n");
    // The exception goes: the list the first run saved was found under other rules.
    watched.configure({});
    json second = watched.exec({"cat config/.env > seen.txt"});
    CAPTURE(second.dump());
    CHECK(looked_by_watchman(second));
    CHECK(read_file(watched.env.ws + "/seen.txt").empty());
  }

  TEST_CASE("run fsmonitor: a folder's mode changed between runs is the mode before the run") {
    REQUIRE_MESSAGE(have_watchman(), "watchman is not installed (make test installs it)");
    WatchmanDaemon daemon;
    Outcome o = run_twins(daemon, kFiles, [](const std::string& ws) { fs::permissions(ws + "/docs", fs::perms(0777)); },
                          {"chmod 755 docs && echo more >> README.md"});
    CHECK(looked_by_watchman(o.watched));
    bool docs_mode = false;
    for (const auto& line : mutation_list(o.watched)) docs_mode = docs_mode || line.rfind("docs/", 0) == 0;
    CHECK(docs_mode);
  }

  TEST_CASE(
      "run fsmonitor: a folder made between runs is watched, a step's writes in it are seen, FIFOs are the base's") {
    REQUIRE_MESSAGE(have_watchman(), "watchman is not installed (make test installs it)");
    WatchmanDaemon daemon;
    Outcome o = run_twins(
        daemon, kFiles,
        [](const std::string& ws) {
          fs::create_directories(ws + "/fresh/sub/deeper");
          write_file(ws + "/fresh/sub/one.txt", "1\n");
          REQUIRE(::mkfifo((ws + "/fresh/pipe").c_str(), 0644) == 0);
        },
        {"echo 2 > fresh/sub/two.txt && echo 3 >> fresh/sub/one.txt && echo 4 > fresh/sub/deeper/four.txt && rm "
         "fresh/pipe && rm src/base-pipe"},
        nullptr, [](const std::string& ws) { REQUIRE(::mkfifo((ws + "/src/base-pipe").c_str(), 0644) == 0); });
    CHECK(looked_by_watchman(o.watched));
    // By events alone: the new folders were watched from the start, not found by a walk.
    CHECK(o.watched["scan"]["full_walks"].empty());
    // The FIFO the base lists and the one made between runs are gone: each is a mutation.
    CHECK(mutation_list(o.watched).size() == 5);
  }

  TEST_CASE("run fsmonitor: a folder replaced by a symlink out of the workspace between runs is not followed") {
    REQUIRE_MESSAGE(have_watchman(), "watchman is not installed (make test installs it)");
    WatchmanDaemon daemon;
    std::string outside = make_temp_dir("outside");
    write_file(outside + "/secret.txt", "outside\n");
    Outcome o = run_twins(daemon, kFiles,
                          [&outside](const std::string& ws) {
                            fs::remove_all(ws + "/src/deep");
                            fs::create_directory_symlink(outside, ws + "/src/deep");
                          },
                          {"echo more >> README.md"});
    CHECK(looked_by_watchman(o.watched));
    CHECK(read_file(outside + "/secret.txt") == "outside\n");
  }

  TEST_CASE("run fsmonitor: a .gitignore changed between runs walks: what the scans enter changed") {
    REQUIRE_MESSAGE(have_watchman(), "watchman is not installed (make test installs it)");
    WatchmanDaemon daemon;
    std::map<std::string, std::string> files = kFiles;
    files[".gitignore"] = "build/\n";
    files["build/out.txt"] = "built\n";
    // No longer ignored, build/ is in the snapshot a walk takes; a step that changes build/out.txt
    // must show as a change to it (and undo must give it back), not as a file made by the run.
    Outcome o = run_twins(daemon, files, [](const std::string& ws) { write_file(ws + "/.gitignore", "*.tmp\n"); },
                          {"echo rebuilt > build/out.txt"});
    CHECK(o.watched["scan"]["before_run"]["looked"] == "walk");
    CHECK(o.watched["scan"]["before_run"]["reason"].get<std::string>().find(".gitignore") != std::string::npos);
    CHECK(mutation_list(o.watched).size() == 1);
  }

  TEST_CASE(
      "run fsmonitor: a bind mount made in the workspace between runs walks: the base's watches would be under it") {
    REQUIRE_MESSAGE(have_watchman(), "watchman is not installed (make test installs it)");
    if (::geteuid() != 0) {
      MESSAGE("skipped: mounting needs root");
      return;
    }
    WatchmanDaemon daemon;
    std::string other = make_temp_dir("mounted");
    write_file(other + "/c.txt", "from the mount\n");
    std::vector<std::string> mounted;
    bool refused = false;
    Outcome o = run_twins(daemon, kFiles,
                          [&](const std::string& ws) {
                            if (::mount(other.c_str(), (ws + "/docs").c_str(), nullptr, MS_BIND, nullptr) != 0) {
                              refused = true;
                              return;
                            }
                            mounted.push_back(ws + "/docs");
                          },
                          {"echo more >> README.md"});
    for (const auto& m : mounted) ::umount2(m.c_str(), MNT_DETACH);
    if (refused) {
      MESSAGE("skipped: this machine refuses a bind mount");
      return;
    }
    CHECK(o.watched["scan"]["before_run"]["looked"] == "walk");
    CHECK(o.watched["scan"]["before_run"]["reason"].get<std::string>().find("mounted") != std::string::npos);
  }

  TEST_CASE("run fsmonitor: a snapshot.ignore pattern dropped between runs walks: undo keeps what it held") {
    REQUIRE_MESSAGE(have_watchman(), "watchman is not installed (make test installs it)");
    WatchmanDaemon daemon;
    std::map<std::string, std::string> files = kFiles;
    files["build/x.txt"] = "made by the user\n";
    Twin watched(make_workspace(files), true, daemon.sock);
    watched.configure({{"snapshot", {{"ignore", {"build/"}}}}});
    (void)watched.exec({"true"});
    watched.configure({});
    json second = watched.exec({"echo agent > build/x.txt"});
    CAPTURE(second.dump());
    CHECK(second["scan"]["before_run"]["looked"] == "walk");
    CHECK(second["scan"]["before_run"]["reason"].get<std::string>().find("snapshot.ignore") != std::string::npos);
    REQUIRE(mutation_list(second).size() == 1);
    CHECK(mutation_list(second)[0].rfind("build/x.txt modified", 0) == 0);
    auto undone = watched.env.candor({"undo", "last"});
    CHECK(undone.exit_code == 0);
    CHECK(read_file(watched.env.ws + "/build/x.txt") == "made by the user\n");
  }

  TEST_CASE("run fsmonitor: another Watchman than the base's walks, and says why") {
    REQUIRE_MESSAGE(have_watchman(), "watchman is not installed (make test installs it)");
    WatchmanDaemon daemon;
    Outcome o = run_twins(
        daemon, kFiles, [](const std::string& ws) { write_file(ws + "/src/a.txt", "a, changed between runs\n"); },
        {"printf 'a\\n' > src/a.txt"},
        [&daemon] {
          // Restarted between the runs: what the old one saw is not the new one's to answer for.
          daemon.stop();
          daemon.start();
        });
    CHECK(o.watched["scan"]["before_run"]["looked"] == "walk");
    CHECK(o.watched["scan"]["before_run"]["reason"].get<std::string>().find("another Watchman") != std::string::npos);
    CHECK(mutation_list(o.watched).size() == 1);
  }

  TEST_CASE("run fsmonitor: no daemon to ask walks, and the run says so") {
    REQUIRE_MESSAGE(have_watchman(), "watchman is not installed (make test installs it)");
    WatchmanDaemon daemon;
    Outcome o = run_twins(
        daemon, kFiles, [](const std::string& ws) { write_file(ws + "/src/a.txt", "a, changed between runs\n"); },
        {"printf 'a\\n' > src/a.txt"}, [&daemon] { daemon.stop(); });
    CHECK(o.watched["scan"]["before_run"]["looked"] == "walk");
    CHECK_FALSE(o.watched["scan"]["before_run"]["reason"].get<std::string>().empty());
    CHECK(mutation_list(o.watched).size() == 1);
  }
}
