// `run` and `exec`: a workspace opened (WorkspaceRun), the run recorded, its rounds, its end.
#include "app/session.h"

#include <fmt/format.h>

#include "app/inputs.h"
#include "app/workspace_run.h"
#include "core/events.h"
#include "executor/goal_gate.h"
#include "executor/run_loop.h"
#include "llm/provider.h"

namespace candor::app {
namespace {

// The reviewer's criterion: --criterion, or the file's text. The file must lie outside the
// workspace (the worker's steps can read the whole workspace: a criterion kept there is no
// secret), and is hidden from the steps.
Result<std::string> criterion_of(const RunRequest& request, WorkspaceRun& w) {
  if (request.criterion_file.empty()) return request.criterion;
  if (!request.criterion.empty())
    return make_error(ErrorCode::kUsage, "give --criterion or --criterion-file, not both");
  if (path_within(request.criterion_file, w.workspace().root())) {
    return make_error(ErrorCode::kUsage, fmt::format("--criterion-file {} lies inside the workspace {}, where the "
                                                     "worker's steps can read it: keep it outside",
                                                     request.criterion_file, w.workspace().root()));
  }
  TRY(std::string text, read_text_file(request.criterion_file));
  w.hide_from_steps(request.criterion_file);
  return text;
}

// A plan's round ended how exec allows: no replan, so a failure or `then: replan` exhausts it.
struct ExecStop {
  RunStatus status = RunStatus::kCompleted;
  BudgetKind exhausted = BudgetKind::kNone;
  std::string detail;
};

ExecStop exec_stop(const executor::RoundOutcome& outcome, const planner::Plan& plan, executor::Executor& ex) {
  if (outcome.cancelled) return {RunStatus::kCancelled, BudgetKind::kNone, "cancelled (Ctrl-C)"};
  if (!outcome.all_passed) {
    BudgetKind exhausted = outcome.budget_hit != BudgetKind::kNone ? outcome.budget_hit : BudgetKind::kReplans;
    return {RunStatus::kBudgetExhausted, exhausted,
            outcome.failure + (outcome.budget_hit == BudgetKind::kNone ? " (candor exec allows no replan)" : "")};
  }
  if (plan.then == planner::Then::kReplan) {
    return {RunStatus::kBudgetExhausted, BudgetKind::kReplans,
            "the plan ends with then: replan, and candor exec allows no replan"};
  }
  if (plan.final_answer) ex.set_final_answer(*plan.final_answer);
  return {};
}

// The judge is optional for exec: an explicit --llm must work; a provider the environment names
// is used if it does. Null: no judge.
Result<std::unique_ptr<llm::Provider>> exec_judge(const ExecRequest& request, const WorkspaceRun& w,
                                                  const ProviderFactory& make_provider) {
  llm::ProviderChoice choice = llm::choose_provider(request.llm);
  if (choice.spec.empty() || request.judge == verify::judge_policy_name(verify::JudgePolicy::kNever))
    return std::unique_ptr<llm::Provider>();
  llm::ProviderOptions options;
  options.masker = w.masker();
  auto provider = make_provider(choice.spec, options);
  if (provider.ok()) return std::move(provider.value());
  if (!request.llm.empty()) return provider.error();
  return std::unique_ptr<llm::Provider>();
}

}  // namespace

Session::Session(RunObserver* observer, ProviderFactory make_provider)
    : observer_(observer),
      make_provider_(make_provider ? std::move(make_provider) : ProviderFactory(llm::make_provider)) {}

ExitCategory exit_category(Verdict verdict, const nlohmann::json& acceptance) {
  switch (verdict) {
    case Verdict::kSuccess:
      if (acceptance.is_object() && !acceptance.value("passed", false)) return ExitCategory::kAcceptanceNotPassed;
      return ExitCategory::kSuccess;
    case Verdict::kPartial:
      return ExitCategory::kPartial;
    case Verdict::kFail:
      return ExitCategory::kFail;
  }
  return ExitCategory::kInternal;
}

ExitCategory exit_category(const Error& error) {
  switch (error.code) {
    case ErrorCode::kUsage:
      return ExitCategory::kUsage;
    case ErrorCode::kInvalidInput:
    case ErrorCode::kNotFound:
      return ExitCategory::kInvalidInput;
    case ErrorCode::kUnavailable:
      return ExitCategory::kUnavailable;
    case ErrorCode::kRefused:
      return ExitCategory::kRefused;
    case ErrorCode::kExists:
      return ExitCategory::kExists;
    default:
      return ExitCategory::kInternal;
  }
}

Result<RunResult> Session::run(const RunRequest& request) {
  TRY(verify::JudgePolicy judge_policy, verify::checked_judge_policy(request.judge, "RunRequest.judge"));
  llm::ProviderChoice choice = llm::choose_provider(request.llm);
  if (choice.spec.empty())
    return make_error(ErrorCode::kUsage, std::string("no LLM provider: ") + llm::kNoProviderHint);
  if (request.goal.find_first_not_of(" \t\n") == std::string::npos)
    return make_error(ErrorCode::kUsage, "the goal is empty");
  TRY(std::unique_ptr<WorkspaceRun> opened, WorkspaceRun::open(request.workspace, observer_, &cancelled_));
  WorkspaceRun& w = *opened;
  if (observer_ != nullptr) observer_->set_masker(w.masker());
  llm::ProviderOptions provider_options;
  provider_options.cancel = &cancelled_;
  provider_options.masker = w.masker();
  TRY(std::unique_ptr<llm::Provider> provider, make_provider_(choice.spec, provider_options));
  TRY(std::string criterion, criterion_of(request, w));

  w.options().judge_policy = verify::judge_policy_name(judge_policy);
  if (observer_ != nullptr) observer_->run_starting();
  if (Status started = w.start(request.goal); !started.ok()) {
    if (!w.recorded()) return started.error();
    return w.end_not_started(started.error());
  }
  planner::PlannerOptions planner_options;
  planner_options.reviewed = !criterion.empty();
  if (!request.workspace.kind.empty()) planner_options.kind = parse_goal_kind(request.workspace.kind);
  planner::Planner planner(*provider, w.catalog(), executor::recording_hooks(w.executor(), w.trajectory()),
                           planner_options);
  executor::RunLoop loop(w.executor(), planner, w.workspace(), w.trajectory(),
                         {request.goal, w.expects(), w.guards(), 200});
  std::unique_ptr<executor::Reviewer> reviewer;
  if (!criterion.empty()) {
    reviewer = std::make_unique<executor::Reviewer>(*provider, w.tools(), w.workspace(), w.options().network,
                                                    w.trajectory(), executor::ReviewerOptions{criterion, 8, 16 * 1024});
  }
  executor::GoalResult goal =
      executor::run_goal(loop, w.executor(), reviewer.get(), request.max_goal_attempts, request.goal);
  if (observer_ != nullptr) observer_->steps_ended();
  goal.facts.provider = provider->describe();
  TRY(RunResult result, w.finish(goal.facts, provider.get(), judge_policy));
  result.provider_failed = goal.provider_failed;
  // DESIGN: a reply past the JSON limits is refused input (exit 65); the run is still recorded.
  result.input_refused = !goal.provider_failed && goal.input_refused;
  if (result.provider_failed) result.exit = ExitCategory::kUnavailable;
  if (result.input_refused) result.exit = ExitCategory::kInvalidInput;
  if (cancelled()) result.exit = ExitCategory::kCancelled;
  return result;
}

Result<RunResult> Session::exec(const ExecRequest& request) {
  TRY(verify::JudgePolicy judge_policy, verify::checked_judge_policy(request.judge, "ExecRequest.judge"));
  WorkspaceOptions options = request.workspace;
  options.max_replans = 0;  // exec never replans
  TRY(std::unique_ptr<WorkspaceRun> opened, WorkspaceRun::open(options, observer_, &cancelled_));
  WorkspaceRun& w = *opened;
  if (observer_ != nullptr) observer_->set_masker(w.masker());
  TRY(std::string text, read_text_file(request.plan_file));
  planner::ParseOptions parse;
  if (!options.kind.empty()) {
    parse.fixed_kind = parse_goal_kind(options.kind);
    parse.fixed_by = "--kind";
  }
  TRY(planner::Plan plan, planner::parse_plan_text(text, w.catalog(), request.plan_file, parse));
  TRY(std::unique_ptr<llm::Provider> judge, exec_judge(request, w, make_provider_));

  std::string goal = request.goal.empty() ? "exec " + request.plan_file : request.goal;
  w.options().plan_assertions_by = Provenance::kUser;  // the person who gave the plan wrote its checks
  w.options().judge_policy =
      judge ? verify::judge_policy_name(judge_policy) : "never";  // no LLM to ask: the verdict is the judge-less one
  if (observer_ != nullptr) observer_->run_starting();
  if (Status started = w.start(goal); !started.ok()) {
    if (!w.recorded()) return started.error();
    return w.end_not_started(started.error());
  }
  executor::Executor& ex = w.executor();
  ex.facts().source = "exec";
  ex.set_goal_kind(plan.goal_kind.value_or(GoalKind::kModify), parse.fixed_kind ? "--kind" : "the plan");
  w.trajectory().record(event::kPlan, {{"round", 1}, {"plan", plan.source}});
  ex.facts().planner_questions = plan.questions;
  ExecStop stop = exec_stop(ex.run_round(plan, 1), plan, ex);
  std::string goal_failure = ex.run_goal_assertions(w.expects(), w.guards());
  if (stop.detail.empty() && !goal_failure.empty()) stop.detail = goal_failure;
  if (observer_ != nullptr) observer_->steps_ended();
  TRY(RunResult result, w.finish(ex.finish(stop.status, stop.exhausted, stop.detail), judge.get(), judge_policy));
  if (cancelled()) result.exit = ExitCategory::kCancelled;
  return result;
}

}  // namespace candor::app
