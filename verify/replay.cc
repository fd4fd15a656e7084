#include "verify/replay.h"

#include <map>

#include <fmt/format.h>

#include "core/arg_schema.h"
#include "core/events.h"

namespace candor::verify {
namespace {

// A field of candor's own event, read without trusting its type (an older run's event lacks the
// registry's facts: such a call is no effect, as unknown is never evidence).
bool flag(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_boolean() && j[key].get<bool>();
}

std::string str(const nlohmann::json& j, const char* key) { return json_str(j, key); }

// The facts of one run rebuilt event by event, one method per kind of event that carries them.
class Replay {
 public:
  explicit Replay(const std::string& run_id) {
    f_.run_id = run_id;
    f_.status = RunStatus::kRunning;
  }

  void read(const Event& e) {
    const auto& d = e.data;
    if (e.type == event::kAcceptance && d.is_object() && d.contains("passed")) f_.acceptance = d;
    if (e.type == event::kRunStarted) {
      started(d);
    } else if (e.type == event::kGoalKind) {
      // Fixed once (round 1 or --kind): a later plan's word does not change it.
      f_.goal_kind = parse_goal_kind(str(d, "kind")).value_or(f_.goal_kind);
      kind_fixed_ = true;
    } else if (e.type == event::kPlan) {
      planned(d);
    } else if (e.type == event::kToolCalled) {
      called(d, e.seq);
    } else if (e.type == event::kToolResult) {
      returned(d, e.seq);
    } else if (e.type == event::kWorkspaceChanged) {
      changed(d, e.seq);
    } else if (e.type == event::kAssertion) {
      asserted(d, e.seq);
    } else if (e.type == event::kFinalAnswer) {
      f_.final_answer = str(d, "text");
    } else if (e.type == event::kReplan) {
      f_.budget.used.replans++;
    } else if (e.type == event::kLlmCall) {
      count_llm_call(f_, llm_call_from_json(d));  // planner, repair, judge and reviewer calls: one event each
    } else if (e.type == event::kRunEnded) {
      ended(d);
    } else if (e.type == event::kReview) {
      GoalValidation g;
      g.attempt = d.value("attempt", 1);
      g.verdict = parse_review_verdict(str(d, "verdict")).value_or(ReviewVerdict::kNone);
      g.reason = str(d, "reason");
      f_.goal_validations.push_back(g);
    }
  }

  RunFacts finish(const std::vector<Event>& events) && {
    if (!ended_) {
      f_.status = RunStatus::kCancelled;
      f_.status_detail = fmt::format("the run was killed: no run_ended event; {} events were recorded, the last a {}",
                                     events.size(), events.empty() ? "none" : events.back().type);
    }
    for (const auto& [path, steps] : changed_by_) {
      Mutation m;
      m.path = path;
      m.change = "modified";
      m.steps = steps;
      m.last_change_seq = last_change_[path];
      f_.mutations.push_back(m);
    }
    return std::move(f_);
  }

 private:
  void started(const nlohmann::json& d) {
    f_.goal = str(d, "goal");
    f_.workspace = str(d, "workspace");
    f_.snapshot_before = str(d, "snapshot_before");
    f_.judge_policy = str(d, "judge_policy");
    if (d.contains("sandbox") && d["sandbox"].is_object()) f_.sandbox = d["sandbox"];
    if (d.contains("limits")) {
      const auto& l = d["limits"];
      f_.budget.limits = {l.value("max_replans", 3), l.value("max_steps", 50),
                          l.value("max_tokens", std::int64_t{200000}), l.value("timeout_s", 600)};
    }
  }

  void planned(const nlohmann::json& d) {
    const bool planned_before = f_.steps_planned > 0 || !f_.planner_questions.empty();
    const auto& plan = d.value("plan", nlohmann::json::object());
    if (plan.is_object()) {
      if (!kind_fixed_ && plan.contains("goal_kind") && plan["goal_kind"].is_string()) {
        f_.goal_kind = parse_goal_kind(plan["goal_kind"].get<std::string>()).value_or(f_.goal_kind);
        kind_fixed_ = true;
      }
      if (plan.contains("steps") && plan["steps"].is_array())
        f_.steps_planned += static_cast<int>(plan["steps"].size());
      if (!planned_before && plan.contains("questions") && plan["questions"].is_array()) {  // round 1's
        for (const auto& q : plan["questions"])
          if (q.is_string()) f_.planner_questions.push_back(q.get<std::string>());
      }
    }
    f_.last_round = d.value("round", f_.last_round);
  }

  void called(const nlohmann::json& d, std::int64_t seq) {
    StepRecord s;
    s.id = str(d, "step");
    s.tool = str(d, "tool");
    s.round = f_.last_round;
    s.target = str(d, "target");
    s.effect_tool = flag(d, "effect");
    s.effect_on_files = flag(d, "effect_on_files");
    s.error = "no result was recorded: the run ended during this step";
    s.seq = seq;
    step_index_[s.id] = f_.steps.size();
    f_.steps.push_back(s);
    f_.budget.used.steps++;
  }

  void returned(const nlohmann::json& d, std::int64_t seq) {
    auto it = step_index_.find(str(d, "step"));
    if (it == step_index_.end()) return;
    StepRecord& s = f_.steps[it->second];
    s.ok = d.value("ok", false);
    s.error = str(d, "error");
    if (d.contains("exit_code") && d["exit_code"].is_number_integer()) s.exit_code = d["exit_code"].get<int>();
    s.seq = seq;
  }

  void changed(const nlohmann::json& d, std::int64_t seq) {
    std::string step = str(d, "step");
    for (const auto& p : d.value("paths", nlohmann::json::array())) {
      std::string path = p.get<std::string>();
      auto& steps = changed_by_[path];
      if (!step.empty() && (steps.empty() || steps.back() != step)) steps.push_back(step);
      last_change_[path] = seq;
      auto it = step_index_.find(step);
      if (it != step_index_.end()) f_.steps[it->second].changed_paths.push_back(path);
    }
  }

  void asserted(const nlohmann::json& d, std::int64_t seq) {
    AssertionRecord a;
    a.round = f_.last_round;
    read_assertion_fields(d, a);
    a.seq = seq;
    f_.assertions.push_back(a);
    // An exit_code_eq that passed excuses its shell step's non-zero exit, as in the executor.
    auto it = step_index_.find(a.step);
    if (a.type == "exit_code_eq" && a.passed && it != step_index_.end()) f_.steps[it->second].ok = true;
  }

  void ended(const nlohmann::json& d) {
    ended_ = true;
    f_.status = parse_run_status(str(d, "status")).value_or(RunStatus::kError);
    f_.status_detail = str(d, "detail");
    f_.budget.exhausted = parse_budget_kind(str(d, "exhausted")).value_or(BudgetKind::kNone);
    f_.snapshot_after = str(d, "snapshot_after");
    if (d.contains("scan") && d["scan"].is_object()) {
      f_.scan.complete = d["scan"].value("complete", true);
      f_.scan.unread = d["scan"].value("unread", std::vector<std::string>{});
    }
    f_.protected_changes = d.value("protected_changes", std::vector<std::string>{});
  }

  RunFacts f_;
  std::map<std::string, std::size_t> step_index_;  // step id -> position in f_.steps (latest)
  std::map<std::string, std::vector<std::string>> changed_by_;
  std::map<std::string, std::int64_t> last_change_;
  bool ended_ = false;
  bool kind_fixed_ = false;
};

}  // namespace

RunFacts facts_from_events(const std::string& run_id, const std::vector<Event>& events) {
  Replay replay(run_id);
  for (const auto& e : events) replay.read(e);
  return std::move(replay).finish(events);
}

}  // namespace candor::verify
