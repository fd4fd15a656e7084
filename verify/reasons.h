// The sentences a verdict gives, shared by the decision (tier1.cc, verdict.cc) and the report's
// warnings: the reasons that count against success, told apart from those that support it.
#pragma once

#include <string>
#include <vector>

#include "core/run_record.h"
#include "verify/judge_outcome.h"
#include "verify/tier1.h"
#include "verify/verdict.h"

namespace candor::verify {

// "the workspace scan was incomplete: candor could not read …", or "" when the scan was complete.
std::string scan_gap(const RunFacts& facts);

// What the judge's answers say: "the judge answered yes to N of M questions", then one sentence
// per "no".
std::vector<std::string> judge_reasons(const JudgeOutcome& judge);

// What counts against success, each sentence once: the decision's reasons except those that
// support it (a tier-1 success's evidence, a judge's all-yes), then tier 1's findings, the range's
// warnings, an incomplete scan and an acceptance spec that did not pass, even where no reason
// names them (a reviewer's fail gives the reviewer's reasons).
std::vector<std::string> warnings_of(const RunFacts& facts, const Tier1Result& tier1, const JudgeOutcome* judge,
                                     const Decision& decision);

}  // namespace candor::verify
