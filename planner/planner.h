// The planner conversation: the first plan, replans with recovery instructions, one repair call
// per invalid reply, and a context that stays bounded as rounds accumulate.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/deadline.h"
#include "llm/provider.h"
#include "planner/plan.h"

namespace candor::planner {

struct PlannerOptions {
  // Total bytes of round observations kept verbatim in the conversation; older rounds are
  // replaced by one-line summaries beyond it.
  std::size_t observation_budget = 48 * 1024;
  int max_output_tokens = 4096;
  bool reviewed = false;         // an independent reviewer will check the work (the worker is told only that)
  std::optional<GoalKind> kind;  // --kind: fixed before the planner speaks
};

// What happened in one LLM call, for the trajectory and the budget.
struct CallRecord {
  std::string role;  // planner | repair
  bool ok = false;
  std::string error;
  llm::Reply reply;  // usage even when the reply was unusable
};

struct ContextCut {
  int round = 0;
  std::size_t bytes = 0;
};

struct PlannerHooks {
  std::function<void(const CallRecord&)> on_call;
  std::function<void(const ContextCut&)> on_cut;
};

// Not thread-safe. `provider` and `catalog` are borrowed and must outlive the planner.
class Planner {
 public:
  Planner(llm::Provider& provider, const Catalog& catalog, PlannerHooks hooks, PlannerOptions options = {});

  // Errors: the provider's (kUnavailable, kTimeout), or kInvalidInput when the reply and its one
  // repair were both invalid (the message says why; refused_reply() says whether one was over the
  // JSON limits).
  Result<Plan> first_plan(const std::string& goal, const std::string& workspace_overview, const Deadline& deadline);
  Result<Plan> replan(int round, const std::string& failure, const nlohmann::json& observations,
                      const std::string& notes, const Deadline& deadline);

  // Fixed by the first plan (the kind: or by --kind before it).
  const std::vector<std::string>& questions() const { return questions_; }
  std::optional<GoalKind> goal_kind() const { return kind_; }
  const std::string& goal_kind_fixed_by() const { return kind_by_; }  // "--kind" or "round 1"
  const std::string& system() const { return system_; }
  const std::vector<llm::Message>& messages() const { return messages_; }
  // The last first_plan/replan failed, and one of its two replies (the first or the repair) was
  // refused past the JSON limits (core/json_text.h): the run is refused input, exit 65.
  bool refused_reply() const { return refused_reply_; }

 private:
  Result<Plan> ask(bool first_round, const Deadline& deadline);
  Result<llm::Reply> call(const std::string& role, const std::vector<llm::Message>& messages, const Deadline& deadline);
  void bound_context();

  llm::Provider& provider_;
  const Catalog& catalog_;
  PlannerHooks hooks_;
  PlannerOptions options_;
  std::string system_;
  std::vector<llm::Message> messages_;
  // Per round message index in messages_ and its observations, to cut the oldest first.
  struct RoundEntry {
    int round;
    std::size_t message_index;
    nlohmann::json observations;
    bool cut = false;
  };
  std::vector<RoundEntry> rounds_;
  std::vector<std::string> questions_;
  std::optional<GoalKind> kind_;
  std::string kind_by_;
  bool refused_reply_ = false;
};

}  // namespace candor::planner
