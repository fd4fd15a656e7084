// The gate's answer to a stop (app/gate_decision.h): which findings of a verdict are evidence of a
// problem, and when they block, bounded, with a reason the agent can act on.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/gate_decision.h"
#include "executor/config.h"
#include "verify/tier1.h"

namespace candor::testing {
namespace {

using app::GateFinding;

app::GateDecisionInput input(std::vector<GateFinding> findings, int blocks_before = 0, int max_blocks = 3) {
  return {.findings = std::move(findings),
          .run_id = "20261126T000000-abcdef",
          .verdict = "partial",
          .verdict_by = "tier1",
          .reasons = {"an assertion failed"},
          .blocks_before = blocks_before,
          .max_blocks = max_blocks,
          .block_on = executor::gate_finding_kinds(),
          .warnings = {}};
}

Mutation changed(const std::string& path, const std::string& change = "modified") {
  Mutation m;
  m.path = path;
  m.change = change;
  m.steps = {"turn"};
  m.last_change_seq = 5;
  return m;
}

AssertionRecord user_check(const std::string& path, bool passed) {
  AssertionRecord a;
  a.type = "file_contains";
  a.assertion = {{"type", "file_contains"}, {"path", path}, {"text", "hello candor"}};
  a.path = path;
  a.passed = passed;
  a.message = passed ? "found" : path + " does not contain \"hello candor\"";
  a.by = Provenance::kUser;
  a.seq = 9;
  return a;
}

RunFacts gate_facts() {
  RunFacts f;
  f.run_id = "r";
  f.source = "gate";
  f.goal = "make hello.txt say hello candor";
  f.status = RunStatus::kCompleted;
  return f;
}

std::vector<std::string> kinds_of(const std::vector<GateFinding>& findings) {
  std::vector<std::string> out;
  for (const auto& f : findings) out.push_back(f.kind);
  return out;
}

}  // namespace

TEST_SUITE("app") {
  TEST_CASE("decision table: block only on a finding of a blocking kind, at most max_blocks times a turn") {
    GateFinding expectation{"expectation", "the expected check failed", true};
    GateFinding question{"expectation", "failed, but nothing changed", false};
    GateFinding scope{"scope", "x.txt was added outside the scope", true};
    struct Row {
      const char* name;
      std::vector<GateFinding> findings;
      int blocks_before, max_blocks;
      std::vector<std::string> block_on;
      bool block, limit_reached;
      std::size_t blocking;
    };
    const std::vector<std::string> all = executor::gate_finding_kinds();
    for (const auto& row : std::vector<Row>{
             {"nothing found: allowed", {}, 0, 3, all, false, false, 0},
             {"a failed expectation blocks", {expectation}, 0, 3, all, true, false, 1},
             {"the third block is still a block", {expectation}, 2, 3, all, true, false, 1},
             {"after max_blocks: let through, with the limit said", {expectation}, 3, 3, all, false, true, 1},
             {"max_blocks 0: report only", {expectation, scope}, 0, 0, all, false, true, 2},
             {"a kind block_on leaves out does not block", {expectation}, 0, 3, {"scope"}, false, false, 0},
             {"only the kinds block_on names block", {expectation, scope}, 0, 3, {"scope"}, true, false, 1},
             {"a question's failed expectation never blocks", {question}, 0, 3, all, false, false, 0},
             {"empty block_on: nothing blocks", {expectation, scope}, 0, 3, {}, false, false, 0},
         }) {
      CAPTURE(row.name);
      auto in = input(row.findings, row.blocks_before, row.max_blocks);
      in.block_on = row.block_on;
      app::GateDecision d = app::decide_gate(in, nullptr);
      CHECK(d.block == row.block);
      CHECK(d.limit_reached == row.limit_reached);
      CHECK(d.blocking.size() == row.blocking);
      CHECK(d.reason.empty() == !row.block);
      CHECK_FALSE(d.message.empty());  // the verdict is always shown
      if (row.limit_reached) CHECK(d.message.find("gate.max_blocks") != std::string::npos);
    }
  }

  TEST_CASE("a block's reason names the findings and what to do, counts the blocks, and stays within 2 KB") {
    auto d = app::decide_gate(input({{"expectation", "the expected check file_contains hello.txt failed", true},
                                     {"protected", "`.candor/config.json` was modified during the run", true}},
                                    1, 3),
                              nullptr);
    REQUIRE(d.block);
    CHECK(d.reason.find("file_contains hello.txt") != std::string::npos);
    CHECK(d.reason.find("`.candor/config.json` was modified") != std::string::npos);
    CHECK(d.reason.find("stop blocked, 2 of 3") != std::string::npos);
    CHECK(d.reason.find("What to do") != std::string::npos);
    CHECK(d.reason.find("never weaken") != std::string::npos);
    CHECK(d.reason.find("not yours to change") != std::string::npos);
    CHECK(d.reason.find("20261126T000000-abcdef") != std::string::npos);
    CHECK(d.message.find("candor blocked this stop (2 of 3)") != std::string::npos);

    std::vector<GateFinding> many;
    for (int i = 0; i < 300; ++i)
      many.push_back({"scope", "src/file" + std::to_string(i) + ".c was added outside the scope", true});
    many.push_back({"expectation", std::string(5000, 'y'), true});
    auto big = app::decide_gate(input(many), nullptr);
    REQUIRE(big.block);
    CHECK(big.reason.size() <= app::kMaxReasonBytes);
    CHECK(big.reason.find("more (candor report") != std::string::npos);
    CHECK(big.reason.find("What to do") != std::string::npos);  // the advice survives the cut
    CHECK(big.message.size() <= 4096 + 8);
  }

  TEST_CASE("secret values are masked in the reason and the message") {
    SecretMasker masker;
    masker.add("sk-live-0123456789abcdef");
    auto in = input({{"expectation", "the expected check failed: output said sk-live-0123456789abcdef", true}});
    in.warnings = {"a warning naming sk-live-0123456789abcdef"};
    auto d = app::decide_gate(in, &masker);
    REQUIRE(d.block);
    CHECK(d.reason.find("sk-live") == std::string::npos);
    CHECK(d.message.find("sk-live") == std::string::npos);
    CHECK(d.reason.find("***") != std::string::npos);
    auto allowed = app::decide_gate(input({}), &masker);
    in.findings.clear();
    CHECK(app::decide_gate(in, &masker).message.find("sk-live") == std::string::npos);
    CHECK_FALSE(allowed.block);
  }

  TEST_CASE("findings by kind: expectations, checkpoints, protected, scope, sensitive, scan, suspicious, judge") {
    RunFacts f = gate_facts();
    f.mutations = {changed("hello.txt"), changed("other/x.txt", "added"), changed(".github/workflows/ci.yml"),
                   changed("run.sh")};
    f.mutations[3].mode_before = 0100644;
    f.mutations[3].mode_after = 0104755;            // made setuid
    f.scope = {"hello.txt", "run.sh", "**/*.yml"};  // the CI file in scope, but not named: still sensitive
    f.assertions = {user_check("hello.txt", false)};
    f.protected_changes = {"`.candor/config.json` was modified during the run"};
    f.scan.complete = false;
    f.scan.unread = {"locked/"};
    f.acceptance = {{"passed", false},
                    {"checkpoints",
                     {{{"id", "ran_tests"}, {"essential", true}, {"matched", false}},
                      {{"id", "said_done"}, {"essential", false}, {"matched", false}}}}};
    verify::JudgeOutcome judge;
    judge.asked = judge.answered = true;
    judge.questions = {"Does hello.txt say hello candor?", "Was nothing else changed?"};
    judge.answers = {{1, false, "it says hello world", false}, {2, true, "", false}};
    verify::Tier1Result tier1 = verify::evaluate_tier1(f);
    auto findings = app::gate_findings(f, tier1, &judge);
    std::vector<std::string> kinds = kinds_of(findings);
    CAPTURE(kinds);
    for (const char* k :
         {"expectation", "checkpoint", "protected", "scope", "sensitive", "scan", "suspicious", "judge"})
      CHECK(std::find(kinds.begin(), kinds.end(), k) != kinds.end());
    CHECK(std::count(kinds.begin(), kinds.end(), "checkpoint") == 1);  // the non-essential one is no finding
    CHECK(std::count(kinds.begin(), kinds.end(), "protected") == 1);   // not said twice (as suspicious too)
    for (const auto& x : findings) CHECK(x.may_block);
    for (const auto& x : findings) {
      if (x.kind == "judge") CHECK(x.text.find("it says hello world") != std::string::npos);
      if (x.kind == "scope") CHECK(x.text.find("other/x.txt") != std::string::npos);
      if (x.kind == "sensitive") CHECK(x.text.find(".github/workflows/ci.yml") == 0);
    }
  }

  TEST_CASE("nothing changed: a question answered is not blocked for failed checks, a change request is") {
    RunFacts f = gate_facts();
    f.goal_kind = GoalKind::kInspect;
    f.assertions = {user_check("hello.txt", false)};
    verify::Tier1Result tier1 = verify::evaluate_tier1(f);
    auto question = app::gate_findings(f, tier1, nullptr);
    REQUIRE(question.size() == 1);
    CHECK(question[0].kind == "expectation");
    CHECK_FALSE(question[0].may_block);
    CHECK_FALSE(app::decide_gate(input(question), nullptr).block);

    verify::JudgeOutcome judge;
    judge.asked = judge.answered = true;
    judge.asks_for_change = true;
    judge.questions = {"Does hello.txt say hello candor?"};
    judge.answers = {{1, false, "nothing changed", false}};
    auto request = app::gate_findings(f, tier1, &judge);
    std::vector<std::string> kinds = kinds_of(request);
    CHECK(std::find(kinds.begin(), kinds.end(), "unchanged") != kinds.end());
    for (const auto& x : request) CHECK(x.may_block);
    CHECK(app::decide_gate(input(request), nullptr).block);

    judge.asks_for_change = false;
    judge.answers = {{1, true, "", false}};
    f.assertions.clear();
    CHECK(app::gate_findings(f, verify::evaluate_tier1(f), &judge).empty());
  }

  TEST_CASE("a change no assertion covers is no finding: lack of evidence never blocks") {
    RunFacts f = gate_facts();
    f.mutations = {changed("notes.md", "added")};
    StepRecord step;
    step.id = "turn";
    step.tool = "agent:codex";
    step.effect_tool = true;
    step.ok = true;
    step.changed_paths = {"notes.md"};
    step.seq = 5;
    f.steps = {step};
    f.steps_planned = 1;
    verify::Tier1Result tier1 = verify::evaluate_tier1(f);
    CHECK_FALSE(tier1.verdict.has_value());  // ambiguous
    CHECK(app::gate_findings(f, tier1, nullptr).empty());
  }

  TEST_CASE("cut_text keeps to its limit, at a line end or a character boundary") {
    CHECK(app::cut_text("short", 10) == "short");
    std::string cut = app::cut_text(std::string(100, 'a') + "\n" + std::string(100, 'b'), 150);
    CHECK(cut.size() <= 150);
    CHECK(cut.find('b') == std::string::npos);
    std::string accents;
    for (int i = 0; i < 100; ++i) accents += "\xC3\xA9";
    std::string c = app::cut_text(accents, 51);
    CHECK(c.size() <= 51);
    CHECK_NOTHROW((void)nlohmann::json(c).dump());  // whole characters only: still valid UTF-8
  }
}

}  // namespace candor::testing
