#include <CLI/CLI.hpp>

#include "cli/commands.h"

int main(int argc, char** argv) {
  using namespace candor::cli;
  CLI::App app{"candor: run modification goals over a workspace and say honestly whether they were achieved"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "candor 0.1.0");

  ExecArgs exec;
  auto* exec_cmd = app.add_subcommand("exec", "execute a given plan, then verify (no planner, no replans)");
  exec_cmd->add_option("plan", exec.plan_file, "plan JSON file (DESIGN.md: Plan)")->required();
  exec_cmd->add_option("-C,--workspace", exec.workspace, "workspace folder (default: .)");
  exec_cmd->add_option("--store", exec.store_dir, "run store folder (default: $CANDOR_HOME or ~/.local/state/candor)");
  exec_cmd->add_option("--goal", exec.goal, "the goal text to record (default: exec PLAN)");
  exec_cmd->add_option("--expect", exec.expects, "goal-level assertion JSON, checked at the end (repeatable)");
  exec_cmd->add_option("--max-steps", exec.max_steps, "step budget")->check(CLI::Range(1, 100000));
  exec_cmd->add_option("--timeout", exec.timeout_s, "time budget in seconds")->check(CLI::Range(1, 604800));
  exec_cmd->add_flag("--json", exec.json, "print the report as JSON");

  RunsArgs runs;
  auto* runs_cmd = app.add_subcommand("runs", "recorded runs, newest first");
  runs_cmd->add_option("--store", runs.store_dir, "run store folder");
  runs_cmd->add_option("--limit", runs.limit, "how many runs (default 20)")->check(CLI::Range(1, 1000000));
  runs_cmd->add_flag("--json", runs.json, "print JSON");

  ReportArgs report;
  auto* report_cmd = app.add_subcommand("report", "a run's report (default: the latest)");
  report_cmd->add_option("run", report.run, "run id, unique prefix, or last");
  report_cmd->add_option("--store", report.store_dir, "run store folder");
  report_cmd->add_flag("--json", report.json, "print the report JSON");

  bool evaluators_json = false;
  auto* evaluators_cmd = app.add_subcommand("evaluators", "the assertion types available, with their arguments");
  evaluators_cmd->add_flag("--json", evaluators_json, "print JSON");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  try {
    if (exec_cmd->parsed()) return exec_command(exec);
    if (runs_cmd->parsed()) return runs_command(runs);
    if (report_cmd->parsed()) return report_command(report);
    if (evaluators_cmd->parsed()) return evaluators_command(evaluators_json);
  } catch (const std::exception& e) {
    return report_error(candor::make_error(candor::ErrorCode::kInternal, std::string("internal error: ") + e.what()));
  }
  return kExitUsage;
}
