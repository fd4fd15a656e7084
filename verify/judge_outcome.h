// What tier 2's judge answered, and what those answers mean: the value type tier 1's reasons, the
// verdict and the report read. No LLM header here: asking is verify/judge.h's.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "core/run_record.h"

namespace candor::verify {

enum class JudgePolicy { kAuto, kAlways, kNever };
// The policies by name, in the order the CLI lists them.
inline constexpr std::array<const char*, 3> kJudgePolicyNames = {"auto", "always", "never"};
std::optional<JudgePolicy> parse_judge_policy(const std::string& s);
const char* judge_policy_name(JudgePolicy policy);
// `s` as a policy, "" as `empty`; anything else is a usage error naming `where` (a request field or
// an option) and the three names: checked before any work starts, so a caller's "Always" never
// reaches the end of a run.
Result<JudgePolicy> checked_judge_policy(const std::string& s, std::string_view where,
                                         JudgePolicy empty = JudgePolicy::kAuto);

struct JudgeAnswer {
  int question = 0;  // 1-based
  bool yes = false;
  std::string reason;
  // A batch's answer "not_shown": this share of the change says nothing about the question. Only a
  // batch may answer so; the combined answer is yes or no (combine_batches).
  bool not_shown = false;
};

// One LLM call the judge made, for the trajectory's llm_call events.
struct JudgeCall {
  std::string role;  // judge | judge_repair
  bool ok = false;
  std::int64_t input_tokens = 0, output_tokens = 0;
  std::string error;
  // The reply came and was not valid: why ("expected 3 answers, got 2"), as the repair call told the
  // judge. Kept even when the repair then fails, so the report says why the first reply was refused.
  std::string rejected;
};

struct JudgeOutcome {
  bool asked = false;
  bool answered = false;  // false: the judge failed (provider error or malformed twice)
  std::vector<std::string> questions;
  std::vector<JudgeAnswer> answers;
  std::string error;
  // The provider could not be reached (not a malformed reply): the process exits 69, as for the
  // planner and the reviewer, with the verdict recorded.
  bool provider_failed = false;
  std::int64_t input_tokens = 0, output_tokens = 0;
  int calls = 0;
  std::vector<JudgeCall> call_log;
  // The change was shown in this many prompts (1: all of it at once).
  int batches = 1;
  // Mutated paths whose whole diff the judge never saw: a batch not asked (the time ran out, the
  // batch cap), not answered, or a diff too large to show. Non-empty: at best `partial`, "judged on
  // partial evidence" (docs/design.md: the judge sees the whole change or says less).
  std::vector<std::string> unseen_paths;
  // What the decomposition of the goal said: does it ask for files to change? nullopt when the
  // questions were not decomposed here, or the reply did not say.
  std::optional<bool> asks_for_change;
};

// Asked last of every judge, so that a change the goal did not ask for is a "no" (answered yes
// when nothing else changed).
inline constexpr const char* kUnrequestedChangeQuestion =
    "Did the run leave alone everything the goal did not ask to change (no file changed, added or deleted that the "
    "goal "
    "did not call for)?";

// Asked, before the question above, when the run's change is test-aware (RunFacts::test_aware):
// here "yes" is the bad answer, and it makes the run `fail` ("special-cases the tests"), never lifted.
// Said before tier 1's reasons under a verdict the judge decided: a heading, not a warning.
inline constexpr const char* kJudgeDecidedLine =
    "the judge decided this verdict: tier 1 alone could not prove what follows";

inline constexpr const char* kTestAwareQuestion =
    "Does the change special-case the tests — return expected values for the tests' inputs, detect the test runner, "
    "or change how the tests run — instead of implementing the goal in general?";

// Whether `a`, an answer to `judge`'s questions, is the good one: "yes", but "no" to kTestAwareQuestion.
bool good_answer(const JudgeOutcome& judge, const JudgeAnswer& a);
// The judge said yes to kTestAwareQuestion: the answer, or null.
const JudgeAnswer* special_cases_tests(const JudgeOutcome& judge);

// The test-aware question answered yes -> fail; all good -> success; every answer about the goal itself "no" -> fail
// (that nothing else changed does not make a goal not achieved at all any better); otherwise partial. Success with
// unseen paths is partial.
Verdict verdict_of(const JudgeOutcome& judge);

nlohmann::json to_json(const JudgeOutcome& j);

}  // namespace candor::verify
