// `candor run`: the planner loop. Plans, executes each round, replans with recovery instructions
// or observations, and stops on the first budget to run out, on stagnation, on Ctrl-C, or when a
// plan finishes with everything passing. Decides nothing about success: that is verify/'s job.
#pragma once

#include <atomic>
#include <chrono>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "executor/executor.h"
#include "planner/planner.h"

namespace candor::executor {

struct LoopOptions {
  std::string goal;
  std::vector<nlohmann::json> expects;  // goal-level assertions, checked when a plan finishes
  std::vector<nlohmann::json> guards;   // what must still hold, checked with them (never evidence of the goal)
  std::size_t overview_entries = 200;   // the workspace tree in the first prompt
};

// How the loop stopped. The run is not finished yet: a reviewer may still send the worker back.
struct Stop {
  RunStatus status = RunStatus::kCompleted;
  BudgetKind exhausted = BudgetKind::kNone;
  std::string detail;
  bool provider_failed = false;  // the LLM could not be reached: exit 69
  bool input_refused = false;    // the planner's reply was over the JSON limits: exit 65
};

// Not thread-safe; everything borrowed must outlive it.
class RunLoop {
 public:
  // REQUIRES: ex.begin() succeeded; `planner` is fresh.
  RunLoop(Executor& ex, planner::Planner& planner, const sandbox::Workspace& workspace, Trajectory& trajectory,
          LoopOptions options);

  // The first plan, then rounds until a plan finishes with everything passing, a budget runs
  // out, the run stagnates, the planner fails, or Ctrl-C.
  Stop start();
  // After a failed review: another round whose prompt carries only the reviewer's reason.
  Stop resume_after_review(const std::string& reason);

 private:
  Stop rounds(Result<planner::Plan> plan);
  Stop planner_failed(const Error& e);
  // The planner's next plan, shown to people as a wait.
  Result<planner::Plan> replan(int round, const std::string& failure, const nlohmann::json& observations,
                               const std::string& notes);

  Executor& ex_;
  planner::Planner& planner_;
  const sandbox::Workspace& workspace_;
  Trajectory& trajectory_;
  LoopOptions options_;
  int round_ = 0;
  std::set<std::string> seen_calls_;  // "tool input" of every call so far, for stagnation
  int stagnant_streak_ = 0;
};

// A capped tree of the workspace for the first prompt: "path/" for directories, "path (N bytes)".
std::string workspace_overview(const sandbox::Workspace& workspace, std::size_t max_entries);

// The planner hooks that record llm_call and context_trimmed events and count tokens.
planner::PlannerHooks recording_hooks(Executor& ex, Trajectory& trajectory);

}  // namespace candor::executor
