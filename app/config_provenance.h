// Who wrote the workspace's .candor/config.json. A config a recorded run's step planted (a
// `packages/web/.candor/config.json` written by a run on the repository, then read by a run given
// `-C packages/web`) is the agent's words about how it is to be checked, not the user's: its
// `expect` would be recorded `by: user`, its `secrets.allow` would open credential files.
#pragma once

#include <string>

#include "app/observer.h"
#include "core/result.h"
#include "store/run_store.h"

namespace candor::app {

// kInvalidInput (exit 65) naming the run, its steps and what to do when the newest recorded run
// that wrote `workspace_root`/.candor/config.json (not undone since) left exactly `config_text`
// there; with `trusted` (--trust-config) a warning to `observer` (may be null) instead. A config
// the user edited since (other bytes) is theirs.
Status check_config_provenance(const store::RunStore& store, const std::string& workspace_root,
                               const std::string& config_text, bool trusted, RunObserver* observer);

}  // namespace candor::app
