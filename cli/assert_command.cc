// `candor assert` (assertions against a workspace, without a run) and `candor evaluators` (the
// assertion types a workspace has: the built-ins and its config's external evaluators).
#include <cstdio>

#include <fmt/format.h>

#include "assertions/external.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "core/json_text.h"
#include "executor/config.h"
#include "report/escape.h"
#include "report/report.h"
#include "sandbox/workspace_policy.h"
#include "store/run_store.h"

namespace candor::cli {
namespace {

struct EvaluatorsArgs {
  std::string workspace = ".";
  bool json = false;
};

struct AssertArgs {
  std::vector<std::string> assertions;  // JSON texts
  std::string workspace = ".";
  bool allow_network = false;
  bool json = false;
};

// The built-ins plus the workspace's external evaluators; a missing config is none.
Result<assertions::Registry> registry_for(const executor::WorkspaceConfig& config) {
  assertions::Registry registry = assertions::builtin_evaluators();
  TRY_STATUS(assertions::add_external_evaluators(registry, config.evaluators, ".candor/config.json"));
  return registry;
}

int evaluators_command(const EvaluatorsArgs& args) {
  auto config = executor::load_config(args.workspace);
  if (!config.ok()) return report_error(config.error());
  auto registry = registry_for(*config);
  if (!registry.ok()) return report_error(registry.error());
  if (args.json) {
    std::puts(assertions::describe_evaluators(*registry).dump(2).c_str());
  } else {
    std::fputs(assertions::list_evaluators(*registry).c_str(), stdout);
  }
  return kExitSuccess;
}

int assert_command(const AssertArgs& args) {
  auto config = executor::load_config(args.workspace);
  if (!config.ok()) return report_error(config.error());
  auto workspace = sandbox::Workspace::open(
      args.workspace, {.force_fallback = false, .protected_dirs = {}, .secrets = sandbox::SecretFilter(config->secrets_allow)});
  if (!workspace.ok()) return report_error(make_error(ErrorCode::kInvalidInput, workspace.error().message));
  auto registry = registry_for(*config);
  if (!registry.ok()) return report_error(registry.error());

  std::vector<nlohmann::json> assertions;
  for (std::size_t i = 0; i < args.assertions.size(); ++i) {
    std::string where = fmt::format("assertion #{}", i + 1);
    auto a = parse_json_text(args.assertions[i], where);
    if (!a.ok()) return report_error(a.error());
    if (Status valid = registry->validate(*a, where); !valid.ok()) return report_error(valid.error());
    assertions.push_back(*a);
  }

  sandbox::SandboxPolicy policy = sandbox::make_sandbox_policy(**workspace, config->sandbox);
  policy.hidden_paths.push_back(store::default_store_dir());  // no run here, but the runs' store is on this machine
  if (args.allow_network) policy.allow_network = true;
  assertions::Context ctx{**workspace, config->network, nullptr, {}, &policy};
  nlohmann::json results = nlohmann::json::array();
  bool all = true;
  bool color = report::want_color(1);
  for (const auto& a : assertions) {
    assertions::Outcome o = registry->evaluate(a, ctx);
    all = all && o.passed;
    results.push_back({{"assertion", a}, {"passed", o.passed}, {"message", o.message}, {"path", o.path}, {"error", o.error}});
    if (!args.json) {
      std::string mark = o.passed ? "PASS" : o.error ? "ERROR" : "FAIL";
      if (color) mark = fmt::format("\033[1;{}m{}\033[0m", o.passed ? 32 : 31, mark);
      std::printf("%s  %s: %s\n", mark.c_str(), report::terminal_safe(json_str(a, "type")).c_str(),
                  report::terminal_safe(o.message).c_str());
    }
  }
  if (args.json) std::puts(nlohmann::json({{"passed", all}, {"results", results}}).dump(2).c_str());
  return all ? kExitSuccess : kExitFail;
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
  auto* cmd = app.add_subcommand("assert", "check assertions against a workspace, without a run (exit 0 only if all pass)");
  cmd->add_option("assertion", args->assertions, "assertion JSON, e.g. '{\"type\": \"file_exists\", \"path\": \"a\"}'")->required();
  cmd->add_option("-C,--workspace", args->workspace, "workspace folder (default: .)");
  cmd->add_flag("--allow-network", args->allow_network, "let commands use the network");
  cmd->add_flag("--json", args->json, "print JSON");
  cmd->footer(examples("candor assert '{\"type\": \"file_exists\", \"path\": \"index.html\"}' -C ./site",
                       "candor assert '{\"type\": \"command_succeeds\", \"command\": \"make test\"}' --json"));
  return {cmd, [args] { return assert_command(*args); }, nullptr};
}

}  // namespace candor::cli
