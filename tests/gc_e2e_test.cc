// `candor gc` and the store section of `candor doctor`, through the built binary.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "tests/e2e_support.h"

using namespace candor::testing;
using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string note(int i) { return fmt::format("note {} ", i) + std::string(2000, static_cast<char>('a' + i)) + "\n"; }

// A run that adds notes/n<i>.txt, checked by an assertion that covers it.
std::string note_plan(Env& env, int i) {
  std::string path = fmt::format("notes/n{}.txt", i);
  return env.plan_file(
      json({{"goal_kind", "modify"},
            {"steps",
             {{{"id", "s1"},
               {"tool", "file_write"},
               {"args", {{"path", path}, {"content", note(i)}}},
               {"assert", {{{"type", "file_contains"}, {"path", path}, {"text", fmt::format("note {} ", i)}}}}}}},
            {"then", "finish"},
            {"final_answer", "added"}})
          .dump());
}

// Five runs, oldest first.
std::vector<std::string> five_runs(Env& env) {
  std::vector<std::string> ids;
  for (int i = 1; i <= 5; ++i) {
    auto r = env.exec(note_plan(env, i));
    REQUIRE(r.exit_code == 0);
    ids.push_back(parse_stdout(r)["run_id"]);
  }
  return ids;
}

std::vector<std::string> listed(Env& env) {
  auto r = env.candor({"runs", "--json", "--limit", "100"});
  REQUIRE(r.exit_code == 0);
  std::vector<std::string> out;
  for (const auto& run : parse_stdout(r)) out.push_back(run["run_id"]);
  return out;
}

std::vector<std::string> repositories(const std::string& store) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(store + "/snapshots", ec)) {
    if (e.path().extension() == ".git") out.push_back(e.path().string());
  }
  return out;
}

void check_fsck(const std::string& store) {
  for (const auto& repo : repositories(store)) {
    CAPTURE(repo);
    auto fsck = run_git("", {"--git-dir=" + repo, "fsck", "--full", "--strict"});
    CAPTURE(fsck.err);
    CHECK(fsck.exit_code == 0);
  }
}

// The run's report, and its HTML with the diff read from the snapshots, both show its note.
void check_readable(Env& env, const std::string& id, int i) {
  CAPTURE(id);
  auto report = env.candor({"report", id, "--json"});
  REQUIRE(report.exit_code == 0);
  CHECK(parse_stdout(report)["verdict"] == "success");
  std::string html = make_temp_dir("html") + "/r.html";
  REQUIRE(env.candor({"report", id, "--html", html}).exit_code == 0);
  CHECK(read_file(html).find(fmt::format("note {} ", i)) != std::string::npos);
}

pid_t spawn_candor(const Env& env, std::vector<std::string> args) {
  std::string bin = candor_bin(), home = "CANDOR_HOME=" + env.store;
  args.insert(args.begin(), bin);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::string null_out = "/dev/null";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, null_out.c_str(), O_WRONLY, 0);
  std::vector<char*> envp = {home.data(), const_cast<char*>("PATH=/usr/bin:/bin"), nullptr};
  pid_t pid = 0;
  int rc = ::posix_spawn(&pid, bin.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : 0;
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("candor gc --keep 2: the newest two runs stay with what report, verify and undo need; the store shrinks") {
    Env env;
    std::vector<std::string> ids = five_runs(env);
    json doctor = parse_stdout(env.candor({"doctor", "--json"}))["store"];
    CHECK(doctor["path"] == env.store);
    CHECK(doctor["runs"] == 5);
    CHECK(doctor["snapshot_repositories"] == 1);
    std::uint64_t bytes_before = doctor["bytes"];
    CHECK(bytes_before > 0);
    auto doctor_text = env.candor({"doctor"});
    CHECK(doctor_text.out.find("the run store:") != std::string::npos);
    CHECK(doctor_text.out.find("location     " + env.store) != std::string::npos);
    CHECK(doctor_text.out.find("runs         5 ") != std::string::npos);

    auto gc = env.candor({"gc", "--keep", "2", "--json"});
    CAPTURE(gc.err);
    REQUIRE(gc.exit_code == 0);
    json j = parse_stdout(gc);
    CHECK(j["dry_run"] == false);
    std::vector<std::string> removed;
    for (const auto& r : j["runs"]["removed"]) removed.push_back(r["run_id"]);
    CHECK(removed == std::vector<std::string>{ids[2], ids[1], ids[0]});
    CHECK(j["runs"]["kept"] == 2);
    REQUIRE(j["repositories"].size() == 1);
    json repo = j["repositories"][0];
    CHECK(repo["outcome"] == "packed");
    CHECK(repo["refs_removed"] == 6);
    CHECK(repo["objects_after"].get<int>() < repo["objects_before"].get<int>());
    CHECK(j["objects_removed"].get<int>() > 0);
    CHECK(j["bytes_after"].get<std::uint64_t>() < j["bytes_before"].get<std::uint64_t>());
    MESSAGE("store " << j["bytes_before"] << " -> " << j["bytes_after"] << " bytes; snapshot objects "
                     << repo["objects_before"] << " -> " << repo["objects_after"] << "; repository "
                     << repo["bytes_before"] << " -> " << repo["bytes_after"]);

    CHECK(listed(env) == std::vector<std::string>{ids[4], ids[3]});
    check_fsck(env.store);
    check_readable(env, ids[4], 5);
    check_readable(env, ids[3], 4);
    CHECK(env.candor({"verify", ids[4]}).exit_code == 0);
    CHECK(env.candor({"verify", ids[3]}).exit_code == 0);
    CHECK(env.candor({"report", ids[0]}).exit_code == 65);
    auto undo = env.candor({"undo", ids[4]});
    CHECK(undo.exit_code == 0);
    CHECK(undo.out.find("removed   notes/n5.txt") != std::string::npos);
    CHECK(env.candor({"undo", ids[3]}).exit_code == 0);
    CHECK_FALSE(exists(env.ws + "/notes/n4.txt"));
    CHECK(exists(env.ws + "/notes/n3.txt"));  // a removed run's change stays where it is

    json after = parse_stdout(env.candor({"doctor", "--json"}))["store"];
    CHECK(after["runs"] == 2);
    CHECK(after["bytes"].get<std::uint64_t>() < bytes_before);

    auto text = env.candor({"gc", "--keep", "2"});
    CHECK(text.exit_code == 0);
    CHECK(text.out.find("removed 0 runs, kept 2") != std::string::npos);
    CHECK(text.out.find("store " + env.store + ": ") != std::string::npos);
  }

  TEST_CASE(
      "candor doctor names the index.lock a killed run left, which stops runs saving the index, and gc removes it") {
    Env env;
    REQUIRE(env.exec(note_plan(env, 1)).exit_code == 0);
    std::vector<std::string> repos = repositories(env.store);
    REQUIRE(repos.size() == 1);
    const std::string index = repos[0] + "/index", lock = index + ".lock";
    CHECK(parse_stdout(env.candor({"doctor", "--json"}))["store"]["stale_index_locks"].empty());
    candor::testing::write_file(lock, "");  // as a run killed while it saved the index leaves it
    const auto saved = fs::last_write_time(index);
    REQUIRE(env.exec(note_plan(env, 2)).exit_code == 0);  // the run itself is not hurt ...
    CHECK(fs::last_write_time(index) == saved);           // ... but its index could not be saved
    json doctor = parse_stdout(env.candor({"doctor", "--json"}))["store"];
    CHECK(doctor["stale_index_locks"] == json::array({repos[0]}));
    auto text = env.candor({"doctor"});
    CHECK(text.out.find("index.lock of a run killed while saving") != std::string::npos);
    CHECK(text.out.find("candor gc removes it") != std::string::npos);
    REQUIRE(env.candor({"gc", "--keep", "5"}).exit_code == 0);
    CHECK_FALSE(fs::exists(lock));
    CHECK(parse_stdout(env.candor({"doctor", "--json"}))["store"]["stale_index_locks"].empty());
    REQUIRE(env.exec(note_plan(env, 3)).exit_code == 0);
    CHECK(fs::last_write_time(index) != saved);
  }

  TEST_CASE("candor gc says which runs may go before it removes any, and --dry-run removes nothing") {
    Env env;
    std::vector<std::string> ids = five_runs(env);
    auto bare = env.candor({"gc"});
    CHECK(bare.exit_code == 64);
    CHECK(bare.err.find("--keep N") != std::string::npos);
    CHECK(env.candor({"gc", "--older-than", "soon"}).exit_code == 64);
    CHECK(env.candor({"gc", "--keep", "-1"}).exit_code == 64);
    auto snapshots = tree_contents(env.store + "/snapshots");

    auto dry = env.candor({"gc", "--older-than", "0s", "--dry-run", "--json"});
    REQUIRE(dry.exit_code == 0);
    json j = parse_stdout(dry);
    CHECK(j["dry_run"] == true);
    CHECK(j["runs"]["removed"].size() == 5);
    CHECK(j["repositories"][0]["outcome"] == "removed");
    CHECK(j["bytes_after"].is_null());
    CHECK(listed(env).size() == 5);
    CHECK(tree_contents(env.store + "/snapshots") == snapshots);
    auto dry_text = env.candor({"gc", "--keep", "1", "--dry-run"});
    CHECK(dry_text.out.find("would remove 4 runs, kept 1") != std::string::npos);
    CHECK(dry_text.out.find("nothing was removed (--dry-run)") != std::string::npos);
    CHECK(tree_contents(env.store + "/snapshots") == snapshots);

    // --older-than keeps what is younger; with no run left the repository itself goes.
    CHECK(parse_stdout(env.candor({"gc", "--older-than", "30d", "--json"}))["runs"]["removed"].empty());
    json all = parse_stdout(env.candor({"gc", "--keep", "0", "--json"}));
    CHECK(all["runs"]["removed"].size() == 5);
    CHECK(all["repositories"][0]["outcome"] == "removed");
    CHECK(repositories(env.store).empty());
    CHECK(listed(env).empty());
    CHECK(env.exec(note_plan(env, 6)).exit_code == 0);  // the workspace's next run starts afresh
  }

  TEST_CASE("a gc during a run leaves that run alone: it ends, reports and undoes as if no gc had happened") {
    Env env;
    std::vector<std::string> ids = five_runs(env);
    std::string plan =
        env.plan_file(json({{"goal_kind", "modify"},
                            {"steps",
                             {{{"id", "s1"},
                               {"tool", "file_write"},
                               {"args", {{"path", "live.txt"}, {"content", "written while gc ran\n"}}}},
                              {{"id", "s2"},
                               {"tool", "shell"},
                               {"args", {{"command", "sleep 2"}}},
                               {"assert", {{{"type", "file_contains"}, {"path", "live.txt"}, {"text", "while gc"}}}}}}},
                            {"then", "finish"}})
                          .dump());
    pid_t pid = spawn_until_step(env, {"exec", plan, "-C", env.ws, "--json"}, "s2");
    REQUIRE(pid > 0);
    // s1's blob is in the store, named by no ref yet; the run's record has not ended.
    json gc = parse_stdout(env.candor({"gc", "--keep", "0", "--json"}));
    CHECK(gc["runs"]["removed"].size() == 5);
    REQUIRE(gc["runs"]["kept_running"].size() == 1);
    std::string live = gc["runs"]["kept_running"][0];
    CHECK(gc["repositories"][0]["outcome"] == "in use");
    CHECK(gc["repositories"][0]["refs_removed"] == 10);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(listed(env) == std::vector<std::string>{live});
    auto report = parse_stdout(env.candor({"report", live, "--json"}));
    CHECK(report["verdict"] == "success");
    REQUIRE(report["mutations"].size() == 1);
    CHECK(report["mutations"][0]["path"] == "live.txt");
    // Now nothing holds the repository: a second gc packs it, and the run still undoes.
    json second = parse_stdout(env.candor({"gc", "--keep", "1", "--json"}));
    CHECK(second["repositories"][0]["outcome"] == "packed");
    check_fsck(env.store);
    auto undo = env.candor({"undo", live});
    CHECK(undo.exit_code == 0);
    CHECK(undo.out.find("removed   live.txt") != std::string::npos);
  }

  TEST_CASE("a gc killed with SIGKILL at a random moment leaves a store that runs, report and the next gc work on") {
    Env env;
    std::vector<std::string> ids = five_runs(env);
    std::string pristine = make_temp_dir("pristine") + "/store";
    fs::copy(env.store, pristine, fs::copy_options::recursive);
    auto restore = [&] {
      fs::remove_all(env.store);
      fs::copy(pristine, env.store, fs::copy_options::recursive);
    };
    // How long one gc takes here, so the kills spread over it (no assertion on time).
    auto t0 = std::chrono::steady_clock::now();
    REQUIRE(env.candor({"gc", "--keep", "2"}).exit_code == 0);
    auto took = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0);
    std::random_device device;
    unsigned seed = device();
    CAPTURE(seed);
    std::mt19937 rng(seed);
    for (int round = 0; round < 8; ++round) {
      CAPTURE(round);
      restore();
      auto delay = std::chrono::microseconds(std::uniform_int_distribution<long>(0, took.count())(rng));
      CAPTURE(delay.count());
      pid_t pid = spawn_candor(env, {"gc", "--keep", "2"});
      REQUIRE(pid > 0);
      std::this_thread::sleep_for(delay);
      ::kill(pid, SIGKILL);
      REQUIRE(::waitpid(pid, nullptr, 0) == pid);

      std::vector<std::string> runs = listed(env);
      bool before = runs.size() == 5, after = runs == std::vector<std::string>{ids[4], ids[3]};
      CHECK((before || after));
      for (std::size_t i = 0; i < ids.size(); ++i) {
        if (std::find(runs.begin(), runs.end(), ids[i]) != runs.end())
          check_readable(env, ids[i], static_cast<int>(i) + 1);
      }
      check_fsck(env.store);
      auto finish = env.candor({"gc", "--keep", "2", "--json"});
      CAPTURE(finish.err);
      CHECK(finish.exit_code == 0);
      CHECK(listed(env) == std::vector<std::string>{ids[4], ids[3]});
      check_readable(env, ids[4], 5);
      check_fsck(env.store);
    }
  }
}
