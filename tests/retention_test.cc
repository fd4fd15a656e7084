// Which runs `candor gc` removes (store/retention.h), and the store's removal and compaction.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <set>

#include "store/retention.h"
#include "store/run_store.h"
#include "tests/test_support.h"

using namespace candor;
using namespace std::chrono_literals;
using candor::testing::FakeClock;

namespace {

// Six runs, newest first, created 1 h, 1 d, 3 d, 10 d, 40 d and 100 d before the clock's now.
std::vector<store::RunSummary> six_runs(Clock& clock) {
  std::vector<store::RunSummary> out;
  int n = 0;
  for (auto age : {1h, 24h, 72h, 240h, 960h, 2400h}) {
    store::RunSummary r;
    r.id = "run" + std::to_string(++n);
    r.created_at = format_timestamp(clock.wall() - age);
    r.status = "completed";
    r.verdict = "success";
    out.push_back(r);
  }
  return out;
}

std::vector<std::string> ids(const std::vector<store::RunSummary>& runs) {
  std::vector<std::string> out;
  for (const auto& r : runs) out.push_back(r.id);
  return out;
}

}  // namespace

TEST_SUITE("store") {
  TEST_CASE("gc removes the runs --keep and --older-than both let go, and never one that may still be running") {
    FakeClock clock;
    struct Row {
      const char* name;
      std::optional<std::size_t> keep;
      std::optional<std::chrono::seconds> older_than;
      std::vector<std::string> removed;
    };
    const Row rows[] = {
        {"no policy removes nothing", std::nullopt, std::nullopt, {}},
        {"keep 2", 2, std::nullopt, {"run3", "run4", "run5", "run6"}},
        {"keep 0 removes every run", 0, std::nullopt, {"run1", "run2", "run3", "run4", "run5", "run6"}},
        {"keep more than there are", 10, std::nullopt, {}},
        {"older than 30 days", std::nullopt, 30 * 24h, {"run5", "run6"}},
        {"older than 2 days", std::nullopt, 48h, {"run3", "run4", "run5", "run6"}},
        {"older than a year", std::nullopt, 365 * 24h, {}},
        {"both: keep 5 wins over older than 2 days", 5, 48h, {"run6"}},
        {"both: older than 30 days wins over keep 1", 1, 30 * 24h, {"run5", "run6"}},
    };
    for (const auto& row : rows) {
      CAPTURE(row.name);
      auto choice = store::choose_runs_to_remove(six_runs(clock), {row.keep, row.older_than}, clock.wall(),
                                                 [](const store::RunSummary&) { return false; });
      CHECK(ids(choice.remove) == row.removed);
      CHECK(choice.kept == 6 - row.removed.size());
      CHECK(choice.kept_live.empty());
    }
  }

  TEST_CASE("a run that never ended goes only when nobody may still be writing it") {
    FakeClock clock;
    auto runs = six_runs(clock);
    runs[3].status = "running";  // run4: killed long ago, or still going
    runs[4].status = "running";  // run5
    std::set<std::string> asked;
    auto choice = store::choose_runs_to_remove(runs, {0, std::nullopt}, clock.wall(), [&](const store::RunSummary& r) {
      asked.insert(r.id);
      return r.id == "run5";  // its workspace's snapshots are held by a process
    });
    CHECK(ids(choice.remove) == std::vector<std::string>{"run1", "run2", "run3", "run4", "run6"});
    CHECK(ids(choice.kept_live) == std::vector<std::string>{"run5"});
    CHECK(choice.kept == 1);
    CHECK(asked == std::set<std::string>{"run4", "run5"});  // finished runs need no probe
  }

  TEST_CASE("removing runs takes their events, and a new store gives the freed pages back to the disk") {
    std::string dir = candor::testing::make_temp_dir("store");
    auto opened = store::RunStore::open(dir);
    REQUIRE(opened.ok());
    auto& s = **opened;
    std::string big(8000, 'x');
    for (int r = 0; r < 6; ++r) {
      std::string id = "2026010" + std::to_string(r) + "T000000-aaaaaa";
      REQUIRE(s.create_run(id, "2026-01-0" + std::to_string(r) + "T00:00:00.000Z", "goal", "/ws").ok());
      for (int i = 1; i <= 40; ++i) {
        Event e;
        e.seq = i;
        e.ts = "2026-01-01T00:00:00.000Z";
        e.type = "tool_result";
        e.data = {{"output", big}};
        REQUIRE(s.append(id, e).ok());
      }
    }
    REQUIRE(s.compact().ok());  // the WAL folded in, so the file's size is the data's
    auto db_size = [&] {
      struct stat st {};
      ::stat((dir + "/candor.db").c_str(), &st);
      return st.st_size;
    };
    auto full = db_size();
    std::vector<std::string> gone = {"20260100T000000-aaaaaa", "20260101T000000-aaaaaa", "20260102T000000-aaaaaa",
                                     "20260103T000000-aaaaaa", "no-such-run"};
    REQUIRE(s.remove_runs(gone).ok());
    CHECK(s.count_runs().value() == 2);
    CHECK_FALSE(s.load("20260101T000000-aaaaaa").ok());
    auto kept = s.load("20260105T000000-aaaaaa");
    REQUIRE(kept.ok());
    CHECK(kept->events.size() == 40);
    auto shrinks = s.compact();
    REQUIRE(shrinks.ok());
    CHECK(*shrinks);
    CAPTURE(full);
    CHECK(db_size() < full / 2);
  }
}
