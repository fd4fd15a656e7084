#include "verify/replay.h"

#include <map>

#include <fmt/format.h>

#include "core/arg_schema.h"

namespace candor::verify {
namespace {

std::string target_of(const nlohmann::json& input) {
  for (const char* key : {"path", "command", "url", "pattern"}) {
    if (input.contains(key) && input[key].is_string()) return input[key].get<std::string>();
  }
  return "";
}

bool is_effect_tool(const std::string& tool) {
  return tool == "file_write" || tool == "file_patch" || tool == "file_delete" || tool == "git_commit";
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
    if (e.type == "acceptance" && d.is_object() && d.contains("passed")) f.acceptance = d;
    if (e.type == "run_started") {
      f.goal = str(d, "goal");
      f.workspace = str(d, "workspace");
      f.snapshot_before = str(d, "snapshot_before");
      f.judge_policy = str(d, "judge_policy");
      if (d.contains("sandbox") && d["sandbox"].is_object()) f.sandbox = d["sandbox"];
      if (d.contains("limits")) {
        const auto& l = d["limits"];
        f.budget.limits = {l.value("max_replans", 3), l.value("max_steps", 50), l.value("max_tokens", std::int64_t{200000}),
                           l.value("timeout_s", 600)};
      }
    } else if (e.type == "goal_kind") {
      // Fixed once (round 1 or --kind): a later plan's word does not change it.
      f.goal_kind = parse_goal_kind(str(d, "kind")).value_or(f.goal_kind);
      kind_fixed = true;
    } else if (e.type == "plan") {
      const auto& plan = d.value("plan", nlohmann::json::object());
      if (plan.is_object()) {
        if (!kind_fixed && plan.contains("goal_kind") && plan["goal_kind"].is_string()) {
          f.goal_kind = parse_goal_kind(plan["goal_kind"].get<std::string>()).value_or(f.goal_kind);
          kind_fixed = true;
        }
        if (plan.contains("steps") && plan["steps"].is_array()) f.steps_planned += static_cast<int>(plan["steps"].size());
      }
      f.last_round = d.value("round", f.last_round);
    } else if (e.type == "tool_called") {
      StepRecord s;
      s.id = str(d, "step");
      s.tool = str(d, "tool");
      s.round = f.last_round;
      s.target = target_of(d.value("input", nlohmann::json::object()));
      s.effect_tool = is_effect_tool(s.tool);
      s.effect_on_files = s.tool != "git_commit";
      s.error = "no result was recorded: the run ended during this step";
      s.seq = e.seq;
      step_index[s.id] = f.steps.size();
      f.steps.push_back(s);
      f.budget.used.steps++;
    } else if (e.type == "tool_result") {
      auto it = step_index.find(str(d, "step"));
      if (it == step_index.end()) continue;
      StepRecord& s = f.steps[it->second];
      s.ok = d.value("ok", false);
      s.error = str(d, "error");
      if (d.contains("exit_code") && d["exit_code"].is_number_integer()) s.exit_code = d["exit_code"].get<int>();
      s.seq = e.seq;
    } else if (e.type == "workspace_changed") {
      std::string step = str(d, "step");
      for (const auto& p : d.value("paths", nlohmann::json::array())) {
        std::string path = p.get<std::string>();
        auto& steps = changed_by[path];
        if (!step.empty() && (steps.empty() || steps.back() != step)) steps.push_back(step);
        last_change[path] = e.seq;
        auto it = step_index.find(step);
        if (it != step_index.end()) f.steps[it->second].changed_paths.push_back(path);
      }
    } else if (e.type == "assertion") {
      AssertionRecord a;
      a.round = f.last_round;
      read_assertion_fields(d, a);
      a.seq = e.seq;
      f.assertions.push_back(a);
      // An exit_code_eq that passed excuses its shell step's non-zero exit, as in the executor.
      auto it = step_index.find(a.step);
      if (a.type == "exit_code_eq" && a.passed && it != step_index.end()) f.steps[it->second].ok = true;
    } else if (e.type == "final_answer") {
      f.final_answer = str(d, "text");
    } else if (e.type == "replan") {
      f.budget.used.replans++;
    } else if (e.type == "llm_call") {
      f.usage.llm_calls++;  // planner, repair, judge and reviewer calls: one event each
      f.usage.input_tokens += d.value("input_tokens", std::int64_t{0});
      f.usage.output_tokens += d.value("output_tokens", std::int64_t{0});
      f.budget.used.tokens += d.value("input_tokens", std::int64_t{0}) + d.value("output_tokens", std::int64_t{0});
    } else if (e.type == "run_ended") {
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
    } else if (e.type == "review") {
      GoalValidation g;
      g.attempt = d.value("attempt", 1);
      g.verdict = parse_review_verdict(str(d, "verdict")).value_or(ReviewVerdict::kNone);
      g.reason = str(d, "reason");
      f.goal_validations.push_back(g);
    }
  }
  if (!ended) {
    f.status = RunStatus::kCancelled;
    f.status_detail = fmt::format("the run was killed: no run_ended event; {} events were recorded, the last a {}", events.size(),
                                  events.empty() ? "none" : events.back().type);
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
