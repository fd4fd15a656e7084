// `candor exec PLAN.json`: one given plan, no planner, no replans.
#include "cli/commands.h"
#include "cli/finish_run.h"
#include "cli/progress_output.h"
#include "cli/session.h"

namespace candor::cli {

int exec_command(const ExecArgs& args) {
  auto progress = stderr_progress(args.session.quiet);
  SessionArgs sa = args.session;
  sa.progress = progress.get();
  sa.max_replans = 0;  // exec never replans
  sa.cancel = &interrupted();
  auto session = Session::open(sa);
  if (!session.ok()) return report_error(session.error());
  Session& s = **session;
  if (progress != nullptr) progress->set_masker(s.masker());

  auto text = read_text_file(args.plan_file);
  if (!text.ok()) return report_error(text.error());
  planner::ParseOptions parse;
  if (!sa.kind.empty()) {
    parse.fixed_kind = parse_goal_kind(sa.kind);
    parse.fixed_by = "--kind";
  }
  auto plan = planner::parse_plan_text(*text, s.catalog(), args.plan_file, parse);
  if (!plan.ok()) return report_error(plan.error());

  // The judge is optional for exec: an explicit --llm must work; a provider the environment names
  // is used if it does.
  std::unique_ptr<llm::Provider> judge;
  llm::ProviderChoice choice = llm::choose_provider(args.llm);
  if (!choice.spec.empty() && args.judge != "never") {
    llm::ProviderOptions options;
    options.masker = s.masker();
    auto provider = llm::make_provider(choice.spec, options);
    if (provider.ok()) {
      judge = std::move(provider.value());
    } else if (!args.llm.empty()) {
      return report_error(provider.error());
    }
  }

  std::string goal = args.goal.empty() ? "exec " + args.plan_file : args.goal;
  s.options().plan_assertions_by = Provenance::kUser;
  s.options().judge_policy = judge ? args.judge : "never";  // no LLM to ask: the verdict is the judge-less one  // the person who gave the plan wrote its checks
  install_interrupt_handler();
  if (Status started = s.start(goal); !started.ok()) return report_error(started.error());
  executor::Executor& ex = s.executor();
  ex.facts().source = "exec";
  ex.set_goal_kind(plan->goal_kind.value_or(GoalKind::kModify), parse.fixed_kind ? "--kind" : "the plan");
  s.trajectory().record("plan", {{"round", 1}, {"plan", plan->source}});

  executor::RoundOutcome outcome = ex.run_round(*plan, 1);
  RunStatus status = RunStatus::kCompleted;
  BudgetKind exhausted = BudgetKind::kNone;
  std::string detail;
  if (outcome.cancelled) {
    status = RunStatus::kCancelled;
    detail = "cancelled (Ctrl-C)";
  } else if (!outcome.all_passed) {
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
  std::string goal_failure = ex.run_goal_assertions(s.expects(), s.guards());
  if (detail.empty() && !goal_failure.empty()) detail = goal_failure;
  remove_interrupt_handler();
  int code = s.finish(ex.finish(status, exhausted, detail), args.json, judge.get(), *verify::parse_judge_policy(args.judge),
                      plan->questions);
  return interrupted().load() ? kExitCancelled : code;
}

}  // namespace candor::cli
