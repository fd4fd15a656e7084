#include "snapshot/store.h"

#include "sandbox/credential_registry.h"

namespace candor::snapshot {

std::shared_ptr<const sandbox::CredentialRegistry> run_credentials(const GitTrees& trees, const RunFacts& facts,
                                                                   char** environ_in) {
  auto registry = std::make_shared<sandbox::CredentialRegistry>();
  for (const auto& path : facts.credential_files) {
    auto content = facts.snapshot_before.empty() ? Result<std::optional<std::string>>(std::nullopt)
                                                 : trees.read(facts.snapshot_before, path);
    if (content.ok() && content->has_value()) {
      registry->add_content(path, **content);
    } else {
      registry->add_identity(path, {}, content.ok() ? "not in the pre-run snapshot" : content.error().message);
    }
  }
  registry->add_environment(environ_in, {});
  return registry;
}

}  // namespace candor::snapshot
