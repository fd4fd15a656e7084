// The credentials of a run that has ended, for a later process that renders or judges it
// (`candor report --html`, `candor verify RUN`): that process did not see the run start, and the
// workspace may have changed since. The credential files the run named at its start
// (RunFacts::credential_files) are read back from its pre-run snapshot, which keeps their bytes;
// the variables are this process's own.
#pragma once

#include <memory>

#include "core/run_record.h"
#include "sandbox/credential_registry.h"
#include "verify/git_trees.h"

namespace candor::verify {

// Never fails: a file the snapshot does not hold (left out by config `snapshot.ignore`) is said in
// the registry's unread(), its values not masked.
std::shared_ptr<const sandbox::CredentialRegistry> run_credentials(const GitTrees& trees, const RunFacts& facts,
                                                                   char** environ_in);

}  // namespace candor::verify
