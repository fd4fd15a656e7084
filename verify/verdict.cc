#include "verify/verdict.h"

namespace candor::verify {

Decision decide_without_judge(const Tier1Result& tier1) {
  Decision d;
  if (tier1.verdict) {
    d.verdict = *tier1.verdict;
    d.reasons = tier1.reasons;
    return d;
  }
  d.verdict = Verdict::kPartial;
  d.reasons.push_back("unverified: tier 1 could not confirm the goal and no judge was asked");
  d.reasons.insert(d.reasons.end(), tier1.reasons.begin(), tier1.reasons.end());
  return d;
}

}  // namespace candor::verify
