// `candor verify --git RANGE --goal GOAL`: a change made by anyone (another agent's pull request),
// verified by the same rules as a run and stored as one (`source: "git"`). The change is untrusted
// input (DESIGN.md, Trust boundary): the configuration comes from BASE, never from the change.
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/finish_run.h"
#include "cli/session.h"
#include "executor/change_check.h"
#include "executor/config.h"
#include "executor/tool.h"
#include "import/trajectory_import.h"
#include "llm/provider.h"
#include "planner/plan.h"
#include "snapshot/range.h"
#include "store/run_store.h"
#include "verify/acceptance.h"
#include "verify/judge.h"
#include "verify/judge_run.h"
#include "verify/tier1.h"
#include "verify/verdict.h"

namespace candor::cli {
namespace {

constexpr const char* kConfigPath = ".candor/config.json";

// BASE's configuration: what the repository trusted before the change. The change's own edits to
// .candor/ are a sensitive-path finding, never configuration. `where` names it in errors.
Result<executor::WorkspaceConfig> config_from_base(const snapshot::GitTrees& trees, const snapshot::GitRange& range,
                                                   const std::string& where) {
  TRY(auto text, trees.read(range.base_tree, kConfigPath));
  if (!text) return executor::WorkspaceConfig{};
  return executor::parse_config_text(*text, where);
}

Result<std::string> goal_of(const VerifyArgs& args) {
  if (!args.goal.empty() && !args.goal_file.empty()) return make_error(ErrorCode::kUsage, "--goal and --goal-file: give one");
  if (!args.goal_file.empty()) {
    TRY(std::string text, read_text_file(args.goal_file));
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
      return make_error(ErrorCode::kInvalidInput, fmt::format("--goal-file {}: the file is empty", args.goal_file));
    }
    return text;
  }
  if (args.goal.empty()) return make_error(ErrorCode::kUsage, "--git needs the goal the change was made for: --goal TEXT or --goal-file FILE");
  return args.goal;
}

Result<std::string> criterion_of(const VerifyArgs& args) {
  if (!args.criterion.empty() && !args.criterion_file.empty()) return make_error(ErrorCode::kUsage, "give --criterion or --criterion-file, not both");
  if (args.criterion_file.empty()) return args.criterion;
  return read_text_file(args.criterion_file);
}

// The agent's transcript against the acceptance spec, when both are given.
Result<nlohmann::json> acceptance_of(const VerifyArgs& args) {
  if (args.acceptance_file.empty()) return nlohmann::json();
  if (args.trajectory_file.empty() || args.format.empty()) {
    return make_error(ErrorCode::kUsage, "--git with --acceptance needs the agent's transcript: --trajectory FILE --format FORMAT");
  }
  import::Format format = *import::parse_format(args.format);
  TRY(std::string spec_text, read_text_file(args.acceptance_file));
  TRY(verify::AcceptanceSpec spec, verify::parse_acceptance_spec_text(spec_text, import::tool_catalogue(format), args.acceptance_file));
  TRY(std::string text, read_text_file(args.trajectory_file, kMaxTranscriptBytes));
  TRY(auto imported, import::import_trajectory(text, format, args.trajectory_file));
  return verify::to_json(verify::evaluate_acceptance(spec, imported.events));
}

// "dir/" when `folder` lies inside `root`, else "".
std::string folder_inside(const std::string& folder, const std::string& root) {
  std::error_code ec;
  std::string abs = std::filesystem::weakly_canonical(folder, ec).string();
  if (ec || abs.rfind(root + "/", 0) != 0) return "";
  return abs.substr(root.size() + 1) + "/";
}

// The report's `git` object. A working tree has no commit: `head` is null and `worktree` true;
// `head_tree` is the id of the tree it was read as, which the repository does not hold.
nlohmann::json git_record(const snapshot::GitRange& range) {
  nlohmann::json git = {{"range", range.spec}, {"base", range.base_commit}, {"head", range.head_commit},
                        {"base_tree", range.base_tree}, {"head_tree", range.head_tree}};
  if (range.worktree) {
    git["head"] = nullptr;
    git["worktree"] = true;
  }
  if (!range.base_name.empty()) git["base_name"] = range.base_name;
  if (!range.warnings.empty()) git["warnings"] = range.warnings;
  return git;
}

}  // namespace

int verify_git_command(const VerifyArgs& args) {
  if (Status scope = check_scope_option(args.scope); !scope.ok()) return report_error(scope.error());
  auto goal = goal_of(args);
  if (!goal.ok()) return report_error(goal.error());
  auto criterion = criterion_of(args);
  if (!criterion.ok()) return report_error(criterion.error());
  auto acceptance = acceptance_of(args);
  if (!acceptance.ok()) return report_error(acceptance.error());
  auto repo = snapshot::GitRepository::open(args.repo);
  if (!repo.ok()) return report_error(repo.error());
  snapshot::GitTrees trees = (*repo)->trees();
  auto range = (*repo)->resolve(args.git_range);
  if (!range.ok()) return report_error(range.error());
  std::string config_where = fmt::format("{}:{}", range->base_commit.substr(0, 12), kConfigPath);
  auto config = config_from_base(trees, *range, config_where);
  if (!config.ok()) return report_error(config.error());
  std::string store_dir = args.store_dir.empty() ? store::default_store_dir() : args.store_dir;
  snapshot::WorktreeRead worktree;
  if (range->worktree) {
    // BASE..: the working tree, with BASE's ignore rules (its .gitignore files and config).
    auto read = (*repo)->read_worktree(*range, config->snapshot_ignore, folder_inside(store_dir, (*repo)->root()));
    if (!read.ok()) return report_error(read.error());
    worktree = std::move(read.value());
  }

  assertions::Registry evaluators = assertions::builtin_evaluators();
  if (Status added = assertions::add_external_evaluators(evaluators, config->evaluators, config_where); !added.ok()) {
    return report_error(added.error());
  }
  executor::ToolRegistry tools = executor::builtin_tools();
  planner::Catalog catalog = executor::make_catalog(tools, evaluators);
  auto expects = parse_expects(args.expects, config->expect, catalog, config_where);
  if (!expects.ok()) return report_error(expects.error());
  auto guards = parse_expects(args.guards, config->guard, catalog, config_where, "guard");
  if (!guards.ok()) return report_error(guards.error());

  // The judge: --llm, else the environment's provider; --judge auto unless told otherwise.
  verify::JudgePolicy policy = args.judge_given ? *verify::parse_judge_policy(args.judge) : verify::JudgePolicy::kAuto;
  std::unique_ptr<llm::Provider> judge;
  llm::ProviderChoice choice = llm::choose_provider(args.llm);
  if (!choice.spec.empty() && policy != verify::JudgePolicy::kNever) {
    auto provider = llm::make_provider(choice.spec, {});
    if (!provider.ok()) return report_error(provider.error());
    judge = std::move(provider.value());
  }

  auto store = store::RunStore::open(store_dir);
  if (!store.ok()) return report_error(store.error());
  SystemClock clock;
  auto now = clock.wall();
  std::string created_at = format_timestamp(now);
  auto run_id = (*store)->create_new_run(now, created_at, *goal, (*repo)->root());
  if (!run_id.ok()) return report_error(run_id.error());
  Trajectory trajectory(*run_id, clock, store->get());

  RunFacts facts;
  facts.run_id = *run_id;
  facts.source = "git";
  facts.goal = *goal;
  facts.goal_kind = args.kind.empty() ? GoalKind::kModify : *parse_goal_kind(args.kind);
  facts.workspace = (*repo)->root();
  facts.snapshot_before = range->base_tree;
  facts.snapshot_after = range->head_tree;
  facts.git = git_record(*range);
  facts.scan.unread = worktree.unread;
  facts.scan.complete = worktree.unread.empty();
  facts.scope = config->scope;
  facts.scope.insert(facts.scope.end(), args.scope.begin(), args.scope.end());
  facts.sensitive = config->sensitive;
  facts.budget.limits.max_replans = 0;
  trajectory.record("run_started", {{"goal", *goal}, {"workspace", facts.workspace}, {"snapshot_before", facts.snapshot_before},
                                    {"source", "git"}, {"git", facts.git}});
  if (range->worktree) {
    trajectory.record("worktree_read", {{"tree", range->head_tree}, {"files_hashed", worktree.hashed}, {"unread", worktree.unread}});
  }
  trajectory.record("goal_kind", {{"kind", to_string(facts.goal_kind)}, {"by", args.kind.empty() ? "default" : "--kind"}});

  auto mutations = trees.diff(range->base_tree, range->head_tree, {.detect_renames = true});
  if (!mutations.ok()) return report_error(mutations.error());
  // The change is one step: its every mutation is an effect (DESIGN.md, verify --git).
  StepRecord change;
  change.id = "change";
  change.tool = "git";
  change.target = range->spec;
  change.effect_tool = true;
  change.ok = true;
  for (const auto& m : *mutations) change.changed_paths.push_back(m.path);
  std::int64_t changed_seq = trajectory.record("workspace_changed", {{"step", "change"}, {"paths", change.changed_paths}}).seq;
  change.seq = changed_seq;
  facts.steps = {change};
  facts.steps_planned = 1;
  facts.budget.used.steps = 1;
  for (auto m : *mutations) {
    m.steps = {"change"};
    m.last_change_seq = changed_seq;
    facts.mutations.push_back(std::move(m));
  }

  executor::ChangeCheckInputs inputs{trees, range->base_tree, range->head_tree, evaluators,
                                     sandbox::SecretFilter(config->secrets_allow), config->network, config->sandbox};
  executor::ChangeCheck checked = executor::check_change(inputs, *expects, trajectory, *guards);
  facts.assertions = std::move(checked.assertions);
  facts.sandbox = checked.sandbox;
  facts.status = RunStatus::kCompleted;
  facts.acceptance = *acceptance;
  if (facts.acceptance.is_object()) trajectory.record("acceptance", facts.acceptance);

  if (!criterion->empty()) {
    // One review of the change's result; the same LLM as the judge's.
    auto provider = choice.spec.empty() ? Result<std::unique_ptr<llm::Provider>>(make_error(ErrorCode::kUsage, std::string("--criterion needs an LLM provider: ") + llm::kNoProviderHint))
                                        : llm::make_provider(choice.spec, {});
    if (!provider.ok()) return report_error(provider.error());
    executor::Review review = executor::review_change(inputs, **provider, tools, *criterion, *goal, trajectory);
    facts.goal_validations.push_back(review.validation);
    if (facts.provider.empty()) facts.provider = (*provider)->describe();
  }

  verify::Tier1Result tier1 = verify::evaluate_tier1(facts);
  verify::JudgeRun judged;
  if (judge != nullptr && verify::should_ask_judge(tier1, policy)) {
    judged = verify::judge_run(*judge, trees, facts, {.questions = args.questions, .planner_questions = {}, .credentials = nullptr, .time = verify::judge_time(facts)});
    verify::record_judge_run(judged, judge->describe(), trajectory, facts);
    facts.provider = judge->describe();
  }
  const verify::JudgeOutcome& outcome = judged.outcome;
  // BASE was resolved once, before anything ran; a name moved since is said (the verdict is
  // about the commit recorded).
  if (std::string moved = (*repo)->base_moved(*range); !moved.empty()) {
    facts.git["warnings"].push_back(moved);
    trajectory.record("base_moved", {{"base_name", range->base_name}, {"warning", moved}});
  }
  trajectory.record("run_ended", {{"status", to_string(facts.status)}});
  ReportFormat format = args.json ? ReportFormat::kJson : args.markdown ? ReportFormat::kMarkdown : ReportFormat::kTerminal;
  int code = finish_run(**store, facts, created_at, format, tier1, outcome.asked ? &outcome : nullptr);
  if (outcome.provider_failed) {
    std::fprintf(stderr, "candor: the judge's LLM provider (%s) failed: %s\n", judge->describe().c_str(), outcome.error.c_str());
    return kExitUnavailable;
  }
  return code;
}

}  // namespace candor::cli
