// The final verdict from the tiers. Tier 2 (when it exists) may only settle what tier 1 left
// ambiguous, or downgrade; it never upgrades a tier-1 partial or fail.
#pragma once

#include <string>
#include <vector>

#include "core/run_record.h"
#include "verify/judge_outcome.h"
#include "verify/tier1.h"

namespace candor::verify {

struct Decision {
  Verdict verdict = Verdict::kPartial;
  std::string by = "tier1";  // tier1 | tier2 | reviewer
  std::vector<std::string> reasons;
};

// Without a judge: an ambiguous run is `partial`, "unverified", with what was missing.
Decision decide_without_judge(const Tier1Result& tier1);

// Whether tier 2 is asked: `never` never, `always` always, `auto` only when tier 1 is ambiguous.
bool should_ask_judge(const Tier1Result& tier1, JudgePolicy policy);

// The whole decision, pure. Tier 2 settles an ambiguous run, and may only downgrade a tier-1
// success; a judge that failed leaves an ambiguous run partial, "unverified". A failed last review
// makes the run fail (verdict_by reviewer); a last review with no verdict makes a success partial
// ("unverified by the reviewer"); a passed review changes nothing. Nothing later ever
// upgrades an earlier tier's partial or fail.
Decision decide(const Tier1Result& tier1, const JudgeOutcome* judge, const std::vector<GoalValidation>& reviews);

}  // namespace candor::verify
