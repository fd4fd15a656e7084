// `candor assert` (assertions against a workspace, without a run) and `candor evaluators` (the
// assertion types a workspace has: the built-ins and its config's external evaluators).
#include <cstdio>
#include <functional>

#include <fmt/format.h>

#include "app/evaluators.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "core/json_text.h"
#include "report/escape.h"
#include "report/report.h"

namespace candor::cli {
namespace {

struct EvaluatorsArgs {
  std::string workspace = ".";
  bool json = false;
};

struct AssertArgs {
  app::AssertRequest request;
  bool json = false;
};

int evaluators_command(const EvaluatorsArgs& args) {
  auto list = app::list_evaluators(args.workspace);
  if (!list.ok()) return report_error(list.error());
  if (args.json) {
    std::puts(list->described.dump(2).c_str());
  } else {
    // A workspace config's evaluator names and descriptions are the workspace's text.
    std::fputs(report::terminal_safe(list->listing, /*keep_newlines=*/true).c_str(), stdout);
  }
  return exit_code(app::ExitCategory::kSuccess);
}

// PASS, FAIL or ERROR, the assertion's type and what was observed, as each is checked.
void print_check(const app::AssertionCheck& c, bool color) {
  std::string mark = c.passed ? "PASS" : c.error ? "ERROR" : "FAIL";
  if (color) mark = fmt::format("\033[1;{}m{}\033[0m", c.passed ? 32 : 31, mark);
  std::printf("%s  %s: %s\n", mark.c_str(), report::terminal_safe(json_str(c.assertion, "type")).c_str(),
              report::terminal_safe(c.message).c_str());
}

int assert_command(const AssertArgs& args) {
  bool color = report::want_color(1);
  std::function<void(const app::AssertionCheck&)> print;
  if (!args.json) print = [color](const app::AssertionCheck& c) { print_check(c, color); };
  auto result = app::check_assertions(args.request, print);
  if (!result.ok()) return report_error(result.error());
  if (args.json) std::puts(app::to_json(*result).dump(2).c_str());
  return result->passed ? exit_code(app::ExitCategory::kSuccess) : exit_code(app::ExitCategory::kFail);
}

}  // namespace

Subcommand add_evaluators_command(CLI::App& app) {
  auto args = std::make_shared<EvaluatorsArgs>();
  auto* cmd = app.add_subcommand("evaluators", "the assertion types available, with their arguments");
  cmd->add_option("-C,--workspace", args->workspace, "include this workspace's external evaluators (default: .)");
  cmd->add_flag("--json", args->json, "print JSON");
  cmd->footer(examples("candor evaluators", "candor evaluators -C ./site --json"));
  return {cmd, [args] { return evaluators_command(*args); }, nullptr};
}

Subcommand add_assert_command(CLI::App& app) {
  auto args = std::make_shared<AssertArgs>();
  auto* cmd =
      app.add_subcommand("assert", "check assertions against a workspace, without a run (exit 0 only if all pass)");
  cmd->add_option("assertion", args->request.assertions,
                  "assertion JSON, e.g. '{\"type\": \"file_exists\", \"path\": \"a\"}'")
      ->required();
  cmd->add_option("-C,--workspace", args->request.workspace, "workspace folder (default: .)");
  cmd->add_flag("--allow-network", args->request.allow_network, "let commands use the network");
  cmd->add_flag("--json", args->json, "print JSON");
  cmd->footer(examples("candor assert '{\"type\": \"file_exists\", \"path\": \"index.html\"}' -C ./site",
                       "candor assert '{\"type\": \"command_succeeds\", \"command\": \"make test\"}' --json"));
  return {cmd, [args] { return assert_command(*args); }, nullptr};
}

}  // namespace candor::cli
