#include "cli/session.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <future>

#include <unistd.h>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/config_provenance.h"
#include "cli/finish_run.h"
#include "core/glob.h"
#include "sandbox/credential_registry.h"
#include "sandbox/leftovers.h"
#include "sandbox/workspace_policy.h"
#include "verify/judge_run.h"
#include "verify/tier1.h"
#include "verify/verdict.h"

namespace candor::cli {
namespace {


// A store inside the workspace would be open to every step: a step can rename the folders above
// it and then delete it, and Landlock cannot keep a folder of a writable one unreadable.
Status check_store_outside(const std::string& store_dir, const std::string& workspace) {
  if (!path_within(store_dir, workspace) && !path_within(workspace, store_dir)) return ok_status();
  return make_error(ErrorCode::kUsage,
                    fmt::format("the run store {} and the workspace {} overlap: the store must lie outside the workspace, "
                                "where no step can reach it (--store DIR, or CANDOR_HOME)",
                                std::filesystem::weakly_canonical(store_dir).string(), std::filesystem::weakly_canonical(workspace).string()));
}

}  // namespace

Result<std::vector<nlohmann::json>> parse_expects(const std::vector<std::string>& texts, const std::vector<nlohmann::json>& from_config,
                                                  const planner::Catalog& catalog, const std::string& config_where,
                                                  const std::string& key) {
  std::vector<nlohmann::json> out;
  for (std::size_t i = 0; i < from_config.size(); ++i) {
    TRY_STATUS(planner::validate_assertion(from_config[i], catalog, fmt::format("{}: {}[{}]", config_where, key, i)));
    out.push_back(from_config[i]);
  }
  for (std::size_t i = 0; i < texts.size(); ++i) {
    std::string where = fmt::format("--{} #{}", key, i + 1);
    TRY(nlohmann::json a, planner::parse_json_text(texts[i], where));
    TRY_STATUS(planner::validate_assertion(a, catalog, where));
    out.push_back(a);
  }
  return out;
}

bool path_within(const std::string& path, const std::string& dir) {
  auto resolve = [](const std::string& s, std::error_code& ec) {
    std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(s, ec), ec);
    return p.has_filename() ? p : p.parent_path();  // "dir/" is "dir"
  };
  std::error_code ec;
  std::filesystem::path p = resolve(path, ec);
  if (ec) return false;
  std::filesystem::path d = resolve(dir, ec);
  if (ec) return false;
  auto [d_end, p_at] = std::mismatch(d.begin(), d.end(), p.begin(), p.end());
  return d_end == d.end();
}

Status check_scope_option(const std::vector<std::string>& scope) {
  for (const auto& glob : scope) {
    if (auto g = PathGlob::compile(glob); !g.ok()) {
      return make_error(ErrorCode::kInvalidInput, fmt::format("--scope \"{}\": invalid glob: {}", glob, g.error().message));
    }
  }
  return ok_status();
}

Result<std::string> read_text_file(const std::string& path, std::size_t max_bytes) {
  auto text = read_input_file(path, max_bytes);
  if (!text.ok() && text.error().code == ErrorCode::kNotFound) return make_error(ErrorCode::kInvalidInput, text.error().message);
  return text;
}

Result<std::unique_ptr<Session>> Session::open(const SessionArgs& args) {
  TRY_STATUS(check_scope_option(args.scope));
  std::unique_ptr<Session> s(new Session());
  // A candor that was killed left its steps' temporary folders and cgroups behind: removed now.
  for (const auto& error : sandbox::remove_leftovers().errors) {
    std::fprintf(stderr, "candor: could not remove what a killed run left: %s\n", error.c_str());
  }
  // Two fixed costs of every start need nothing of what follows and run beside it (the credential
  // walk, the snapshot store's opening): libgit2's initialisation (it loads the TLS certificates) and the
  // sandbox probe (it forks children and waits for them). Both are joined before this returns.
  const sandbox::Mechanisms mechanisms = sandbox::mechanisms_from_environment();
  std::future<void> git_ready = std::async(std::launch::async, snapshot::init_git_once);
  std::future<sandbox::Protections> probed = std::async(std::launch::async, [mechanisms] { return sandbox::probe_protections(mechanisms); });
  std::string store_dir = args.store_dir.empty() ? store::default_store_dir() : args.store_dir;
  TRY_STATUS(check_store_outside(store_dir, args.workspace));
  TRY(std::string store_path, store::prepare_store_dir(store_dir));
  // Read before the workspace opens: which credential files it allows is fixed at open.
  TRY(executor::WorkspaceConfig config, executor::load_config(args.workspace));
  // The store is outside the workspace; named here, it is read-only to a step in a mount namespace
  // even where Landlock is missing.
  auto workspace = sandbox::Workspace::open(args.workspace, {.force_fallback = false,
                                                             .protected_dirs = {store_path},
                                                             .secrets = sandbox::SecretFilter(config.secrets_allow)});
  if (!workspace.ok()) return make_error(ErrorCode::kInvalidInput, workspace.error().message);
  s->workspace_ = std::move(workspace.value());
  // The snapshot store's opening (its index: a stat per file of a large workspace, read back) needs
  // nothing of what follows, and runs beside the run store's opening and the credential walk below.
  std::future<Result<std::unique_ptr<snapshot::SnapshotStore>>> snapshots =
      std::async(std::launch::async,
                 [store_path, root = s->workspace_->root(), ignore = config.snapshot_ignore, &clock = s->clock_] {
                   return snapshot::SnapshotStore::open(store_path, root, clock, ignore);
                 });
  TRY(s->store_, store::RunStore::open(store_dir));
  TRY_STATUS(assertions::add_external_evaluators(s->evaluators_, config.evaluators, ".candor/config.json"));
  s->catalog_ = executor::make_catalog(s->tools_, s->evaluators_);
  TRY(s->expects_, parse_expects(args.expects, config.expect, s->catalog_, ".candor/config.json"));
  TRY(s->guards_, parse_expects(args.guards, config.guard, s->catalog_, ".candor/config.json", "guard"));
  if (config.file_text) {
    TRY_STATUS(check_config_provenance(*s->store_, s->workspace_->root(), *config.file_text, args.trust_config));
  }
  if (!args.acceptance_file.empty()) {
    TRY(std::string text, read_text_file(args.acceptance_file));
    TRY(s->acceptance_, verify::parse_acceptance_spec_text(text, s->tools_.names(), args.acceptance_file));
  }

  executor::ExecutorOptions& o = s->options_;
  executor::apply_config_budget(config, o.limits);
  if (args.max_replans) o.limits.max_replans = *args.max_replans;
  if (args.max_steps) o.limits.max_steps = *args.max_steps;
  if (args.max_tokens) o.limits.max_tokens = *args.max_tokens;
  if (args.timeout_s) o.limits.timeout_s = *args.timeout_s;
  if (config.output_cap_bytes) o.output_cap = *config.output_cap_bytes;
  o.network = config.network;
  o.snapshot_ignore = config.snapshot_ignore;
  o.scope = config.scope;
  o.scope.insert(o.scope.end(), args.scope.begin(), args.scope.end());
  o.sensitive = config.sensitive;
  s->sandbox_policy_ = sandbox::make_sandbox_policy(*s->workspace_, config.sandbox);
  sandbox::SandboxPolicy& policy = s->sandbox_policy_;
  policy.hidden_paths.push_back(s->store_->dir());
  if (args.allow_network) policy.allow_network = true;
  policy.pass_env.insert(policy.pass_env.end(), args.pass_env.begin(), args.pass_env.end());
  policy.require_all = args.require_sandbox;
  policy.mechanisms = mechanisms;
  o.process_sandbox = &policy;
  // Before anything reads through the workspace: the credential files the walk above found, by
  // inode and content, and the values to mask (theirs and the scrubbed variables').
  std::shared_ptr<const sandbox::CredentialRegistry> credentials = sandbox::read_credentials(*s->workspace_, policy, ::environ);
  for (const auto& unread : credentials->unread()) {
    std::fprintf(stderr, "candor: warning: credential file %s: its values are not masked\n", unread.c_str());
  }
  s->workspace_->set_credentials(credentials);
  s->masker_ = credentials->masker();
  s->store_->set_masker(s->masker_);
  o.progress = args.progress;
  o.cancel = args.cancel;

  TRY(s->snapshots_, snapshots.get());
  sandbox::Protections protections = sandbox::expected_protections(policy, probed.get());
  if (args.require_sandbox && !protections.missing().empty()) {
    std::string missing;
    for (const auto& m : protections.missing()) missing += (missing.empty() ? "" : ", ") + m;
    return make_error(ErrorCode::kRefused,
                      fmt::format("--require-sandbox: this machine cannot give shell steps every protection (missing: {}); "
                                  "`candor doctor` says why",
                                  missing));
  }
  o.sandbox_protections = protections.to_json();
  return s;
}

Status Session::start(const std::string& goal) {
  auto now = clock_.wall();
  created_at_ = format_timestamp(now);
  TRY(std::string run_id, store_->create_new_run(now, created_at_, goal, workspace_->root()));
  trajectory_ = std::make_unique<Trajectory>(run_id, clock_, store_.get(), masker_);
  executor_ = std::make_unique<executor::Executor>(
      executor::ExecutorDeps{*workspace_, *snapshots_, tools_, evaluators_, clock_, *trajectory_}, options_);
  Status begun = executor_->begin(run_id, goal);
  if (!begun.ok()) finish(executor_->finish(RunStatus::kError, BudgetKind::kNone, begun.error().message), false);
  return begun;
}

void Session::check_acceptance(RunFacts& facts) {
  if (!acceptance_ || trajectory_ == nullptr) return;
  try {
    verify::AcceptanceReport report = verify::evaluate_acceptance(*acceptance_, stream_from_events(trajectory_->events()));
    facts.acceptance = verify::to_json(report);
    trajectory_->record("acceptance", facts.acceptance);
  } catch (const std::exception& e) {
    // A bug in acceptance must not cost the run its verdict: say so and go on.
    facts.acceptance = {{"passed", false}, {"error", std::string("acceptance could not be evaluated: ") + e.what()}, {"checkpoints", nlohmann::json::array()}};
    trajectory_->record("acceptance_error", {{"error", e.what()}});
  }
}

int Session::finish(const RunFacts& given, bool json, llm::Provider* judge, verify::JudgePolicy policy,
                    const std::vector<std::string>& planner_questions) {
  RunFacts facts = given;
  check_acceptance(facts);
  verify::Tier1Result tier1 = verify::evaluate_tier1(facts);
  verify::JudgeRun judged;
  if (judge != nullptr && verify::should_ask_judge(tier1, policy)) {
    {
      ProgressWait waiting(options_.progress, WaitKind::kJudge);
      judged = verify::judge_run(*judge, snapshots_->trees(), facts,
                                 {.questions = {},
                                  .planner_questions = planner_questions,
                                  .credentials = workspace_->credentials(),
                                  .time = verify::judge_time(facts)});
    }
    verify::record_judge_run(judged, judge->describe(), *trajectory_, facts);
  }
  if (!trajectory_->sink_error().empty()) {
    std::fprintf(stderr, "candor: warning: some events were not stored: %s\n", trajectory_->sink_error().c_str());
  }
  const verify::JudgeOutcome& outcome = judged.outcome;
  int code = finish_run(*store_, facts, created_at_, json, tier1, outcome.asked ? &outcome : nullptr);
  if (outcome.provider_failed) {
    std::fprintf(stderr, "candor: the judge's LLM provider (%s) failed: %s\n", judge->describe().c_str(), outcome.error.c_str());
    return kExitUnavailable;
  }
  return code;
}

}  // namespace candor::cli
