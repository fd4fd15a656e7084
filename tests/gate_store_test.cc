// The live gate's turns in the run store (store::RunStore::begin_gate_turn and friends): the first
// start of a turn wins, stops and blocks are counted, and gc takes a turn with its run.
#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "store/run_store.h"
#include "tests/test_support.h"

namespace candor::testing {
namespace {

store::GateTurn turn(const std::string& key, const std::string& run_id, std::int64_t n) {
  return {.agent = "codex",
          .session = "s1",
          .turn_key = key,
          .turn = n,
          .run_id = run_id,
          .workspace = "/w",
          .started_at = "2026-11-26T10:00:0" + std::to_string(n) + ".000Z",
          .start = {{"tree", std::string(40, 'a')}},
          .stops = 0,
          .blocks = 0,
          .transcript_events = 0,
          .decision = "",
          .verdict = "",
          .updated_at = ""};
}

}  // namespace

TEST_SUITE("store") {
  TEST_CASE("gate turns: the first start wins, stops and blocks are counted, the latest of a session is found") {
    auto store = store::RunStore::open(make_temp_dir("store"));
    REQUIRE(store.ok());
    auto& s = **store;
    REQUIRE(s.create_run("r1", "2026-11-26T10:00:01.000Z", "goal", "/w").ok());
    REQUIRE(s.create_run("r2", "2026-11-26T10:00:02.000Z", "goal", "/w").ok());
    auto first = s.begin_gate_turn(turn("t1", "r1", 1));
    REQUIRE(first.ok());
    CHECK(first->run_id == "r1");
    // A second start of the same turn (a forged one too) changes nothing.
    auto forged = turn("t1", "r2", 1);
    forged.start = {{"tree", std::string(40, 'b')}};
    auto again = s.begin_gate_turn(forged);
    REQUIRE(again.ok());
    CHECK(again->run_id == "r1");
    CHECK(again->start["tree"] == std::string(40, 'a'));
    REQUIRE(s.begin_gate_turn(turn("t2", "r2", 2)).ok());
    CHECK(s.count_gate_turns("codex", "s1").value() == 2);
    CHECK(s.count_gate_turns("claude-code", "s1").value() == 0);
    CHECK(s.latest_gate_turn("codex", "s1").value()->turn_key == "t2");
    CHECK_FALSE(s.latest_gate_turn("codex", "other").value().has_value());
    CHECK_FALSE(s.gate_turn("codex", "s1", "t9").value().has_value());

    REQUIRE(s.record_gate_stop(*first, true, "block", "partial", 4, "r1", "2026-11-26T10:01:00.000Z").ok());
    REQUIRE(s.record_gate_stop(*first, false, "allow", "success", 6, "r1", "2026-11-26T10:02:00.000Z").ok());
    auto t1 = s.gate_turn("codex", "s1", "t1");
    REQUIRE(t1.ok());
    REQUIRE(t1->has_value());
    CHECK((*t1)->stops == 2);
    CHECK((*t1)->blocks == 1);
    CHECK((*t1)->decision == "allow");
    CHECK((*t1)->verdict == "success");
    CHECK((*t1)->transcript_events == 6);
    CHECK_FALSE(s.record_gate_stop(turn("t9", "r1", 9), false, "allow", "", 0, "r1", "now").ok());

    auto listed = s.list_gate_turns(10);
    REQUIRE(listed.ok());
    REQUIRE(listed->size() == 2);
    CHECK((*listed)[0].turn_key == "t1");  // updated last

    REQUIRE(s.remove_runs({"r1"}).ok());
    CHECK_FALSE(s.gate_turn("codex", "s1", "t1").value().has_value());
    CHECK(s.gate_turn("codex", "s1", "t2").value().has_value());
  }
}

}  // namespace candor::testing
