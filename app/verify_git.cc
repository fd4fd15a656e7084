// `verify --git RANGE --goal GOAL`: a change made by anyone (another agent's pull request),
// verified by the same rules as a run and stored as one (`source: "git"`). The change is untrusted
// input (docs/design.md, Trust boundary): the configuration comes from BASE, never from the change.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>

#include <fmt/format.h>

#include "app/acceptance_check.h"
#include "app/inputs.h"
#include "app/run_end.h"
#include "app/run_opening.h"
#include "app/session.h"
#include "core/events.h"
#include "executor/change_check.h"
#include "executor/config.h"
#include "executor/tool.h"
#include "llm/provider.h"
#include "sandbox/credential_registry.h"
#include "sandbox/workspace_policy.h"
#include "snapshot/range.h"
#include "store/run_store.h"

namespace candor::app {
namespace {

constexpr const char* kConfigPath = ".candor/config.json";

Result<std::string> goal_of(const VerifyGitRequest& request) {
  if (!request.goal.empty() && !request.goal_file.empty())
    return make_error(ErrorCode::kUsage, "--goal and --goal-file: give one");
  if (!request.goal_file.empty()) {
    TRY(std::string text, read_text_file(request.goal_file));
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
      return make_error(ErrorCode::kInvalidInput, fmt::format("--goal-file {}: the file is empty", request.goal_file));
    }
    return text;
  }
  if (request.goal.empty())
    return make_error(ErrorCode::kUsage,
                      "--git needs the goal the change was made for: --goal TEXT or --goal-file FILE");
  return request.goal;
}

Result<std::string> criterion_of(const VerifyGitRequest& request) {
  if (!request.criterion.empty() && !request.criterion_file.empty())
    return make_error(ErrorCode::kUsage, "give --criterion or --criterion-file, not both");
  if (request.criterion_file.empty()) return request.criterion;
  return read_text_file(request.criterion_file);
}

// The agent's transcript against the acceptance spec, when both are given.
Result<nlohmann::json> acceptance_of(const VerifyGitRequest& request) {
  if (request.acceptance_file.empty()) return nlohmann::json();
  if (request.trajectory_file.empty() || request.format.empty()) {
    return make_error(ErrorCode::kUsage,
                      "--git with --acceptance needs the agent's transcript: --trajectory FILE --format FORMAT");
  }
  return transcript_acceptance({request.trajectory_file, request.format, request.acceptance_file});
}

// "dir/" when `folder` lies inside `root`, else "".
std::string folder_inside(const std::string& folder, const std::string& root) {
  std::error_code ec;
  std::string abs = std::filesystem::weakly_canonical(folder, ec).string();
  if (ec || abs.rfind(root + "/", 0) != 0) return "";
  return abs.substr(root.size() + 1) + "/";
}

// The report's `git` object. A working tree has no commit: `head` is null and `worktree` true;
// `head_tree` is the id of the tree it was read as, which the repository does not hold, and
// `worktree_read` how it was read.
nlohmann::json git_record(const snapshot::GitRange& range, const snapshot::WorktreeRead& read) {
  nlohmann::json git = {{"range", range.spec},
                        {"base", range.base_commit},
                        {"head", range.head_commit},
                        {"base_tree", range.base_tree},
                        {"head_tree", range.head_tree}};
  if (range.worktree) {
    git["head"] = nullptr;
    git["worktree"] = true;
    nlohmann::json how = {{"files_hashed", read.hashed}, {"files_reused", read.reused}};
    if (!read.looked.empty()) how["looked"] = read.looked;
    if (!read.reason.empty()) how["reason"] = read.reason;
    if (!read.warning.empty()) how["not_kept"] = read.warning;
    git["worktree_read"] = how;
  }
  if (!range.base_name.empty()) git["base_name"] = range.base_name;
  if (!range.warnings.empty()) git["warnings"] = range.warnings;
  return git;
}

// The change as the repository holds it: the range resolved once, BASE's configuration (what the
// repository trusted before the change; the change's own edits to .candor/ are a sensitive-path
// finding, never configuration), and for BASE.. the working tree read with BASE's ignore rules.
struct Change {
  std::unique_ptr<snapshot::GitRepository> repo;
  snapshot::GitRange range;
  std::string config_where;  // names BASE's config in errors
  executor::WorkspaceConfig config;
  snapshot::WorktreeRead worktree;
};

Result<Change> open_change(const VerifyGitRequest& request, const std::string& store_dir) {
  Change c;
  TRY(c.repo, snapshot::GitRepository::open(request.repo));
  snapshot::GitTrees trees = c.repo->trees();
  TRY(c.range, c.repo->resolve(request.range));
  c.config_where = fmt::format("{}:{}", c.range.base_commit.substr(0, 12), kConfigPath);
  TRY(auto text, trees.read(c.range.base_tree, kConfigPath));
  if (text) {
    TRY(c.config, executor::parse_config_text(*text, c.config_where));
  }
  if (c.range.worktree) {
    TRY(c.worktree, c.repo->read_worktree(c.range, {.extra_ignore = c.config.snapshot_ignore,
                                                    .skip_dir = folder_inside(store_dir, c.repo->root()),
                                                    .store_dir = store_dir,
                                                    .watchman = c.config.fsmonitor == "watchman"}));
  }
  return c;
}

// The credential files by name, BASE's and HEAD's: a value the change wrote into one is a secret too.
// HEAD's that BASE lacks are among the paths the change touched: the diff finds them without
// listing HEAD's every file (it skips the folders whose trees are BASE's).
Result<std::vector<std::string>> credential_files(const Change& c) {
  sandbox::SecretFilter secrets(c.config.secrets_allow);
  auto refused = [&](std::string_view path) { return secrets.refused(path); };
  TRY(std::vector<std::string> files, c.repo->trees().file_paths(c.range.base_tree, refused));
  TRY(auto touched, c.repo->trees().diff(c.range.base_tree, c.range.head_tree, {}));
  for (const auto& m : touched) {
    if (refused(m.path)) files.push_back(m.path);
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

RunFacts start_facts(const VerifyGitRequest& request, const Change& c, const std::string& run_id,
                     const std::string& goal, const std::vector<std::string>& credential_files,
                     Trajectory& trajectory) {
  const bool gate = !request.gate.is_null();
  RunFacts facts;
  facts.run_id = run_id;
  facts.source = gate ? "gate" : request.eval.is_null() ? "git" : "eval";
  facts.gate = request.gate;
  facts.goal = goal;
  facts.goal_kind = request.kind.empty() ? GoalKind::kModify : *parse_goal_kind(request.kind);
  facts.workspace = c.repo->root();
  facts.snapshot_before = c.range.base_tree;
  facts.snapshot_after = c.range.head_tree;
  facts.git = git_record(c.range, c.worktree);
  facts.credential_files = credential_files;
  facts.scan.unread = c.worktree.unread;
  facts.scan.complete = c.worktree.unread.empty();
  facts.scope = c.config.scope;
  facts.scope.insert(facts.scope.end(), request.scope.begin(), request.scope.end());
  facts.sensitive = c.config.sensitive;
  facts.budget.limits.max_replans = 0;
  if (request.timeout_s) facts.budget.limits.timeout_s = *request.timeout_s;
  trajectory.record(event::kRunStarted, {{"goal", goal},
                                         {"workspace", facts.workspace},
                                         {"snapshot_before", facts.snapshot_before},
                                         {"source", facts.source},
                                         {"git", facts.git}});
  if (c.range.worktree) {
    trajectory.record(event::kWorktreeRead, {{"tree", c.range.head_tree},
                                             {"files_hashed", c.worktree.hashed},
                                             {"files_reused", c.worktree.reused},
                                             {"unread", c.worktree.unread}});
  }
  // The gate's fallback decides the kind from the change (record_change_step).
  if (!gate) {
    trajectory.record(event::kGoalKind,
                      {{"kind", to_string(facts.goal_kind)}, {"by", request.kind.empty() ? "default" : "--kind"}});
  }
  return facts;
}

// The change is one step: its every mutation is an effect (docs/design.md, verify --git).
Status record_change_step(const Change& c, Trajectory& trajectory, RunFacts& facts) {
  TRY(auto mutations, c.repo->trees().diff(c.range.base_tree, c.range.head_tree, {.detect_renames = true}));
  StepRecord change;
  change.id = "change";
  change.tool = "git";
  change.target = c.range.spec;
  change.effect_tool = true;
  change.ok = true;
  for (const auto& m : mutations) change.changed_paths.push_back(m.path);
  std::int64_t changed_seq =
      trajectory.record(event::kWorkspaceChanged, {{"step", "change"}, {"paths", change.changed_paths}}).seq;
  change.seq = changed_seq;
  facts.steps = {change};
  facts.steps_planned = 1;
  facts.budget.used.steps = 1;
  for (auto m : mutations) {
    m.steps = {"change"};
    m.last_change_seq = changed_seq;
    facts.mutations.push_back(std::move(m));
  }
  return ok_status();
}

// Which changed paths are credential files: by name (BASE's secret rules), or by holding a credential
// file's content of BASE or HEAD under another name (`git mv .env moved.cfg`, `cp .env
// settings.txt`): docs/design.md, a credential file stays one after a rename or a copy. Their diffs are
// withheld everywhere, and the commands' checkouts write them empty (executor/change_check.h).
void mark_credentials(const Change& c, const sandbox::CredentialRegistry& credentials, RunFacts& facts) {
  sandbox::SecretFilter secrets(c.config.secrets_allow);
  snapshot::GitTrees trees = c.repo->trees();
  auto holds = [&](const std::string& tree, const std::string& path, std::int64_t size) {
    if (size <= 0 || !credentials.has_size(static_cast<std::uint64_t>(size))) return false;
    auto content = trees.read(tree, path);
    return content.ok() && content->has_value() && credentials.has_content(**content);
  };
  for (auto& m : facts.mutations) {
    m.credential = m.credential || secrets.refused(m.path) ||
                   (m.change != "deleted" && holds(c.range.head_tree, m.path, m.bytes_after)) ||
                   (m.change != "added" && holds(c.range.base_tree, m.path, m.bytes_before));
  }
}

// The gate's fallback: a turn that changed nothing answered a question (the gate never blocks for
// that alone); one that changed files asked for a change.
void record_gate_kind(Trajectory& trajectory, RunFacts& facts) {
  facts.goal_kind = facts.mutations.empty() ? GoalKind::kInspect : GoalKind::kModify;
  if (facts.mutations.empty()) {
    facts.steps.clear();  // no change: no step that "changed nothing"
    facts.steps_planned = 0;
    facts.budget.used.steps = 0;
  }
  trajectory.record(event::kGoalKind,
                    {{"kind", to_string(facts.goal_kind)},
                     {"by", facts.mutations.empty() ? "gate: nothing changed" : "gate: files changed"}});
}

// What the run is checked with, from BASE's config and the request.
struct Checks {
  assertions::Registry evaluators = assertions::builtin_evaluators();
  executor::ToolRegistry tools = executor::builtin_tools();
  std::vector<nlohmann::json> expects, guards;
};

Status read_checks(const VerifyGitRequest& request, const Change& c, Checks& checks) {
  TRY_STATUS(assertions::add_external_evaluators(checks.evaluators, c.config.evaluators, c.config_where));
  planner::Catalog catalog = executor::make_catalog(checks.tools, checks.evaluators);
  TRY(checks.expects, parse_expects(request.expects, c.config.expect, catalog, c.config_where));
  TRY(checks.guards, parse_expects(request.guards, c.config.guard, catalog, c.config_where, "guard"));
  return ok_status();
}

// What the request names, read before anything is opened.
struct Inputs {
  std::string goal;
  std::string criterion;
  nlohmann::json acceptance;  // the transcript checked against the spec; null without --acceptance
  std::string store_dir;
};

Result<Inputs> read_inputs(const VerifyGitRequest& request) {
  TRY_STATUS(check_scope_option(request.scope));
  Inputs in;
  TRY(in.goal, goal_of(request));
  TRY(in.criterion, criterion_of(request));
  TRY(in.acceptance, acceptance_of(request));
  in.store_dir = request.store_dir.empty() ? store::default_store_dir() : request.store_dir;
  return in;
}

// HEAD checked: the user's assertions (BASE's tree for the discriminating check), the transcript's
// acceptance, and with a criterion one review of the change's result by the judge's LLM.
// Programs (the user's commands, before the change and after) end with the time budget: `deadline`.
Status check_head(const Inputs& in, const Change& c, const Checks& checks, const llm::ProviderChoice& choice,
                  const ProviderFactory& make_provider, const std::shared_ptr<const SecretMasker>& masker,
                  const Deadline& deadline, Trajectory& trajectory, RunFacts& facts) {
  executor::ChangeCheckInputs inputs{c.repo->trees(),
                                     c.range.base_tree,
                                     c.range.head_tree,
                                     checks.evaluators,
                                     sandbox::SecretFilter(c.config.secrets_allow),
                                     c.config.network,
                                     c.config.sandbox};
  for (const auto& m : facts.mutations) {
    inputs.changed_paths.push_back({m.path, m.renamed_from});
    if (m.credential && m.change != "deleted") inputs.withheld.push_back(m.path);
  }
  inputs.inputs = executor::workspace_inputs(c.repo->root(), c.config);
  inputs.deadline = deadline;
  inputs.masker = masker;
  executor::ChangeCheck checked = executor::check_change(inputs, checks.expects, trajectory, checks.guards);
  facts.assertions = std::move(checked.assertions);
  facts.sandbox = checked.sandbox;
  facts.status = RunStatus::kCompleted;
  facts.acceptance = in.acceptance;
  if (facts.acceptance.is_object()) trajectory.record(event::kAcceptance, facts.acceptance);
  if (in.criterion.empty()) return ok_status();
  if (choice.spec.empty())
    return make_error(ErrorCode::kUsage, std::string("--criterion needs an LLM provider: ") + llm::kNoProviderHint);
  llm::ProviderOptions options;
  options.masker = masker;
  TRY(std::unique_ptr<llm::Provider> reviewer, make_provider(choice.spec, options));
  executor::Review review = executor::review_change(inputs, *reviewer, checks.tools, in.criterion, in.goal, trajectory);
  facts.goal_validations.push_back(review.validation);
  if (facts.provider.empty()) facts.provider = reviewer->describe();
  return ok_status();
}

// After the judge: BASE was resolved once, before anything ran; a name moved since is said (the
// verdict is about the commit recorded). Then the run's end is recorded.
void record_end(const Change& c, Trajectory& trajectory, RunFacts& facts) {
  if (std::string moved = c.repo->base_moved(c.range); !moved.empty()) {
    facts.git["warnings"].push_back(moved);
    trajectory.record(event::kBaseMoved, {{"base_name", c.range.base_name}, {"warning", moved}});
  }
  trajectory.record(event::kRunEnded, {{"status", to_string(facts.status)}});
}

}  // namespace

Result<RunResult> Session::verify_git(const VerifyGitRequest& request) {
  TRY(verify::JudgePolicy policy, verify::checked_judge_policy(request.judge, "VerifyGitRequest.judge"));
  TRY(Inputs in, read_inputs(request));
  TRY(std::unique_ptr<RunOpening> run, RunOpening::open(in.store_dir, observer_));
  // The run's one time budget: the user's commands and the review end with it, the judge has what
  // it leaves.
  run->start_deadline(request.timeout_s.value_or(BudgetLimits{}.timeout_s));
  const Deadline& deadline = run->deadline();
  auto elapsed_s = [&] { return deadline.elapsed_s(); };
  TRY(Change c, open_change(request, in.store_dir));
  Checks checks;
  TRY_STATUS(read_checks(request, c, checks));
  // The secret values known at the start, masked in all that follows: those of BASE's and the
  // change's credential files, and the scrubbed variables'.
  RunFacts known;
  known.snapshot_before = c.range.base_tree;
  known.snapshot_after = c.range.head_tree;
  TRY(known.credential_files, credential_files(c));
  // BASE..: the working tree's credential files too, ignored ones included (a `.env` no tree holds,
  // whose copy the change may add under another name; one in a dependency folder every checkout
  // links), found by the walk a run's start makes and read from disk.
  std::unique_ptr<sandbox::Workspace> worktree;
  sandbox::SandboxPolicy worktree_policy;
  std::function<void(sandbox::CredentialRegistry&)> worktree_credentials;
  if (c.range.worktree) {
    auto opened = sandbox::Workspace::open(
        c.repo->root(),
        {.force_fallback = false, .protected_dirs = {}, .secrets = sandbox::SecretFilter(c.config.secrets_allow)});
    if (opened.ok()) {
      worktree = std::move(*opened);
      worktree_policy = sandbox::make_sandbox_policy(*worktree);
      worktree_credentials = [&](sandbox::CredentialRegistry& registry) {
        sandbox::read_credential_files(*worktree, worktree_policy, registry);
      };
    }
  }
  run->mask_known(c.repo->trees(), known, worktree_credentials);
  const sandbox::CredentialRegistry& credentials = *run->credentials();
  // The judge: --llm, else the environment's provider; --judge auto unless told otherwise.
  std::unique_ptr<llm::Provider> judge;
  llm::ProviderChoice choice =
      request.gate.is_null() ? llm::choose_provider(request.llm) : llm::ProviderChoice{request.llm, "--llm"};
  if (!choice.spec.empty() && policy != verify::JudgePolicy::kNever) {
    llm::ProviderOptions options;
    options.masker = run->masker();
    TRY(judge, make_provider_(choice.spec, options));
  }

  TRY_STATUS(run->create_run(in.goal, c.repo->root()));
  Trajectory& trajectory = run->trajectory();
  RunFacts facts = start_facts(request, c, run->run_id(), in.goal, known.credential_files, trajectory);
  TRY_STATUS(record_change_step(c, trajectory, facts));
  mark_credentials(c, credentials, facts);
  if (!request.gate.is_null()) record_gate_kind(trajectory, facts);
  TRY_STATUS(check_head(in, c, checks, choice, make_provider_, run->masker(), deadline, trajectory, facts));
  // Recorded as a run's is, so that `verify RUN` later asks (or does not ask) the judge the same way;
  // without an LLM the verdict was the judge-less one.
  facts.judge_policy = judge != nullptr ? (request.judge.empty() ? "auto" : request.judge) : "never";
  facts.budget.used.elapsed_s = elapsed_s();  // what the judge's time is taken from

  RunEnd end{.facts = std::move(facts),
             .created_at = run->created_at(),
             .trajectory = &trajectory,
             .store = &run->store(),
             .acceptance = nullptr,
             .events = nullptr,
             .policy = policy,
             .judge = nullptr,
             .trees = nullptr,
             .before_verdict =
                 [&](RunFacts& f) {
                   f.budget.used.elapsed_s = elapsed_s();  // the judge's time included
                   record_end(c, trajectory, f);
                 },
             .deadline = &deadline};
  snapshot::GitTrees trees = c.repo->trees();
  end.trees = &trees;
  if (judge != nullptr) {
    end.judge = [&]() -> Result<JudgeSetup> {
      return JudgeSetup{.provider = judge.get(),
                        .trees = c.repo->trees(),
                        .questions = request.questions,
                        .credentials = &credentials};
    };
  }
  return end_run(std::move(end), observer_);
}

}  // namespace candor::app
