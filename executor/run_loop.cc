#include "executor/run_loop.h"

#include <set>

#include <fmt/format.h>

namespace candor::executor {
namespace {

// A round is stagnant when it changed nothing and every call in it repeats one made earlier with
// identical input: it could have learned nothing new.
class StagnationTracker {
 public:
  // Returns the number of stagnant rounds in a row, this one included.
  int observe(const std::vector<StepRecord>& steps, std::size_t first, const std::vector<nlohmann::json>& inputs) {
    bool changed = false, all_repeated = true;
    std::vector<std::string> keys;
    for (std::size_t i = first; i < steps.size(); ++i) {
      changed |= !steps[i].changed_paths.empty();
      std::string key = steps[i].tool + " " + inputs[i - first].dump();
      all_repeated &= seen_.count(key) != 0;
      keys.push_back(std::move(key));
    }
    seen_.insert(keys.begin(), keys.end());
    streak_ = (!changed && all_repeated) ? streak_ + 1 : 0;
    return streak_;
  }

 private:
  std::set<std::string> seen_;
  int streak_ = 0;
};

std::chrono::milliseconds time_left(const Executor& ex, const BudgetLimits& limits) {
  double left = limits.timeout_s - ex.elapsed_s();
  return std::chrono::milliseconds(static_cast<long long>(std::max(0.0, left) * 1000));
}

}  // namespace

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
    RunFacts& f = ex.facts();
    f.usage.llm_calls++;
    f.usage.input_tokens += c.reply.input_tokens;
    f.usage.output_tokens += c.reply.output_tokens;
    f.budget.used.tokens += c.reply.input_tokens + c.reply.output_tokens;
    nlohmann::json data = {{"role", c.role},
                           {"input_tokens", c.reply.input_tokens},
                           {"output_tokens", c.reply.output_tokens},
                           {"usage_estimated", c.reply.usage_estimated},
                           {"ok", c.ok}};
    if (!c.ok) data["error"] = c.error;
    trajectory.record("llm_call", data);
  };
  hooks.on_cut = [&trajectory](const planner::ContextCut& cut) {
    trajectory.record("context_trimmed", {{"round", cut.round}, {"bytes", cut.bytes}});
  };
  return hooks;
}

LoopResult run_loop(Executor& ex, planner::Planner& planner, const sandbox::Workspace& workspace, Trajectory& trajectory,
                    const LoopOptions& options) {
  const BudgetLimits limits = ex.facts().budget.limits;
  LoopResult result;
  auto end = [&](RunStatus status, BudgetKind exhausted, const std::string& detail) {
    result.facts = ex.finish(status, exhausted, detail);
    return result;
  };
  auto planner_failed = [&](const Error& e) {
    if (ex.cancelled()) return end(RunStatus::kCancelled, BudgetKind::kNone, "cancelled while waiting for the planner");
    if (e.code == ErrorCode::kTimeout || time_left(ex, limits).count() == 0) {
      return end(RunStatus::kBudgetExhausted, BudgetKind::kTimeout, "the time budget ran out while waiting for the planner");
    }
    result.provider_failed = e.code == ErrorCode::kUnavailable;
    return end(RunStatus::kError, BudgetKind::kNone, e.message);
  };
  auto tokens_spent = [&] { return ex.facts().budget.used.tokens >= limits.max_tokens; };

  auto plan = planner.first_plan(options.goal, workspace_overview(workspace, options.overview_entries), time_left(ex, limits));
  if (!plan.ok()) return planner_failed(plan.error());
  ex.set_goal_kind(plan->goal_kind.value_or(GoalKind::kModify));
  StagnationTracker stagnation;

  for (int round = 1;; ++round) {
    trajectory.record("plan", {{"round", round}, {"plan", plan->source}});
    if (tokens_spent()) {
      return end(RunStatus::kBudgetExhausted, BudgetKind::kTokens,
                 fmt::format("the token budget ran out ({} of {}) before round {} ran", ex.facts().budget.used.tokens,
                             limits.max_tokens, round));
    }
    std::size_t first_step = ex.facts().steps.size();
    RoundOutcome outcome = ex.run_round(*plan, round);
    if (outcome.cancelled || ex.cancelled()) return end(RunStatus::kCancelled, BudgetKind::kNone, "cancelled (Ctrl-C) in round " + std::to_string(round));
    if (outcome.budget_hit != BudgetKind::kNone) return end(RunStatus::kBudgetExhausted, outcome.budget_hit, outcome.failure);

    std::vector<nlohmann::json> inputs;
    for (std::size_t i = 0; i + first_step < ex.facts().steps.size(); ++i) inputs.push_back(plan->steps[i].args);
    int stagnant = stagnation.observe(ex.facts().steps, first_step, inputs);
    std::string notes;
    if (stagnant >= 3) {
      return end(RunStatus::kBudgetExhausted, BudgetKind::kStagnation,
                 fmt::format("three rounds in a row (the last {}) changed nothing and repeated earlier calls", round));
    }
    if (stagnant == 2) {
      trajectory.record("stagnation", {{"round", round}, {"rounds_in_a_row", 2}});
      ex.note("two rounds in a row changed nothing and repeated earlier calls; a third ends the run");
      notes = "NOTE: the last two rounds changed nothing and only repeated earlier calls with identical input. "
              "A third such round ends the run. Make progress: change something, or finish.";
    }

    std::string failure = outcome.failure;
    if (outcome.all_passed && plan->then == planner::Then::kFinish) {
      std::string goal_failure = ex.run_goal_assertions(options.expects);
      if (goal_failure.empty()) {
        if (plan->final_answer) ex.set_final_answer(*plan->final_answer);
        return end(RunStatus::kCompleted, BudgetKind::kNone, "");
      }
      failure = goal_failure;  // a failed goal-level assertion gets a recovery replan like a step's
    }

    std::string reason = failure.empty() ? "the plan asked to replan" : failure;
    if (ex.facts().budget.used.replans >= limits.max_replans) {
      if (!failure.empty() && outcome.all_passed && plan->final_answer) ex.set_final_answer(*plan->final_answer);
      return end(RunStatus::kBudgetExhausted, BudgetKind::kReplans,
                 fmt::format("a replan was needed ({}) but all {} were used", reason, limits.max_replans));
    }
    if (tokens_spent()) {
      return end(RunStatus::kBudgetExhausted, BudgetKind::kTokens,
                 fmt::format("the token budget ran out ({} of {})", ex.facts().budget.used.tokens, limits.max_tokens));
    }
    ex.facts().budget.used.replans++;
    trajectory.record("replan", {{"round", round + 1}, {"reason", reason}});
    ex.note("replan: " + reason);
    plan = planner.replan(round, failure, outcome.observations, notes, time_left(ex, limits));
    if (!plan.ok()) return planner_failed(plan.error());
  }
}

}  // namespace candor::executor
