// End-to-end: a step cannot hide its own changes from the snapshots, through the built binary.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <spawn.h>

#include <fcntl.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "tests/e2e_support.h"

using namespace candor;
using namespace candor::testing;
using nlohmann::json;

namespace {

bool mutated(const json& report, const std::string& path) {
  for (const auto& m : report["mutations"]) {
    if (m["path"] == path) return true;
  }
  return false;
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("a .gitignore a step writes does not hide the files written after it: reported, uncovered, undone") {
    // A file_write of a no-op is already suspicious to tier 1; a shell step is how the file would
    // be hidden without a trace, and then only the snapshot stands between it and `success`.
    for (std::string step2 :
         {R"({"id": "s2", "tool": "file_write", "args": {"path": "hidden.txt", "content": "unseen?\n"}})",
          R"({"id": "s2", "tool": "shell", "args": {"command": "echo unseen? > hidden.txt"}})"}) {
      CAPTURE(step2);
      Env env;
      std::string plan = env.plan_file(R"({"goal_kind": "modify", "steps": [
          {"id": "s1", "tool": "file_write", "args": {"path": ".gitignore", "content": "hidden.txt\n"},
           "assert": [{"type": "file_contains", "path": ".gitignore", "text": "hidden.txt"}]},
          )" + step2 + R"(], "then": "finish"})");
      json run = parse_stdout(env.exec(plan));
      CHECK(mutated(run, ".gitignore"));
      CHECK(mutated(run, "hidden.txt"));
      CHECK(run["verdict"] != "success");
      CHECK(env.candor({"undo", run["run_id"]}).exit_code == 0);
      CHECK_FALSE(exists(env.ws + "/hidden.txt"));
      CHECK_FALSE(exists(env.ws + "/.gitignore"));
    }
  }

  TEST_CASE("a .gitattributes a step writes cannot make the run's text changes look binary, empty or unchanged") {
    Env env;
    std::string plan = env.plan_file(R"({"goal_kind": "modify", "steps": [
        {"id": "s1", "tool": "file_write", "args": {"path": ".gitattributes", "content": "* binary -diff\n"}},
        {"id": "s2", "tool": "file_patch", "args": {"path": "css/style.css", "edits": [{"find": "background: #ffffff;", "replace": "background: #006400;"}]}}
        ], "then": "finish"})");
    json run = parse_stdout(env.exec(plan, {"--judge", "never"}));
    bool seen = false;
    for (const auto& m : run["mutations"]) {
      if (m["path"] != "css/style.css") continue;
      seen = true;
      CHECK(m["binary"] == false);
      CHECK(m["lines_added"] == 1);
      CHECK(m["lines_removed"] == 1);
      CHECK(m["bytes_before"].get<std::int64_t>() > 0);
      CHECK(m["bytes_after"] == m["bytes_before"]);
    }
    CHECK(seen);
  }

  TEST_CASE(
      "after a file tool, only its path is looked at unless a process ran: what an assertion's command wrote is still "
      "seen") {
    Env env;
    // s1's assertion runs a program that writes a file: the scan after s2 (a file_write that names
    // only its own path) must still look everywhere, or out.txt is in no snapshot.
    std::string plan = env.plan_file(R"({"goal_kind": "modify", "steps": [
        {"id": "s1", "tool": "file_write", "args": {"path": "a.txt", "content": "a\n"},
         "assert": [{"type": "command_succeeds", "command": "echo sneaked > out.txt"}]},
        {"id": "s2", "tool": "file_write", "args": {"path": "b.txt", "content": "b\n"}}], "then": "finish"})");
    json run = parse_stdout(env.exec(plan));
    CHECK(mutated(run, "a.txt"));
    CHECK(mutated(run, "b.txt"));
    CHECK(mutated(run, "out.txt"));
  }

  TEST_CASE(
      "a folder named so git refuses it (GIT~1, .GIT) does not break the run: named as unread, the scan incomplete") {
    Env env;
    std::string plan = env.plan_file(R"({"goal_kind": "modify", "steps": [
        {"id": "s1", "tool": "shell", "args": {"command": "mkdir GIT~1 && echo x > GIT~1/hooks.sh && echo y > ok.txt"},
         "assert": [{"type": "file_contains", "path": "ok.txt", "text": "y"}]}], "then": "finish"})");
    auto r = env.exec(plan);
    json run = parse_stdout(r);
    CAPTURE(r.err);
    CHECK(run["status"] == "completed");
    CHECK(run["scan"]["complete"] == false);
    CHECK(run["scan"]["unread"] == json::array({"GIT~1/hooks.sh"}));
    CHECK(mutated(run, "ok.txt"));
    CHECK(run["verdict"] != "success");
    // The next run on the workspace starts, and says the same.
    json next = parse_stdout(env.exec(env.plan_file(R"({"goal_kind": "inspect", "steps": [
        {"id": "s1", "tool": "file_read", "args": {"path": "ok.txt"}}], "then": "finish"})")));
    CHECK(next["status"] == "completed");
    CHECK(next["scan"]["unread"] == json::array({"GIT~1/hooks.sh"}));
  }

  TEST_CASE("a file_write through a symlinked folder is reported where the file landed, attributed to its step") {
    Env env;
    std::filesystem::create_directories(env.ws + "/real");
    std::filesystem::create_directory_symlink("real", env.ws + "/link");
    std::string plan = env.plan_file(R"({"goal_kind": "modify", "steps": [
        {"id": "s1", "tool": "file_write", "args": {"path": "link/x.txt", "content": "x\n"}}], "then": "finish"})");
    json run = parse_stdout(env.exec(plan));
    REQUIRE(mutated(run, "real/x.txt"));
    for (const auto& m : run["mutations"]) {
      if (m["path"] == "real/x.txt") CHECK(m["steps"] == json::array({"s1"}));
    }
  }

  TEST_CASE("a repository a step creates inside the workspace does not hide the files in it") {
    Env env;
    // HOME: the sandbox keeps a shell step out of the real one, which git would read.
    std::string plan = env.plan_file(R"({"goal_kind": "modify", "steps": [
        {"id": "s1", "tool": "file_patch", "args": {"path": "css/style.css",
           "edits": [{"find": "background: #ffffff;", "replace": "background: #006400;"}]},
         "assert": [{"type": "file_contains", "path": "css/style.css", "text": "#006400"}]},
        {"id": "s2", "tool": "shell", "args": {"command": "HOME=/nonexistent git init -q sub && echo x > sub/file.txt"}}], "then": "finish"})");
    json run = parse_stdout(env.exec(plan));
    REQUIRE(run["step_results"][1]["ok"] == true);
    CHECK(mutated(run, "sub/file.txt"));
    for (const auto& m : run["mutations"]) CHECK(m["path"].get<std::string>().rfind("sub/.git/", 0) != 0);
    CHECK(run["verdict"] != "success");
    CHECK(env.candor({"undo", run["run_id"]}).exit_code == 0);
    CHECK_FALSE(exists(env.ws + "/sub/file.txt"));
  }

  TEST_CASE("a step that creates .candor/ or .git/ blocks success, named in the report") {
    for (std::string command : {"mkdir -p .candor && echo '{\"network\": {\"allow\": [\"*\"]}}' > .candor/config.json",
                                "HOME=/nonexistent git init -q ."}) {
      CAPTURE(command);
      Env env;
      json plan = {{"goal_kind", "modify"},
                   {"steps",
                    {{{"id", "s1"},
                      {"tool", "file_patch"},
                      {"args",
                       {{"path", "css/style.css"},
                        {"edits", {{{"find", "background: #ffffff;"}, {"replace", "background: #006400;"}}}}}},
                      {"assert", {{{"type", "file_contains"}, {"path", "css/style.css"}, {"text", "#006400"}}}}},
                     {{"id", "s2"}, {"tool", "shell"}, {"args", {{"command", command}}}}}},
                   {"then", "finish"}};
      auto r = env.exec(env.plan_file(plan.dump()));
      json run = parse_stdout(r);
      CAPTURE(r.out);
      CHECK(run["verdict"] == "partial");
      std::string said = run["reasons"].dump() + run["protected_changes"].dump();
      bool named = said.find(".candor") != std::string::npos || said.find(".git") != std::string::npos;
      CHECK(named);
    }
  }

  TEST_CASE(
      "twenty runs started at once on a workspace the store has never seen all start: the snapshot repository is made "
      "once") {
    Env env;
    std::string plan = env.plan_file(R"({"goal_kind": "modify", "steps": [
        {"id": "s1", "tool": "file_read", "args": {"path": "index.html"}}], "then": "finish"})");
    std::vector<pid_t> pids;
    std::string bin = candor_bin(), home = "CANDOR_HOME=" + env.store;
    for (int i = 0; i < 20; ++i) {
      std::vector<std::string> args = {bin, "exec", plan, "-C", env.ws, "--json"};
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      std::vector<char*> envp = {home.data(), const_cast<char*>("PATH=/usr/bin:/bin"), nullptr};
      posix_spawn_file_actions_t quiet;
      posix_spawn_file_actions_init(&quiet);
      posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
      pid_t pid = 0;
      REQUIRE(::posix_spawn(&pid, bin.c_str(), &quiet, nullptr, argv.data(), envp.data()) == 0);
      posix_spawn_file_actions_destroy(&quiet);
      pids.push_back(pid);
    }
    int started = 0;
    for (pid_t pid : pids) {
      int status = 0;
      REQUIRE(::waitpid(pid, &status, 0) == pid);
      // Each run finishes with its verdict: fail (it changed nothing), exit 2; none dies at start.
      started += WIFEXITED(status) && WEXITSTATUS(status) == 2;
    }
    CHECK(started == 20);
    auto runs = env.candor({"runs", "--json", "--limit", "100"});
    CHECK(json::parse(runs.out).size() == 20);
  }

  TEST_CASE("a run seeded from the workspace's repository can be undone and reported after that repository is gc'd") {
    Env env;
    write_file(env.ws + "/notes.txt", "original notes\n");
    write_file(env.ws + "/gone.txt", "to be deleted\n");
    git(env.ws, {"init", "-q"});
    // Old files, so the first snapshot takes their contents from the index instead of reading them.
    for (const auto& e : std::filesystem::recursive_directory_iterator(env.ws)) {
      std::filesystem::last_write_time(e.path(), std::filesystem::last_write_time(e.path()) - std::chrono::hours(1));
    }
    git(env.ws, {"add", "-A"});
    git(env.ws, {"commit", "-qm", "base"});
    // Past the two seconds in which a scan distrusts a file whose ctime (just changed above) is
    // recent: otherwise the run's later scans hash every file again and the store holds them all.
    std::this_thread::sleep_for(std::chrono::seconds(3));
    std::string notes_id = git(env.ws, {"rev-parse", "HEAD:notes.txt"}).substr(0, 40);
    std::string plan = env.plan_file(R"({"goal_kind": "modify", "steps": [
        {"id": "s1", "tool": "file_write", "args": {"path": "notes.txt", "content": "agent notes\n"}},
        {"id": "s2", "tool": "file_delete", "args": {"path": "gone.txt"}}], "then": "finish"})");
    json run = parse_stdout(env.exec(plan));
    REQUIRE(mutated(run, "notes.txt"));
    REQUIRE(mutated(run, "gone.txt"));
    std::string id = run["run_id"];

    // The agent's work is committed on a new history and the old one is pruned: the blobs the
    // first snapshot named now exist nowhere but where candor copied them.
    std::string branch = git(env.ws, {"symbolic-ref", "--short", "HEAD"});
    branch.pop_back();
    git(env.ws, {"checkout", "-q", "--orphan", "fresh"});
    git(env.ws, {"add", "-A"});
    git(env.ws, {"commit", "-qm", "fresh"});
    git(env.ws, {"branch", "-q", "-D", branch});
    git(env.ws, {"reflog", "expire", "--expire=now", "--all"});
    git(env.ws, {"gc", "-q", "--prune=now"});
    REQUIRE(run_git(env.ws, {"cat-file", "-e", notes_id}).exit_code != 0);

    std::string html = make_temp_dir("report") + "/report.html";
    CHECK(env.candor({"report", id, "--html", html}).exit_code == 0);
    CHECK(read_file(html).find("original notes") != std::string::npos);  // the diff's old side
    auto undo = env.candor({"undo", id});
    CAPTURE(undo.err);
    CHECK(undo.exit_code == 0);
    CHECK(read_file(env.ws + "/notes.txt") == "original notes\n");
    CHECK(read_file(env.ws + "/gone.txt") == "to be deleted\n");

    // The store stays a repository git accepts: the trees name blobs it never copied, in packs
    // marked as a partial clone's.
    int repositories = 0;
    for (const auto& e : std::filesystem::directory_iterator(env.store + "/snapshots")) {
      if (e.path().extension() != ".git") continue;
      ++repositories;
      auto fsck = run_git("", {"--git-dir=" + e.path().string(), "fsck", "--no-progress"});
      CAPTURE(fsck.out + fsck.err);
      CHECK(fsck.exit_code == 0);
    }
    CHECK(repositories == 1);

    // candor gc repacks the store into one pack: it must stay a partial clone's (a .promisor
    // beside it), or git fsck would call the blobs the store never copied missing.
    REQUIRE(env.candor({"gc", "--keep", "5"}).exit_code == 0);
    for (const auto& e : std::filesystem::directory_iterator(env.store + "/snapshots")) {
      if (e.path().extension() != ".git") continue;
      int packs = 0, promised = 0;
      for (const auto& p : std::filesystem::directory_iterator(e.path() / "objects" / "pack")) {
        packs += p.path().extension() == ".pack";
        promised += p.path().extension() == ".promisor";
      }
      CHECK(packs == 1);
      CHECK(promised == packs);
      auto fsck = run_git("", {"--git-dir=" + e.path().string(), "fsck", "--full", "--strict", "--no-progress"});
      CAPTURE(fsck.out + fsck.err);
      CHECK(fsck.exit_code == 0);
    }
    CHECK(env.candor({"report", id, "--html", html}).exit_code == 0);
    CHECK(read_file(html).find("original notes") != std::string::npos);
  }
}

namespace {

// A change to a file git ignores (docs/design.md, "Snapshots see everything"): `git init` and commit
// the workspace when `with_repository`, so that the first snapshot is seeded from its index.
void commit_workspace(const Env& env) {
  git(env.ws, {"init", "-q"});
  git(env.ws, {"add", "-A"});
  git(env.ws, {"commit", "-qm", "base"});
}

const json* mutation_of(const json& report, const std::string& path) {
  for (const auto& m : report["mutations"]) {
    if (m["path"] == path) return &m;
  }
  return nullptr;
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE(
      "issue 28: deleting and rewriting files .gitignore matches, beside a covered edit, is not a success; undo "
      "restores them") {
    for (bool with_repository : {false, true}) {
      CAPTURE(with_repository);
      Env env;
      std::string db = std::string("SQLite format 3\0", 16);
      for (int i = 0; i < 5000; ++i) db += static_cast<char>((i * 131 + 7) % 256);
      const std::string yml = "database: data/app.sqlite3\npassword_file: none\n";
      write_file(env.ws + "/.gitignore", "data/\n*.local.yml\n");
      write_file(env.ws + "/data/app.sqlite3", db);
      write_file(env.ws + "/app.local.yml", yml);
      if (with_repository) commit_workspace(env);
      std::string plan = env.plan_file(R"({"goal_kind": "modify", "steps": [
          {"id": "s1", "tool": "file_patch", "args": {"path": "css/style.css",
             "edits": [{"find": "background: #ffffff;", "replace": "background: #006400;"}]},
           "assert": [{"type": "file_contains", "path": "css/style.css", "text": "#006400"}]},
          {"id": "s2", "tool": "shell", "args": {"command": "rm data/app.sqlite3 && printf 'database: /srv/prod.sqlite3\\n' > app.local.yml"}}
          ], "then": "finish"})");
      json run = parse_stdout(env.exec(plan, {"--judge", "never"}));
      REQUIRE(run["step_results"][1]["ok"] == true);
      CHECK(run["verdict"] != "success");
      const json* deleted = mutation_of(run, "data/app.sqlite3");
      const json* rewritten = mutation_of(run, "app.local.yml");
      REQUIRE(deleted != nullptr);
      REQUIRE(rewritten != nullptr);
      CHECK((*deleted)["change"] == "deleted");
      CHECK((*rewritten)["change"] == "modified");
      CHECK((*deleted)["steps"] == json::array({"s2"}));
      CHECK((*rewritten)["steps"] == json::array({"s2"}));
      auto undo = env.candor({"undo", run["run_id"]});
      CAPTURE(undo.out + undo.err);
      CHECK(undo.exit_code == 0);
      CHECK(read_file(env.ws + "/data/app.sqlite3") == db);
      CHECK(read_file(env.ws + "/app.local.yml") == yml);
      CHECK(read_file(env.ws + "/css/style.css").find("#ffffff") != std::string::npos);
    }
  }

  TEST_CASE(
      "issue 28: an honest file_patch of a file .gitignore matches, checked by the user's assertion, is a success") {
    Env env;
    write_file(env.ws + "/.gitignore", "config/local.yml\n");
    write_file(env.ws + "/config/local.yml", "debug: false\nport: 8080\n");
    std::string plan = env.plan_file(R"({"goal_kind": "modify", "steps": [
        {"id": "s1", "tool": "file_patch", "args": {"path": "config/local.yml",
           "edits": [{"find": "debug: false", "replace": "debug: true"}]},
         "assert": [{"type": "file_contains", "path": "config/local.yml", "text": "debug: true"}]}
        ], "then": "finish"})");
    json run = parse_stdout(env.exec(plan, {"--judge", "never"}));
    CHECK(run["verdict"] == "success");
    const json* patched = mutation_of(run, "config/local.yml");
    REQUIRE(patched != nullptr);
    CHECK((*patched)["change"] == "modified");
    CHECK((*patched)["steps"] == json::array({"s1"}));
  }

  TEST_CASE("what a step builds under an ignored path stays unlisted; a file tool's new file there is listed") {
    // s2's assertion runs a process: the scan after s3 walks the whole workspace, and must still
    // hold what s3's tool wrote.
    Env env;
    write_file(env.ws + "/.gitignore", "build/\n");
    std::string plan = env.plan_file(R"({"goal_kind": "modify", "steps": [
        {"id": "s1", "tool": "file_patch", "args": {"path": "css/style.css",
           "edits": [{"find": "background: #ffffff;", "replace": "background: #006400;"}]},
         "assert": [{"type": "file_contains", "path": "css/style.css", "text": "#006400"}]},
        {"id": "s2", "tool": "shell", "args": {"command": "mkdir -p build && echo obj > build/site.o"},
         "assert": [{"type": "command_succeeds", "command": "test -f build/site.o"}]},
        {"id": "s3", "tool": "file_write", "args": {"path": "build/notes.txt", "content": "by the agent\n"}}
        ], "then": "finish"})");
    json run = parse_stdout(env.exec(plan, {"--judge", "never"}));
    CHECK(mutation_of(run, "build/site.o") == nullptr);
    REQUIRE(mutation_of(run, "build/notes.txt") != nullptr);
    CHECK((*mutation_of(run, "build/notes.txt"))["change"] == "added");
  }
}
