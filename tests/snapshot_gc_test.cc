// The snapshot side of `candor gc` (snapshot/gc.h), checked with the git CLI.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <thread>

#include "snapshot/gc.h"
#include "snapshot/repository_lock.h"
#include "snapshot/store.h"
#include "tests/test_support.h"

using namespace candor;
using candor::testing::make_temp_dir;
using candor::testing::run_command;
using candor::testing::write_file;
namespace fs = std::filesystem;

namespace {

// A store with two runs on one workspace, pinned as `candor run` pins them. Run A changed a.txt
// (v1 -> v2); then someone else wrote v3; run B added b.txt. So v1 and v2 are A's alone.
struct TwoRuns {
  std::string store = make_temp_dir("store");
  std::string ws = make_temp_dir("ws");
  std::string repo;
  std::map<std::string, std::string> trees;  // "A/before" -> tree id

  TwoRuns() {
    write_file(ws + "/keep.txt", "in every snapshot\n");
    write_file(ws + "/a.txt", "v1 (before run A)\n");
    auto snap = snapshot::SnapshotStore::open(store, ws, system_clock());
    REQUIRE(snap.ok());
    run(**snap, "A", [&] { write_file(ws + "/a.txt", "v2 (run A wrote it)\n"); });
    write_file(ws + "/a.txt", "v3 (written between the runs)\n");
    run(**snap, "B", [&] { write_file(ws + "/b.txt", "run B wrote it\n"); });
    REQUIRE((*snap)->flush().ok());
    repo = (*snap)->repository_path();
  }
  void run(snapshot::SnapshotStore& s, const std::string& id, const std::function<void()>& change) {
    REQUIRE(s.scan().ok());
    trees[id + "/before"] = s.write_tree().value();
    REQUIRE(s.pin(trees[id + "/before"], "runs/" + id + "/before").ok());
    change();
    REQUIRE(s.scan().ok());
    trees[id + "/after"] = s.write_tree().value();
    REQUIRE(s.pin(trees[id + "/after"], "runs/" + id + "/after").ok());
  }
  std::function<Result<snapshot::RunsInStore>()> only_b() const {
    return [ws = ws]() -> Result<snapshot::RunsInStore> { return snapshot::RunsInStore{{"B"}, {ws}}; };
  }
  candor::testing::CommandResult git(std::vector<std::string> args) const {
    args.insert(args.begin(), "--git-dir=" + repo);
    return candor::testing::run_git("", std::move(args));
  }
  bool has_object(const std::string& content) const {
    std::string file = make_temp_dir("blob") + "/f";
    write_file(file, content);
    auto hashed = run_command({"/usr/bin/git", "hash-object", file});
    std::string id = hashed.out.substr(0, 40);
    return git({"cat-file", "-e", id}).exit_code == 0;
  }
  // Every file of the object database with its size: what a gc that changes nothing leaves alone.
  std::string object_files() const {
    std::vector<std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(repo + "/objects")) {
      if (e.is_regular_file())
        files.push_back(fs::relative(e.path(), repo).string() + " " + std::to_string(e.file_size()));
    }
    std::sort(files.begin(), files.end());
    std::string out;
    for (const auto& f : files) out += f + "\n";
    return out;
  }
  // Objects the store holds, loose and packed (snapshots write packs), each once.
  std::size_t stored_objects() const {
    std::string listed = git({"cat-file", "--batch-all-objects", "--batch-check=%(objectname)"}).out;
    return static_cast<std::size_t>(std::count(listed.begin(), listed.end(), '\n'));
  }
  std::size_t loose_objects() const {
    std::size_t n = 0;
    for (const auto& d : fs::directory_iterator(repo + "/objects")) {
      if (d.path().filename().string().size() == 2)
        n += std::distance(fs::directory_iterator(d.path()), fs::directory_iterator());
    }
    return n;
  }
  // B's snapshots read back as they were written, and git agrees the repository is whole.
  void check_b_intact() const {
    auto fsck = git({"fsck", "--full", "--strict"});
    CAPTURE(fsck.err);
    CHECK(fsck.exit_code == 0);
    auto snap = snapshot::SnapshotStore::open(store, ws, system_clock());
    REQUIRE(snap.ok());
    CHECK((*snap)->read(trees.at("B/before"), "a.txt").value() ==
          std::optional<std::string>("v3 (written between the runs)\n"));
    CHECK((*snap)->read(trees.at("B/after"), "b.txt").value() == std::optional<std::string>("run B wrote it\n"));
    CHECK((*snap)->read(trees.at("B/after"), "keep.txt").value() == std::optional<std::string>("in every snapshot\n"));
    CHECK((*snap)->diff(trees.at("B/before"), trees.at("B/after")).value().size() == 1);
  }
};

}  // namespace

TEST_SUITE("verify") {
  TEST_CASE("gc packs what the remaining runs reach and drops what only removed runs used") {
    TwoRuns s;
    REQUIRE(s.has_object("v1 (before run A)\n"));
    {
      // A scan no ref pins (a run removed since, say) saved the index: c.txt is in it alone. Old
      // mtimes, so the next scan trusts the index rather than hashing the files again.
      write_file(s.ws + "/c.txt", "only the index names this\n");
      for (const auto& f : fs::directory_iterator(s.ws))
        fs::last_write_time(f.path(), fs::file_time_type::clock::now() - std::chrono::hours(1));
      auto snap = snapshot::SnapshotStore::open(s.store, s.ws, system_clock());
      REQUIRE(snap.ok());
      REQUIRE((*snap)->scan().ok());
      REQUIRE((*snap)->write_tree().ok());
      REQUIRE((*snap)->flush().ok());
    }
    std::size_t objects_before = s.stored_objects();
    auto gc = snapshot::collect_snapshots(s.store, {"A"}, s.only_b(), {});
    REQUIRE(gc.repositories.size() == 1);
    const auto& r = gc.repositories[0];
    CAPTURE(r.error);
    CHECK(r.outcome == snapshot::RepositoryGc::Outcome::kPacked);
    CHECK(r.workspace == s.ws);
    CHECK(r.refs_removed == 2);
    CHECK(r.objects_before == objects_before);
    CHECK(r.objects_after < r.objects_before);
    CHECK(r.not_in_store == 0);
    CHECK(r.bytes_after < r.bytes_before);
    CHECK(s.loose_objects() == 0);
    CHECK(s.git({"for-each-ref", "--format=%(refname)"}).out ==
          "refs/candor/runs/B/after\nrefs/candor/runs/B/before\n");
    CHECK_FALSE(s.has_object("v1 (before run A)\n"));
    CHECK_FALSE(s.has_object("v2 (run A wrote it)\n"));
    CHECK(s.has_object("v3 (written between the runs)\n"));
    s.check_b_intact();

    // The index (the next run's stat cache) still names only objects the store holds: a run
    // after the gc whose workspace did not change reuses them without writing them again.
    auto next = snapshot::SnapshotStore::open(s.store, s.ws, system_clock());
    REQUIRE(next.ok());
    REQUIRE((*next)->scan().ok());
    std::string tree = (*next)->write_tree().value();
    CHECK((*next)->read(tree, "b.txt").value() == std::optional<std::string>("run B wrote it\n"));
    auto c = (*next)->read(tree, "c.txt");
    CAPTURE((c.ok() ? "" : c.error().message));
    CHECK((c.ok() && *c == std::optional<std::string>("only the index names this\n")));

    // A second gc finds nothing more to drop and leaves one pack.
    next.value().reset();
    auto packs = [&] {
      std::vector<fs::path> out;
      for (const auto& f : fs::directory_iterator(s.repo + "/objects/pack")) {
        if (f.path().extension() == ".pack") out.push_back(f.path());
      }
      return out;
    };
    REQUIRE(packs().size() == 1);
    auto written = fs::last_write_time(packs()[0]);
    auto again = snapshot::collect_snapshots(s.store, {}, s.only_b(), {});
    CHECK(again.repositories[0].outcome == snapshot::RepositoryGc::Outcome::kPacked);
    CHECK(again.repositories[0].objects_after == r.objects_after);
    REQUIRE(packs().size() == 1);
    CHECK(fs::last_write_time(packs()[0]) == written);  // nothing to do: not rewritten
    s.check_b_intact();
  }

  TEST_CASE("a dry run says what would go and changes nothing") {
    TwoRuns s;
    auto refs = s.git({"for-each-ref"}).out;
    std::string objects = s.object_files();
    auto gc = snapshot::collect_snapshots(s.store, {"A"}, s.only_b(), {.dry_run = true, .at_step = nullptr});
    REQUIRE(gc.repositories.size() == 1);
    CHECK(gc.repositories[0].refs_removed == 2);
    CHECK(gc.repositories[0].objects_after < gc.repositories[0].objects_before);
    CHECK(s.git({"for-each-ref"}).out == refs);
    CHECK(s.object_files() == objects);
    CHECK(s.has_object("v1 (before run A)\n"));
  }

  TEST_CASE("a repository a live process holds keeps its objects; only the removed runs' refs go") {
    TwoRuns s;
    auto live = snapshot::SnapshotStore::open(s.store, s.ws, system_clock());  // a run in progress on the workspace
    REQUIRE(live.ok());
    CHECK(snapshot::RepositoryLock::held_by_others(s.repo));
    std::string objects = s.object_files();
    bool asked = false;
    auto gc = snapshot::collect_snapshots(s.store, {"A"},
                                          [&]() -> Result<snapshot::RunsInStore> {
                                            asked = true;
                                            return snapshot::RunsInStore{};
                                          },
                                          {});
    REQUIRE(gc.repositories.size() == 1);
    CHECK(gc.repositories[0].outcome == snapshot::RepositoryGc::Outcome::kInUse);
    CHECK(gc.repositories[0].refs_removed == 2);
    CHECK_FALSE(asked);  // "no run refers to it" is never concluded about a repository in use
    CHECK(fs::exists(s.repo));
    CHECK(s.object_files() == objects);
    CHECK(s.has_object("v1 (before run A)\n"));
    live.value().reset();
    CHECK_FALSE(snapshot::RepositoryLock::held_by_others(s.repo));
  }

  TEST_CASE("objects a kept snapshot names but the store lacks are skipped, never an error") {
    TwoRuns s;
    // A tree of run B names a blob the store never held, as seeded snapshots do (the blob is in
    // the workspace's own repository).
    auto tree = run_command({"/bin/sh", "-c",
                             "printf '100644 blob 1234567890123456789012345678901234567890\\tghost.txt\\n' | "
                             "/usr/bin/git --git-dir=" +
                                 s.repo + " mktree --missing"});
    REQUIRE(tree.exit_code == 0);
    s.git({"update-ref", "refs/candor/runs/B/ghost", tree.out.substr(0, 40)});
    auto gc = snapshot::collect_snapshots(s.store, {"A"}, s.only_b(), {});
    REQUIRE(gc.repositories.size() == 1);
    CAPTURE(gc.repositories[0].error);
    CHECK(gc.repositories[0].outcome == snapshot::RepositoryGc::Outcome::kPacked);
    CHECK(gc.repositories[0].not_in_store == 1);
    CHECK(s.has_object("v3 (written between the runs)\n"));
  }

  TEST_CASE("a repository no remaining run refers to goes, with leftovers of candors that died") {
    TwoRuns s;
    pid_t dead = 0;
    for (pid_t p = 4000000; p > 300000 && dead == 0; p -= 7919) {
      if (::kill(p, 0) != 0 && errno == ESRCH) dead = p;
    }
    REQUIRE(dead != 0);
    std::string leftover = s.repo + ".tmp-" + std::to_string(dead) + "-0";
    write_file(leftover + "/objects/x", "half-made repository");
    fs::last_write_time(leftover, fs::file_time_type::clock::now() - std::chrono::hours(1));
    std::string orphan_lock = s.store + "/snapshots/0123456789abcdef.git.in-use";
    write_file(orphan_lock, "");
    auto gc = snapshot::collect_snapshots(s.store, {"A", "B"},
                                          [] { return Result<snapshot::RunsInStore>(snapshot::RunsInStore{}); }, {});
    REQUIRE(gc.repositories.size() == 1);
    CHECK(gc.repositories[0].outcome == snapshot::RepositoryGc::Outcome::kRemoved);
    CHECK_FALSE(fs::exists(s.repo));
    CHECK_FALSE(fs::exists(snapshot::repository_lock_path(s.repo)));
    CHECK_FALSE(fs::exists(leftover));
    CHECK_FALSE(fs::exists(orphan_lock));
    CHECK(gc.leftovers.size() == 2);
    // The workspace's next run starts a new repository as usual.
    auto fresh = snapshot::SnapshotStore::open(s.store, s.ws, system_clock());
    REQUIRE(fresh.ok());
    REQUIRE((*fresh)->scan().ok());
    CHECK((*fresh)->write_tree().ok());
  }

  TEST_CASE("a run opening its snapshots waits while gc holds the repository, and finds it again if gc removed it") {
    std::string repo = make_temp_dir("store") + "/snapshots/0123456789abcdef.git";
    auto gc = snapshot::RepositoryLock::try_exclusive(repo);
    REQUIRE(gc.ok());
    REQUIRE(gc->has_value());
    CHECK(snapshot::RepositoryLock::held_by_others(repo));
    CHECK_FALSE(snapshot::RepositoryLock::try_exclusive(repo).value().has_value());  // a second gc skips it
    std::atomic<bool> got{false};
    std::optional<snapshot::RepositoryLock> run_lock;
    std::thread run([&] {
      auto lock = snapshot::RepositoryLock::shared(repo);
      REQUIRE(lock.ok());
      run_lock.emplace(std::move(*lock));
      got = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    CHECK_FALSE(got.load());  // can only be wrong the safe way: a slow thread has not got there yet either
    (*gc)->remove_file();     // gc removed the repository: the waiter's file is gone
    gc->reset();
    run.join();
    CHECK(got.load());
    CHECK(fs::exists(snapshot::repository_lock_path(repo)));  // it holds a lock file that is there
    CHECK_FALSE(snapshot::RepositoryLock::try_exclusive(repo).value().has_value());
    run_lock.reset();
    CHECK_FALSE(snapshot::RepositoryLock::held_by_others(repo));
  }

  TEST_CASE("lock files a killed writer left do not stop the next gc") {
    TwoRuns s;
    write_file(s.repo + "/refs/candor/runs/A/before.lock", "");  // killed while removing that ref
    write_file(s.repo + "/index.lock", "");
    auto gc = snapshot::collect_snapshots(s.store, {"A"}, s.only_b(), {});
    CAPTURE(gc.repositories[0].error);
    CHECK(gc.repositories[0].outcome == snapshot::RepositoryGc::Outcome::kPacked);
    CHECK(gc.repositories[0].refs_removed == 2);
    CHECK_FALSE(fs::exists(s.repo + "/index.lock"));
    s.check_b_intact();
  }

  TEST_CASE("a damaged index does not stop gc, and the next snapshot after it is still right") {
    TwoRuns s;
    std::string index = s.repo + "/index";
    std::string bytes = candor::testing::read_file(index);
    write_file(index, bytes.substr(0, bytes.size() / 3));
    auto gc = snapshot::collect_snapshots(s.store, {"A"}, s.only_b(), {});
    CAPTURE(gc.repositories[0].error);
    CHECK(gc.repositories[0].outcome == snapshot::RepositoryGc::Outcome::kPacked);
    s.check_b_intact();
    write_file(s.ws + "/c.txt", "after gc\n");
    auto snap = snapshot::SnapshotStore::open(s.store, s.ws, system_clock());
    REQUIRE(snap.ok());
    REQUIRE((*snap)->scan().ok());
    std::string tree = (*snap)->write_tree().value();
    CHECK((*snap)->read(tree, "a.txt").value() == std::optional<std::string>("v3 (written between the runs)\n"));
    CHECK((*snap)->read(tree, "c.txt").value() == std::optional<std::string>("after gc\n"));
    CHECK((*snap)->read(tree, "keep.txt").value() == std::optional<std::string>("in every snapshot\n"));
  }

  TEST_CASE("a gc killed at any step leaves a repository git finds whole and the kept runs readable") {
    int steps_seen = 0;
    for (int kill_at = 1; kill_at < 300; ++kill_at) {
      CAPTURE(kill_at);
      TwoRuns s;
      pid_t pid = ::fork();
      REQUIRE(pid >= 0);
      if (pid == 0) {
        int n = 0;
        snapshot::SnapshotGcOptions options;
        options.at_step = [&](const std::string&) {
          if (++n == kill_at) ::_exit(9);  // as abrupt as SIGKILL: no destructor, no flush
        };
        snapshot::collect_snapshots(s.store, {"A"}, s.only_b(), options);
        ::_exit(0);
      }
      int status = 0;
      REQUIRE(::waitpid(pid, &status, 0) == pid);
      REQUIRE(WIFEXITED(status));
      s.check_b_intact();
      // And the next gc finishes the job.
      auto gc = snapshot::collect_snapshots(s.store, {}, s.only_b(), {});
      CHECK(gc.repositories[0].outcome == snapshot::RepositoryGc::Outcome::kPacked);
      CHECK(s.loose_objects() == 0);
      CHECK_FALSE(s.has_object("v2 (run A wrote it)\n"));
      s.check_b_intact();
      if (WEXITSTATUS(status) == 0) break;  // it ran to the end: every step was a kill point once
      steps_seen = kill_at;
    }
    CHECK(steps_seen > 5);  // refs dropped, pack written, the old objects one by one
  }
}
