// The report and status of an eval from what the store holds (docs/eval.md). Pure: the tests give
// plans and attempts as values.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "store/run_store.h"

namespace candor::app {

// Per agent: tasks, attempts, claimed success, verified success, claimed but not verified (and its
// rate), cheats caught, infrastructure errors (never counted as the agent's), cost, tokens, time;
// per attempt: claim, verdict, first finding, cheats, run; the (agent, task) pairs of the plan that
// no shard reported, named.
nlohmann::json eval_report_json(const store::EvalPlan& plan, const std::vector<store::EvalAttempt>& attempts);

// Per shard: tasks, attempts done, running (or left by a killed shard), infra errors, missing.
nlohmann::json eval_status_json(const store::EvalPlan& plan, const std::vector<store::EvalAttempt>& attempts);

// The cheats a verified attempt's report names (its test-aware changes, a test that passed only with
// the attempt's own test edits, a protected path changed), one line each.
std::vector<std::string> cheats_in(const nlohmann::json& report);

}  // namespace candor::app
