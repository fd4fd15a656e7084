// Every tier-1 rule of DESIGN.md is a row; the function is pure, so each row is just data.
#include <doctest/doctest.h>

#include "verify/tier1.h"
#include "verify/verdict.h"

using namespace candor;
using nlohmann::json;

namespace {

StepRecord step(const std::string& id, const std::string& tool, bool effect, bool ok, std::vector<std::string> changed,
                std::int64_t seq, int round = 1) {
  StepRecord s;
  s.id = id;
  s.tool = tool;
  s.target = changed.empty() ? "x" : changed.front();
  s.effect_tool = effect;
  s.ok = ok;
  s.changed_paths = std::move(changed);
  s.seq = seq;
  s.round = round;
  return s;
}

AssertionRecord check(const std::string& step, const std::string& path, bool passed, std::int64_t seq, int round = 1) {
  AssertionRecord a;
  a.step = step;
  a.type = "file_contains";
  a.path = path;
  a.passed = passed;
  a.message = passed ? "ok" : "missing text";
  a.seq = seq;
  a.round = round;
  return a;
}

Mutation change(const std::string& path, std::int64_t seq, std::vector<std::string> steps) {
  Mutation m;
  m.path = path;
  m.change = "modified";
  m.steps = std::move(steps);
  m.last_change_seq = seq;
  return m;
}

// A modify run that patched one file and checked it: success unless a row breaks something.
RunFacts good_modify() {
  RunFacts f;
  f.goal_kind = GoalKind::kModify;
  f.status = RunStatus::kCompleted;
  f.steps_planned = 2;
  f.steps = {step("s1", "file_read", false, true, {}, 3), step("s2", "file_patch", true, true, {"css/style.css"}, 6)};
  f.mutations = {change("css/style.css", 7, {"s2"})};
  f.assertions = {check("s2", "css/style.css", true, 8)};
  return f;
}

RunFacts discovery_only(RunStatus status) {
  RunFacts f;
  f.goal_kind = GoalKind::kModify;
  f.status = status;
  f.steps_planned = 4;
  for (int i = 1; i <= 4; ++i) f.steps.push_back(step("s" + std::to_string(i), "file_read", false, true, {}, i * 3));
  return f;
}

struct Row {
  std::string name;
  RunFacts facts;
  std::optional<Verdict> verdict;
  int rule;
  std::string reason_has;
};

std::vector<Row> rows() {
  std::vector<Row> out;
  {
    RunFacts f = discovery_only(RunStatus::kError);
    f.status_detail = "the planner's reply was invalid twice";
    out.push_back({"rule 1: error before any goal action", f, Verdict::kFail, 1, "before any effect tool ran"});
  }
  out.push_back({"rule 1: cancelled before any goal action", discovery_only(RunStatus::kCancelled), Verdict::kFail, 1,
                 "status cancelled"});
  out.push_back({"rule 1: killed (no run_ended) counts as cancelled", discovery_only(RunStatus::kRunning), Verdict::kFail, 1,
                 "killed before it ended"});
  {
    RunFacts f = discovery_only(RunStatus::kBudgetExhausted);
    f.budget.exhausted = BudgetKind::kReplans;
    f.budget.limits.max_replans = 3;
    out.push_back({"rule 2: discovery-only run that burned its replans", f, Verdict::kPartial, 2,
                   "the replan budget (3) ran out before any effect tool ran: tried, never made the change"});
  }
  {
    RunFacts f = good_modify();
    f.status = RunStatus::kBudgetExhausted;
    f.budget.exhausted = BudgetKind::kSteps;
    out.push_back({"rule 2: budget out after a fully checked change is still never success", f, Verdict::kPartial, 2,
                   "the step budget (50) ran out before the plan finished"});
  }
  {
    RunFacts f = good_modify();
    f.status = RunStatus::kError;
    out.push_back({"rule 3: error after a goal action", f, Verdict::kPartial, 3, "after effect tools had run"});
  }
  {
    RunFacts f = discovery_only(RunStatus::kCompleted);
    f.steps.push_back(step("s5", "shell", false, false, {"out.txt"}, 20));  // failed, but it did change the workspace
    f.status = RunStatus::kCancelled;
    out.push_back({"rule 3: a failed shell step that changed files is a goal action", f, Verdict::kPartial, 3, "after effect"});
  }
  out.push_back({"rule 4: claims finished, changed nothing", discovery_only(RunStatus::kCompleted), Verdict::kFail, 4,
                 "nothing in the workspace changed"});
  {
    RunFacts f = good_modify();
    f.mutations.clear();
    f.steps[1].changed_paths.clear();  // a no-op patch
    out.push_back({"rule 4: a no-op patch is named", f, Verdict::kFail, 4, "s2 (file_patch css/style.css) completed but changed nothing"});
  }
  {
    RunFacts f = good_modify();
    f.assertions.push_back(check("s2", "css/style.css", false, 9));
    out.push_back({"rule 5: a failed assertion in the last round", f, Verdict::kPartial, 5, "s2 file_contains: missing text"});
  }
  {
    RunFacts f = good_modify();
    f.assertions.push_back(check("", "css/style.css", false, 10));
    out.push_back({"rule 5: a failed goal-level assertion", f, Verdict::kPartial, 5, "goal-level file_contains"});
  }
  out.push_back({"rule 6: modify, every change covered", good_modify(), Verdict::kSuccess, 6, "every changed file (1)"});
  {
    RunFacts f = good_modify();
    f.last_round = 2;
    f.assertions.insert(f.assertions.begin(), check("s0", "css/style.css", false, 2, 1));
    f.assertions.back().round = 2;
    out.push_back({"rule 6: a round-1 failure fixed in round 2 does not count", f, Verdict::kSuccess, 6, "1 of 1 final"});
  }
  {
    RunFacts f;
    f.goal_kind = GoalKind::kInspect;
    f.status = RunStatus::kCompleted;
    f.steps_planned = 1;
    f.steps = {step("s1", "shell", false, true, {}, 3)};
    f.assertions = {check("s1", "", true, 4)};
    f.final_answer = "There are 3 pages.";
    out.push_back({"rule 6: inspect, answered, nothing changed", f, Verdict::kSuccess, 6, "the question was answered"});
    RunFacts no_answer = f;
    no_answer.final_answer.reset();
    out.push_back({"rule 7: inspect without a final answer", no_answer, std::nullopt, 7, "gave no final answer"});
    RunFacts mutated = f;
    mutated.mutations = {change("index.html", 3, {"s1"})};
    out.push_back({"rule 7: inspect that changed a file is suspicious", mutated, std::nullopt, 7,
                   "the goal only asks a question, but index.html was modified"});
  }
  {
    RunFacts f = good_modify();
    f.assertions[0].seq = 5;  // evaluated before the change was made
    out.push_back({"rule 7: the only check ran before the last change", f, std::nullopt, 7,
                   "css/style.css changed, but no passing assertion checked it after its last change"});
  }
  {
    RunFacts f = good_modify();
    f.assertions[0].path = "css/other.css";
    out.push_back({"rule 7: a check on another path does not cover", f, std::nullopt, 7, "no passing assertion checked it"});
  }
  {
    RunFacts f = good_modify();
    f.assertions.clear();
    out.push_back({"rule 7: no assertion at all", f, std::nullopt, 7, "no assertion was evaluated"});
  }
  {
    RunFacts f = good_modify();
    f.steps.push_back(step("s3", "file_write", true, true, {}, 9));
    out.push_back({"rule 7: a suspicious effect step blocks success", f, std::nullopt, 7, "s3 (file_write x) completed but changed nothing"});
  }
  {
    // git_commit's effect is in .git, which snapshots leave out: an unchanged worktree after it is
    // expected, not suspicious.
    RunFacts f = good_modify();
    StepRecord commit = step("s3", "git_commit", true, true, {}, 9);
    commit.effect_on_files = false;
    f.steps.push_back(commit);
    out.push_back({"rule 6: a commit that changed no file is not suspicious", f, Verdict::kSuccess, 6, ""});
  }
  {
    RunFacts f = good_modify();
    f.mutations.push_back(change("stray.txt", 12, {}));
    out.push_back({"rule 7: a change outside every step is uncovered", f, std::nullopt, 7, "stray.txt changed"});
  }
  return out;
}

}  // namespace

TEST_SUITE("verify") {
  TEST_CASE("tier 1 rules, first match wins") {
    for (const auto& row : rows()) {
      CAPTURE(row.name);
      verify::Tier1Result r = verify::evaluate_tier1(row.facts);
      CHECK(r.rule == row.rule);
      CHECK(r.verdict == row.verdict);
      std::string all;
      for (const auto& reason : r.reasons) all += reason + "\n";
      CAPTURE(all);
      CHECK(all.find(row.reason_has) != std::string::npos);
    }
  }

  TEST_CASE("signals: goal actions, suspicious steps, uncovered paths") {
    RunFacts f = good_modify();
    f.steps.push_back(step("s3", "shell", false, true, {}, 9));  // a shell that only listed
    auto r = verify::evaluate_tier1(f);
    CHECK(r.signals.goal_actions_executed);
    CHECK(r.signals.suspicious.empty());
    CHECK(r.signals.all_steps_executed);
    RunFacts only_list = discovery_only(RunStatus::kCompleted);
    only_list.steps.push_back(step("s5", "shell", false, true, {}, 20));
    CHECK_FALSE(verify::evaluate_tier1(only_list).signals.goal_actions_executed);
    RunFacts shell_wrote = discovery_only(RunStatus::kCompleted);
    shell_wrote.steps.push_back(step("s5", "shell", false, true, {"out.txt"}, 20));
    CHECK(verify::evaluate_tier1(shell_wrote).signals.goal_actions_executed);
  }

  TEST_CASE("without a judge, ambiguous is partial and says unverified; settled verdicts pass through") {
    RunFacts f = good_modify();
    f.assertions.clear();
    auto d = verify::decide_without_judge(verify::evaluate_tier1(f));
    CHECK(d.verdict == Verdict::kPartial);
    CHECK(d.by == "tier1");
    REQUIRE(d.reasons.size() >= 2);
    CHECK(d.reasons[0].rfind("unverified", 0) == 0);
    auto ok = verify::decide_without_judge(verify::evaluate_tier1(good_modify()));
    CHECK(ok.verdict == Verdict::kSuccess);
  }
}
