// The whole tier-2 pass over a run, whatever produced it (`run`, `exec`, `verify RUN`,
// `verify --git`): the questions fixed from the goal alone, before any evidence exists (a
// goal-only call), the question about unrequested changes every judge is asked, the evidence, the
// answers, and what of it the run records. The planner's own questions are its reading of the goal:
// shown to the judge as evidence, never the questions it answers.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/deadline.h"
#include "core/trajectory.h"
#include "verify/judge.h"

namespace candor::verify {

struct JudgeRunInputs {
  // Given (`verify --git --question`) or recorded by an earlier judge of the run (`verify RUN`);
  // empty: the goal is decomposed now, by a call that sees the goal and nothing else.
  std::vector<std::string> questions;
  // The planner's questions (round 1's plan): evidence of what the model meant.
  std::vector<std::string> planner_questions;
  const CredentialLookup* credentials = nullptr;  // borrowed; may be null
  // What the judge may take, both calls together: the run's own deadline for a run that just ended
  // (the time budget bounds the judge too); a later `verify RUN` is a new process, with the run's
  // whole time budget again. Under a second left: not asked.
  Deadline deadline;
  EvidenceCaps caps{};  // one prompt's size and how many prompts (tests make them small)
};

struct JudgeRun {
  std::optional<Decomposition> decomposition;  // when the questions were decomposed here
  JudgeOutcome outcome;
};

// REQUIRES: `trees` holds the run's trees (its snapshots; the repository's commits for a `git` run).
JudgeRun judge_run(llm::Provider& provider, const TreeReader& trees, const RunFacts& facts, const JudgeRunInputs& in);

// The questions the judge answers: `given` (or the goal itself when there are none), then, for a
// test-aware change, kTestAwareQuestion, then kUnrequestedChangeQuestion last, each once.
std::vector<std::string> with_unrequested_change_question(std::vector<std::string> given, const std::string& goal,
                                                          bool test_aware = false);

// What the judge is shown of a test-aware change: every flag, and the test files rule (b) names.
EvidencePiece test_aware_evidence(const TreeReader& trees, const RunFacts& facts);

// Counts every call of the pass in `facts.usage` (never in the run's token budget) and, when
// `trajectory` is given (the run just ended), records the pass in it: each LLM call, the questions
// and how they were fixed, the judge's answers. Names the judge as the run's provider when it had
// none. `verify RUN` passes no trajectory: its judge is counted in the report, not recorded.
void record_judge_run(const JudgeRun& run, const std::string& provider_name, Trajectory* trajectory, RunFacts& facts);

}  // namespace candor::verify
