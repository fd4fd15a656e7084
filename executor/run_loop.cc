#include "executor/run_loop.h"

#include "core/events.h"

#include <fmt/format.h>

namespace candor::executor {

std::string workspace_overview(const sandbox::Workspace& workspace, std::size_t max_entries) {
  std::string out;
  std::size_t n = 0;
  bool more = false;
  (void)workspace.walk(".", 3, [&](const sandbox::WalkEntry& e) {
    if (n == max_entries) {
      more = true;
      return false;
    }
    ++n;
    out += e.kind == sandbox::EntryKind::kDirectory ? e.path + "/\n"
           : e.kind == sandbox::EntryKind::kFile    ? fmt::format("{} ({} bytes)\n", e.path, e.size)
                                                    : e.path + "\n";
    return true;
  });
  if (n == 0) out = "(empty)\n";
  if (more) out += fmt::format("[tree cut after {} entries; use file_list to see more]\n", max_entries);
  return out;
}

planner::PlannerHooks recording_hooks(Executor& ex, Trajectory& trajectory) {
  planner::PlannerHooks hooks;
  hooks.on_call = [&ex, &trajectory](const planner::CallRecord& c) {
    record_llm_call(trajectory, ex.facts(),
                    {.role = c.role,
                     .ok = c.ok,
                     .input_tokens = c.reply.input_tokens,
                     .output_tokens = c.reply.output_tokens,
                     .usage_estimated = c.reply.usage_estimated,
                     .error = c.ok ? "" : c.error});
  };
  hooks.on_cut = [&trajectory](const planner::ContextCut& cut) {
    trajectory.record(event::kContextTrimmed, {{"round", cut.round}, {"bytes", cut.bytes}});
  };
  return hooks;
}

RunLoop::RunLoop(Executor& ex, planner::Planner& planner, const sandbox::Workspace& workspace, Trajectory& trajectory,
                 LoopOptions options)
    : ex_(ex), planner_(planner), workspace_(workspace), trajectory_(trajectory), options_(std::move(options)) {}

Stop RunLoop::planner_failed(const Error& e) {
  if (ex_.cancelled())
    return {RunStatus::kCancelled, BudgetKind::kNone, "cancelled while waiting for the planner", false};
  if (e.code == ErrorCode::kTimeout || ex_.deadline().passed()) {
    return {RunStatus::kBudgetExhausted, BudgetKind::kTimeout, "the time budget ran out while waiting for the planner",
            false};
  }
  return {RunStatus::kError, BudgetKind::kNone, e.message, e.code == ErrorCode::kUnavailable, planner_.refused_reply()};
}

Stop RunLoop::start() {
  std::string overview = workspace_overview(workspace_, options_.overview_entries);
  Result<planner::Plan> plan = [&] {
    ProgressWait waiting(ex_.progress(), WaitKind::kPlanner);
    return planner_.first_plan(options_.goal, overview, ex_.deadline());
  }();
  if (plan.ok()) ex_.set_goal_kind(planner_.goal_kind().value_or(GoalKind::kModify), planner_.goal_kind_fixed_by());
  return rounds(std::move(plan));
}

Stop RunLoop::resume_after_review(const std::string& reason) {
  trajectory_.record(event::kReplan, {{"round", round_ + 1}, {"reason", "independent review failed"}});
  ex_.note("the independent reviewer sent the work back");
  std::string failure = "An independent reviewer checked the work and found the goal not met: " + reason;
  return rounds(replan(round_, failure, nlohmann::json::array(), ""));
}

Result<planner::Plan> RunLoop::replan(int round, const std::string& failure, const nlohmann::json& observations,
                                      const std::string& notes) {
  ProgressWait waiting(ex_.progress(), WaitKind::kPlanner);
  return planner_.replan(round, failure, observations, notes, ex_.deadline());
}

Stop RunLoop::rounds(Result<planner::Plan> plan) {
  const BudgetLimits limits = ex_.facts().budget.limits;
  auto tokens_spent = [&] { return ex_.facts().budget.used.tokens >= limits.max_tokens; };
  for (;;) {
    if (!plan.ok()) return planner_failed(plan.error());
    int round = ++round_;
    trajectory_.record(event::kPlan, {{"round", round}, {"plan", plan->source}});
    if (round == 1) ex_.facts().planner_questions = plan->questions;
    if (tokens_spent()) {
      return {RunStatus::kBudgetExhausted, BudgetKind::kTokens,
              fmt::format("the token budget ran out ({} of {}) before round {} ran", ex_.facts().budget.used.tokens,
                          limits.max_tokens, round)};
    }
    std::size_t first_step = ex_.facts().steps.size();
    RoundOutcome outcome = ex_.run_round(*plan, round);
    if (outcome.cancelled || ex_.cancelled()) {
      return {RunStatus::kCancelled, BudgetKind::kNone, "cancelled (Ctrl-C) in round " + std::to_string(round)};
    }
    if (outcome.budget_hit != BudgetKind::kNone)
      return {RunStatus::kBudgetExhausted, outcome.budget_hit, outcome.failure};

    // Finish first: a round that ends `finish` with everything passing ends the loop even if it is
    // also stagnant (re-reading what it read and changing nothing is what verifying looks like).
    std::string failure = outcome.failure;
    if (outcome.all_passed && plan->then == planner::Then::kFinish) {
      std::string goal_failure = ex_.run_goal_assertions(options_.expects, options_.guards);
      if (goal_failure.empty()) {
        if (plan->final_answer) ex_.set_final_answer(*plan->final_answer);
        return {RunStatus::kCompleted, BudgetKind::kNone, ""};
      }
      failure = goal_failure;  // a failed goal-level assertion gets a recovery replan like a step's
    }

    // Stagnation: nothing changed, and every call repeats one made earlier with identical input.
    bool changed = false, all_repeated = true;
    const auto& steps = ex_.facts().steps;
    for (std::size_t i = first_step; i < steps.size(); ++i) {
      changed |= !steps[i].changed_paths.empty();
      std::string key = steps[i].tool + " " + plan->steps[i - first_step].args.dump();
      all_repeated &= seen_calls_.count(key) != 0;
      seen_calls_.insert(key);
    }
    stagnant_streak_ = (!changed && all_repeated) ? stagnant_streak_ + 1 : 0;
    std::string notes;
    if (stagnant_streak_ >= 3) {
      return {RunStatus::kBudgetExhausted, BudgetKind::kStagnation,
              fmt::format("three rounds in a row (the last {}) changed nothing and repeated earlier calls", round)};
    }
    if (stagnant_streak_ == 2) {
      trajectory_.record(event::kStagnation, {{"round", round}, {"rounds_in_a_row", 2}});
      ex_.note("two rounds in a row changed nothing and repeated earlier calls; a third ends the run");
      notes =
          "NOTE: the last two rounds changed nothing and only repeated earlier calls with identical input. "
          "A third such round ends the run. Make progress: change something, or finish.";
    }

    std::string reason = failure.empty() ? "the plan asked to replan" : failure;
    if (ex_.facts().budget.used.replans >= limits.max_replans) {
      if (!failure.empty() && outcome.all_passed && plan->final_answer) ex_.set_final_answer(*plan->final_answer);
      return {RunStatus::kBudgetExhausted, BudgetKind::kReplans,
              fmt::format("a replan was needed ({}) but all {} were used", reason, limits.max_replans)};
    }
    if (tokens_spent()) {
      return {RunStatus::kBudgetExhausted, BudgetKind::kTokens,
              fmt::format("the token budget ran out ({} of {})", ex_.facts().budget.used.tokens, limits.max_tokens)};
    }
    ex_.facts().budget.used.replans++;
    trajectory_.record(event::kReplan, {{"round", round + 1}, {"reason", reason}});
    ex_.note("replan: " + reason);
    plan = replan(round, failure, outcome.observations, notes);
  }
}

}  // namespace candor::executor
