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

}  // namespace

RunFacts facts_from_events(const std::string& run_id, const std::vector<Event>& events) {
  RunFacts f;
  f.run_id = run_id;
  f.status = RunStatus::kRunning;
  std::map<std::string, std::size_t> step_index;  // step id -> position in f.steps (latest)
  std::map<std::string, std::vector<std::string>> changed_by;
  std::map<std::string, std::int64_t> last_change;
  bool ended = false;
  bool kind_fixed = false;
  for (const auto& e : events) {
    const auto& d = e.data;
    if (e.type == event::kAcceptance && d.is_object() && d.contains("passed")) f.acceptance = d;
    if (e.type == event::kRunStarted) {
      f.goal = str(d, "goal");
      f.workspace = str(d, "workspace");
      f.snapshot_before = str(d, "snapshot_before");
      f.judge_policy = str(d, "judge_policy");
      if (d.contains("sandbox") && d["sandbox"].is_object()) f.sandbox = d["sandbox"];
      if (d.contains("limits")) {
        const auto& l = d["limits"];
        f.budget.limits = {l.value("max_replans", 3), l.value("max_steps", 50),
                           l.value("max_tokens", std::int64_t{200000}), l.value("timeout_s", 600)};
      }
    } else if (e.type == event::kGoalKind) {
      // Fixed once (round 1 or --kind): a later plan's word does not change it.
      f.goal_kind = parse_goal_kind(str(d, "kind")).value_or(f.goal_kind);
      kind_fixed = true;
    } else if (e.type == event::kPlan) {
      const bool planned_before = f.steps_planned > 0 || !f.planner_questions.empty();
      const auto& plan = d.value("plan", nlohmann::json::object());
      if (plan.is_object()) {
        if (!kind_fixed && plan.contains("goal_kind") && plan["goal_kind"].is_string()) {
          f.goal_kind = parse_goal_kind(plan["goal_kind"].get<std::string>()).value_or(f.goal_kind);
          kind_fixed = true;
        }
        if (plan.contains("steps") && plan["steps"].is_array())
          f.steps_planned += static_cast<int>(plan["steps"].size());
        if (!planned_before && plan.contains("questions") && plan["questions"].is_array()) {  // round 1's
          for (const auto& q : plan["questions"])
            if (q.is_string()) f.planner_questions.push_back(q.get<std::string>());
        }
      }
      f.last_round = d.value("round", f.last_round);
    } else if (e.type == event::kToolCalled) {
      StepRecord s;
      s.id = str(d, "step");
      s.tool = str(d, "tool");
      s.round = f.last_round;
      s.target = str(d, "target");
      s.effect_tool = flag(d, "effect");
      s.effect_on_files = flag(d, "effect_on_files");
      s.error = "no result was recorded: the run ended during this step";
      s.seq = e.seq;
      step_index[s.id] = f.steps.size();
      f.steps.push_back(s);
      f.budget.used.steps++;
    } else if (e.type == event::kToolResult) {
      auto it = step_index.find(str(d, "step"));
      if (it == step_index.end()) continue;
      StepRecord& s = f.steps[it->second];
      s.ok = d.value("ok", false);
      s.error = str(d, "error");
      if (d.contains("exit_code") && d["exit_code"].is_number_integer()) s.exit_code = d["exit_code"].get<int>();
      s.seq = e.seq;
    } else if (e.type == event::kWorkspaceChanged) {
      std::string step = str(d, "step");
      for (const auto& p : d.value("paths", nlohmann::json::array())) {
        std::string path = p.get<std::string>();
        auto& steps = changed_by[path];
        if (!step.empty() && (steps.empty() || steps.back() != step)) steps.push_back(step);
        last_change[path] = e.seq;
        auto it = step_index.find(step);
        if (it != step_index.end()) f.steps[it->second].changed_paths.push_back(path);
      }
    } else if (e.type == event::kAssertion) {
      AssertionRecord a;
      a.round = f.last_round;
      read_assertion_fields(d, a);
      a.seq = e.seq;
      f.assertions.push_back(a);
      // An exit_code_eq that passed excuses its shell step's non-zero exit, as in the executor.
      auto it = step_index.find(a.step);
      if (a.type == "exit_code_eq" && a.passed && it != step_index.end()) f.steps[it->second].ok = true;
    } else if (e.type == event::kFinalAnswer) {
      f.final_answer = str(d, "text");
    } else if (e.type == event::kReplan) {
      f.budget.used.replans++;
    } else if (e.type == event::kLlmCall) {
      count_llm_call(f, llm_call_from_json(d));  // planner, repair, judge and reviewer calls: one event each
    } else if (e.type == event::kRunEnded) {
      ended = true;
      f.status = parse_run_status(str(d, "status")).value_or(RunStatus::kError);
      f.status_detail = str(d, "detail");
      f.budget.exhausted = parse_budget_kind(str(d, "exhausted")).value_or(BudgetKind::kNone);
      f.snapshot_after = str(d, "snapshot_after");
      if (d.contains("scan") && d["scan"].is_object()) {
        f.scan.complete = d["scan"].value("complete", true);
        f.scan.unread = d["scan"].value("unread", std::vector<std::string>{});
      }
      f.protected_changes = d.value("protected_changes", std::vector<std::string>{});
    } else if (e.type == event::kReview) {
      GoalValidation g;
      g.attempt = d.value("attempt", 1);
      g.verdict = parse_review_verdict(str(d, "verdict")).value_or(ReviewVerdict::kNone);
      g.reason = str(d, "reason");
      f.goal_validations.push_back(g);
    }
  }
  if (!ended) {
    f.status = RunStatus::kCancelled;
    f.status_detail = fmt::format("the run was killed: no run_ended event; {} events were recorded, the last a {}",
                                  events.size(), events.empty() ? "none" : events.back().type);
  }
  for (const auto& [path, steps] : changed_by) {
    Mutation m;
    m.path = path;
    m.change = "modified";
    m.steps = steps;
    m.last_change_seq = last_change[path];
    f.mutations.push_back(m);
  }
  return f;
}

}  // namespace candor::verify
