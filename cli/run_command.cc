// `candor run "GOAL"`: the planner loop over a workspace.
#include <csignal>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/finish_run.h"
#include "cli/progress_output.h"
#include "cli/session.h"
#include "executor/goal_gate.h"
#include "executor/run_loop.h"
#include "llm/provider.h"
#include "report/escape.h"
#include "report/report.h"

namespace candor::cli {

int run_command(const RunArgs& args) {
  llm::ProviderChoice choice = llm::choose_provider(args.llm);
  if (choice.spec.empty()) return report_error(make_error(ErrorCode::kUsage, std::string("no LLM provider: ") + llm::kNoProviderHint));
  if (args.goal.find_first_not_of(" \t\n") == std::string::npos) {
    return report_error(make_error(ErrorCode::kUsage, "the goal is empty"));
  }
  auto progress = stderr_progress(args.session.quiet);

  SessionArgs sa = args.session;
  sa.progress = progress.get();
  sa.cancel = &interrupted();
  auto session = Session::open(sa);
  if (!session.ok()) return report_error(session.error());
  Session& s = **session;
  if (progress != nullptr) progress->set_masker(s.masker());

  llm::ProviderOptions provider_options;
  provider_options.cancel = &interrupted();
  provider_options.masker = s.masker();
  auto provider = llm::make_provider(choice.spec, provider_options);
  if (!provider.ok()) return report_error(provider.error());

  std::string criterion = args.criterion;  // main() has already wiped it from candor's argv
  if (!args.criterion_file.empty()) {
    if (!criterion.empty()) return report_error(make_error(ErrorCode::kUsage, "give --criterion or --criterion-file, not both"));
    // The worker's steps can read the whole workspace; a criterion kept there is no secret.
    if (path_within(args.criterion_file, s.workspace().root())) {
      return report_error(make_error(ErrorCode::kUsage, fmt::format("--criterion-file {} lies inside the workspace {}, where the "
                                                                    "worker's steps can read it: keep it outside",
                                                                    args.criterion_file, s.workspace().root())));
    }
    auto text = read_text_file(args.criterion_file);
    if (!text.ok()) return report_error(text.error());
    criterion = *text;
    s.hide_from_steps(args.criterion_file);
  }

  s.options().judge_policy = args.judge;
  install_interrupt_handler();
  if (Status started = s.start(args.goal); !started.ok()) return report_error(started.error());
  planner::PlannerOptions planner_options;
  planner_options.reviewed = !criterion.empty();
  if (!sa.kind.empty()) planner_options.kind = parse_goal_kind(sa.kind);
  planner::Planner planner(**provider, s.catalog(), executor::recording_hooks(s.executor(), s.trajectory()), planner_options);
  executor::RunLoop loop(s.executor(), planner, s.workspace(), s.trajectory(), {args.goal, s.expects(), s.guards(), 200});
  std::unique_ptr<executor::Reviewer> reviewer;
  if (!criterion.empty()) {
    reviewer = std::make_unique<executor::Reviewer>(**provider, s.tools(), s.workspace(), s.options().network, s.trajectory(),
                                                    executor::ReviewerOptions{criterion, 8, 16 * 1024});
  }
  executor::GoalResult result = executor::run_goal(loop, s.executor(), reviewer.get(), args.max_goal_attempts, args.goal);
  remove_interrupt_handler();
  result.facts.provider = (*provider)->describe();
  int code = s.finish(result.facts, args.json, provider->get(), *verify::parse_judge_policy(args.judge), planner.questions());
  if (result.provider_failed) {
    std::fprintf(stderr, "candor: the LLM provider (%s) failed: %s\n", (*provider)->describe().c_str(),
                 report::terminal_safe(result.facts.status_detail, true).c_str());
    return interrupted().load() ? kExitCancelled : kExitUnavailable;
  }
  if (result.input_refused) {
    // DESIGN: a reply past the JSON limits is refused input (exit 65); the run is still recorded.
    std::fprintf(stderr, "candor: the planner's reply was refused: %s\n",
                 report::terminal_safe(result.facts.status_detail, true).c_str());
    return interrupted().load() ? kExitCancelled : kExitInvalidInput;
  }
  return interrupted().load() ? kExitCancelled : code;
}

}  // namespace candor::cli
