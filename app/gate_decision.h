// What the live gate answers a Stop: block it only on evidence of a problem (docs/design.md, "The live
// gate"), at most `gate.max_blocks` times a turn, with a reason written for the agent
// to act on. Pure: the turn's verdict in, the answer out.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/run_record.h"
#include "core/secret_masker.h"
#include "verify/judge_outcome.h"
#include "verify/tier1.h"

namespace candor::app {

struct GateFinding {
  std::string kind;  // one of executor::gate_finding_kinds()
  std::string text;  // a sentence naming the path or the check
  // False for what is no evidence against this turn: a failed expectation or a missed checkpoint
  // of a turn that changed nothing and is not known to ask for a change (a question answered while
  // the tests fail as they did before). Reported, never blocking.
  bool may_block = true;
};

// The findings of a turn's verdict that are evidence of a problem, each with its kind:
// `expectation` a user's assertion (config expect or guard) that fails at the end; `checkpoint`
// an essential acceptance checkpoint the transcript never reached; `protected` a change under
// .git/ or .candor/; `sensitive` a changed sensitive path; `scope` a change outside the scope;
// `scan` a path the scan could not read; `suspicious` anything else tier 1 calls suspicious (modes,
// owners, special files); `judge` a question the judge answered no; `unchanged` nothing changed
// while the goal's decomposition says it asks for a change. What only lacks evidence (a change no
// assertion covers, a verdict left "unverified") is no finding: the gate never blocks for it. A
// turn that changed nothing and is not known (by the judge's decomposition) to ask for a change is
// a question answered: its failed expectations and missed checkpoints are reported, not blocking.
// `judge` may be null (not asked).
std::vector<GateFinding> gate_findings(const RunFacts& facts, const verify::Tier1Result& tier1,
                                       const verify::JudgeOutcome* judge);

// A block's reason is at most this long: what the agent reads, whatever the findings.
inline constexpr std::size_t kMaxReasonBytes = 2048;

struct GateDecisionInput {
  std::vector<GateFinding> findings;
  std::string run_id;
  std::string verdict;  // success | partial | fail
  std::string verdict_by;
  std::vector<std::string> reasons;  // the verdict's, for the person
  int blocks_before = 0;             // this turn's stops the gate blocked so far (counted in the store)
  int max_blocks = 3;
  std::vector<std::string> block_on;  // the kinds that block (config gate.block_on)
  std::vector<std::string> warnings;  // what candor itself could not do, for the person
};

struct GateDecision {
  bool block = false;
  // There were findings to block for, but the turn had been blocked max_blocks times: let through,
  // with a warning.
  bool limit_reached = false;
  std::vector<GateFinding> blocking;  // the findings of a kind block_on names
  std::string reason;                 // for the agent, when blocking: masked, at most kMaxReasonBytes
  std::string message;                // for the person (systemMessage): masked
};

// `masker` (may be null): the run's secret values, replaced by *** in the reason and the message.
GateDecision decide_gate(const GateDecisionInput& in, const SecretMasker* masker);

// `text` cut to at most `max` bytes at a line end, or failing that a UTF-8 boundary.
std::string cut_text(const std::string& text, std::size_t max);

}  // namespace candor::app
