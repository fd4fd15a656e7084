// `candor verify`: a recorded run's verdict worked out again (RUN), a change made elsewhere
// (--git RANGE), or another agent's transcript (--trajectory FILE --format F).
#include <cstdio>

#include "app/acceptance_check.h"
#include "app/session.h"
#include "cli/commands.h"
#include "cli/observer.h"
#include "cli/options.h"
#include "cli/run_output.h"

namespace candor::cli {
namespace {

struct VerifyArgs {
  std::string run = "last";
  bool any = false;  // last: the store's latest run, not -C's
  std::string store_dir;
  std::string judge;  // "" = the policy the run was recorded with (never for older runs); with --git, auto
  std::string llm;
  bool json = false;
  std::string acceptance_file;
  std::string trajectory_file;  // with `format`: another agent's transcript instead of a run
  std::string format;
  bool quiet = false;         // -q: no "judge… N s" on a terminal while the judge is asked
  app::VerifyGitRequest git;  // --git RANGE and the options that go with it
  bool markdown = false;
};

int verify_run(const VerifyArgs& args) {
  StderrObserver observer(args.quiet);
  app::Session session(&observer);
  app::VerifyRequest request{.run = args.run,
                             .store_dir = args.store_dir,
                             .judge = args.judge,
                             .llm = args.llm,
                             .acceptance_file = args.acceptance_file,
                             .workspace = args.git.repo,  // -C: the workspace whose last run is verified
                             .any = args.any};
  auto result = session.verify(request);
  if (!result.ok()) return report_error(result.error());
  const app::VerifyResult& r = *result;
  if (args.json) {
    std::puts(r.report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else if (args.markdown) {
    print_report(r.report, ReportFormat::kMarkdown);
  } else {
    if (!r.ended)
      std::printf("run %s never ended: verified from its %zu recorded events\n\n", r.facts.run_id.c_str(), r.events);
    print_report(r.report, ReportFormat::kTerminal);
  }
  if (r.judge.provider_failed)
    std::fprintf(stderr, "candor: the judge's LLM provider failed: %s\n", r.judge.error.c_str());
  return exit_code(r.exit);
}

int verify_git(const VerifyArgs& args) {
  app::VerifyGitRequest request = args.git;
  request.store_dir = args.store_dir;
  request.judge = args.judge;
  request.llm = args.llm;
  request.acceptance_file = args.acceptance_file;
  request.trajectory_file = args.trajectory_file;
  request.format = args.format;
  StderrObserver observer(true);  // no progress: the judge's wait is not shown
  app::Session session(&observer);
  auto result = session.verify_git(request);
  if (!result.ok()) return report_error(result.error());
  return print_run_result(*result, args.json       ? ReportFormat::kJson
                                   : args.markdown ? ReportFormat::kMarkdown
                                                   : ReportFormat::kTerminal);
}

int verify_command(const VerifyArgs& args) {
  if (!args.git.range.empty()) return verify_git(args);
  if (!args.trajectory_file.empty()) {
    if (args.markdown)
      return report_error(
          make_error(ErrorCode::kUsage, "--markdown: a transcript's check is printed as text or --json"));
    return verify_trajectory_command(args.trajectory_file, args.format, args.acceptance_file, args.json);
  }
  return verify_run(args);
}

// The options that only --git takes.
void add_git_options(CLI::App* cmd, app::VerifyGitRequest& git, bool& markdown) {
  cmd->add_option(
      "--git", git.range,
      "verify a change made elsewhere: A..B, A...B (from the merge base), one commit C, or BASE.. (BASE to the "
      "uncommitted working tree, with BASE's ignore rules)");
  cmd->add_option("-C,--repo", git.repo,
                  "with --git: the repository's root; else the workspace whose latest run last is (default: .)");
  cmd->add_option("--goal", git.goal, "with --git: the goal the change was made for");
  cmd->add_option("--goal-file", git.goal_file, "with --git: the goal, from a file (an issue's text)");
  one_of(cmd->add_option("--kind", git.kind, "with --git: modify (default) or inspect"), {"modify", "inspect"});
  cmd->add_option("--expect", git.expects, "with --git: assertion JSON checked on the change's result (repeatable)");
  cmd->add_option("--guard", git.guards,
                  "with --git: assertion JSON that must still hold on the change's result; never evidence of the goal "
                  "(repeatable)");
  cmd->add_option("--question", git.questions,
                  "with --git: a yes/no question for the judge (repeatable; default: the goal decomposed)");
  cmd->add_option("--timeout", git.timeout_s,
                  "with --git: the time budget in seconds (the judge and the commands included; default 600)")
      ->check(whole_number(1, 86400, "seconds"))
      ->type_name("SECONDS");
  cmd->add_option("--scope", git.scope,
                  "with --git: GLOB, a path the change may touch (repeatable); a change elsewhere blocks success");
  cmd->add_flag("--markdown", markdown, "print the report as Markdown, for a pull-request comment");
  cmd->add_option("--criterion", git.criterion,
                  "with --git: a criterion an independent reviewer checks on the change's files");
  cmd->add_option("--criterion-file", git.criterion_file, "with --git: the reviewer's criterion, from a file");
}

}  // namespace

Subcommand add_verify_command(CLI::App& app) {
  auto args = std::make_shared<VerifyArgs>();
  VerifyArgs& verify = *args;
  auto* cmd = app.add_subcommand("verify", "recompute the verdict of a recorded run (no planner)");
  cmd->add_option("run", verify.run,
                  "run id, a unique prefix or suffix (the random part), or last (this workspace's latest run)");
  cmd->add_flag("--any", verify.any, "last is the store's latest run, whatever workspace it was made in");
  cmd->add_option("--store", verify.store_dir, "run store: a folder, or a postgres:// URL (the team store)");
  judge_policy(cmd->add_option("--judge", verify.judge,
                               "tier 2: auto, always, never (default: the policy the run was recorded with; never for "
                               "runs recorded before it was kept)"));
  cmd->add_option("--llm", verify.llm, "PROVIDER[:MODEL] for the judge (" + llm_default() + ")");
  cmd->add_flag("--json", verify.json, "print the report JSON");
  cmd->add_flag("-q,--quiet", verify.quiet, "no progress on stderr while the judge is asked");
  cmd->add_option("--acceptance", verify.acceptance_file,
                  "check the run (or the trajectory) against this acceptance spec");
  cmd->add_option("--trajectory", verify.trajectory_file,
                  "verify another agent's transcript instead of a recorded run");
  one_of(cmd->add_option("--format", verify.format, "the transcript's format (docs/acceptance.md)"),
         app::transcript_format_names());
  add_git_options(cmd, verify.git, verify.markdown);
  cmd->footer(examples("candor verify last",
                       "candor verify --git main...HEAD --goal-file issue.md --expect '{\"type\": \"file_contains\", "
                       "\"path\": \"README.md\", \"text\": \"Install\"}'"));
  auto scrub = [args](int argc, char** argv) {
    if (!args->git.criterion.empty()) wipe_option_value(argc, argv, "--criterion");
  };
  return {cmd, [args] { return verify_command(*args); }, scrub};
}

}  // namespace candor::cli
