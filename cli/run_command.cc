// `candor run "GOAL"`: the planner loop over a workspace.
#include <unistd.h>

#include <csignal>
#include <cstdlib>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/finish_run.h"
#include "report/progress.h"
#include "cli/session.h"
#include "executor/goal_gate.h"
#include "executor/run_loop.h"
#include "llm/provider.h"
#include "report/report.h"

namespace candor::cli {
namespace {


}  // namespace

int run_command(const RunArgs& args) {
  std::string spec = args.llm;
  if (spec.empty() && std::getenv("CANDOR_LLM") != nullptr) spec = std::getenv("CANDOR_LLM");
  if (spec.empty()) {
    return report_error(make_error(ErrorCode::kUsage, "no LLM provider: pass --llm PROVIDER[:MODEL] or set CANDOR_LLM "
                                                      "(anthropic, openai, script:FILE, command:PROG)"));
  }
  if (args.goal.find_first_not_of(" \t\n") == std::string::npos) {
    return report_error(make_error(ErrorCode::kUsage, "the goal is empty"));
  }
  bool tty = ::isatty(STDERR_FILENO) == 1;
  report::TerminalProgress progress(stderr, tty, report::want_color(STDERR_FILENO));

  SessionArgs sa = args.session;
  sa.progress = args.quiet ? nullptr : &progress;
  sa.cancel = &interrupted();
  auto session = Session::open(sa);
  if (!session.ok()) return report_error(session.error());
  Session& s = **session;

  llm::ProviderOptions provider_options;
  provider_options.cancel = &interrupted();
  auto provider = llm::make_provider(spec, provider_options);
  if (!provider.ok()) return report_error(provider.error());

  std::string criterion = args.criterion;
  if (!args.criterion_file.empty()) {
    if (!criterion.empty()) return report_error(make_error(ErrorCode::kUsage, "give --criterion or --criterion-file, not both"));
    auto text = read_text_file(args.criterion_file);
    if (!text.ok()) return report_error(text.error());
    criterion = *text;
  }

  install_interrupt_handler();
  if (Status started = s.start(args.goal); !started.ok()) return report_error(started.error());
  planner::PlannerOptions planner_options;
  planner_options.reviewed = !criterion.empty();
  if (!sa.kind.empty()) planner_options.kind = parse_goal_kind(sa.kind);
  planner::Planner planner(**provider, s.catalog(), executor::recording_hooks(s.executor(), s.trajectory()), planner_options);
  executor::RunLoop loop(s.executor(), planner, s.workspace(), s.trajectory(), {args.goal, s.expects(), 200});
  std::unique_ptr<executor::Reviewer> reviewer;
  if (!criterion.empty()) {
    reviewer = std::make_unique<executor::Reviewer>(**provider, s.tools(), s.workspace(), s.options().network, s.trajectory(),
                                                    executor::ReviewerOptions{criterion, 8, 16 * 1024});
  }
  executor::GoalResult result = executor::run_goal(loop, s.executor(), reviewer.get(), args.max_goal_attempts, args.goal);
  remove_interrupt_handler();
  int code = s.finish(result.facts, args.json, provider->get(), *verify::parse_judge_policy(args.judge), planner.questions());
  if (result.provider_failed) {
    std::fprintf(stderr, "candor: the LLM provider (%s) failed: %s\n", (*provider)->describe().c_str(),
                 result.facts.status_detail.c_str());
    return interrupted().load() ? kExitCancelled : kExitUnavailable;
  }
  return interrupted().load() ? kExitCancelled : code;
}

}  // namespace candor::cli
