#include "app/evaluators.h"

#include <fmt/format.h>

#include "assertions/external.h"
#include "core/json_text.h"
#include "executor/config.h"
#include "sandbox/workspace_policy.h"
#include "store/run_store.h"

namespace candor::app {
namespace {

// The built-ins plus the workspace's external evaluators; a missing config is none.
Result<assertions::Registry> registry_for(const executor::WorkspaceConfig& config) {
  assertions::Registry registry = assertions::builtin_evaluators();
  TRY_STATUS(assertions::add_external_evaluators(registry, config.evaluators, ".candor/config.json"));
  return registry;
}

Result<std::vector<nlohmann::json>> parse_assertions(const std::vector<std::string>& texts,
                                                     const assertions::Registry& registry) {
  std::vector<nlohmann::json> out;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    std::string where = fmt::format("assertion #{}", i + 1);
    TRY(nlohmann::json a, parse_json_text(texts[i], where));
    TRY_STATUS(registry.validate(a, where));
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace

Result<EvaluatorList> list_evaluators(const std::string& workspace) {
  TRY(executor::WorkspaceConfig config, executor::load_config(workspace));
  TRY(assertions::Registry registry, registry_for(config));
  return EvaluatorList{assertions::describe_evaluators(registry), assertions::list_evaluators(registry)};
}

Result<AssertResult> check_assertions(const AssertRequest& request,
                                      const std::function<void(const AssertionCheck&)>& checked) {
  TRY(executor::WorkspaceConfig config, executor::load_config(request.workspace));
  auto workspace = sandbox::Workspace::open(
      request.workspace,
      {.force_fallback = false, .protected_dirs = {}, .secrets = sandbox::SecretFilter(config.secrets_allow)});
  if (!workspace.ok()) return make_error(ErrorCode::kInvalidInput, workspace.error().message);
  TRY(assertions::Registry registry, registry_for(config));
  TRY(std::vector<nlohmann::json> parsed, parse_assertions(request.assertions, registry));

  sandbox::SandboxPolicy policy = sandbox::make_sandbox_policy(**workspace, config.sandbox);
  policy.hidden_paths.push_back(store::default_store_dir());  // no run here, but the runs' store is on this machine
  if (request.allow_network) policy.allow_network = true;
  assertions::Context ctx{**workspace, config.network, nullptr, {}, &policy};
  AssertResult out;
  for (const auto& a : parsed) {
    assertions::Outcome o = registry.evaluate(a, ctx);
    out.passed = out.passed && o.passed;
    out.checks.push_back({a, o.passed, o.message, o.path, o.error});
    if (checked) checked(out.checks.back());
  }
  return out;
}

nlohmann::json to_json(const AssertResult& result) {
  nlohmann::json results = nlohmann::json::array();
  for (const auto& c : result.checks) {
    results.push_back({{"assertion", c.assertion},
                       {"passed", c.passed},
                       {"message", c.message},
                       {"path", c.path},
                       {"error", c.error}});
  }
  return {{"passed", result.passed}, {"results", results}};
}

}  // namespace candor::app
