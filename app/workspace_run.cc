#include "app/workspace_run.h"

#include <filesystem>
#include <future>

#include <unistd.h>

#include <fmt/format.h>

#include "app/config_provenance.h"
#include "app/inputs.h"
#include "core/version.h"
#include "sandbox/credential_registry.h"
#include "sandbox/leftovers.h"
#include "sandbox/workspace_policy.h"

namespace candor::app {
namespace {

// A store inside the workspace would be open to every step: a step can rename the folders above
// it and then delete it, and Landlock cannot keep a folder of a writable one unreadable.
Status check_store_outside(const std::string& store_dir, const std::string& workspace) {
  if (!path_within(store_dir, workspace) && !path_within(workspace, store_dir)) return ok_status();
  return make_error(
      ErrorCode::kUsage,
      fmt::format("the run store {} and the workspace {} overlap: the store must lie outside the workspace, "
                  "where no step can reach it (--store DIR, or CANDOR_HOME)",
                  std::filesystem::weakly_canonical(store_dir).string(),
                  std::filesystem::weakly_canonical(workspace).string()));
}

// The budgets and the config's settings the executor takes, --max-* over the config's.
void apply_options(const WorkspaceOptions& args, const executor::WorkspaceConfig& config,
                   executor::ExecutorOptions& o) {
  executor::apply_config_budget(config, o.limits);
  if (args.max_replans) o.limits.max_replans = *args.max_replans;
  if (args.max_steps) o.limits.max_steps = *args.max_steps;
  if (args.max_tokens) o.limits.max_tokens = *args.max_tokens;
  if (args.timeout_s) o.limits.timeout_s = *args.timeout_s;
  if (config.output_cap_bytes) o.output_cap = *config.output_cap_bytes;
  o.network = config.network;
  o.snapshot_ignore = config.snapshot_ignore;
  o.change_events = config.change_events;
  o.max_watches = config.max_watches;
  o.fsmonitor = config.fsmonitor;
  o.scope = config.scope;
  o.scope.insert(o.scope.end(), args.scope.begin(), args.scope.end());
  o.sensitive = config.sensitive;
}

// --require-sandbox: kRefused naming what this machine cannot give shell steps.
Status check_required_protections(const WorkspaceOptions& args, const sandbox::Protections& protections) {
  if (!args.require_sandbox || protections.missing().empty()) return ok_status();
  std::string missing;
  for (const auto& m : protections.missing()) missing += (missing.empty() ? "" : ", ") + m;
  return make_error(
      ErrorCode::kRefused,
      fmt::format("--require-sandbox: this machine cannot give shell steps every protection (missing: {}); "
                  "`candor doctor` says why",
                  missing));
}

}  // namespace

Result<std::unique_ptr<WorkspaceRun>> WorkspaceRun::open(const WorkspaceOptions& args, RunObserver* observer,
                                                         const std::atomic<bool>* cancel) {
  TRY_STATUS(check_scope_option(args.scope));
  // "the workspace nosuch (-C): No such file or directory", before anything names it less clearly.
  if (auto where = caller_workspace(args.workspace); !where.ok())
    return make_error(ErrorCode::kUsage, where.error().message + " (give the workspace with -C DIR)");
  std::unique_ptr<WorkspaceRun> s(new WorkspaceRun());
  s->observer_ = observer;
  // A candor that was killed left its steps' temporary folders and cgroups behind: removed now.
  for (const auto& error : sandbox::remove_leftovers().errors) {
    if (observer != nullptr) observer->warning("could not remove what a killed run left: " + error);
  }
  // Two fixed costs of every start need nothing of what follows and run beside it (the credential
  // walk, the snapshot store's opening): libgit2's initialisation (it loads the TLS certificates) and the
  // sandbox probe (it forks children and waits for them). Both are joined before this returns.
  const sandbox::Mechanisms mechanisms = sandbox::mechanisms_from_environment();
  std::future<void> git_ready = std::async(std::launch::async, snapshot::init_git_once);
  std::future<sandbox::Protections> probed =
      std::async(std::launch::async, [mechanisms] { return sandbox::probe_protections(mechanisms); });
  TRY_STATUS(check_store_outside(store::store_location(args.store_dir).dir, args.workspace));
  TRY(s->opening_, RunOpening::open(args.store_dir, observer));
  const std::string& store_path = s->opening_->store_path();
  // Read before the workspace opens: which credential files it allows is fixed at open.
  TRY(executor::WorkspaceConfig config, executor::load_config(args.workspace));
  // The store is outside the workspace; named here, it is read-only to a step in a mount namespace
  // even where Landlock is missing.
  auto workspace = sandbox::Workspace::open(args.workspace, {.force_fallback = false,
                                                             .protected_dirs = {store_path},
                                                             .secrets = sandbox::SecretFilter(config.secrets_allow)});
  if (!workspace.ok()) return make_error(ErrorCode::kInvalidInput, workspace.error().message);
  s->workspace_ = std::move(workspace.value());
  apply_options(args, config, s->options_);
  // The run's one time budget, from here: opening the snapshot store and the scan before the
  // first step spend it too.
  s->opening_->start_deadline(s->options_.limits.timeout_s);
  // The snapshot store's opening and the snapshot before the run need nothing of what follows, and
  // run beside the config's checks and the credential walk below (each walks the whole tree).
  // Nothing has run in the workspace yet: no step starts before both are done.
  s->opening_->begin_snapshots(
      s->workspace_->root(), config.snapshot_ignore,
      [run = s.get(), root = s->workspace_->root(), options = s->options_](snapshot::SnapshotStore& snapshots) {
        run->scanned_before_ = executor::scan_before_run(snapshots, root, run->opening_->deadline(), options);
      });
  TRY_STATUS(s->read_config(args, config));
  TRY_STATUS(s->find_credential_files(config));
  s->read_credentials(args, mechanisms);
  s->options_.progress = observer;
  s->options_.cancel = cancel;

  TRY_STATUS(s->opening_->snapshots_ready());
  sandbox::Protections protections = sandbox::expected_protections(s->sandbox_policy_, probed.get());
  TRY_STATUS(check_required_protections(args, protections));
  s->options_.sandbox_protections = protections.to_json();
  return s;
}

Status WorkspaceRun::read_config(const WorkspaceOptions& args, const executor::WorkspaceConfig& config) {
  TRY_STATUS(assertions::add_external_evaluators(evaluators_, config.evaluators, ".candor/config.json"));
  catalog_ = executor::make_catalog(tools_, evaluators_);
  TRY(expects_, parse_expects(args.expects, config.expect, catalog_, ".candor/config.json"));
  TRY(guards_, parse_expects(args.guards, config.guard, catalog_, ".candor/config.json", "guard"));
  if (config.file_text) {
    TRY_STATUS(check_config_provenance(opening_->store(), workspace_->root(), *config.file_text, args.trust_config,
                                       observer_));
  }
  if (!args.acceptance_file.empty()) {
    TRY(std::string text, read_text_file(args.acceptance_file));
    TRY(acceptance_, verify::parse_acceptance_spec_text(text, tools_.names(), args.acceptance_file));
  }
  return ok_status();
}

Status WorkspaceRun::find_credential_files(const executor::WorkspaceConfig& config) {
  if (options_.fsmonitor.empty()) {
    // Beside the snapshot before the run: each walks the whole tree.
    sandbox_policy_ = sandbox::make_sandbox_policy(*workspace_, config.sandbox);
    return ok_status();
  }
  // With an fsmonitor, after the snapshot before the run: from the credential files the last
  // run's start found, where Watchman's answer says (what changed since its clock), or by a walk
  // that begins after the clock this run keeps; either way they are saved with that clock.
  TRY_STATUS(opening_->snapshots_ready());
  options_.credentials_after_first_scan = true;
  snapshot::SnapshotStore& snapshots = opening_->snapshots();
  std::optional<snapshot::SnapshotStore::SavedCredentials> saved = snapshots.saved_credentials();
  const std::optional<snapshot::FsmonitorStart>* start = scanned_before_ ? &scanned_before_->fsmonitor : nullptr;
  // Which names are credential files is candor's (its version) and the config's `secrets.allow`: a
  // list found under other rules misses what they add.
  std::string rules = CANDOR_VERSION;
  for (const auto& allowed : config.secrets_allow) rules += "\n" + allowed;
  if (saved && saved->rules == rules && start != nullptr && *start && (*start)->reason.empty()) {
    std::vector<sandbox::FileIdentity> ids;
    for (const auto& [dev, ino] : saved->identities) ids.push_back({dev, ino});
    sandbox_policy_ =
        sandbox::make_sandbox_policy_from(*workspace_, config.sandbox, saved->files, ids, (*start)->changed);
  } else {
    sandbox_policy_ = sandbox::make_sandbox_policy(*workspace_, config.sandbox);
  }
  if (!sandbox_policy_.secret_scan_error.empty()) return ok_status();  // nothing to carry: the next start walks
  snapshot::SnapshotStore::SavedCredentials keep;
  keep.rules = rules;
  const std::string prefix = workspace_->root() + "/";
  for (const auto& path : sandbox_policy_.secret_files) {
    if (path.rfind(prefix, 0) == 0) keep.files.push_back(path.substr(prefix.size()));
  }
  for (const auto& id : sandbox_policy_.secret_identities) keep.identities.emplace_back(id.dev, id.ino);
  snapshots.keep_credentials(std::move(keep));
  return ok_status();
}

void WorkspaceRun::read_credentials(const WorkspaceOptions& args, const sandbox::Mechanisms& mechanisms) {
  sandbox::SandboxPolicy& policy = sandbox_policy_;
  policy.hidden_paths.push_back(opening_->store().dir());
  if (args.allow_network) policy.allow_network = true;
  policy.pass_env.insert(policy.pass_env.end(), args.pass_env.begin(), args.pass_env.end());
  policy.require_all = args.require_sandbox;
  policy.mechanisms = mechanisms;
  options_.process_sandbox = &policy;
  // Before anything reads through the workspace: the credential files the walk above found, by
  // inode and content, and the values to mask (theirs and the scrubbed variables').
  std::shared_ptr<const sandbox::CredentialRegistry> credentials =
      sandbox::read_credentials(*workspace_, policy, ::environ);
  for (const auto& unread : credentials->unread()) {
    if (observer_ != nullptr) observer_->warning("warning: credential file " + unread + ": its values are not masked");
  }
  workspace_->set_credentials(credentials);
  opening_->set_masker(credentials->masker());
}

Status WorkspaceRun::start(const std::string& goal) {
  TRY_STATUS(opening_->create_run(goal, workspace_->root()));
  options_.scanned_before = scanned_before_;
  executor_ = std::make_unique<executor::Executor>(
      executor::ExecutorDeps{*workspace_, opening_->snapshots(), tools_, evaluators_, opening_->clock(),
                             opening_->deadline(), opening_->trajectory()},
      options_);
  return executor_->begin(opening_->run_id(), goal);
}

Result<RunResult> WorkspaceRun::end_not_started(const Error& why) {
  TRY(RunResult ended, finish(executor_->finish(RunStatus::kError, BudgetKind::kNone, why.message), nullptr,
                              verify::JudgePolicy::kAuto));
  ended.not_started = why;
  ended.exit = exit_category(why);
  return ended;
}

Result<RunResult> WorkspaceRun::finish(const RunFacts& facts, llm::Provider* judge, verify::JudgePolicy policy) {
  RunEnd end{.facts = facts,
             .created_at = opening_->created_at(),
             .trajectory = &opening_->trajectory(),
             .store = &opening_->store(),
             .acceptance = acceptance_ ? &*acceptance_ : nullptr,
             .events = &opening_->trajectory().events(),
             .policy = policy,
             .judge = nullptr,
             .trees = nullptr,
             .before_verdict = nullptr,
             .deadline = &opening_->deadline()};
  snapshot::GitTrees trees = opening_->snapshots().trees();
  end.trees = &trees;
  if (judge != nullptr) {
    end.judge = [this, judge]() -> Result<JudgeSetup> {
      return JudgeSetup{.provider = judge,
                        .trees = opening_->snapshots().trees(),
                        .questions = {},
                        .credentials = workspace_->credentials()};
    };
  }
  return end_run(std::move(end), observer_);
}

}  // namespace candor::app
