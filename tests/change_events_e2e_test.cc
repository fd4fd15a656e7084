// Change detection in O(changes), end to end (docs/design.md): the built binary runs the same plan
// on two copies of one workspace, one with change events (the default) and one with
// `snapshot.change_events: false` (every scan walks). The hostile cases of issue 40 (a queue
// flooded faster than it drains, a rename storm, a bind mount made under a step, a watch limit set
// low, a hard link written through, a sandbox without Landlock) must each end in the very mutation
// list the walking run found: by events, or by a full walk the report names with its reason.
#include <doctest/doctest.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/e2e_support.h"
#include "tests/test_support.h"

using namespace candor::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct Case {
  std::string name;
  std::function<void(const std::string& ws)> setup;  // the workspace before the run
  std::vector<std::string> commands;                 // one shell step each
  json config = json::object();                      // .candor/config.json of the evented run
  std::vector<std::string> env;                      // more NAME=VALUE for candor
};

// The mutations as one comparable text each: path, change, sizes and line counts.
std::vector<std::string> mutation_list(const json& report) {
  std::vector<std::string> out;
  for (const auto& m : report["mutations"]) {
    out.push_back(m.value("path", "") + " " + m.value("change", "") + " " + m["bytes_before"].dump() + ">" +
                  m["bytes_after"].dump() + " +" + m["lines_added"].dump() + " -" + m["lines_removed"].dump());
  }
  std::sort(out.begin(), out.end());
  return out;
}

void write_config(const std::string& ws, const json& config) {
  if (config.empty()) return;
  fs::create_directories(ws + "/.candor");
  write_file(ws + "/.candor/config.json", config.dump());
}

struct Outcome {
  json evented, walked;
};

// Runs the case's plan on two copies of its workspace; `during` (when set) is done to each
// workspace while its run's step s1 runs (candor started in the background).
Outcome run_twice(const Case& c, const std::function<void(const std::string& ws)>& during = nullptr) {
  Outcome out;
  for (bool events : {true, false}) {
    Env env(make_workspace({{"README.md", "readme\n"}, {"src/a.txt", "a\n"}, {"src/deep/b.txt", "b\n"}}));
    if (c.setup) c.setup(env.ws);
    json config = c.config;
    if (!events) config["snapshot"]["change_events"] = false;
    write_config(env.ws, config);
    env.env.insert(env.env.end(), c.env.begin(), c.env.end());
    std::string plan = env.plan_file(shell_plan(c.commands).dump());
    json report;
    if (during) {
      pid_t pid = spawn_until_step(env, {"exec", plan, "-C", env.ws, "--judge", "never"}, "s1", c.env);
      REQUIRE(pid > 0);
      during(env.ws);
      int status = 0;
      REQUIRE(::waitpid(pid, &status, 0) == pid);
      auto r = env.candor({"report", "last", "--json"});
      report = parse_stdout(r);
    } else {
      auto r = env.exec(plan, {"--judge", "never"});
      report = parse_stdout(r);
    }
    (events ? out.evented : out.walked) = report;
  }
  CHECK(mutation_list(out.evented) == mutation_list(out.walked));
  CHECK(out.evented["scan"]["complete"] == out.walked["scan"]["complete"]);
  // The walking run asked for no events: it says nothing of how it scanned.
  CHECK(out.walked["scan"]["by_events"] == 0);
  CHECK(out.walked["scan"]["full_walks"].empty());
  return out;
}

// Whether a full walk of the evented run gives a reason holding `text`.
bool walked_for(const json& report, const std::string& text) {
  for (const auto& w : report["scan"]["full_walks"]) {
    if (w.value("reason", "").find(text) != std::string::npos) return true;
  }
  return false;
}

long max_queued_events() {
  std::ifstream in("/proc/sys/fs/inotify/max_queued_events");
  long n = 0;
  in >> n;
  return n;
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("change events: plain steps are seen by events alone, and the mutations are a full walk's") {
    Case c;
    c.name = "plain";
    c.commands = {"echo more >> src/a.txt && mkdir -p new/deep && echo n > new/deep/n.txt",
                  "rm src/deep/b.txt && mv src/a.txt src/moved.txt && chmod +x README.md"};
    Outcome o = run_twice(c);
    CHECK(o.evented["scan"]["full_walks"].empty());
    CHECK(o.evented["scan"]["by_events"] == 3);  // two steps and the final scan
    CHECK(mutation_list(o.evented).size() == 5);
  }

  TEST_CASE("change events: a step that writes faster than the queue drains ends in a named full walk") {
    long limit = max_queued_events();
    if (limit <= 0 || limit > 200000) {
      MESSAGE("skipped: fs.inotify.max_queued_events is " << limit);
      return;
    }
    // In folders watched from the start (each file is at least two events: made, closed after
    // writing), 64 of them: a folder of thousands of changed files is slow to diff file by file.
    long files = limit / 2 + 64;
    Case c;
    c.name = "flood";
    c.setup = [](const std::string& ws) {
      for (int d = 0; d < 64; ++d) fs::create_directories(ws + "/flood/d" + std::to_string(d));
    };
    c.commands = {"i=0; while [ $i -lt " + std::to_string(files) +
                  " ]; do echo $i > flood/d$((i % 64))/f$i; i=$((i+1)); done"};
    Outcome o = run_twice(c);
    CHECK(walked_for(o.evented, "the inotify queue overflowed"));
    CHECK(mutation_list(o.evented).size() == static_cast<std::size_t>(files));
  }

  TEST_CASE("change events: a rename storm of 2,000 files is followed by its events") {
    Case c;
    c.name = "storm";
    c.setup = [](const std::string& ws) {
      for (int i = 0; i < 2000; ++i) {
        write_file(ws + "/storm/d" + std::to_string(i % 20) + "/f" + std::to_string(i), std::to_string(i));
      }
    };
    c.commands = {"perl -e 'for (glob \"storm/*/*\") { rename $_, \"$_.x\" or die }'"};
    Outcome o = run_twice(c);
    CHECK(o.evented["scan"]["full_walks"].empty());
    CHECK(mutation_list(o.evented).size() == 4000);  // each name deleted, and added under its new one
  }

  TEST_CASE("change events: past a watch limit set low every scan walks in full, saying so") {
    Case c;
    c.name = "limit";
    c.commands = {"echo deep >> src/deep/b.txt"};
    c.config = {{"snapshot", {{"max_watches", 2}}}};
    Outcome o = run_twice(c);
    CHECK(walked_for(o.evented, "the limit of 2 inotify watches"));
    CHECK(o.evented["scan"]["by_events"] == 0);
    CHECK(o.evented["scan"]["full_walks"].size() == 2);  // the step's scan and the final one
    CHECK(mutation_list(o.evented).size() == 1);
  }

  TEST_CASE("change events: a write through a hard link made by a step changes both names") {
    Case c;
    c.name = "hard link";
    c.commands = {"ln src/a.txt src/a-too.txt", "echo through the link >> src/a-too.txt"};
    Outcome o = run_twice(c);
    CHECK(o.evented["scan"]["full_walks"].empty());
    auto list = mutation_list(o.evented);
    REQUIRE(list.size() == 2);
    CHECK(list[0].rfind("src/a-too.txt added", 0) == 0);
    CHECK(list[1].rfind("src/a.txt modified", 0) == 0);
  }

  TEST_CASE("change events: a shared mapping written by a process left running at its step's end is seen") {
    // A write through a mapping is no event; the PID namespace ends the process with its step, and
    // the mapping's file is closed then: that close is one.
    Case c;
    c.name = "mapping";
    c.commands = {
        "/usr/bin/python3 -c 'import mmap, os, sys, time\n"
        "f = open(\"src/a.txt\", \"r+b\")\nm = mmap.mmap(f.fileno(), 0)\nm[0:1] = b\"Z\"\n"
        "if os.fork(): sys.exit(0)\ntime.sleep(60)' && sleep 0.2"};
    Outcome o = run_twice(c);
    CHECK(o.evented["scan"]["full_walks"].empty());
    auto list = mutation_list(o.evented);
    REQUIRE(list.size() == 1);
    CHECK(list[0].rfind("src/a.txt modified", 0) == 0);
  }

  TEST_CASE("change events: a file named like a credential made in a new ignored folder is empty to later steps") {
    // The refresh before each shell step looks only where the events said (a step cannot move or
    // link a credential file: it is a mount point in the step's namespace): the folder made, the
    // file made in it, one renamed to a credential's name.
    Env env(make_workspace({{".env", "TOKEN=0123456789abcdef\n"}, {".gitignore", "build/\n"}, {"a.txt", "a\n"}}));
    std::string plan = env.plan_file(shell_plan({"mkdir -p build/x && echo TOKEN=made-here > build/x/.env.local",
                                                 "wc -c < build/x/.env.local > seen1.txt",
                                                 "echo key > build/x/plain && mv build/x/plain build/x/id_rsa",
                                                 "wc -c < build/x/id_rsa > seen2.txt; wc -c < a.txt > seen3.txt"})
                                         .dump());
    auto r = env.exec(plan, {"--judge", "never"});
    json report = parse_stdout(r);
    CHECK(report["steps"]["failed"] == 0);
    CHECK(report["scan"]["full_walks"].empty());
    CHECK(read_file(env.ws + "/seen1.txt") == "0\n");
    CHECK(read_file(env.ws + "/seen2.txt") == "0\n");
    CHECK(read_file(env.ws + "/seen3.txt") == "2\n");  // what is not a credential reads whole
    CHECK(read_file(env.ws + "/build/x/.env.local").size() == 16);
  }

  TEST_CASE("change events: without Landlock the scans after a process walk in full, saying why") {
    Case c;
    c.name = "no landlock";
    c.commands = {"echo more >> src/a.txt"};
    c.env = {"CANDOR_SANDBOX_DISABLE=landlock"};
    Outcome o = run_twice(c);
    CHECK(walked_for(o.evented, "without Landlock"));
    CHECK(mutation_list(o.evented).size() == 1);
  }

  TEST_CASE("change events: a bind mount made over a workspace folder while a step runs is seen") {
    if (::geteuid() != 0) {
      MESSAGE("skipped: mounting needs root");
      return;
    }
    std::string other = make_temp_dir("mounted");
    write_file(other + "/a.txt", "from the mount\n");
    write_file(other + "/only-here.txt", "new\n");
    Case c;
    c.name = "bind mount";
    c.commands = {"sleep 2"};
    std::vector<std::string> mounted;
    bool refused = false;
    Outcome o = run_twice(c, [&](const std::string& ws) {
      if (::mount(other.c_str(), (ws + "/src").c_str(), nullptr, MS_BIND, nullptr) != 0) {
        refused = true;
        return;
      }
      mounted.push_back(ws + "/src");
    });
    for (const auto& m : mounted) ::umount2(m.c_str(), MNT_DETACH);
    if (refused) {
      MESSAGE("skipped: this machine refuses a bind mount");
      return;
    }
    CHECK(walked_for(o.evented, "mounted or unmounted at `src/`"));
    auto list = mutation_list(o.evented);
    REQUIRE(list.size() == 3);  // src/a.txt modified, src/deep/b.txt deleted, src/only-here.txt added
  }
}
