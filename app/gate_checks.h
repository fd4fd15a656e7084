// What the gate will check at a turn's stop, said from the workspace's config as a person reads it:
// printed by `gate install`, `gate status` and `init`, so nobody installs a gate believing it checks
// what it does not (a workspace without expectations is told that whether the work is done is not
// checked). Pure over the config.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "executor/config.h"

namespace candor::app {

struct GateCheck {
  std::string what;  // expect | guard | scope | sensitive | acceptance | judge | always | scans | blocks | missing
  std::string text;  // a sentence, workspace and config text unescaped (the caller escapes)
};

// The checks, in the order a stop makes them. `config_present`: the workspace has a
// .candor/config.json (else the config is the defaults, and that is said, with `candor init`).
// `hook_llm`: the --llm the hook runs with ("" none: then the judge is never asked).
std::vector<GateCheck> gate_checks(const executor::WorkspaceConfig& config, bool config_present,
                                   const std::string& hook_llm);

// gate_checks of `workspace`'s .candor/config.json as it is now; the config's error when it is
// refused (the gate would refuse it too).
Result<std::vector<GateCheck>> workspace_gate_checks(const std::string& workspace, const std::string& hook_llm);

// What a gate without expectations checks of the work, said plainly (`hook_llm` as above).
std::string no_expectations(const std::string& hook_llm);

// One assertion as a line: `command_succeeds: npm test (covers src/**)`, `file_contains
// {"path":"a","text":"b"}`. `evidence`: an expectation, whose `covers` (or its absence) is said.
std::string describe_assertion(const nlohmann::json& assertion, bool evidence = true);

}  // namespace candor::app
