// The worker's loop, then the independent review, with bounded retries of the worker.
#pragma once

#include "executor/reviewer.h"
#include "executor/run_loop.h"

namespace candor::executor {

struct GoalResult {
  RunFacts facts;
  bool provider_failed = false;
  bool input_refused = false;  // the planner's reply was over the JSON limits: exit 65, with the run recorded
};

// Runs the loop; when `reviewer` is given and the loop completed, reviews; on a failed review
// the worker gets another round (only the reason) until a review passes or `max_attempts`
// reviews have failed (status goal_attempts_exhausted). A review with no verdict ends the reviews
// without sending the worker back. Finishes the run. A run that ended any other way is still
// reviewed once (recorded, informative) but not retried.
GoalResult run_goal(RunLoop& loop, Executor& ex, Reviewer* reviewer, int max_attempts, const std::string& goal);

}  // namespace candor::executor
