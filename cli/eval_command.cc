// `candor eval TASKS.jsonl`, `candor eval report ID`, `candor eval status ID` (docs/eval.md).
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "app/eval.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "report/escape.h"
#include "report/eval_report.h"

namespace candor::cli {
namespace {

struct EvalArgs {
  app::EvalRequest request;
  std::string report_id, status_id;
  bool json = false, markdown = false;
  std::string html_file, junit_file;
  std::string store_dir;  // for report and status
  bool quiet = false;
};

std::string own_path() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "candor";
}

int run_command(EvalArgs& args) {
  args.request.candor_path = own_path();
  const bool quiet = args.quiet;
  auto result = app::run_eval(args.request, [quiet](const std::string& line) {
    if (!quiet) std::fprintf(stderr, "%s\n", report::terminal_safe(line).c_str());
  });
  if (!result.ok()) return report_error(result.error());
  std::printf("eval %s: %d task%s in this shard, %d attempt%s run, %d recorded before%s; stored in %s\n",
              result->eval_id.c_str(), result->tasks, result->tasks == 1 ? "" : "s", result->ran,
              result->ran == 1 ? "" : "s", result->skipped,
              result->infra_errors > 0 ? fmt::format(", {} infrastructure error{} (not the agent's)",
                                                     result->infra_errors, result->infra_errors == 1 ? "" : "s")
                                             .c_str()
                                       : "",
              report::terminal_safe(result->store).c_str());
  std::printf("next: candor eval report %s\n", result->eval_id.c_str());
  return exit_code(app::ExitCategory::kSuccess);
}

int report_command(const EvalArgs& args) {
  auto eval = app::eval_report(args.report_id, args.store_dir);
  if (!eval.ok()) return report_error(eval.error());
  if (args.json) {
    std::puts(eval->dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else if (args.markdown) {
    std::fputs(report::render_eval_markdown(*eval).c_str(), stdout);
  } else if (args.html_file.empty() && args.junit_file.empty()) {
    std::fputs(report::render_eval_terminal(*eval).c_str(), stdout);
  }
  if (!args.html_file.empty()) {
    if (Status s =
            write_output(args.html_file, report::render_eval_html(*eval), "the HTML report of eval " + args.report_id);
        !s.ok())
      return report_error(s.error());
  }
  if (!args.junit_file.empty()) {
    if (Status s =
            write_output(args.junit_file, report::render_eval_junit(*eval), "JUnit XML of eval " + args.report_id);
        !s.ok())
      return report_error(s.error());
  }
  return exit_code(app::ExitCategory::kSuccess);
}

int status_command(const EvalArgs& args) {
  auto status = app::eval_status(args.status_id, args.store_dir);
  if (!status.ok()) return report_error(status.error());
  if (args.json) {
    std::puts(status->dump(2).c_str());
    return exit_code(app::ExitCategory::kSuccess);
  }
  std::printf("eval %s: %lld tasks\n", report::terminal_safe(args.status_id).c_str(),
              (*status)["tasks"].get<long long>());
  std::printf("  %-22s %5s %6s %5s %8s %6s %8s\n", "AGENT", "SHARD", "TASKS", "DONE", "RUNNING", "INFRA", "MISSING");
  for (const auto& s : (*status)["shards"]) {
    std::printf("  %-22s %5lld %6lld %5lld %8lld %6lld %8lld\n",
                report::terminal_safe(report::shorten(s["agent"].get<std::string>(), 22)).c_str(),
                s["shard"].get<long long>(), s["tasks"].get<long long>(), s["attempts_done"].get<long long>(),
                s["attempts_running"].get<long long>(), s["infra_errors"].get<long long>(),
                s["tasks_missing"].get<long long>());
  }
  if ((*status)["shards"].empty()) std::printf("  no attempt recorded yet\n");
  return exit_code(app::ExitCategory::kSuccess);
}

}  // namespace

Subcommand add_eval_command(CLI::App& app) {
  auto args = std::make_shared<EvalArgs>();
  auto* cmd = app.add_subcommand(
      "eval", "run an agent on each task of a task file, verify every attempt, and report claimed vs verified");
  cmd->add_option("tasks", args->request.tasks_file, "the task file: one JSON object a line (docs/eval.md)");
  cmd->add_option("--agent", args->request.agent,
                  "who does the tasks: claude-code (claude -p), codex (codex exec), candor (its own loop, with "
                  "--llm), or command:PROG (PROG GOAL, in the checkout)")
      ->type_name("claude-code|codex|candor|command:PROG")
      ->check([](const std::string& v) {
        return v == "claude-code" || v == "codex" || v == "candor" || (v.rfind("command:", 0) == 0 && v.size() > 8)
                   ? std::string()
                   : std::string("expected claude-code, codex, candor or command:PROG");
      });
  cmd->add_option("--llm", args->request.llm,
                  "PROVIDER[:MODEL] for the judge and for --agent candor; " + llm_default());
  judge_policy(cmd->add_option("--judge", args->request.judge, "when the judge is asked (default auto)"));
  cmd->add_option("--shard", args->request.shard,
                  "I/N: only the tasks whose stable hash of the id mod N is I (0 <= I < N); needs --eval-id");
  cmd->add_option("--attempts", args->request.attempts, "attempts per task (default 1)")
      ->check(whole_number(1, 100, "attempts"));
  cmd->add_option("--eval-id", args->request.eval_id,
                  "the eval these attempts belong to: the same id joins shards and re-runs (default: a new one)");
  cmd->add_option("--jobs", args->request.jobs, "attempts at once on this machine (default 1; at most the cores)")
      ->check(whole_number(1, 256, "jobs"));
  cmd->add_option("--store", args->request.store_dir, "run store: a folder, or a postgres:// URL (the team store)");
  cmd->add_flag("-q,--quiet", args->quiet, "no progress lines on stderr");

  auto* report = cmd->add_subcommand("report", "an eval's report: per agent claimed vs verified, each cheat named");
  report->add_option("id", args->report_id, "the eval id")->required();
  report->add_option("--store", args->store_dir, "run store: a folder, or a postgres:// URL (the team store)");
  auto* json = report->add_flag("--json", args->json, "print JSON");
  report->add_flag("--markdown", args->markdown, "print Markdown (fits a pull request comment)")->excludes(json);
  report->add_option("--html", args->html_file, "write a self-contained HTML page to FILE");
  report->add_option("--junit", args->junit_file, "write JUnit XML to FILE (a test case per attempt)");
  report->footer(examples("candor eval report gh-4242 --markdown >> \"$GITHUB_STEP_SUMMARY\"",
                          "candor eval report gh-4242 --junit eval.xml"));

  auto* status = cmd->add_subcommand("status", "an eval's progress per shard: tasks done, running, missing");
  status->add_option("id", args->status_id, "the eval id")->required();
  status->add_option("--store", args->store_dir, "run store: a folder, or a postgres:// URL (the team store)");
  status->add_flag("--json", args->json, "print JSON");
  status->footer(examples("candor eval status gh-4242", "candor eval status gh-4242 --json"));

  cmd->footer(
      examples("candor eval tasks.jsonl --agent claude-code --attempts 3",
               "candor eval tasks.jsonl --agent codex --shard 0/3 --eval-id gh-4242 --store postgres://ci@db/candor") +
      "\nExit status:\n  0  every attempt of the shard ran and was recorded, whatever its verdict (the report "
      "is the judgement)\n  64 usage  65 a task file line is malformed (FILE:LINE), or the eval id was begun "
      "with another task file\n  69 the agent's program is not on PATH, or the store cannot be reached\n");
  return {cmd,
          [args, report, status] {
            if (report->parsed()) {
              if (args->store_dir.empty()) args->store_dir = args->request.store_dir;
              return report_command(*args);
            }
            if (status->parsed()) {
              if (args->store_dir.empty()) args->store_dir = args->request.store_dir;
              return status_command(*args);
            }
            if (args->request.tasks_file.empty() || args->request.agent.empty()) {
              return report_error(make_error(
                  ErrorCode::kUsage, "eval needs a task file and --agent (or: eval report ID, eval status ID)"));
            }
            return run_command(*args);
          },
          nullptr};
}

}  // namespace candor::cli
