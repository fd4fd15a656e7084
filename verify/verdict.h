// The final verdict from the tiers. Tier 2 (when it exists) may only settle what tier 1 left
// ambiguous, or downgrade; it never upgrades a tier-1 partial or fail.
#pragma once

#include <string>
#include <vector>

#include "core/run_record.h"
#include "verify/tier1.h"

namespace candor::verify {

struct Decision {
  Verdict verdict = Verdict::kPartial;
  std::string by = "tier1";  // tier1 | tier2 | reviewer
  std::vector<std::string> reasons;
};

// Without a judge: an ambiguous run is `partial`, "unverified", with what was missing.
Decision decide_without_judge(const Tier1Result& tier1);

}  // namespace candor::verify
