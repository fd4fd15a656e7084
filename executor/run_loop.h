// `candor run`: the planner loop. Plans, executes each round, replans with recovery instructions
// or observations, and stops on the first budget to run out, on stagnation, on Ctrl-C, or when a
// plan finishes with everything passing. Decides nothing about success: that is verify/'s job.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "executor/executor.h"
#include "planner/planner.h"

namespace candor::executor {

struct LoopOptions {
  std::string goal;
  std::vector<nlohmann::json> expects;  // goal-level assertions, checked when a plan finishes
  std::size_t overview_entries = 200;   // the workspace tree in the first prompt
};

struct LoopResult {
  RunFacts facts;
  bool provider_failed = false;  // the LLM could not be reached: exit 69
};

// REQUIRES: ex.begin() succeeded. `planner` is fresh. All borrowed for the call.
LoopResult run_loop(Executor& ex, planner::Planner& planner, const sandbox::Workspace& workspace, Trajectory& trajectory,
                    const LoopOptions& options);

// A capped tree of the workspace for the first prompt: "path/" for directories, "path (N bytes)".
std::string workspace_overview(const sandbox::Workspace& workspace, std::size_t max_entries);

// The planner hooks that record llm_call and context_trimmed events and count tokens.
planner::PlannerHooks recording_hooks(Executor& ex, Trajectory& trajectory);

}  // namespace candor::executor
