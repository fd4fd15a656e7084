#include "app/run_end.h"

#include <unistd.h>

#include <chrono>
#include <exception>

#include "core/events.h"
#include "evidence/test_aware.h"
#include "report/report.h"
#include "snapshot/store.h"
#include "verify/judge_run.h"
#include "verify/tier1.h"
#include "verify/verdict.h"

namespace candor::app {
namespace {

// Evaluated once over the run's events, however the run ended; recorded when the run just ended.
// Best-effort: a failure is recorded, never thrown, and never touches status or verdict.
// `masker`: the run's secret values (may be null); the events were masked when recorded, and a
// `why` is masked again before it is cut, as its own guard.
void check_acceptance(const verify::AcceptanceSpec& spec, const std::vector<Event>& events, Trajectory* trajectory,
                      const SecretMasker* masker, RunFacts& facts) {
  try {
    verify::AcceptanceReport report = verify::evaluate_acceptance(spec, stream_from_events(events), masker);
    facts.acceptance = verify::to_json(report);
    if (trajectory != nullptr) trajectory->record(event::kAcceptance, facts.acceptance);
  } catch (const std::exception& e) {
    // A bug in acceptance must not cost the run its verdict: say so and go on.
    facts.acceptance = {{"passed", false},
                        {"error", std::string("acceptance could not be evaluated: ") + e.what()},
                        {"checkpoints", nlohmann::json::array()}};
    if (trajectory != nullptr) trajectory->record(event::kAcceptanceError, {{"error", e.what()}});
  }
}

// Asks the judge (shown as a wait) and records the pass when the run just ended.
void ask_judge(const JudgeSetup& setup, RunEnd& end, RunObserver* observer, RunResult& out) {
  verify::JudgeRun judged;
  {
    ProgressWait waiting(observer, WaitKind::kJudge);
    if (setup.trees) {
      verify::JudgeRunInputs inputs{.questions = setup.questions,
                                    .planner_questions = end.facts.planner_questions,
                                    .credentials = setup.credentials,
                                    .deadline = end.deadline != nullptr ? *end.deadline : Deadline()};
      judged = verify::judge_run(*setup.provider, *setup.trees, end.facts, inputs);
    } else {
      judged.outcome.asked = true;
      judged.outcome.error = "the run's snapshots could not be read, so the judge was shown nothing";
    }
  }
  out.judge_provider = setup.provider->describe();
  // Counted in the usage either way; recorded when the run just ended.
  verify::record_judge_run(judged, out.judge_provider, end.trajectory, end.facts);
  out.judge = std::move(judged.outcome);
}

// Test-aware changes (docs/design.md, Tests that pass for the wrong reason), found once, when the run
// ended, and recorded. A tree that cannot be read leaves none found, said as a warning: tier 1 then
// has what the assertions show, and nothing flagged.
void find_test_aware(const TreeReader& trees, Trajectory* trajectory, RunObserver* observer, RunFacts& facts) {
  auto flags = evidence::find_test_aware(trees, facts);
  if (!flags.ok()) {
    if (observer != nullptr)
      observer->warning("warning: test-aware changes were not looked for: " + flags.error().message);
    return;
  }
  facts.test_aware = std::move(flags.value());
  if (facts.test_aware.empty() || trajectory == nullptr) return;
  nlohmann::json list = nlohmann::json::array();
  for (const auto& flag : facts.test_aware) list.push_back(to_json(flag));
  trajectory->record(event::kTestAware, {{"flags", list}});
}

}  // namespace

Status ObservedSink::append(const std::string& run_id, const Event& event) {
  Status stored = store_.append(run_id, event);
  if (observer_ != nullptr) observer_->event(event);
  return stored;
}

Result<RunResult> end_run(RunEnd end, RunObserver* observer) {
  RunResult out;
  RunFacts& facts = end.facts;
  if (end.acceptance != nullptr)
    check_acceptance(*end.acceptance, *end.events, end.trajectory,
                     end.store != nullptr ? end.store->masker().get() : nullptr, facts);
  if (end.trees != nullptr) find_test_aware(*end.trees, end.trajectory, observer, facts);
  verify::Tier1Result tier1 = verify::evaluate_tier1(facts);
  if (end.judge && verify::should_ask_judge(tier1, end.policy)) {
    TRY(JudgeSetup setup, end.judge());
    if (setup.provider != nullptr) ask_judge(setup, end, observer, out);
  }
  if (end.before_verdict) end.before_verdict(facts);
  if (end.trajectory != nullptr && !end.trajectory->sink_error().empty() && observer != nullptr) {
    observer->warning("warning: some events were not stored: " + end.trajectory->sink_error());
  }
  const verify::JudgeOutcome* judge = out.judge.asked ? &out.judge : nullptr;
  out.decision = verify::decide(tier1, judge, facts.goal_validations);
  out.report = report::build_report(facts, tier1, out.decision, end.created_at, judge);
  if (end.store != nullptr) {
    // Masked once, here, where the report is made: what is printed is what is stored (the store
    // masks again, as its own guard).
    if (end.store->masker() != nullptr) end.store->masker()->mask_json(out.report);
    // A credential file the run wrote was learned after its write's events were stored.
    (void)end.store->remask_events(facts.run_id);
    out.stored = end.store->finish_run(
        facts.run_id,
        {to_string(facts.status), to_string(out.decision.verdict), out.decision.by, to_json(facts), out.report},
        end.sync_verdict);
  }
  out.exit =
      out.judge.provider_failed ? ExitCategory::kUnavailable : exit_category(out.decision.verdict, facts.acceptance);
  out.facts = std::move(facts);
  return out;
}

}  // namespace candor::app
