// Tier 1: the verdict from deterministic signals. A pure function of the run's facts (plan,
// trajectory, workspace diff, budget): no I/O, no clock, no LLM.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/run_record.h"

namespace candor::verify {

struct Suspicious {
  std::string step;  // "" for workspace-level findings
  std::string path;
  std::string reason;
};

struct Signals {
  bool all_steps_executed = false;
  bool budget_exhausted = false;
  BudgetKind exhausted = BudgetKind::kNone;
  bool goal_actions_executed = false;
  std::vector<Suspicious> suspicious;
  int assertions_evaluated = 0;
  // The final assertions: the last round's step assertions and the last evaluation of each
  // goal-level assertion (earlier failures are what replans exist for).
  int final_assertions_passed = 0;
  int final_assertions_failed = 0;
  int final_user_assertions_passed = 0;
  bool goal_level_user_assertions = false;  // --expect / config expect exist
  bool goal_level_all_passed = false;       // ... and the last evaluation of each passed
  // Mutated paths no discriminating passing assertion checked after their last change.
  std::vector<std::string> uncovered;
  bool scan_complete = true;
};

struct Tier1Result {
  Signals signals;
  std::optional<Verdict> verdict;  // nullopt: ambiguous, for tier 2
  int rule = 0;                    // the DESIGN.md rule that decided (1-7)
  std::vector<std::string> reasons;
};

Tier1Result evaluate_tier1(const RunFacts& facts);

nlohmann::json to_json(const Suspicious& s);

}  // namespace candor::verify
