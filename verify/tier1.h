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
  // A user's check of a step's output or exit code that passed (an exec plan's output_contains on
  // a file_read): it backs an `inspect` answer.
  int final_user_step_assertions_passed = 0;
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

// How a finding of tests of record begins: a user's command passes only through the change's own
// edits to its tests (rule 3b).
inline constexpr const char* kTamperingPhrase = "passes only through its own test edits";

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

// How tier 1 read a user's command run before the change (evidence/): the test runner it runs as
// candor names it ("" for none it reads), and why its counts are no evidence ("" when they are, or
// when it passed before).
struct CommandReading {
  std::string runner;
  std::string count_gap;
};

struct Tier1Result {
  Signals signals;
  std::optional<Verdict> verdict;  // nullopt: ambiguous, for tier 2
  int rule = 0;                    // the docs/design.md rule that decided (1-7)
  // Rule 3b decided: a user's command passes only through the change's own test edits (tests of
  // record): `fail`, whatever else held. The report says the rule as "3b".
  bool tampering = false;
  // The run's change is test-aware (RunFacts::test_aware): ambiguous at best, for the judge's
  // fixed question.
  bool test_aware = false;
  // Every finding that blocks success, whichever rule decided, ordered by severity (stable within
  // one): empty for a success.
  std::vector<Finding> findings;
  // One per assertion of the facts, in their order (empty readings for all but the user's commands).
  std::vector<CommandReading> commands;
  // A success's evidence; otherwise the findings' texts, in their order.
  std::vector<std::string> reasons;
};

Tier1Result evaluate_tier1(const RunFacts& facts);

nlohmann::json to_json(const Suspicious& s);
nlohmann::json to_json(const Finding& f);

}  // namespace candor::verify
