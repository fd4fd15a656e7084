// Commands as evidence (docs/design.md, Trust boundary): a user's command that passed is evaluated
// again on the state before the change (the pre-run snapshot; BASE's tree for `verify --git`) and,
// for `run` and `exec`, on the state it passed on as a checkout too: both runs then see the same
// files and the same inputs no snapshot holds (the workspace's dependency folders and
// `snapshot.ignore` paths, linked read-only into each checkout), so a before-run that failed for a
// missing input, or a pass that rests on an ignored file no snapshot holds, is no evidence. When it
// failed before and passed after, it runs once more per added path its `covers` takes in, with that
// path emptied (an added path fails every check before it existed, so only the emptied run shows
// its content matters). When the change edited, deleted or skipped files the command reads as
// tests, it runs on the state it passed on with those files as they were before the change: the
// tests of record (a guard too). Each run gets a private checkout of the tree in a step temporary
// folder, removed afterwards, and runs in the process sandbox as the run that passed did, within the
// run's time. The checkout is the command's to write in, as the workspace was. Nothing of it
// reaches the workspace or the snapshot.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "assertions/evaluator.h"
#include "core/result.h"
#include "core/run_record.h"
#include "executor/config.h"
#include "net/http_client.h"
#include "sandbox/process_sandbox.h"
#include "sandbox/secret_files.h"
#include "sandbox/workspace.h"
#include "snapshot/trees.h"

namespace candor::executor {

// A path no snapshot holds that every run of a command gets, read-only: a folder or file of the
// workspace linked into each checkout where the checkout has nothing of that name.
struct LinkedInput {
  std::string path;    // workspace-relative
  std::string source;  // absolute
};

// The inputs of `source` (the workspace, or the repository's work tree) that no tree holds: its
// dependency folders (node_modules, .venv, venv) and what config `snapshot.ignore` matches, found
// at most kMaxInputDepth folders deep, never beneath .git or .candor, never a credential file.
std::vector<LinkedInput> unsnapshotted_inputs(const sandbox::Workspace& source,
                                              const std::vector<std::string>& snapshot_ignore);
inline constexpr int kMaxInputDepth = 3;

// The unsnapshotted inputs, found the first time a checkout needs them: finding them walks the
// workspace (up to 50,000 entries), and most stops and runs run no program on a checkout.
// Copies share what was found; get() may be called from any thread.
class LinkedInputs {
 public:
  LinkedInputs() = default;  // none
  explicit LinkedInputs(std::function<std::vector<LinkedInput>()> find);
  const std::vector<LinkedInput>& get() const;

 private:
  struct Found {
    std::once_flag once;
    std::function<std::vector<LinkedInput>()> find;
    std::vector<LinkedInput> inputs;
  };
  std::shared_ptr<Found> found_;
};

// The same of the folder at `root` opened with `config`'s credential rules, when first needed; none
// when it cannot be opened (a bare repository has no work tree).
LinkedInputs workspace_inputs(const std::string& root, const WorkspaceConfig& config);

// Links `inputs` into `checkout` where it holds nothing of that name (a tree's own wins). A link
// that cannot be made is skipped: the command then sees the checkout as the tree has it.
void link_inputs(const sandbox::Workspace& checkout, const std::vector<LinkedInput>& inputs);

struct CommandEvidenceInputs {
  snapshot::GitTrees trees;  // holds the trees checked out; borrows its repository
  const assertions::Registry& evaluators;
  sandbox::SecretFilter secrets;  // the workspace's: credential files are shown (and written) empty
  net::NetworkPolicy network;
  // The config's choices (network, environment, limits, hidden paths); the workspace, protected
  // folders and credential files are the checkout's.
  sandbox::SandboxPolicy sandbox;
  Deadline deadline;                       // the run's time budget
  std::function<void(std::string&)> mask;  // the run's secret values out of outputs; may be empty
  LinkedInputs inputs = {};                // given to every checkout (unsnapshotted_inputs)
  std::vector<std::string> withheld = {};  // credential files by identity: written empty in every checkout
};

// A changed path as the change made it: `renamed_from` when git's rename detection matched it
// with a deleted path (verify --git).
struct ChangedPath {
  std::string path;
  std::string renamed_from = {};
};

// Borrows what `in` borrows. Thread-compatible.
class CommandEvidence {
 public:
  CommandEvidence(CommandEvidenceInputs in, std::string before_tree)
      : in_(std::move(in)), before_tree_(std::move(before_tree)) {}

  // For `r`, a passing user command (Registry::command_evidence) that is not a guard: records
  // `before`; with `after_on_checkout` (`run`, `exec`: `r` passed on the workspace) `after`, the
  // command on a checkout of the state it passed on; `count_gap` and `discriminating` (it failed
  // before, passed after, and its test runner's and frameworks' summaries show a test passed and
  // none fewer ran: evidence/command_coverage.h); when it discriminates, `emptied`: one run per path
  // of `changed` that is a regular file in the state it passed on, absent before, and one its
  // `covers` may cover (at most kMaxEmptiedRuns of them, in path order); and the tests of record
  // (add_record). `after_tree` gives the tree of the state it passed on; it is asked at most once.
  // `step`: what the step it follows produced (borrowed; may be null).
  void add(AssertionRecord& r, const assertions::StepView* step, const std::function<Result<std::string>()>& after_tree,
           const std::vector<ChangedPath>& changed, bool after_on_checkout);

  // The tests of record for `r`, a passing user command or guard: when `changed` holds files it
  // reads as tests that were there before the change, or runner-loaded files (conftest.py, ...)
  // the change added, records `on_record`, the command on the state it passed on with those files
  // as they were before (an added runner-loaded file removed, a renamed test's content put back
  // under its new name), and `record_files`. Build-system files (package.json, CMakeLists.txt, ...)
  // and test files the change added stay as the change made them.
  void add_record(AssertionRecord& r, const assertions::StepView* step,
                  const std::function<Result<std::string>()>& after_tree, const std::vector<ChangedPath>& changed);

 private:
  // A file of the checkout written before the command runs: `content` nullopt removes it.
  struct Override {
    std::string path;
    std::optional<std::string> content;
    unsigned mode = 0100644;
  };
  // `assertion` on a checkout of `tree`, with `emptied` (when not "") an empty file and `overrides`.
  ProgramRun run_on(const nlohmann::json& assertion, const assertions::StepView* step, const std::string& tree,
                    const std::string& emptied, const std::vector<Override>& overrides = {}) const;

  CommandEvidenceInputs in_;
  std::string before_tree_;
  // The runs before the change, by the assertion without `covers`: once per distinct command.
  std::map<std::string, ProgramRun> before_runs_;
};

}  // namespace candor::executor
