#include "verify/verdict.h"

#include <fmt/format.h>

#include "verify/reasons.h"

namespace candor::verify {

Decision decide_without_judge(const Tier1Result& tier1) {
  Decision d;
  if (tier1.verdict) {
    d.verdict = *tier1.verdict;
    d.reasons = tier1.reasons;
    return d;
  }
  d.verdict = Verdict::kPartial;
  d.reasons.push_back(tier1.test_aware
                          ? "unverified: test-aware change: tier 1 never counts a change that reads or changes how "
                            "the tests run, and no judge was asked whether it special-cases them; to prove it: pass "
                            "--llm for a judge"
                          : "unverified: tier 1 could not confirm the goal and no judge was asked; to prove it: take "
                            "the step each reason below gives for its path, or pass --llm for a judge");
  d.reasons.insert(d.reasons.end(), tier1.reasons.begin(), tier1.reasons.end());
  return d;
}

bool should_ask_judge(const Tier1Result& tier1, JudgePolicy policy) {
  switch (policy) {
    case JudgePolicy::kNever:
      return false;
    case JudgePolicy::kAlways:
      return true;
    case JudgePolicy::kAuto:
      return !tier1.verdict.has_value();
  }
  return false;
}

namespace {

int rank(Verdict v) { return v == Verdict::kSuccess ? 2 : v == Verdict::kPartial ? 1 : 0; }

}  // namespace

Decision decide(const Tier1Result& tier1, const JudgeOutcome* judge, const std::vector<GoalValidation>& reviews) {
  Decision d;
  bool asked = judge != nullptr && judge->asked;
  if (!tier1.verdict) {
    if (asked && judge->answered) {
      d.verdict = verdict_of(*judge);
      d.by = "tier2";
      d.reasons = judge_reasons(*judge);
      // Said, so that an [unproven] line under a judge's success does not read as a contradiction.
      if (!tier1.reasons.empty()) d.reasons.push_back(kJudgeDecidedLine);
      d.reasons.insert(d.reasons.end(), tier1.reasons.begin(), tier1.reasons.end());
    } else {
      d = decide_without_judge(tier1);
      if (asked)
        d.reasons[0] =
            "unverified: tier 1 could not confirm the goal and the judge did not answer (" + judge->error +
            "); to prove it: run `candor verify` on this run again once the judge's provider answers (--llm)";
    }
  } else {
    d.verdict = *tier1.verdict;
    d.reasons = tier1.reasons;
    if (asked && judge->answered && rank(verdict_of(*judge)) < rank(d.verdict)) {
      d.verdict = verdict_of(*judge);
      d.by = "tier2";
      std::vector<std::string> reasons = judge_reasons(*judge);
      reasons.insert(reasons.end(), tier1.reasons.begin(), tier1.reasons.end());
      d.reasons = reasons;
    }
  }
  if (!reviews.empty() && reviews.back().verdict == ReviewVerdict::kFail) {
    d.verdict = Verdict::kFail;
    d.by = "reviewer";
    d.reasons.insert(d.reasons.begin(), fmt::format("the independent reviewer failed the work (attempt {}): {}",
                                                    reviews.back().attempt, reviews.back().reason));
  } else if (!reviews.empty() && reviews.back().verdict == ReviewVerdict::kNone) {
    // No verdict rejected nothing, and confirmed nothing: at best partial.
    std::string why = fmt::format("unverified by the reviewer: it reached no verdict (attempt {}): {}",
                                  reviews.back().attempt, reviews.back().reason);
    if (d.verdict == Verdict::kSuccess) {
      d.verdict = Verdict::kPartial;
      d.by = "reviewer";
      d.reasons.insert(d.reasons.begin(), why);
    } else {
      d.reasons.push_back(why);
    }
  }
  return d;
}

}  // namespace candor::verify
