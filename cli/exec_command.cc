// `candor exec PLAN.json`: wires the real implementations together and runs one plan.
#include <cstdio>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "assertions/evaluator.h"
#include "cli/commands.h"
#include "cli/finish_run.h"
#include "executor/config.h"
#include "executor/executor.h"
#include "planner/plan.h"
#include "sandbox/workspace.h"
#include "store/run_store.h"
#include "verify/snapshot.h"

namespace candor::cli {
namespace {

Result<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(ErrorCode::kInvalidInput, fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Result<std::vector<nlohmann::json>> parse_expects(const std::vector<std::string>& texts, const std::vector<nlohmann::json>& from_config,
                                                  const planner::Catalog& catalog) {
  std::vector<nlohmann::json> out;
  for (std::size_t i = 0; i < from_config.size(); ++i) {
    TRY_STATUS(planner::validate_assertion(from_config[i], catalog, fmt::format(".candor/config.json: expect[{}]", i)));
    out.push_back(from_config[i]);
  }
  for (std::size_t i = 0; i < texts.size(); ++i) {
    std::string where = fmt::format("--expect #{}", i + 1);
    TRY(nlohmann::json a, planner::parse_json_text(texts[i], where));
    TRY_STATUS(planner::validate_assertion(a, catalog, where));
    out.push_back(a);
  }
  return out;
}

}  // namespace

int exec_command(const ExecArgs& args) {
  executor::ToolRegistry tools = executor::builtin_tools();
  assertions::Registry evaluators = assertions::builtin_evaluators();
  planner::Catalog catalog{tools.signatures(), evaluators.signatures()};

  auto text = read_text_file(args.plan_file);
  if (!text.ok()) return report_error(text.error());
  auto plan = planner::parse_plan_text(*text, catalog, args.plan_file);
  if (!plan.ok()) return report_error(plan.error());

  std::string store_dir = args.store_dir.empty() ? store::default_store_dir() : args.store_dir;
  auto workspace = sandbox::Workspace::open(args.workspace, {.force_fallback = false, .protected_dirs = {store_dir}});
  if (!workspace.ok()) return report_error(make_error(ErrorCode::kInvalidInput, workspace.error().message));
  auto config = executor::load_config((*workspace)->root());
  if (!config.ok()) return report_error(config.error());
  auto expects = parse_expects(args.expects, config->expect, catalog);
  if (!expects.ok()) return report_error(expects.error());

  executor::ExecutorOptions options;
  executor::apply_config_budget(*config, options.limits);
  options.limits.max_replans = 0;  // exec never replans
  if (args.max_steps) options.limits.max_steps = *args.max_steps;
  if (args.timeout_s) options.limits.timeout_s = *args.timeout_s;
  if (config->output_cap_bytes) options.output_cap = *config->output_cap_bytes;
  options.network = config->network;

  auto store = store::RunStore::open(store_dir);
  if (!store.ok()) return report_error(store.error());
  auto snapshots = verify::SnapshotStore::open((*store)->dir(), (*workspace)->root());
  if (!snapshots.ok()) return report_error(snapshots.error());

  SystemClock clock;
  std::string run_id = store::new_run_id(clock.wall());
  std::string created_at = format_timestamp(clock.wall());
  std::string goal = args.goal.empty() ? "exec " + args.plan_file : args.goal;
  if (Status s = (*store)->create_run(run_id, created_at, goal, (*workspace)->root()); !s.ok()) return report_error(s.error());

  Trajectory trajectory(run_id, clock, store->get());
  executor::Executor ex({**workspace, **snapshots, tools, evaluators, clock, trajectory}, options);
  ex.set_goal_kind(plan->goal_kind.value_or(GoalKind::kModify));
  if (Status s = ex.begin(run_id, goal); !s.ok()) {
    RunFacts facts = ex.finish(RunStatus::kError, BudgetKind::kNone, s.error().message);
    finish_run(**store, facts, created_at, args.json);
    return report_error(s.error());
  }
  trajectory.record("plan", {{"round", 1}, {"plan", nlohmann::json::parse(*text, nullptr, false)}});

  executor::RoundOutcome outcome = ex.run_round(*plan, 1);
  RunStatus status = RunStatus::kCompleted;
  BudgetKind exhausted = BudgetKind::kNone;
  std::string detail;
  if (!outcome.all_passed) {
    status = RunStatus::kBudgetExhausted;
    exhausted = outcome.budget_hit != BudgetKind::kNone ? outcome.budget_hit : BudgetKind::kReplans;
    detail = outcome.failure + (outcome.budget_hit == BudgetKind::kNone ? " (candor exec allows no replan)" : "");
  } else if (plan->then == planner::Then::kReplan) {
    status = RunStatus::kBudgetExhausted;
    exhausted = BudgetKind::kReplans;
    detail = "the plan ends with then: replan, and candor exec allows no replan";
  } else if (plan->final_answer) {
    ex.set_final_answer(*plan->final_answer);
  }
  std::string goal_failure = ex.run_goal_assertions(*expects);
  if (detail.empty() && !goal_failure.empty()) detail = goal_failure;
  RunFacts facts = ex.finish(status, exhausted, detail);
  if (!trajectory.sink_error().empty()) {
    std::fprintf(stderr, "candor: warning: some events were not stored: %s\n", trajectory.sink_error().c_str());
  }
  return finish_run(**store, facts, created_at, args.json);
}

}  // namespace candor::cli
