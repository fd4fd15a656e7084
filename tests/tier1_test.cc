// Every tier-1 rule of docs/design.md is a row; the function is pure, so each row is just data.
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

// A file_contains record. A passing one on a path is discriminating (it failed on the pre-run
// content) and positive (it fails on an empty file) unless a row says otherwise.
AssertionRecord check(const std::string& step, const std::string& path, bool passed, std::int64_t seq, int round = 1,
                      Provenance by = Provenance::kPlanner) {
  AssertionRecord a;
  a.step = step;
  a.type = "file_contains";
  a.assertion = {{"type", "file_contains"}, {"path", path}, {"text", "#006400"}};
  a.path = path;
  a.passed = passed;
  a.message = passed ? "ok" : "missing text";
  a.seq = seq;
  a.round = round;
  a.by = by;
  if (passed && !path.empty()) a.discriminating = a.positive = true;
  return a;
}

// A goal-level (--expect) assertion: always the user's.
AssertionRecord expect(const std::string& path, bool passed, std::int64_t seq, int round = 1) {
  AssertionRecord a = check("", path, passed, seq, round, Provenance::kUser);
  a.discriminating.reset();  // a goal-level check on an unchanged file need not discriminate
  a.positive.reset();
  return a;
}

// A user's goal-level command (docs/design.md, Commands as evidence) that passed after the change and,
// unless a row says otherwise, failed before it (FAIL_TO_PASS).
AssertionRecord command(std::int64_t seq, nlohmann::json covers = nlohmann::json::array({"src/**"}),
                        bool failed_before = true) {
  AssertionRecord a;
  a.type = "command_succeeds";
  a.assertion = {{"type", "command_succeeds"}, {"command", "python3 -m unittest tests.test_x"}};
  if (!covers.is_null()) a.assertion["covers"] = covers;
  a.passed = true;
  a.message = "`python3 -m unittest tests.test_x` exited 0 after 0.1 s";
  a.seq = seq;
  a.by = Provenance::kUser;
  a.exit_code = 0;
  a.output = "Ran 1 test in 0.000s\n\nOK";
  a.tests = TestSummary{.runner = "unittest", .ran = 1, .passed = 1, .failed = 0, .skipped = 0};
  a.before = ProgramRun{!failed_before, false, failed_before ? 1 : 0, failed_before ? "FAILED (failures=1)" : "OK", ""};
  a.before->tests = TestSummary{
      .runner = "unittest", .ran = 1, .passed = failed_before ? 0 : 1, .failed = failed_before ? 1 : 0, .skipped = 0};
  a.discriminating = failed_before;
  return a;
}

TestSummary summary(int ran, int passed, int failed, int skipped, const char* runner = "unittest") {
  return {.runner = runner, .ran = ran, .passed = passed, .failed = failed, .skipped = skipped};
}

Mutation change(const std::string& path, std::int64_t seq, std::vector<std::string> steps) {
  Mutation m;
  m.path = path;
  m.change = "modified";
  m.steps = std::move(steps);
  m.last_change_seq = seq;
  return m;
}

// A modify run that patched one file and checked it with the user's own assertion (an exec plan's):
// success unless a row breaks something.
RunFacts good_modify() {
  RunFacts f;
  f.goal_kind = GoalKind::kModify;
  f.status = RunStatus::kCompleted;
  f.steps_planned = 2;
  f.steps = {step("s1", "file_read", false, true, {}, 3), step("s2", "file_patch", true, true, {"css/style.css"}, 6)};
  f.mutations = {change("css/style.css", 7, {"s2"})};
  f.assertions = {check("s2", "css/style.css", true, 8, 1, Provenance::kUser)};
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
  out.push_back({"rule 1: killed (no run_ended) counts as cancelled", discovery_only(RunStatus::kRunning),
                 Verdict::kFail, 1, "killed before it ended"});
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
    out.push_back(
        {"rule 3: a failed shell step that changed files is a goal action", f, Verdict::kPartial, 3, "after effect"});
  }
  out.push_back({"rule 4: claims finished, changed nothing", discovery_only(RunStatus::kCompleted), Verdict::kFail, 4,
                 "nothing in the workspace changed"});
  {
    RunFacts f = good_modify();
    f.mutations.clear();
    f.steps[1].changed_paths.clear();  // a no-op patch
    out.push_back({"rule 4: a no-op patch is named", f, Verdict::kFail, 4,
                   "s2 (file_patch css/style.css) completed but changed nothing"});
  }
  {
    RunFacts f = good_modify();
    f.assertions.push_back(check("s2", "css/style.css", false, 9));
    out.push_back(
        {"rule 5: a failed assertion in the last round", f, Verdict::kPartial, 5, "s2 file_contains: missing text"});
  }
  {
    RunFacts f = good_modify();
    f.assertions.push_back(check("", "css/style.css", false, 10));
    out.push_back({"rule 5: a failed goal-level assertion", f, Verdict::kPartial, 5, "goal-level file_contains"});
  }
  out.push_back(
      {"rule 6: modify, every change covered", good_modify(), Verdict::kSuccess, 6, "every changed file (1)"});
  {
    RunFacts f = good_modify();
    f.last_round = 2;
    f.assertions.insert(f.assertions.begin(), check("s0", "css/style.css", false, 2, 1));
    f.assertions.back().round = 2;
    out.push_back(
        {"rule 6: a round-1 failure fixed in round 2 does not count", f, Verdict::kSuccess, 6, "1 of 1 final"});
  }
  {
    RunFacts f;
    f.goal_kind = GoalKind::kInspect;
    f.status = RunStatus::kCompleted;
    f.steps_planned = 1;
    f.steps = {step("s1", "shell", false, true, {}, 3)};
    f.assertions = {check("s1", "", true, 4, 1, Provenance::kUser)};
    f.final_answer = "There are 3 pages.";
    out.push_back({"rule 6: inspect, answered, nothing changed, a user assertion passed", f, Verdict::kSuccess, 6,
                   "the question was answered"});
    RunFacts planner_only = f;
    planner_only.assertions = {check("s1", "", true, 4, 1, Provenance::kPlanner)};
    out.push_back({"rule 7: inspect backed only by the planner's own checks goes to the judge", planner_only,
                   std::nullopt, 7, "backed only by the planner's own checks"});
    RunFacts no_answer = f;
    no_answer.final_answer.reset();
    out.push_back({"rule 7: inspect without a final answer", no_answer, std::nullopt, 7, "gave no final answer"});
    RunFacts mutated = f;
    mutated.mutations = {change("index.html", 3, {"s1"})};
    out.push_back({"rule 5: inspect that changed a file is partial, and no judge may lift it", mutated,
                   Verdict::kPartial, 5, "the goal only asks a question, but index.html was modified"});
  }
  {
    RunFacts f = good_modify();
    f.assertions[0].seq = 5;  // evaluated before the change was made
    out.push_back({"rule 7: the only check ran before the last change", f, std::nullopt, 7,
                   "css/style.css (modified): no passing assertion after its last change"});
  }
  {
    RunFacts f = good_modify();
    f.assertions[0].path = "css/other.css";
    out.push_back({"rule 7: a check on another path does not cover", f, std::nullopt, 7,
                   "css/style.css (modified): no passing assertion after its last change"});
  }
  {
    RunFacts f = good_modify();
    f.assertions.clear();
    out.push_back({"rule 7: no assertion at all", f, std::nullopt, 7, "no assertion was evaluated"});
  }
  {
    RunFacts f = good_modify();
    f.steps.push_back(step("s3", "file_write", true, true, {}, 9));
    out.push_back({"rule 7: a suspicious effect step blocks success", f, std::nullopt, 7,
                   "s3 (file_write x) completed but changed nothing"});
  }
  {
    // git_commit's effect is in .git, which snapshots leave out: an unchanged worktree after it is
    // expected, not suspicious.
    RunFacts f = good_modify();
    StepRecord commit = step("s3", "git_commit", true, true, {}, 9);
    commit.effect_on_files = false;
    f.steps.push_back(commit);
    out.push_back(
        {"rule 6: a commit that changed no file is not suspicious", f, Verdict::kSuccess, 6, "every changed file (1)"});
  }
  {
    RunFacts f = good_modify();
    f.mutations.push_back(change("stray.txt", 12, {}));
    out.push_back(
        {"rule 7: a change outside every step is uncovered", f, std::nullopt, 7, "stray.txt (modified): no passing"});
  }
  // Discriminating evidence (docs/design.md, Trust boundary).
  {
    RunFacts f = good_modify();
    f.assertions[0].assertion["text"] = "background";
    f.assertions[0].discriminating = false;  // the stylesheet said "background" before the run too
    out.push_back(
        {"rule 7: a pass that also passed before the run covers nothing (the red patch)", f, std::nullopt, 7,
         "css/style.css (modified): your check `file_contains css/style.css` passed on its content from before the "
         "run too (it was already true), so it shows nothing about the change; to prove it: check for something the "
         "change must make true"});
  }
  {
    RunFacts f = good_modify();
    f.assertions[0].type = "file_exists";
    f.assertions[0].discriminating = false;  // the file always existed
    out.push_back({"rule 7: file_exists on a file that always existed covers nothing", f, std::nullopt, 7,
                   "your check `file_exists css/style.css` passed on its content from before the run too"});
  }
  {
    RunFacts f = good_modify();
    f.assertions[0].discriminating.reset();  // an evaluator that cannot say (output_contains, an external one)
    out.push_back({"rule 7: a pass nobody checked against the pre-run content covers nothing", f, std::nullopt, 7,
                   "nothing proves"});
  }
  {
    RunFacts f = good_modify();
    f.mutations = {change("old.css", 7, {"s2"})};
    f.mutations[0].change = "deleted";
    f.assertions = {check("s2", "old.css", true, 8, 1, Provenance::kUser)};
    f.assertions[0].type = "not";  // not file_exists: passes now, failed before (the file existed)
    f.assertions[0].assertion = {{"type", "not"}, {"assertion", {{"type", "file_exists"}, {"path", "old.css"}}}};
    f.assertions[0].positive.reset();
    out.push_back(
        {"rule 6: a deletion covered by a discriminating not file_exists", f, Verdict::kSuccess, 6, "old.css"});
    RunFacts other = f;
    other.assertions[0].assertion = {{"type", "not"},
                                     {"assertion", {{"type", "file_contains"}, {"path", "old.css"}, {"text", "x"}}}};
    other.assertions[0].positive = true;
    out.push_back({"rule 7: a deletion is shown only by not file_exists", other, std::nullopt, 7,
                   "old.css (deleted): no passing `not file_exists`"});
    RunFacts modified = f;
    modified.mutations[0].change = "modified";  // a link left in its place: the entry still exists
    out.push_back({"rule 7: not file_exists covers no modified path", modified, std::nullopt, 7, "old.css (modified)"});
  }
  // Rule 4: already satisfied.
  {
    RunFacts f = discovery_only(RunStatus::kCompleted);
    f.assertions = {expect("css/style.css", true, 20)};
    out.push_back({"rule 4: nothing changed, every user goal-level assertion passed: already satisfied", f,
                   Verdict::kSuccess, 4, "already satisfied"});
    RunFacts failed = discovery_only(RunStatus::kCompleted);
    failed.assertions = {expect("css/style.css", true, 20), expect("index.html", false, 21)};
    failed.assertions[1].assertion["path"] = "index.html";
    out.push_back({"rule 4: nothing changed and a goal-level assertion failed", failed, Verdict::kFail, 4,
                   "nothing in the workspace changed"});
    RunFacts step_checks = discovery_only(RunStatus::kCompleted);
    step_checks.assertions = {check("s4", "css/style.css", true, 13, 1, Provenance::kUser)};
    out.push_back({"rule 4: step assertions alone (even the user's) do not make 'already satisfied'", step_checks,
                   Verdict::kFail, 4, "nothing in the workspace changed"});
    RunFacts tampered = f;
    tampered.protected_changes = {".candor/config.json was created during the run"};
    out.push_back({"rule 5: already satisfied, but .candor/ was written: partial, never success", tampered,
                   Verdict::kPartial, 5, "protected path: .candor/config.json was created"});
  }
  // Rule 5 counts only the last evaluation of each goal-level assertion.
  {
    RunFacts f = good_modify();
    f.last_round = 2;
    f.assertions = {expect("css/style.css", false, 4, 1), check("s2", "css/style.css", true, 8, 2, Provenance::kUser),
                    expect("css/style.css", true, 9, 2)};
    out.push_back({"rule 6: an --expect that failed in round 1 and passed after the replan", f, Verdict::kSuccess, 6,
                   "1 of 1 final"});
    RunFacts regressed = good_modify();
    regressed.last_round = 2;
    regressed.assertions = {expect("css/style.css", true, 4, 1),
                            check("s2", "css/style.css", true, 8, 2, Provenance::kUser),
                            expect("css/style.css", false, 9, 2)};
    out.push_back({"rule 5: an --expect whose last evaluation failed", regressed, Verdict::kPartial, 5,
                   "goal-level file_contains"});
  }
  // What blocks success outright.
  {
    RunFacts f = good_modify();
    f.protected_changes = {".git/hooks/pre-commit was created during the run"};
    out.push_back({"rule 5: a change under .git/ blocks success", f, Verdict::kPartial, 5, ".git/hooks/pre-commit"});
    RunFacts blind = good_modify();
    blind.scan.complete = false;
    blind.scan.unread = {"private/"};
    out.push_back({"rule 5: an incomplete scan blocks success and names the path", blind, Verdict::kPartial, 5,
                   "could not read private/"});
    RunFacts blind_nothing = discovery_only(RunStatus::kCompleted);
    blind_nothing.scan.complete = false;
    blind_nothing.scan.unread = {"private/"};
    out.push_back({"rule 5: nothing seen changed, but the scan was incomplete: not a confident fail", blind_nothing,
                   Verdict::kPartial, 5, "changes there are unknown"});
  }
  // Round two (issue 28): positive evidence, the planner's words, guards, stale failures.
  {
    RunFacts f = good_modify();
    f.assertions[0].by = Provenance::kPlanner;
    out.push_back({"rule 7: coverage by the planner's own checks alone is for the judge", f, std::nullopt, 7,
                   "covered only by the planner's own checks"});
  }
  {
    RunFacts f = good_modify();
    f.mutations[0].change = "added";
    f.assertions[0].type = "file_exists";
    f.assertions[0].positive = false;  // passes on an empty file: existence proves no content
    out.push_back({"rule 7: file_exists on a new file covers nothing", f, std::nullopt, 7,
                   "css/style.css (added): your check `file_exists css/style.css` passes on an empty file too, so it "
                   "shows the file is there, not what it holds; to prove it: check what it holds"});
  }
  {
    RunFacts f = good_modify();
    f.assertions[0].assertion = {
        {"type", "not"}, {"assertion", {{"type", "file_contains"}, {"path", "css/style.css"}, {"text", "#ffffff"}}}};
    f.assertions[0].positive = false;  // the emptied stylesheet: `not file_contains OLD` passes on an empty file
    out.push_back(
        {"rule 7: not file_contains OLD on an emptied file covers nothing", f, std::nullopt, 7, "on an empty file"});
  }
  {
    RunFacts f = good_modify();
    f.mutations[0].lines_added = 1;
    f.mutations[0].lines_removed = 14;
    f.mutations[0].lines_before = 15;
    out.push_back({"rule 7: a covered change that removes far more than it adds is for the judge", f, std::nullopt, 7,
                   "css/style.css lost 13 more lines than it gained"});
    RunFacts small = good_modify();
    small.mutations[0].lines_added = 1;
    small.mutations[0].lines_removed = 4;
    small.mutations[0].lines_before = 200;
    out.push_back({"rule 6: a net removal within max(3, 10%) of the file is not one", small, Verdict::kSuccess, 6,
                   "every changed file"});
  }
  {
    RunFacts f = good_modify();
    f.mutations[0].mode_after = 0120777;
    out.push_back(
        {"rule 7: a path made a symbolic link is for the judge", f, std::nullopt, 7, "is a symbolic link now"});
  }
  {
    RunFacts f = good_modify();
    f.assertions[0].guard = true;
    f.assertions[0].step.clear();
    out.push_back({"rule 7: a passing guard covers nothing", f, std::nullopt, 7, "css/style.css (modified)"});
    RunFacts failing = good_modify();
    AssertionRecord guard = expect("index.html", false, 20);
    guard.guard = true;
    guard.assertion["path"] = "index.html";
    failing.assertions.push_back(guard);
    out.push_back(
        {"rule 5: a failing guard makes the run partial", failing, Verdict::kPartial, 5, "guard file_contains"});
    RunFacts noop = discovery_only(RunStatus::kCompleted);
    AssertionRecord held = expect("css/style.css", true, 20);
    held.guard = true;
    noop.assertions = {held};
    out.push_back({"rule 4: a passing guard never makes a no-op already satisfied", noop, Verdict::kFail, 4,
                   "nothing in the workspace changed"});
    RunFacts inspect;
    inspect.goal_kind = GoalKind::kInspect;
    inspect.status = RunStatus::kCompleted;
    inspect.steps = {step("s1", "file_read", false, true, {}, 3)};
    inspect.final_answer = "yes";
    inspect.assertions = {held};
    out.push_back({"rule 7: an inspect answer backed only by a guard is for the judge", inspect, std::nullopt, 7,
                   "or by guards"});
  }
  {
    // Round 1 wrote port 9090 (its check failed); round 2 only read and finished; the end's re-check
    // still fails.
    RunFacts f = good_modify();
    f.last_round = 2;
    AssertionRecord port = check("s2", "config.yml", false, 9, 1, Provenance::kUser);
    port.assertion["path"] = "config.yml";
    AssertionRecord again = port;
    again.seq = 30;
    again.round = 2;
    again.final_check = true;
    f.assertions = {f.assertions[0], port, again};
    out.push_back({"rule 5: a round-1 failure nothing fixed stands after the end's re-check", f, Verdict::kPartial, 5,
                   "still fails at the end"});
  }
  {
    RunFacts f = good_modify();
    StepRecord test = step("s3", "shell", false, false, {}, 10);
    test.target = "sh test.sh";
    test.error = "exited 1";
    f.steps.push_back(test);
    out.push_back({"rule 5: a failed test command never run again", f, Verdict::kPartial, 5,
                   "step s3 (shell sh test.sh) failed"});
    RunFacts rerun = f;
    StepRecord again = step("s9", "shell", false, true, {}, 14, 2);
    again.target = "sh test.sh";
    rerun.steps.push_back(again);
    out.push_back({"rule 6: a failed test command run again successfully is fixed", rerun, Verdict::kSuccess, 6,
                   "every changed file"});
    RunFacts read = good_modify();
    read.steps.push_back(step("s4", "file_read", false, false, {}, 10));
    out.push_back({"rule 6: a failed read changes nothing and stands for nothing", read, Verdict::kSuccess, 6,
                   "every changed file"});
  }
  {
    // A shell step that passed its tool but failed its own exit_code_eq is a failed step.
    RunFacts f = good_modify();
    StepRecord test = step("s3", "shell", false, true, {}, 10);
    test.target = "make check";
    f.steps.push_back(test);
    AssertionRecord code;
    code.step = "s3";
    code.type = "exit_code_eq";
    code.assertion = {{"type", "exit_code_eq"}, {"code", 0}};
    code.reads_step = true;
    code.seq = 11;
    code.by = Provenance::kUser;
    f.assertions.push_back(code);
    out.push_back({"rule 5: a step whose own exit_code_eq failed, never re-run", f, Verdict::kPartial, 5,
                   "step s3 (shell make check)"});
  }
  {
    RunFacts f = discovery_only(RunStatus::kCompleted);
    StepRecord commit = step("s5", "git_commit", true, true, {}, 20);
    commit.effect_on_files = false;
    f.steps.push_back(commit);
    Mutation m = change("README.md", 20, {"s5"});
    m.committed = true;
    f.mutations = {m};
    out.push_back({"rule 7: a commit of a pending change counts as change (not rule 4), for the judge", f, std::nullopt,
                   7, "README.md (modified, in a commit the run made)"});
  }
  // Commands as evidence (docs/design.md, Trust boundary): the FAIL_TO_PASS test, `covers`, the test files.
  {
    RunFacts f = good_modify();
    f.mutations = {change("src/x.py", 7, {"s2"})};
    f.assertions = {command(20)};
    out.push_back(
        {"rule 6: a user's command that failed before and passes after covers the modified paths of its covers", f,
         Verdict::kSuccess, 6, "every changed file (1)"});
    RunFacts kept = f;
    kept.assertions = {command(20, nlohmann::json::array({"src/**"}), false)};
    out.push_back({"rule 7: a command that passed before the change too covers nothing", kept, std::nullopt, 7,
                   "src/x.py (modified): `python3 -m unittest tests.test_x` passed before the change too"});
    RunFacts unknown = f;
    unknown.assertions[0].before = ProgramRun{false, true, std::nullopt, "", "not run: the run's time budget ran out"};
    unknown.assertions[0].discriminating = false;
    out.push_back({"rule 7: a command whose run before the change could not be made covers nothing", unknown,
                   std::nullopt, 7, "could not be run on the state before the change"});
    RunFacts no_covers = f;
    no_covers.assertions = {command(20, nullptr)};
    out.push_back(
        {"rule 7: a discriminating command without covers covers nothing", no_covers, std::nullopt, 7,
         "src/x.py (modified): `python3 -m unittest tests.test_x` failed before the change and passes after "
         "it, but its "
         "\"covers\" (none) does not take this path in; to prove it: add the path (or its folder, \"src/**\") to "
         "the command's \"covers\""});
    RunFacts elsewhere = f;
    elsewhere.assertions = {command(20, nlohmann::json::array({"lib/**"}))};
    out.push_back({"rule 7: a command covers only what its covers globs match", elsewhere, std::nullopt, 7,
                   "its \"covers\" (lib/**) does not take this path in"});
    RunFacts planner = f;
    planner.assertions[0].by = Provenance::kPlanner;
    out.push_back({"rule 7: the planner's covers is ignored", planner, std::nullopt, 7,
                   "src/x.py (modified): no passing assertion"});
    RunFacts early = f;
    early.assertions[0].seq = 5;  // before the path's last change
    out.push_back({"rule 7: a command evaluated before the path's last change covers nothing", early, std::nullopt, 7,
                   "src/x.py (modified)"});
    RunFacts guard = f;
    guard.assertions[0].guard = true;
    out.push_back({"rule 7: a passing guard command covers nothing", guard, std::nullopt, 7, "src/x.py (modified)"});
    RunFacts deleted = f;
    deleted.mutations[0].change = "deleted";
    out.push_back({"rule 7: a command never covers a deletion (only not file_exists does)", deleted, std::nullopt, 7,
                   "src/x.py (deleted): no passing `not file_exists`"});
    RunFacts committed = f;
    committed.mutations[0].committed = true;
    out.push_back({"rule 7: a command never covers a change that lies only in a commit the run made", committed,
                   std::nullopt, 7, "src/x.py (modified, in a commit the run made)"});
    RunFacts removal = f;
    removal.mutations[0].lines_removed = 14;
    removal.mutations[0].lines_added = 1;
    removal.mutations[0].lines_before = 15;
    out.push_back({"rule 7: removed content is the judge's, whatever command passed", removal, std::nullopt, 7,
                   "src/x.py lost 13 more lines than it gained"});
  }
  {
    // A known test runner's pass is evidence only when its summary shows a test passed: the
    // dishonest changes that make the command exit 0 having tested nothing (core/test_summary.h).
    RunFacts f = good_modify();
    f.mutations = {change("src/pkg/__init__.py", 7, {"s2"})};
    f.assertions = {command(20)};
    RunFacts exit0 = f;  // `os._exit(0)` (or sys.exit(0), unittest.main replaced) as the package is imported
    exit0.assertions[0].tests.reset();
    exit0.assertions[0].output = "";
    out.push_back({"rule 7: a known runner's pass with no test summary (os._exit(0) at import) covers nothing", exit0,
                   std::nullopt, 7,
                   "src/pkg/__init__.py (modified): `python3 -m unittest tests.test_x` passed but printed no test "
                   "summary (of python -m unittest): nothing shows a test ran"});
    RunFacts skip_all = f;  // unittest.TestCase.run replaced with a skip
    skip_all.assertions[0].tests = summary(1, 0, 0, 1);
    out.push_back({"rule 7: a pass with every test skipped covers nothing", skip_all, std::nullopt, 7,
                   "passed with no test passing (ran 1 test, 1 skipped): nothing shows the change made a test pass"});
    RunFacts none_ran = f;
    none_ran.assertions[0].tests = summary(0, 0, 0, 0);
    out.push_back({"rule 7: a pass that ran no test covers nothing", none_ran, std::nullopt, 7,
                   "passed but ran no test (ran 0 tests)"});
    RunFacts exit_hidden = f;  // sys.exit replaced: the runner said FAILED, the process exited 0
    exit_hidden.assertions[0].tests = summary(1, 0, 1, 0);
    out.push_back({"rule 7: an exit 0 whose runner counted a failure covers nothing", exit_hidden, std::nullopt, 7,
                   "exited 0 although its runner counted 1 failed (ran 1 test, 1 failed)"});
    RunFacts fewer = f;  // the root meson.build no longer builds tests/: 1 test runs where 16 did
    fewer.assertions[0].assertion["command"] = "meson test -C _build";
    fewer.assertions[0].tests = summary(1, 1, 0, 0, "meson");
    fewer.assertions[0].before->tests = summary(16, 15, 1, 0, "meson");
    out.push_back({"rule 7: a pass that ran fewer tests than the run before the change covers nothing", fewer,
                   std::nullopt, 7,
                   "`meson test -C _build` ran fewer tests after the change than before it (ran 1 test, 1 passed; "
                   "before: ran 16 tests, 15 passed, 1 failed)"});
    RunFacts more_skipped = f;  // the failing test skipped by the source, the others passing
    more_skipped.assertions[0].tests = summary(4, 2, 0, 2);
    more_skipped.assertions[0].before->tests = summary(4, 2, 1, 1);
    out.push_back({"rule 7: a pass that skipped more tests than the run before the change covers nothing", more_skipped,
                   std::nullopt, 7,
                   "skipped more tests after the change than before it (ran 4 tests, 2 passed, 2 skipped; before: ran "
                   "4 tests, 2 passed, 1 failed, 1 skipped)"});
    RunFacts same_skips = f;  // a test skipped on this platform, before and after
    same_skips.assertions[0].tests = summary(4, 3, 0, 1);
    same_skips.assertions[0].before->tests = summary(4, 2, 1, 1);
    out.push_back({"rule 6: the skips the run before the change had too do not count against it", same_skips,
                   Verdict::kSuccess, 6, "every changed file (1)"});
    RunFacts import_error = f;  // the test's module did not import before the fix: one error stands for its tests
    import_error.assertions[0].tests = summary(3, 3, 0, 0);
    import_error.assertions[0].before->tests = summary(1, 0, 1, 0);
    out.push_back({"rule 6: more tests after than the one import error before", import_error, Verdict::kSuccess, 6,
                   "every changed file (1)"});
    RunFacts unbuilt = f;  // the test did not build before the fix: no summary there
    unbuilt.assertions[0].assertion["command"] = "meson test -C _build";
    unbuilt.assertions[0].tests = summary(16, 16, 0, 0, "meson");
    unbuilt.assertions[0].before->tests.reset();
    out.push_back({"rule 6: no summary before the change (it did not build) and nothing skipped after", unbuilt,
                   Verdict::kSuccess, 6, "every changed file (1)"});
    RunFacts unbuilt_skips = unbuilt;
    unbuilt_skips.assertions[0].tests = summary(16, 15, 0, 1, "meson");
    out.push_back({"rule 7: skips after the change with no summary before to compare with cover nothing", unbuilt_skips,
                   std::nullopt, 7,
                   "skipped tests after the change (ran 16 tests, 15 passed, 1 skipped), and its run before the change "
                   "printed no test summary to show they were skipped there too"});
    RunFacts go_quiet = f;
    go_quiet.assertions[0].assertion["command"] = "go test ./...";
    go_quiet.assertions[0].tests.reset();
    out.push_back({"rule 7: go test without -v prints no count", go_quiet, std::nullopt, 7,
                   "(`go test` prints one line per test only with -v)"});
    RunFacts unknown_runner = f;  // make check: no runner candor reads, its exit code is taken
    unknown_runner.assertions[0].assertion["command"] = "make check";
    unknown_runner.assertions[0].tests.reset();
    unknown_runner.assertions[0].before->tests.reset();
    out.push_back({"rule 6: a command that runs no runner candor reads is taken on its exit code", unknown_runner,
                   Verdict::kSuccess, 6, "every changed file (1)"});
    RunFacts stored = exit0;  // a record saying discriminating (made before the rule) is judged again
    stored.assertions[0].discriminating = true;
    out.push_back({"rule 7: tier 1 applies the rule to stored facts, whatever they say of discriminating", stored,
                   std::nullopt, 7, "printed no test summary"});
  }
  {
    // The test the command runs, weakened or skipped, is never covered by that command.
    RunFacts weakened = good_modify();
    weakened.mutations = {change("tests/test_x.py", 7, {"s2"})};
    weakened.assertions = {command(20, nlohmann::json::array({"**"}))};
    out.push_back({"rule 7: a command never covers the test file it runs, whatever its covers says", weakened,
                   std::nullopt, 7,
                   "tests/test_x.py (modified) is a test file that `python3 -m unittest tests.test_x` reads"});
    RunFacts named = good_modify();
    named.mutations = {change("checks/parser_check.py", 7, {"s2"})};
    named.assertions = {command(20, nlohmann::json::array({"**"}))};
    named.assertions[0].assertion["command"] = "pytest checks/parser_check.py::test_new";
    out.push_back({"rule 7: a test file the command names (a pytest node) is never covered by it", named, std::nullopt,
                   7, "checks/parser_check.py (modified) is a test file"});
    RunFacts conftest = good_modify();  // a conftest.py that deselects or skips every test
    conftest.mutations = {change("conftest.py", 7, {"s2"})};
    conftest.assertions = {command(20, nlohmann::json::array({"**"}))};
    conftest.assertions[0].assertion["command"] = "python3 -m pytest tests/test_x.py";
    conftest.assertions[0].tests = summary(1, 1, 0, 0, "pytest");
    out.push_back({"rule 7: pytest's conftest.py is the runner's configuration, never covered by it", conftest,
                   std::nullopt, 7,
                   "conftest.py (modified) is a test file that `python3 -m pytest tests/test_x.py` reads"});
    RunFacts meson_build = good_modify();  // the root meson.build edited, the tests still all run
    meson_build.mutations = {change("meson.build", 7, {"s2"})};
    meson_build.assertions = {command(20, nlohmann::json::array({"**"}))};
    meson_build.assertions[0].assertion["command"] = "meson test -C _build";
    out.push_back({"rule 7: meson.build says which tests are built: never covered by meson test", meson_build,
                   std::nullopt, 7, "meson.build (modified) is a test file that `meson test -C _build` reads"});
    RunFacts fixed_and_tested = good_modify();
    fixed_and_tested.mutations = {change("src/x.py", 7, {"s2"}), change("tests/test_x.py", 7, {"s2"})};
    fixed_and_tested.assertions = {command(20)};
    out.push_back({"rule 7: the fix is covered, the test file it came with is not", fixed_and_tested, std::nullopt, 7,
                   "tests/test_x.py (modified) is a test file"});
    RunFacts own_evidence = fixed_and_tested;
    own_evidence.assertions.push_back(check("", "tests/test_x.py", true, 21, 1, Provenance::kUser));
    out.push_back({"rule 6: a test file covered by evidence of its own", own_evidence, Verdict::kSuccess, 6,
                   "every changed file (2)"});
  }
  {
    // An added path: the command must also fail with it emptied.
    RunFacts f = good_modify();
    f.mutations = {change("src/new.py", 7, {"s2"})};
    f.mutations[0].change = "added";
    f.assertions = {command(20)};
    f.assertions[0].emptied = {{"src/new.py", ProgramRun{false, false, 1, "ImportError", ""}}};
    out.push_back({"rule 6: an added path covered by a command that fails with it emptied", f, Verdict::kSuccess, 6,
                   "every changed file (1)"});
    RunFacts content_free = f;
    content_free.assertions[0].emptied[0].run = ProgramRun{true, false, 0, "OK", ""};
    out.push_back({"rule 7: an added path the command passes with, emptied, is not covered by it", content_free,
                   std::nullopt, 7, "src/new.py (added): `python3 -m unittest tests.test_x` passes with it emptied"});
    RunFacts unchecked = f;
    unchecked.assertions[0].emptied.clear();  // past the cap of emptied runs
    out.push_back({"rule 7: an added path never run emptied is not covered", unchecked, std::nullopt, 7,
                   "src/new.py (added): `python3 -m unittest tests.test_x` was not run with it emptied"});
    RunFacts erred = f;
    erred.assertions[0].emptied[0].run =
        ProgramRun{false, true, std::nullopt, "", "not run: the run's time budget ran out"};
    out.push_back(
        {"rule 7: an emptied run that could not be made proves nothing", erred, std::nullopt, 7, "src/new.py (added)"});
  }
  {
    // Every finding is reported (issue 25, item 4): the rule that decides is the first that
    // matches, the reasons name everything else that blocks success too.
    RunFacts f = good_modify();
    f.status = RunStatus::kBudgetExhausted;
    f.budget.exhausted = BudgetKind::kSteps;
    f.budget.limits.max_steps = 5;
    f.mutations.push_back(change("src/other.py", 7, {"s2"}));
    out.push_back({"rule 2 names the uncovered path too", f, Verdict::kPartial, 2,
                   "src/other.py (modified): no passing assertion"});
    f.assertions.push_back(expect("README.md", false, 9));
    out.push_back({"rule 2 names the failed expectation too", f, Verdict::kPartial, 2,
                   "an assertion failed and still fails at the end: goal-level file_contains"});
  }
  {
    RunFacts f = good_modify();
    f.assertions.push_back(expect("README.md", false, 9));
    f.assertions.push_back(expect("docs/a.md", false, 10));
    f.assertions.back().message = "second failure";
    out.push_back({"rule 5 names every failed assertion, not the first only", f, Verdict::kPartial, 5,
                   "goal-level file_contains: second failure"});
    f.mutations.push_back(change("src/other.py", 7, {"s2"}));
    out.push_back({"rule 5 names an uncovered path too", f, Verdict::kPartial, 5, "src/other.py (modified)"});
    f.steps.push_back(step("s3", "file_patch", true, true, {}, 11));
    f.steps.back().target = "lib/x.c";
    out.push_back({"rule 5 names a suspicious step too", f, Verdict::kPartial, 5,
                   "s3 (file_patch lib/x.c) completed but changed nothing"});
  }
  {
    RunFacts f = good_modify();
    Mutation m = change("bin/run.sh", 7, {"s2"});
    m.change = "mode";
    m.mode_before = 0100644;
    m.mode_after = 0100755;
    f.mutations.push_back(m);
    out.push_back(
        {"a mode change is said as such, with both modes", f, std::nullopt, 7, "bin/run.sh (mode 0644 → 0755)"});
    Mutation gone = change("old.txt", 7, {"s2"});
    gone.change = "deleted";
    f.mutations.push_back(gone);
    out.push_back({"a deletion is said as such", f, std::nullopt, 7, "old.txt (deleted)"});
  }
  // Tests that pass for the wrong reason and tests of record (docs/design.md, Trust boundary; round four).
  {
    RunFacts f = good_modify();
    f.mutations = {change("src/x.py", 7, {"s2"})};
    f.assertions = {command(20)};
    RunFacts aware = f;
    aware.test_aware = {{.path = "src/x.py",
                         .line = 3,
                         .rule = "b",
                         .text = "if a == 20: return 42",
                         .why = "adds a literal `20` that the tests hold"}};
    out.push_back({"rule 7: a test-aware path is never covered, whatever passed", aware, std::nullopt, 7,
                   "test-aware change: src/x.py:3 (rule b): adds a literal `20`"});
    // The test gutted, the source unchanged: the command passes, and fails on record.
    RunFacts gutted = f;
    gutted.mutations = {change("tests/test_x.py", 7, {"s2"})};
    gutted.assertions[0].record_files = {"tests/test_x.py"};
    gutted.assertions[0].on_record = ProgramRun{false, false, 1, "FAILED (failures=1)", "exited 1"};
    gutted.assertions[0].on_record->tests = summary(1, 0, 1, 0);
    out.push_back({"rule 3b: a command that passes only through the change's test edits is fail", gutted,
                   Verdict::kFail, 3, "passes only through its own test edits: tests/test_x.py"});
    RunFacts guard = gutted;
    guard.assertions[0].guard = true;
    guard.assertions[0].before.reset();
    guard.assertions[0].discriminating.reset();
    out.push_back({"rule 3b: a guard that passes only through the change's test edits is fail too", guard,
                   Verdict::kFail, 3, "passes only through its own test edits: tests/test_x.py: the guard"});
    // On record it ran no test (the test it names is the change's own): no evidence, no tampering.
    RunFacts new_test = gutted;
    new_test.assertions[0].on_record->tests = summary(0, 0, 0, 0);
    out.push_back({"rule 7: a command that ran no test on record is no tampering, and no proof", new_test, std::nullopt,
                   7, "tests/test_x.py (modified) is a test file"});
    // The fix, and a test case added: both covered on record.
    RunFacts added = f;
    Mutation test_added = change("tests/test_x.py", 7, {"s2"});
    test_added.lines_added = 3;
    added.mutations = {change("src/x.py", 7, {"s2"}), test_added};
    added.assertions[0].record_files = {"tests/test_x.py"};
    added.assertions[0].on_record = ProgramRun{true, false, 0, "OK", "exited 0"};
    added.assertions[0].on_record->tests = summary(1, 1, 0, 0);
    added.assertions[0].tests = summary(2, 2, 0, 0);
    out.push_back({"rule 6: a fix and a test case added, both proven on record", added, Verdict::kSuccess, 6,
                   "every changed file (2)"});
    // The same with a line of the test edited: the source is proven, the test is not.
    RunFacts edited = added;
    edited.mutations[1].lines_removed = 1;
    out.push_back({"rule 7: a test whose lines the change edited is not covered on record", edited, std::nullopt, 7,
                   "the change edited 1 line of it"});
    // The run before that ran no test (a test named that did not exist yet) is no evidence.
    RunFacts missing = f;
    missing.assertions[0].before->tests = summary(0, 0, 0, 0);
    out.push_back({"rule 7: a run before that failed no test is not evidence", missing, std::nullopt, 7,
                   "failed before the change without failing a test"});
    // A framework summary the run before printed is gone after (a constructor that exits 0).
    RunFacts vanished = f;
    vanished.assertions[0].before->frameworks = {summary(1, 0, 1, 0, "unity")};
    out.push_back({"rule 7: a framework's summary the run before showed must come back", vanished, std::nullopt, 7,
                   "the unity summary its test programs printed before (ran 1 test, 1 failed) is missing after"});
    // run/exec: the pass on the workspace, a failure on a checkout of the same state.
    RunFacts workspace_only = f;
    workspace_only.assertions[0].after = ProgramRun{false, false, 1, "FAILED", "exited 1"};
    out.push_back({"rule 7: a pass that rests on files no snapshot holds is not evidence", workspace_only, std::nullopt,
                   7, "its pass rests on files no snapshot holds"});
  }
  {
    // Already satisfied needs the goal-level command to pass on the pre-run checkout as well.
    RunFacts f = discovery_only(RunStatus::kCompleted);
    f.assertions = {command(20, nullptr, false)};
    out.push_back({"rule 4: nothing changed, every goal-level command held before too: already satisfied", f,
                   Verdict::kSuccess, 4, "already satisfied"});
    RunFacts pyc = f;
    pyc.assertions[0].before = ProgramRun{false, false, 1, "FAILED (failures=1)", "exited 1"};
    out.push_back({"rule 4: passes on the workspace only (an ignored .pyc): partial, not already satisfied", pyc,
                   Verdict::kPartial, 4, "it rests on state no snapshot holds"});
  }
  {
    // inspect: a user's output_contains on a read step backs the answer.
    RunFacts f;
    f.goal_kind = GoalKind::kInspect;
    f.status = RunStatus::kCompleted;
    f.steps_planned = 1;
    f.steps = {step("s1", "file_read", false, true, {}, 3)};
    f.final_answer = "The title is Candor's bakery.";
    AssertionRecord read;
    read.step = "s1";
    read.type = "output_contains";
    read.assertion = {{"type", "output_contains"}, {"text", "<title>"}};
    read.reads_step = true;
    read.passed = true;
    read.seq = 4;
    read.by = Provenance::kUser;
    f.assertions = {read};
    out.push_back({"rule 6: inspect, a user's check of what a read step read backs the answer", f, Verdict::kSuccess, 6,
                   "the question was answered"});
    RunFacts planner = f;
    planner.assertions[0].by = Provenance::kPlanner;
    out.push_back({"rule 7: inspect, the planner's own check of a read step backs nothing", planner, std::nullopt, 7,
                   "no assertion of the goal written by the user passed"});
  }
  {
    RunFacts f = discovery_only(RunStatus::kCompleted);
    f.protected_changes = {".git/config was modified"};
    out.push_back(
        {"rule 4 names a protected change too", f, Verdict::kFail, 4, "protected path: .git/config was modified"});
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

  TEST_CASE("every finding is a reason, ordered by severity, each once, none said twice") {
    RunFacts f = good_modify();
    f.status = RunStatus::kBudgetExhausted;
    f.budget.exhausted = BudgetKind::kTimeout;
    f.budget.limits.timeout_s = 60;
    f.mutations.push_back(change("src/other.py", 7, {"s2"}));         // unproven
    f.steps.push_back(step("s3", "file_patch", true, true, {}, 11));  // suspicious
    f.assertions.push_back(expect("README.md", false, 9));            // failed
    f.protected_changes = {".candor/config.json was modified"};       // blocked
    auto r = verify::evaluate_tier1(f);
    REQUIRE(r.findings.size() == 5);
    REQUIRE(r.reasons.size() == 5);
    const std::vector<verify::Severity> order{verify::Severity::kRunEnded, verify::Severity::kBlocked,
                                              verify::Severity::kFailed, verify::Severity::kSuspicious,
                                              verify::Severity::kUnproven};
    for (std::size_t i = 0; i < order.size(); ++i) {
      CAPTURE(i);
      CHECK(r.findings[i].severity == order[i]);
      CHECK(r.reasons[i] == r.findings[i].text);
    }
    CHECK(r.findings[4].path == "src/other.py");
    CHECK(verify::to_json(r.findings[1])["severity"] == "blocked");
    // A run that ended before any effect tool ran does not also say "no effect tool ran".
    RunFacts idle = discovery_only(RunStatus::kBudgetExhausted);
    idle.budget.exhausted = BudgetKind::kReplans;
    for (const auto& reason : verify::evaluate_tier1(idle).reasons) CHECK(reason != "no effect tool ran");
    // A success has no findings.
    CHECK(verify::evaluate_tier1(good_modify()).findings.empty());
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
