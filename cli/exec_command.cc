// `candor exec PLAN.json`: one given plan, no planner, no replans.
#include "app/session.h"
#include "cli/commands.h"
#include "cli/observer.h"
#include "cli/options.h"
#include "cli/run_output.h"

namespace candor::cli {
namespace {

struct ExecArgs {
  app::ExecRequest request;
  bool json = false;
  bool quiet = false;
};

int exec_command(const ExecArgs& args) {
  StderrObserver observer(args.quiet);
  app::Session session(&observer);
  observer.cancel_on_interrupt(&session);
  auto result = session.exec(args.request);
  if (!result.ok()) return report_error(result.error());
  return print_run_result(*result, args.json ? ReportFormat::kJson : ReportFormat::kTerminal);
}

}  // namespace

Subcommand add_exec_command(CLI::App& app) {
  auto args = std::make_shared<ExecArgs>();
  app::ExecRequest& exec = args->request;
  auto* cmd = app.add_subcommand("exec", "execute a given plan, then verify (no planner, no replans)");
  cmd->add_option("plan", exec.plan_file, "plan JSON file (docs/design.md: The plan)")->required();
  cmd->add_option("--goal", exec.goal, "the goal text to record (default: exec PLAN)");
  add_workspace_options(cmd, exec.workspace, args->quiet);
  cmd->add_option("--llm", exec.llm,
                  "PROVIDER[:MODEL] for the tier-2 judge (" + llm_default() + "; with none, no judge)");
  judge_policy(cmd->add_option("--judge", exec.judge, "tier 2: auto (when tier 1 is ambiguous), always, never"));
  cmd->add_flag("--json", args->json, "print the report as JSON");
  cmd->footer(examples(
      "candor exec plan.json -C ./site",
      "candor exec plan.json -C ./site --json --expect '{\"type\": \"file_exists\", \"path\": \"index.html\"}'"));
  return {cmd, [args] { return exec_command(*args); }, nullptr};
}

}  // namespace candor::cli
