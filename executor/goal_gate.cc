#include "executor/goal_gate.h"

#include <fmt/format.h>

namespace candor::executor {

GoalResult run_goal(RunLoop& loop, Executor& ex, Reviewer* reviewer, int max_attempts, const std::string& goal) {
  GoalResult result;
  Stop stop = loop.start();
  if (reviewer != nullptr) {
    for (int attempt = 1; attempt <= max_attempts; ++attempt) {
      bool reviewable = stop.status == RunStatus::kCompleted || stop.status == RunStatus::kBudgetExhausted;
      if (!reviewable || ex.cancelled()) break;
      Review review = [&] {
        ProgressWait waiting(ex.progress(), WaitKind::kReviewer);
        return reviewer->review(attempt, goal, ex.facts().final_answer, ex.deadline());
      }();
      RunFacts& f = ex.facts();
      f.goal_validations.push_back(review.validation);
      for (const LlmCall& call : review.llm_calls) count_llm_call(f, call);
      // A pass ends the reviews; so does no verdict (turn limit, invalid replies, provider down):
      // the reviewer rejected nothing, so the worker is not sent back, and the verdict will say
      // "unverified by the reviewer".
      if (review.provider_failed) result.provider_failed = true;  // exit 69, with the verdict recorded
      if (review.validation.verdict != ReviewVerdict::kFail) break;
      if (attempt == max_attempts) {
        stop = {RunStatus::kGoalAttemptsExhausted, BudgetKind::kNone,
                fmt::format("{} independent review{} failed; the last: {}", attempt, attempt == 1 ? "" : "s",
                            review.validation.reason)};
        break;
      }
      if (stop.status != RunStatus::kCompleted) break;  // no budget left for another round
      stop = loop.resume_after_review(review.validation.reason);
    }
  }
  result.provider_failed = result.provider_failed || stop.provider_failed;
  result.input_refused = stop.input_refused;
  result.facts = ex.finish(stop.status, stop.exhausted, stop.detail);
  return result;
}

}  // namespace candor::executor
