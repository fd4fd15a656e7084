// Commands as evidence (DESIGN.md, Trust boundary): a user's command that passed is evaluated
// again on the state before the change (the pre-run snapshot; BASE's tree for `verify --git`) and,
// when it failed there, once more per added path its `covers` takes in, on the state it passed on
// with that path emptied (core/command_coverage.h: an added path fails every check before it
// existed, so only the emptied run shows its content matters). Each run gets a private checkout of
// the tree in a step temporary folder, removed afterwards, and runs in the process sandbox as the
// run that passed did (the same command; its workspace and working folder the checkout), within
// the run's time. The checkout is the command's to write in, as the workspace was: a build-then-test
// command on a folder it could not write would fail there for that reason alone and pass for
// discriminating. Nothing of it reaches the workspace or the snapshot.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "assertions/evaluator.h"
#include "core/result.h"
#include "core/run_record.h"
#include "net/http_client.h"
#include "sandbox/process_sandbox.h"
#include "sandbox/secret_files.h"
#include "snapshot/trees.h"

namespace candor::executor {

struct CommandEvidenceInputs {
  snapshot::GitTrees trees;  // holds the trees checked out; borrows its repository
  const assertions::Registry& evaluators;
  sandbox::SecretFilter secrets;  // the workspace's: credential files are shown (and written) empty
  net::NetworkPolicy network;
  // The config's choices (network, environment, limits, hidden paths); the workspace, protected
  // folders and credential files are the checkout's.
  sandbox::SandboxPolicy sandbox;
  std::optional<std::chrono::steady_clock::time_point> deadline;  // the run's time budget ends then
  std::function<void(std::string&)> mask;  // the run's secret values out of outputs; may be empty
};

// Borrows what `in` borrows. Thread-compatible.
class CommandEvidence {
 public:
  CommandEvidence(CommandEvidenceInputs in, std::string before_tree)
      : in_(std::move(in)), before_tree_(std::move(before_tree)) {}

  // For `r`, a passing user command (Registry::command_evidence) that is not a guard: records
  // `before` and `discriminating` (it failed there, and when it runs a test runner candor reads,
  // the runner's summaries show a test passed after: test_count_gap), and when it discriminates, `emptied`: one run per
  // path of `changed` that is a regular file in the state it passed on, absent before, and one its `covers` may cover
  // (at most kMaxEmptiedRuns of them, in path order). `after_tree` gives the tree of the state it passed on; it is
  // asked only when an emptied run is due. `step`: what the step it follows produced (borrowed; may be null).
  void add(AssertionRecord& r, const assertions::StepView* step, const std::function<Result<std::string>()>& after_tree,
           const std::vector<std::string>& changed);

 private:
  // `assertion` on a checkout of `tree`, with `emptied` (when not "") an empty file.
  ProgramRun run_on(const nlohmann::json& assertion, const assertions::StepView* step, const std::string& tree,
                    const std::string& emptied) const;

  CommandEvidenceInputs in_;
  std::string before_tree_;
  // The runs before the change, by the assertion without `covers`: once per distinct command.
  std::map<std::string, ProgramRun> before_runs_;
};

}  // namespace candor::executor
