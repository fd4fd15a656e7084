#include <doctest/doctest.h>

#include "store/run_store.h"
#include "tests/test_support.h"

using namespace candor;

TEST_SUITE("store") {
  TEST_CASE("runs and events are stored as they happen and listed newest first") {
    std::string dir = candor::testing::make_temp_dir("store");
    auto store = store::RunStore::open(dir);
    REQUIRE(store.ok());
    auto& s = **store;
    REQUIRE(s.create_run("20260101T000000-aaaaaa", "2026-01-01T00:00:00.000Z", "first", "/ws").ok());
    REQUIRE(s.create_run("20260102T000000-bbbbbb", "2026-01-02T00:00:00.000Z", "second", "/ws").ok());
    Event e;
    e.seq = 1;
    e.ts = "2026-01-02T00:00:00.001Z";
    e.type = "run_started";
    e.data = {{"goal", "second"}};
    REQUIRE(s.append("20260102T000000-bbbbbb", e).ok());
    e.seq = 1;
    CHECK_FALSE(s.append("20260102T000000-bbbbbb", e).ok());  // seq is unique per run

    // A second process sees the event before the run ends: that is what survives a kill.
    auto other = store::RunStore::open(dir);
    REQUIRE(other.ok());
    auto loaded = (*other)->load("20260102T000000-bbbbbb");
    REQUIRE(loaded.ok());
    CHECK(loaded->summary.status == "running");
    CHECK(loaded->report.is_null());
    REQUIRE(loaded->events.size() == 1);
    CHECK(loaded->events[0].data["goal"] == "second");

    REQUIRE(s.finish_run("20260102T000000-bbbbbb", {"completed", "success", "tier1", {{"k", 1}}, {{"verdict", "success"}}}).ok());
    auto runs = s.list(10);
    REQUIRE(runs.ok());
    REQUIRE(runs->size() == 2);
    CHECK((*runs)[0].id == "20260102T000000-bbbbbb");
    CHECK((*runs)[0].verdict == "success");
    CHECK((*runs)[1].verdict == "");
    CHECK(s.load("20260102T000000-bbbbbb")->report["verdict"] == "success");
    CHECK_FALSE(s.finish_run("nope", {"completed", "fail", "tier1", {}, {}}).ok());
  }

  TEST_CASE("run references: full id, unique prefix, last; ambiguity and absence are errors") {
    auto store = store::RunStore::open(candor::testing::make_temp_dir("store"));
    REQUIRE(store.ok());
    auto& s = **store;
    CHECK(s.resolve("last").error().code == ErrorCode::kNotFound);
    REQUIRE(s.create_run("20260101T000000-aaaaaa", "2026-01-01T00:00:00Z", "a", "/ws").ok());
    REQUIRE(s.create_run("20260101T000000-abbbbb", "2026-01-01T00:00:01Z", "b", "/ws").ok());
    CHECK(s.resolve("last").value() == "20260101T000000-abbbbb");
    CHECK(s.resolve("20260101T000000-aa").value() == "20260101T000000-aaaaaa");
    auto ambiguous = s.resolve("20260101T000000-a");
    REQUIRE_FALSE(ambiguous.ok());
    CHECK(ambiguous.error().message.find("matches several runs") != std::string::npos);
    CHECK(s.resolve("2027").error().code == ErrorCode::kNotFound);
  }

  TEST_CASE("run ids sort by time and differ") {
    auto t = std::chrono::system_clock::from_time_t(1795000000);
    std::string a = store::new_run_id(t), b = store::new_run_id(t);
    CHECK(a.size() == 22);
    CHECK(a.substr(0, 16) == "20261118T110640-");
    CHECK(a != b);
  }

  TEST_CASE("the default store is outside the workspace, overridable by CANDOR_HOME") {
    using testing::ScopedEnv;
    {
      ScopedEnv home("CANDOR_HOME", "/tmp/candor-home-test");
      CHECK(store::default_store_dir() == "/tmp/candor-home-test");
    }
    ScopedEnv no_home("CANDOR_HOME", std::nullopt);
    {
      ScopedEnv state("XDG_STATE_HOME", "/tmp/xdg");
      CHECK(store::default_store_dir() == "/tmp/xdg/candor");
    }
    ScopedEnv no_state("XDG_STATE_HOME", std::nullopt);
    ScopedEnv home("HOME", "/home/someone");
    CHECK(store::default_store_dir() == "/home/someone/.local/state/candor");
  }
}
