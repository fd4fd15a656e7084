#include <CLI/CLI.hpp>

#include <cstring>
#include <string_view>

#include "cli/commands.h"
#include "cli/version.h"  // generated: CANDOR_VERSION, from project() in meson.build

namespace {

// Overwrites, in candor's own argv (what /proc/<pid>/cmdline shows every process on the machine,
// a sandboxed step included), the value given to `option`, as "--option VALUE" or
// "--option=VALUE", wherever it occurs (over-wiping is harmless: CLI11 has already copied every
// argument). The length still shows; the text does not.
void wipe_option_value(int argc, char** argv, std::string_view option) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    char* value = nullptr;
    if (arg == option && i + 1 < argc) {
      value = argv[++i];
    } else if (arg.size() > option.size() && arg.substr(0, option.size()) == option && arg[option.size()] == '=') {
      value = argv[i] + option.size() + 1;
    }
    if (value != nullptr) std::memset(value, '*', std::strlen(value));
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace candor::cli;
  CLI::App app{"candor: run modification goals over a workspace and say honestly whether they were achieved", "candor"};
  app.require_subcommand(1);
  app.set_version_flag("-V,--version", "candor " CANDOR_VERSION);
  // llm::choose_provider's rule, for the --llm help texts.
  const std::string llm_default =
      "default: $CANDOR_LLM, else anthropic if $ANTHROPIC_API_KEY is set, else openai if $OPENAI_API_KEY or $OPENAI_BASE_URL is";

  // The options `run` and `exec` share: where, what is stored, the goal-level checks, budgets.
  auto add_session_options = [](CLI::App* cmd, SessionArgs& s) {
    cmd->add_option("-C,--workspace", s.workspace, "workspace folder (default: .)");
    cmd->add_option("--store", s.store_dir, "run store folder (default: $CANDOR_HOME or ~/.local/state/candor)");
    cmd->add_option("--expect", s.expects, "goal-level assertion JSON, checked at the end (repeatable)");
    cmd->add_option("--max-steps", s.max_steps, "step budget (default 50)")->check(CLI::Range(1, 100000));
    cmd->add_option("--timeout", s.timeout_s, "time budget in seconds (default 600)")->check(CLI::Range(1, 604800));
    cmd->add_flag("--allow-network", s.allow_network, "let shell steps use the network (closed by default)");
    cmd->add_flag("--require-sandbox", s.require_sandbox, "refuse to run unless every sandbox protection is available");
    cmd->add_option("--acceptance", s.acceptance_file, "acceptance spec JSON: checkpoints the run's trajectory must hit (DESIGN.md)");
    cmd->add_option("--kind", s.kind, "the goal kind, fixed before any plan: modify (asks for a change) or inspect (asks a question)")
        ->check(CLI::IsMember({"modify", "inspect"}));
    cmd->add_option("--pass-env", s.pass_env, "an environment variable shell steps may see although it looks like a credential (repeatable)");
  };

  RunArgs run;
  auto* run_cmd = app.add_subcommand("run", "plan, execute and verify a goal with an LLM planner");
  run_cmd->add_option("goal", run.goal, "the goal, in words")->required();
  run_cmd->add_option("--llm", run.llm, "PROVIDER[:MODEL]: anthropic, openai, script:FILE, command:PROG (" + llm_default + ")");
  add_session_options(run_cmd, run.session);
  run_cmd->add_option("--max-replans", run.session.max_replans, "replan budget (default 3)")->check(CLI::Range(0, 1000));
  run_cmd->add_option("--max-tokens", run.session.max_tokens, "token budget (default 200000)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  run_cmd->add_option("--judge", run.judge, "tier 2: auto (when tier 1 is ambiguous), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  run_cmd->add_option("--criterion", run.criterion, "a criterion the worker never sees, checked by an independent reviewer");
  run_cmd->add_option("--criterion-file", run.criterion_file, "the reviewer's criterion, from a file");
  run_cmd->add_option("--max-goal-attempts", run.max_goal_attempts, "reviews before giving up (default 5)")->check(CLI::Range(1, 100));
  run_cmd->add_flag("--json", run.json, "print the report as JSON");
  run_cmd->add_flag("-q,--quiet", run.quiet, "no progress lines while running");

  ExecArgs exec;
  auto* exec_cmd = app.add_subcommand("exec", "execute a given plan, then verify (no planner, no replans)");
  exec_cmd->add_option("plan", exec.plan_file, "plan JSON file (DESIGN.md: Plan)")->required();
  exec_cmd->add_option("--goal", exec.goal, "the goal text to record (default: exec PLAN)");
  add_session_options(exec_cmd, exec.session);
  exec_cmd->add_option("--llm", exec.llm, "PROVIDER[:MODEL] for the tier-2 judge (" + llm_default + "; with none, no judge)");
  exec_cmd->add_option("--judge", exec.judge, "tier 2: auto (when tier 1 is ambiguous), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  exec_cmd->add_flag("--json", exec.json, "print the report as JSON");

  RunsArgs runs;
  auto* runs_cmd = app.add_subcommand("runs", "recorded runs, newest first");
  runs_cmd->add_option("--store", runs.store_dir, "run store folder");
  runs_cmd->add_option("--limit", runs.limit, "how many runs (default 20)")->check(CLI::Range(1, 1000000));
  runs_cmd->add_option("--verdict", runs.verdict, "only runs with this verdict")->check(CLI::IsMember({"success", "partial", "fail"}));
  runs_cmd->add_option("--since", runs.since, "only runs newer than this: 2d, 12h, 30m, or an RFC 3339 time");
  runs_cmd->add_flag("--json", runs.json, "print JSON");

  ReportArgs report;
  auto* report_cmd = app.add_subcommand("report", "a run's report (default: the latest)");
  report_cmd->add_option("run", report.run, "run id, unique prefix, or last");
  report_cmd->add_option("--store", report.store_dir, "run store folder");
  report_cmd->add_flag("--json", report.json, "print the report JSON");
  report_cmd->add_flag("--markdown", report.markdown, "print Markdown for a pull-request comment");
  report_cmd->add_option("--html", report.html_file, "write one self-contained HTML file");
  report_cmd->add_option("--junit", report.junit_file, "write JUnit XML");
  report_cmd->add_flag("-v,--verbose", report.verbose, "add every step with its capped output");

  VerifyArgs verify;
  auto* verify_cmd = app.add_subcommand("verify", "recompute the verdict of a recorded run (no planner)");
  verify_cmd->add_option("run", verify.run, "run id, unique prefix, or last");
  verify_cmd->add_option("--store", verify.store_dir, "run store folder");
  verify_cmd->add_option("--judge", verify.judge, "tier 2: never (default), auto, always")->check(CLI::IsMember({"auto", "always", "never"}));
  verify_cmd->add_option("--llm", verify.llm, "PROVIDER[:MODEL] for the judge (" + llm_default + ")");
  verify_cmd->add_flag("--json", verify.json, "print the report JSON");
  verify_cmd->add_option("--acceptance", verify.acceptance_file, "check the run (or the trajectory) against this acceptance spec");
  verify_cmd->add_option("--trajectory", verify.trajectory_file, "verify another agent's transcript instead of a recorded run");
  verify_cmd->add_option("--format", verify.format, "the transcript's format: claude-code, swe-agent, openhands, codex")
      ->check(CLI::IsMember({"claude-code", "swe-agent", "openhands", "codex"}));

  CheckArgs check;
  auto* check_cmd = app.add_subcommand("check", "validate an acceptance spec without running anything");
  check_cmd->add_option("spec", check.spec_file, "acceptance spec JSON")->required();
  check_cmd->add_option("--format", check.format, "check against this agent's tools instead of candor's: claude-code, swe-agent, openhands, codex")
      ->check(CLI::IsMember({"claude-code", "swe-agent", "openhands", "codex"}));

  UndoArgs undo;
  auto* undo_cmd = app.add_subcommand("undo", "restore the workspace files a run changed, from its snapshot");
  undo_cmd->add_option("run", undo.run, "run id, unique prefix, or last")->required();
  undo_cmd->add_option("--store", undo.store_dir, "run store folder");
  undo_cmd->add_flag("--force", undo.force, "restore even files that changed after the run");

  EvaluatorsArgs evaluators;
  auto* evaluators_cmd = app.add_subcommand("evaluators", "the assertion types available, with their arguments");
  evaluators_cmd->add_option("-C,--workspace", evaluators.workspace, "include this workspace's external evaluators (default: .)");
  evaluators_cmd->add_flag("--json", evaluators.json, "print JSON");

  AssertArgs assert_args;
  auto* assert_cmd = app.add_subcommand("assert", "check assertions against a workspace, without a run (exit 0 only if all pass)");
  assert_cmd->add_option("assertion", assert_args.assertions, "assertion JSON, e.g. '{\"type\": \"file_exists\", \"path\": \"a\"}'")
      ->required();
  assert_cmd->add_option("-C,--workspace", assert_args.workspace, "workspace folder (default: .)");
  assert_cmd->add_flag("--allow-network", assert_args.allow_network, "let commands use the network");
  assert_cmd->add_flag("--json", assert_args.json, "print JSON");

  bool doctor_json = false;
  auto* doctor_cmd = app.add_subcommand("doctor", "which sandbox protections this machine gives shell steps");
  doctor_cmd->add_flag("--json", doctor_json, "print JSON");

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
  if (run_cmd->parsed() && !run.criterion.empty()) wipe_option_value(argc, argv, "--criterion");
  try {
    if (run_cmd->parsed()) return run_command(run);
    if (exec_cmd->parsed()) return exec_command(exec);
    if (runs_cmd->parsed()) return runs_command(runs);
    if (report_cmd->parsed()) return report_command(report);
    if (evaluators_cmd->parsed()) return evaluators_command(evaluators);
    if (assert_cmd->parsed()) return assert_command(assert_args);
    if (verify_cmd->parsed()) return verify_command(verify);
    if (undo_cmd->parsed()) return undo_command(undo);
    if (doctor_cmd->parsed()) return doctor_command(doctor_json);
    if (check_cmd->parsed()) return check_command(check);
  } catch (const std::exception& e) {
    return report_error(candor::make_error(candor::ErrorCode::kInternal, std::string("internal error: ") + e.what()));
  }
  return kExitUsage;
}
