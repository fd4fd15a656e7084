// `candor init`: a commented .candor/config.json for this repository (app/init.h), and with
// --gate the agent's hooks too (`gate install`).
#include <cstdio>
#include <memory>
#include <string>

#include "app/init.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "report/escape.h"

namespace candor::cli {
namespace {

struct InitArgs {
  app::InitRequest request;
  GateInstallArgs gate;  // --gate AGENT: installed after the config is written
};

void print_written(const app::InitResult& r) {
  auto safe = [](const std::string& t) { return report::terminal_safe(t); };
  const app::InitConfig& c = r.config;
  std::printf("%s %s (JSON with comments: edit it to say what done means here)\n", r.replaced ? "replaced" : "wrote",
              safe(r.path).c_str());
  for (const auto& u : c.unread) std::printf("  not read: %s\n", safe(u).c_str());
  if (c.tests.empty()) {
    std::printf(
        "  expect  none: no test command found (package.json, pyproject.toml, Cargo.toml, go.mod, Makefile);"
        " add yours to \"expect\"\n");
  } else {
    std::string covers;
    for (const auto& g : c.covers) covers += (covers.empty() ? "" : ", ") + g;
    std::printf(
        "  expect  %s (found: %s), %s\n", safe(c.tests.front().command).c_str(), safe(c.tests.front().from).c_str(),
        covers.empty() ? "no covers: add the source folders its tests check" : safe("covers " + covers).c_str());
  }
  for (const auto& g : c.guards)
    std::printf("  guard   %s (found: %s)\n", safe(g.command).c_str(), safe(g.from).c_str());
  std::printf("  scope   none: any path may change (uncomment \"scope\" in the file to narrow it)\n");
}

int init_command(InitArgs& args) {
  auto result = app::init_workspace(args.request);
  if (!result.ok()) return report_error(result.error());
  print_written(*result);
  if (args.gate.agent.empty()) {
    std::printf("next: `candor gate install --agent claude-code` (or codex) checks the agent's turns with it\n");
    return exit_code(app::ExitCategory::kSuccess);
  }
  args.gate.workspace = args.request.workspace;
  return gate_install_command(args.gate);
}

}  // namespace

Subcommand add_init_command(CLI::App& app) {
  auto args = std::make_shared<InitArgs>();
  auto* cmd = app.add_subcommand(
      "init", "write a commented .candor/config.json for this repository: its test command, lint, source folders");
  cmd->add_option("-C,--workspace", args->request.workspace, "the repository (default: the current folder)");
  cmd->add_flag("--force", args->request.force, "replace an existing .candor/config.json");
  auto* gate = one_of(cmd->add_option("--gate", args->gate.agent,
                                      "install the gate's hooks for this agent too (as `gate install --agent`)"),
                      {"claude-code", "codex"});
  cmd->add_flag("--local", args->gate.local,
                "with --gate claude-code: the hooks in .claude/settings.local.json (yours, not committed)")
      ->needs(gate);
  cmd->add_option("--store", args->gate.store_dir, "with --gate: the run store folder the hooks use")->needs(gate);
  cmd->footer(examples("candor init", "candor init --gate claude-code --local"));
  return {cmd, [args] { return init_command(*args); }, nullptr};
}

}  // namespace candor::cli
