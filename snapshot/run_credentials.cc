#include "snapshot/store.h"

#include "sandbox/credential_registry.h"

namespace candor::snapshot {

std::shared_ptr<const sandbox::CredentialRegistry> run_credentials(
    const GitTrees& trees, const RunFacts& facts, char** environ_in,
    const std::function<void(sandbox::CredentialRegistry&)>& also) {
  auto registry = std::make_shared<sandbox::CredentialRegistry>();
  // Both sides' values: a credential file the run (or the change) wrote holds secrets too.
  for (const auto& path : facts.credential_files) {
    bool read = false;
    std::string why = "not in the pre-run snapshot";
    for (const std::string* tree : {&facts.snapshot_before, &facts.snapshot_after}) {
      if (tree->empty() || (tree == &facts.snapshot_after && *tree == facts.snapshot_before)) continue;
      auto content = trees.read(*tree, path);
      if (content.ok() && content->has_value()) {
        registry->add_content(path, **content);
        read = true;
      } else if (!content.ok()) {
        why = content.error().message;
      }
    }
    if (!read) registry->add_identity(path, {}, why);
  }
  if (also) also(*registry);
  registry->add_environment(environ_in, {});
  return registry;
}

}  // namespace candor::snapshot
