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
  // The final assertions: the last evaluation of each assertion, wherever it was last evaluated
  // (earlier failures fixed later are what replans exist for); those about a step are its step's.
  int final_assertions_passed = 0;
  int final_assertions_failed = 0;
  int final_user_assertions_passed = 0;
  bool goal_level_user_assertions = false;  // --expect / config expect exist (guards are not counted)
  bool goal_level_all_passed = false;       // ... and the last evaluation of each passed
  // Mutated paths no positive, discriminating passing assertion of the user's checked after their
  // last change (or whose net removal is for the judge), and why, a sentence each.
  std::vector<std::string> uncovered;
  std::vector<std::string> coverage_gaps;
  // Steps that could change the workspace, failed, and were never re-run successfully: a sentence each.
  std::vector<std::string> failed_steps;
  bool scan_complete = true;
};

// How much a finding counts against success, most severe first: how the run ended; what blocks
// success outright (protected, sensitive, out-of-scope and permission changes, a change when the
// goal only asks, an incomplete scan); what failed (an assertion or guard, a step, "nothing
// changed"); a step that claimed an effect and made none; what nothing proves (uncovered paths).
enum class Severity { kRunEnded, kBlocked, kFailed, kSuspicious, kUnproven };

// "run ended", "blocked", "failed", "suspicious", "unproven".
const char* to_string(Severity s);

struct Finding {
  Severity severity = Severity::kUnproven;
  std::string path;  // the path it names, "" for a finding about the run or a check
  std::string text;
};

struct Tier1Result {
  Signals signals;
  std::optional<Verdict> verdict;  // nullopt: ambiguous, for tier 2
  int rule = 0;                    // the DESIGN.md rule that decided (1-7)
  // Every finding that blocks success, whichever rule decided, ordered by severity (stable within
  // one): empty for a success.
  std::vector<Finding> findings;
  // A success's evidence; otherwise the findings' texts, in their order.
  std::vector<std::string> reasons;
};

Tier1Result evaluate_tier1(const RunFacts& facts);

nlohmann::json to_json(const Suspicious& s);
nlohmann::json to_json(const Finding& f);

}  // namespace candor::verify
