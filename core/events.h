// The run's event types by name, and the one way an LLM call is recorded and counted. Every
// writer and every reader of a trajectory names an event through these constants, so a renamed
// event is a compile error rather than a reader that silently finds nothing.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/run_record.h"
#include "core/trajectory.h"

namespace candor {
namespace event {

inline constexpr const char* kRunStarted =
    "run_started";  // goal, workspace, limits, sandbox, judge policy, the snapshot before
inline constexpr const char* kGoalKind = "goal_kind";  // modify | inspect, fixed once (round 1's plan or --kind)
inline constexpr const char* kPlan = "plan";           // a round's accepted plan (round, plan)
inline constexpr const char* kReplan = "replan";       // a new round after a failure (round, reason)
inline constexpr const char* kContextTrimmed =
    "context_trimmed";                                       // the planner's context was cut to fit (round, bytes)
inline constexpr const char* kStagnation = "stagnation";     // rounds that changed nothing and repeated themselves
inline constexpr const char* kStepStarted = "step_started";  // a step begins (step, round, tool, why)
inline constexpr const char* kToolCalled =
    "tool_called";  // a step's call (step, tool, input, target, effect, effect_on_files)
inline constexpr const char* kToolResult =
    "tool_result";  // a step's result (step, tool, ok, output, exit_code, error, ...)
inline constexpr const char* kAssertion = "assertion";  // one assertion evaluated (AssertionRecord's fields)
inline constexpr const char* kWorkspaceChanged =
    "workspace_changed";                                       // paths a scan saw change after a step (step, paths)
inline constexpr const char* kScanFailed = "scan_failed";      // change detection could not read the workspace
inline constexpr const char* kWorktreeRead = "worktree_read";  // verify --git BASE.. read the working tree
inline constexpr const char* kBaseMoved = "base_moved";        // verify --git: BASE is not an ancestor of HEAD
inline constexpr const char* kTestAware = "test_aware";        // test-aware changes found at the end (flags)
inline constexpr const char* kFinalAnswer = "final_answer";    // the agent's own closing words (text)
inline constexpr const char* kLlmCall = "llm_call";  // one LLM call of any role (role, tokens, ok, error, budgeted)
inline constexpr const char* kReviewTool = "review_tool";        // a reviewer's read-only tool call
inline constexpr const char* kReviewRefused = "review_refused";  // a reviewer asked for a tool that is not read-only
inline constexpr const char* kReview = "review";  // an independent review's verdict (attempt, verdict, reason)
inline constexpr const char* kJudgeQuestions =
    "judge_questions";                                    // the goal decomposed into yes/no questions (verify --git)
inline constexpr const char* kJudge = "judge";            // tier 2's answers
inline constexpr const char* kAcceptance = "acceptance";  // the acceptance spec's result
inline constexpr const char* kAcceptanceError = "acceptance_error";  // the acceptance spec could not be checked
// The live gate (`candor gate`): a turn of another agent begun (agent, session_id, turn_id, turn),
// one of its stops checked (stop, stop_hook_active, transcript), and what the gate answered
// (decision, findings, blocks).
inline constexpr const char* kGateTurnStarted = "gate_turn_started";
inline constexpr const char* kGateStop = "gate_stop";
inline constexpr const char* kGateDecision = "gate_decision";
inline constexpr const char* kRunEnded =
    "run_ended";  // how the loop ended (status, detail, exhausted, snapshot after, scan)

}  // namespace event

// One LLM call, of any role (planner, repair, reviewer, judge, judge_repair, decompose).
struct LlmCall {
  std::string role;
  bool ok = false;
  std::int64_t input_tokens = 0, output_tokens = 0;
  bool usage_estimated = false;  // the server sent no usage: the tokens are candor's estimate
  std::string error;             // when !ok
  // The run's token budget pays for it (the planner's and the reviewer's calls); the judge's and
  // the decomposition's are counted in the usage only: verifying a run never exhausts its budget.
  bool budgeted = true;
};

nlohmann::json to_json(const LlmCall& call);
// The event's data back; a field missing (an older run's event) reads as its default.
LlmCall llm_call_from_json(const nlohmann::json& data);

// The usage meter: every call counts once in facts.usage; a budgeted call also in the budget's
// tokens. Replay counts recorded events with it, so a replayed run and a live one agree.
void count_llm_call(RunFacts& facts, const LlmCall& call);

// The one place an LLM call is recorded: its llm_call event, then count_llm_call.
void record_llm_call(Trajectory& trajectory, RunFacts& facts, const LlmCall& call);

}  // namespace candor
