// The independent reviewer (goal gate): a fresh agent, new history every attempt, read-only tools
// only, that checks a criterion the worker never sees and answers pass or fail with a reason.
#pragma once

#include <chrono>
#include <string>

#include "core/events.h"
#include "core/run_record.h"
#include "core/trajectory.h"
#include "executor/tool.h"
#include "llm/provider.h"
#include "net/http_client.h"
#include "sandbox/workspace.h"

namespace candor::executor {

struct ReviewerOptions {
  std::string criterion;
  int max_turns = 8;  // tool calls before it must give a verdict
  std::size_t output_cap = 16 * 1024;
};

struct Review {
  GoalValidation validation;
  bool provider_failed = false;
  int turns = 0;
  int calls = 0;  // LLM calls made
  // Each call as recorded (its llm_call event): the caller counts them in the run's usage.
  std::vector<LlmCall> llm_calls;
};

// Borrows everything; not thread-safe.
class Reviewer {
 public:
  Reviewer(llm::Provider& provider, const ToolRegistry& tools, const sandbox::Workspace& workspace,
           const net::NetworkPolicy& network, Trajectory& trajectory, ReviewerOptions options);

  // One review. Records `review_tool`, `review_refused` and `review` events. A reviewer that asks
  // for a tool that is not read-only is refused (the workspace is never written), told so, and
  // the turn counts. No verdict within max_turns, invalid replies throughout, or a provider
  // failure is a review with verdict `none`: it rejected nothing. Each LLM call is an `llm_call`
  // event (role reviewer).
  Review review(int attempt, const std::string& goal, const std::optional<std::string>& final_answer,
                const Deadline& deadline);

  std::string system_prompt() const;

 private:
  llm::Provider& provider_;
  const ToolRegistry& tools_;
  const sandbox::Workspace& workspace_;
  const net::NetworkPolicy& network_;
  Trajectory& trajectory_;
  ReviewerOptions options_;
};

}  // namespace candor::executor
