// The user's assertions about a change made elsewhere (`candor verify --git`): evaluated on the
// tree the change produced, and, for the discriminating check (docs/design.md, Trust boundary), again on
// the tree it started from. File assertions read blobs from the trees (no checkout); assertions
// that run programs (command_succeeds, external evaluators) get a temporary checkout of HEAD's tree,
// in the process sandbox, removed afterwards; a user's command that passed there is run again on a
// checkout of BASE's tree (executor/command_evidence.h).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "assertions/evaluator.h"
#include "core/run_record.h"
#include "core/secret_masker.h"
#include "core/trajectory.h"
#include "executor/command_evidence.h"
#include "executor/reviewer.h"
#include "executor/tool.h"
#include "llm/provider.h"
#include "net/http_client.h"
#include "sandbox/process_sandbox.h"
#include "sandbox/secret_files.h"
#include "snapshot/trees.h"

namespace candor::executor {

struct ChangeCheckInputs {
  snapshot::GitTrees trees;
  std::string base_tree;
  std::string head_tree;
  const assertions::Registry& evaluators;
  sandbox::SecretFilter secrets;
  net::NetworkPolicy network;
  sandbox::SandboxPolicy sandbox;  // for programs; its workspace paths are filled in per checkout
  // The paths the change touched (the range's diff, renames named): what a user's command may cover,
  // and the test files its run on record puts back.
  std::vector<ChangedPath> changed_paths = {};
  // Inputs no tree holds (the repository's dependency folders, `snapshot.ignore` paths), linked
  // read-only into every checkout a command runs on, HEAD's and BASE's alike (unsnapshotted_inputs).
  LinkedInputs inputs = {};
  // Credential files by identity (a renamed or copied `.env`) that their names do not give away:
  // written empty in every checkout, as credential files by name are.
  std::vector<std::string> withheld = {};
  // The run's time budget ends then: programs are stopped by it (nullopt: none).
  Deadline deadline = {};
  // The run's secret values, masked out of what programs print and assertions say (null: none).
  std::shared_ptr<const SecretMasker> masker = nullptr;
};

struct ChangeCheck {
  std::vector<AssertionRecord> assertions;  // in the order given, each recorded as an `assertion` event
  nlohmann::json sandbox;                   // the protections programs ran with; null when none ran
};

// Evaluates `expects` (the user's: provenance `user`) and records each as an event on
// `trajectory`. Kinds of failure (a checkout that cannot be written) are failed assertions with the
// reason, never a pass.
// `guards` are checked the same way after them and recorded with `guard` (never evidence of the goal).
ChangeCheck check_change(const ChangeCheckInputs& in, const std::vector<nlohmann::json>& expects,
                         Trajectory& trajectory, const std::vector<nlohmann::json>& guards = {});

// The independent reviewer over the change's result: HEAD's files in a temporary folder (removed
// afterwards), read-only tools, one review (there is no worker to send back). A checkout that
// cannot be written is a review with verdict `none` saying why.
Review review_change(const ChangeCheckInputs& in, llm::Provider& provider, const ToolRegistry& tools,
                     const std::string& criterion, const std::string& goal, Trajectory& trajectory);

}  // namespace candor::executor
