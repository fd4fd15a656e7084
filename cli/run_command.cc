// `candor run "GOAL"`: the planner loop over a workspace.
#include "app/session.h"
#include "cli/commands.h"
#include "cli/observer.h"
#include "cli/options.h"
#include "cli/run_output.h"

namespace candor::cli {
namespace {

struct RunArgs {
  app::RunRequest request;
  bool json = false;
  bool quiet = false;
};

int run_command(const RunArgs& args) {
  StderrObserver observer(args.quiet);
  app::Session session(&observer);
  observer.cancel_on_interrupt(&session);
  auto result = session.run(args.request);
  if (!result.ok()) return report_error(result.error());
  return print_run_result(*result, args.json ? ReportFormat::kJson : ReportFormat::kTerminal);
}

}  // namespace

Subcommand add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  app::RunRequest& run = args->request;
  auto* cmd = app.add_subcommand("run", "plan, execute and verify a goal with an LLM planner");
  cmd->add_option("goal", run.goal, "the goal, in words")->required();
  cmd->add_option("--llm", run.llm,
                  "PROVIDER[:MODEL]: anthropic, openai, script:FILE, command:PROG (" + llm_default() + ")");
  add_workspace_options(cmd, run.workspace, args->quiet);
  cmd->add_option("--max-replans", run.workspace.max_replans, "replan budget (default 3)")
      ->check(whole_number(0, 1000, "replans"));
  cmd->add_option("--max-tokens", run.workspace.max_tokens, "token budget (default 200000)")
      ->check(whole_number(1, 1LL << 40, "tokens"));
  judge_policy(cmd->add_option("--judge", run.judge, "tier 2: auto (when tier 1 is ambiguous), always, never"));
  cmd->add_option("--criterion", run.criterion,
                  "a criterion the worker never sees, checked by an independent reviewer");
  cmd->add_option("--criterion-file", run.criterion_file, "the reviewer's criterion, from a file");
  cmd->add_option("--max-goal-attempts", run.max_goal_attempts, "reviews before giving up (default 5)")
      ->check(whole_number(1, 100, "attempts"));
  cmd->add_flag("--json", args->json, "print the report as JSON");
  cmd->footer(examples("candor run \"Change the background to dark green\" -C ./site",
                       "candor run \"Fix the failing test\" --llm openai:qwen2.5-coder --timeout 300"));
  // The criterion is wiped from candor's argv once parsed (run() has its copy).
  auto scrub = [args](int argc, char** argv) {
    if (!args->request.criterion.empty()) wipe_option_value(argc, argv, "--criterion");
  };
  return {cmd, [args] { return run_command(*args); }, scrub};
}

}  // namespace candor::cli
