#include "executor/executor.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>

#include <fmt/format.h>

#include "assertions/empty_file_source.h"
#include "core/events.h"
#include "evidence/test_runners.h"
#include "executor/snapshot_files.h"
#include "sandbox/credential_registry.h"
#include "sandbox/process.h"
#include "sandbox/secret_files.h"

namespace candor::executor {
namespace {

// The process's umask without changing it (umask() sets as it reads, and other threads run).
int process_umask() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("Umask:", 0) == 0) {
      try {
        return static_cast<int>(std::stoul(line.substr(6), nullptr, 8));
      } catch (const std::exception&) {
        return -1;
      }
    }
  }
  return -1;
}

std::string cap_text(const std::string& s, std::size_t cap) {
  if (s.size() <= cap) return s;
  return s.substr(0, cap) + fmt::format("\n[observation cut: {} bytes in total]", s.size());
}

bool has_assertion(const planner::PlanStep& step, const std::string& type) {
  return std::any_of(step.asserts.begin(), step.asserts.end(),
                     [&](const nlohmann::json& a) { return a.value("type", "") == type; });
}

}  // namespace

ScanBeforeRun scan_before_run(snapshot::SnapshotStore& snapshots, const std::string& root, const Deadline& deadline,
                              const ExecutorOptions& options) {
  ScanBeforeRun out;
  out.processes_before = sandbox::processes_started();
  // Every scan obeys the time budget (a step's scan would otherwise hash a planted 100 GB sparse
  // file at leisure).
  snapshots.set_deadline(deadline);
  if (options.change_events) snapshots.watch_changes(options.max_watches);
  if (options.fsmonitor == "watchman") {
    auto start = snapshot::first_scan_by_watchman(snapshots, root, snapshot::kWatchmanTimeout);
    if (start.ok()) {
      out.fsmonitor = std::move(start.value());
    } else {
      out.status = start.error();
    }
    return out;
  }
  auto scan = snapshots.scan();
  if (!scan.ok()) out.status = scan.error();
  return out;
}

Executor::Executor(ExecutorDeps deps, ExecutorOptions options) : deps_(deps), options_(std::move(options)) {
  facts_.budget.limits = options_.limits;
  facts_.workspace = deps_.workspace.root();
}

double Executor::elapsed_s() const { return deps_.deadline.elapsed_s(); }

Status Executor::begin(const std::string& run_id, const std::string& goal) {
  facts_.run_id = run_id;
  facts_.goal = goal;
  facts_.umask = process_umask();
  ScanBeforeRun scan = options_.scanned_before
                           ? *options_.scanned_before
                           : scan_before_run(deps_.snapshots, deps_.workspace.root(), deps_.deadline, options_);
  if (!scan.status.ok()) return scan.status.error().wrap("snapshot before the run");
  if (scan.fsmonitor && scan.fsmonitor->reason.empty() && options_.credentials_after_first_scan &&
      options_.process_sandbox != nullptr && options_.process_sandbox->secret_scan_error.empty())
    secret_files_now_ = options_.process_sandbox->secret_files;
  if (scan.fsmonitor) {
    facts_.scan.before_run = scan.fsmonitor->reason.empty() ? "watchman" : "walk";
    facts_.scan.before_run_reason = scan.fsmonitor->reason;
    if (!scan.fsmonitor->unavailable.empty())
      note("warning: snapshot.fsmonitor: " + scan.fsmonitor->unavailable + "; the snapshot before the run walked");
  }
  TRY_STATUS(deps_.snapshots.freeze_ignore_rules(options_.snapshot_ignore));
  // After the first scan, which found the repositories nested in the workspace.
  auto protected_state = snapshot::capture_protected_state(deps_.workspace.root(), deps_.snapshots.nested_git());
  if (!protected_state.ok()) return protected_state.error().wrap("protected paths before the run");
  protected_before_ = std::move(protected_state.value());
  auto tree = deps_.snapshots.write_tree();
  if (!tree.ok()) return tree.error().wrap("snapshot before the run");
  facts_.snapshot_before = *tree;
  note_scan(scan.processes_before);
  TRY_STATUS(deps_.snapshots.pin(*tree, "runs/" + run_id + "/before"));
  deps_.trajectory.record(event::kRunStarted,
                          {{"goal", goal},
                           {"workspace", deps_.workspace.root()},
                           {"snapshot_before", *tree},
                           {"limits",
                            {{"max_replans", options_.limits.max_replans},
                             {"max_steps", options_.limits.max_steps},
                             {"max_tokens", options_.limits.max_tokens},
                             {"timeout_s", options_.limits.timeout_s}}},
                           {"path_resolution", deps_.workspace.uses_openat2() ? "openat2" : "nofollow-walk"},
                           {"sandbox", options_.sandbox_protections},
                           {"judge_policy", options_.judge_policy}});
  if (const sandbox::CredentialRegistry* credentials = deps_.workspace.credentials(); credentials != nullptr) {
    facts_.credential_files.assign(credentials->paths().begin(), credentials->paths().end());
  }
  facts_.sandbox = options_.sandbox_protections;
  facts_.judge_policy = options_.judge_policy;
  facts_.scope = options_.scope;
  facts_.sensitive = options_.sensitive;
  return ok_status();
}

bool Executor::budget_left(BudgetKind& which) const {
  if (facts_.budget.used.steps >= options_.limits.max_steps) {
    which = BudgetKind::kSteps;
    return false;
  }
  if (deps_.deadline.passed()) {
    which = BudgetKind::kTimeout;
    return false;
  }
  if (facts_.budget.used.tokens >= options_.limits.max_tokens) {
    which = BudgetKind::kTokens;
    return false;
  }
  return true;
}

void Executor::set_goal_kind(GoalKind kind, const std::string& by) {
  facts_.goal_kind = kind;
  deps_.trajectory.record(event::kGoalKind, {{"kind", to_string(kind)}, {"by", by}});
}

void Executor::set_final_answer(const std::string& text) {
  facts_.final_answer = text;
  deps_.trajectory.record(event::kFinalAnswer, {{"text", text}});
}

RoundOutcome Executor::run_round(const planner::Plan& plan, int round) {
  RoundOutcome outcome;
  facts_.last_round = round;
  facts_.steps_planned += static_cast<int>(plan.steps.size());
  if (options_.progress != nullptr) options_.progress->round_started(round, plan.steps.size());
  for (const auto& step : plan.steps) {
    if (cancelled()) {
      outcome.all_passed = false;
      outcome.cancelled = true;
      outcome.failure = fmt::format("cancelled before step {}", step.id);
      break;
    }
    BudgetKind which = BudgetKind::kNone;
    if (!budget_left(which)) {
      outcome.all_passed = false;
      outcome.budget_hit = which;
      outcome.failure = fmt::format("the {} budget ran out before step {}", to_string(which), step.id);
      break;
    }
    std::size_t first_assertion = facts_.assertions.size();
    StepRecord record = run_step(step, round, outcome);
    facts_.steps.push_back(record);
    if (options_.progress != nullptr) {
      options_.progress->step_finished(
          record, std::vector<AssertionRecord>(facts_.assertions.begin() + static_cast<long>(first_assertion),
                                               facts_.assertions.end()));
    }
    if (cancelled()) outcome.cancelled = true;
    if (!outcome.all_passed || outcome.cancelled) break;
  }
  return outcome;
}

StepRecord Executor::run_step(const planner::PlanStep& step, int round, RoundOutcome& outcome) {
  const Tool* tool = deps_.tools.find(step.tool);
  StepRecord rec;
  rec.id = step.id;
  rec.round = round;
  rec.tool = step.tool;
  if (tool == nullptr) {  // the plan was validated against this registry; this is a bug
    rec.error = "unknown tool " + step.tool;
    outcome.all_passed = false;
    outcome.failure = fmt::format("step {}: {}", step.id, rec.error);
    return rec;
  }
  rec.target = tool->target(step.args);
  rec.effect_tool = tool->effect();
  rec.effect_on_files = tool->effect_on_files();
  if (options_.progress != nullptr) options_.progress->step_started(rec);
  deps_.trajectory.record(event::kStepStarted,
                          {{"step", step.id}, {"round", round}, {"tool", step.tool}, {"why", step.why}});
  // The registry's facts about the call, so that replay needs no tool table of its own.
  deps_.trajectory.record(event::kToolCalled, {{"step", step.id},
                                               {"tool", step.tool},
                                               {"input", step.args},
                                               {"target", rec.target},
                                               {"effect", rec.effect_tool},
                                               {"effect_on_files", rec.effect_on_files}});

  ToolContext ctx{deps_.workspace,       options_.network, options_.output_cap,
                  deps_.deadline.left(), options_.cancel,  options_.process_sandbox};
  ctx.secret_refresh = secret_refresh();
  ToolResult result = tool->run(step.args, ctx);
  facts_.budget.used.steps++;
  // Masked where it is made: the output goes to the event, the planner's observations, the
  // assertions that read it (output_contains), the progress line and the facts.
  mask(result.output);
  mask(result.error);

  if (!tool->read_only()) rec.changed_paths = scan_for_changes(step.id, result.wrote);
  if (result.committed) {
    if (facts_.commits_to_tree.empty()) facts_.commits_from_tree = result.committed->first;
    facts_.commits_to_tree = result.committed->second;
    commit_steps_.push_back(step.id);
  }

  // A shell step that asserts its exit code lets the assertion decide, unless it timed out.
  bool excused = step.tool == "shell" && !result.ok && !result.timed_out && result.exit_code &&
                 has_assertion(step, "exit_code_eq");
  rec.ok = result.ok || excused;
  rec.error = result.error;
  rec.exit_code = result.exit_code;
  const Event& ev = deps_.trajectory.record(
      "tool_result", {{"step", step.id},
                      {"tool", step.tool},
                      {"ok", result.ok},
                      {"output", result.output},
                      {"exit_code", result.exit_code ? nlohmann::json(*result.exit_code) : nlohmann::json(nullptr)},
                      {"error", result.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(result.error)},
                      {"output_bytes", result.output_bytes},
                      {"output_truncated", result.output_truncated}});
  rec.seq = ev.seq;
  outcome.observations.push_back({{"step", step.id},
                                  {"tool", step.tool},
                                  {"target", rec.target},
                                  {"ok", rec.ok},
                                  {"output", cap_text(result.ok ? result.output : result.error + "\n" + result.output,
                                                      options_.observation_cap)}});
  if (!rec.ok) {
    outcome.all_passed = false;
    outcome.failure = fmt::format("step {} ({} {}) failed: {}", step.id, step.tool, rec.target, result.error);
    return rec;
  }

  assertions::StepView& view = step_views_[step.id] = {step.id, step.tool, result.output, result.exit_code};
  for (const auto& a : step.asserts) {
    AssertionRecord ar = evaluate(a, &view, {.step = step.id, .round = round, .by = options_.plan_assertions_by});
    if (!ar.passed && outcome.all_passed) {
      outcome.all_passed = false;
      outcome.failure =
          fmt::format("step {} ({} {}): assertion {} failed: {}", step.id, step.tool, rec.target, ar.type, ar.message);
    }
  }
  return rec;
}

bool Executor::credential_change(const Mutation& m) const {
  const sandbox::Workspace& ws = deps_.workspace;
  if (ws.secrets().refused(m.path)) return true;
  const sandbox::CredentialRegistry* credentials = ws.credentials();
  if (credentials == nullptr) return false;
  if (credentials->paths().count(m.path) != 0) return true;
  // What is at the path now: an inode of a credential file of the start (renamed, its folder moved).
  if (m.change != "deleted") {
    auto now = ws.stat(m.path);
    if (now.ok() && now->credential) return true;
  }
  // Its bytes before or after: a credential's content (a copy). Only a side of a credential's size is read.
  auto holds_credential = [&](const std::string& tree, std::int64_t size) {
    if (tree.empty() || size <= 0 || !credentials->has_size(static_cast<std::uint64_t>(size))) return false;
    auto content = deps_.snapshots.read(tree, m.path);
    return content.ok() && content->has_value() && credentials->has_content(**content);
  };
  return (m.change != "added" && holds_credential(facts_.snapshot_before, m.bytes_before)) ||
         (m.change != "deleted" && holds_credential(facts_.snapshot_after, m.bytes_after));
}

void Executor::mask(std::string& text) const {
  if (const sandbox::CredentialRegistry* credentials = deps_.workspace.credentials(); credentials != nullptr) {
    credentials->masker()->mask_in_place(text);
  }
}

void Executor::note_scan(std::uint64_t processes_before) {
  scanned_ = true;
  processes_at_scan_ = processes_before;
}

std::string Executor::events_blind_spot() const {
  // A write through a hard link whose other name is outside the workspace is an event in that
  // other folder alone, and a write through a shared mapping is none: the sandbox must refuse the
  // link (Landlock from ABI 2 refuses a link or rename into another folder) and end every process
  // with its step (a PID namespace or a cgroup), or the scan after processes ran walks.
  const nlohmann::json& p = options_.sandbox_protections;
  auto flag = [&p](const char* key) {
    return p.is_object() && p.value(key, nlohmann::json()).is_boolean() && p[key].get<bool>();
  };
  int abi =
      p.is_object() && p.value("landlock_abi", nlohmann::json()).is_number_integer() ? p["landlock_abi"].get<int>() : 0;
  if (!flag("filesystem") || abi < 2)
    return "processes ran without Landlock (ABI 2 or later): a write through a hard link out of the workspace is no "
           "event here";
  if (!flag("pid_namespace") && !(p.is_object() && p.value("processes", "") == "cgroup"))
    return "processes may outlive their step (no PID namespace or cgroup): a write through a shared mapping is no "
           "event";
  return "";
}

std::vector<std::string> Executor::scan_for_changes(const std::string& step_id,
                                                    const std::optional<std::vector<std::string>>& wrote) {
  std::uint64_t processes = sandbox::processes_started();
  // Only the step's own tool can have written since the last scan when no process has started
  // since (none outlives what started it): a tool that names what it wrote is believed, since it is
  // candor's code, not the agent's. A large workspace is then not walked after every file_write.
  // Either way what the tool wrote is held, under a path .gitignore ignores too: a file tool's own
  // write is always a mutation (docs/design.md, "Snapshots see everything").
  bool only_named = wrote.has_value() && scanned_ && processes == processes_at_scan_;
  if (processes != processes_at_scan_) {
    if (std::string why = events_blind_spot(); !why.empty()) deps_.snapshots.distrust_events(why);
  }
  auto scan = only_named ? deps_.snapshots.scan_paths(*wrote)
                         : deps_.snapshots.scan(wrote.value_or(std::vector<std::string>{}));
  if (!scan.ok()) {
    scanned_ = false;
    if (scan_error_.empty()) scan_error_ = scan.error().message;
    deps_.trajectory.record(event::kScanFailed, {{"step", step_id}, {"error", scan.error().message}});
    return {};
  }
  note_scan(processes);
  if (const auto& way = deps_.snapshots.last_scan(); !only_named && !way.walked) {
    facts_.scan.by_events++;
  } else if (!only_named && !way.reason.empty()) {
    facts_.scan.full_walks.push_back({step_id, way.reason});
  }
  if (scan->empty()) return {};
  const Event& ev = deps_.trajectory.record(event::kWorkspaceChanged, {{"step", step_id}, {"paths", *scan}});
  for (const auto& p : *scan) {
    auto& steps = changed_by_[p];
    if (steps.empty() || steps.back() != step_id) steps.push_back(step_id);
    last_change_seq_[p] = ev.seq;
  }
  return *scan;
}

assertions::Context Executor::assertion_context(const assertions::StepView* step) const {
  snapshot::SnapshotStore& snapshots = deps_.snapshots;
  std::string before = facts_.snapshot_before;
  // The planner's checks and the user's alike end with the run's time.
  return assertions::Context{
      .workspace = deps_.workspace,
      .network = options_.network,
      .step = step,
      .baseline = [&snapshots, before](const std::string& path) { return snapshots.read(before, path); },
      .process_sandbox = options_.process_sandbox,
      .registry = nullptr,
      .files = nullptr,
      .credential_seen = nullptr,
      .deadline = deps_.deadline,
      .secret_refresh = secret_refresh()};
}

sandbox::SecretRefresh Executor::secret_refresh() const {
  if (options_.process_sandbox == nullptr || !options_.change_events) return {};
  snapshot::SnapshotStore& snapshots = deps_.snapshots;
  // What processes since the last refresh may have done unseen (a hard link out, a mapping kept)
  // the events cannot vouch for: then the refresh walks.
  bool blind = !events_blind_spot().empty();
  return {.files_now = &secret_files_now_,
          .changes_since_last = [&snapshots, blind]() -> std::optional<std::set<std::string>> {
            if (blind) return std::nullopt;
            return snapshots.changes_since_last_call();
          }};
}

bool Executor::fails_on_empty_file(const nlohmann::json& assertion, const std::string& path,
                                   const assertions::StepView* step) const {
  assertions::EmptyFileAt empty(path, nullptr, deps_.workspace);
  assertions::Context ctx = assertion_context(step);
  ctx.files = &empty;
  assertions::Outcome o = deps_.evaluators.evaluate(assertion, ctx);
  return !o.passed && !o.error;
}

bool Executor::fails_before_run(const nlohmann::json& assertion, const assertions::StepView* step) const {
  if (facts_.snapshot_before.empty()) return false;
  SnapshotFiles before(deps_.snapshots.trees(), facts_.snapshot_before, deps_.workspace.secrets(), "before the run",
                       deps_.workspace.credentials());
  assertions::Context ctx = assertion_context(step);
  ctx.files = &before;
  assertions::Outcome o = deps_.evaluators.evaluate(assertion, ctx);
  return !o.passed && !o.error;
}

AssertionRecord Executor::evaluate(const nlohmann::json& assertion, const assertions::StepView* step,
                                   AssertionRecord as) {
  assertions::Outcome o = deps_.evaluators.evaluate(assertion, assertion_context(step));
  if (o.credential && as.by == Provenance::kPlanner) {
    // The agent chooses its own checks: with the pass/fail bit it could guess a secret's content
    // one pattern at a time. Its check of a credential file is not made; the user's still is.
    o.passed = false;
    o.error = true;
    o.message = fmt::format(
        "{}: the agent's own check of a credential file is not made (its answer would tell the agent "
        "what the file holds)",
        sandbox::content_withheld(o.path.empty() ? "a file it read" : o.path));
  }
  mask(o.message);  // an excerpt of a file that holds a secret value it is not named for
  AssertionRecord ar = std::move(as);
  ar.reads_step = deps_.evaluators.reads_step(assertion);
  ar.type = json_str(assertion, "type");
  ar.assertion = assertion;
  assertions::record_outcome(ar, o);
  evidence::RunCounts counts = evidence::read_run_counts(assertion, o.summary_text);
  ar.tests = counts.runner;
  ar.frameworks = counts.frameworks;
  mask(ar.output);
  if (o.passed && !o.path.empty() && deps_.evaluators.reads_files(assertion)) {
    ar.discriminating = fails_before_run(assertion, step);
    if (*ar.discriminating) {
      ar.positive = deps_.evaluators.proves_content(assertion) && fails_on_empty_file(assertion, o.path, step);
    }
  } else if (o.passed && ar.by == Provenance::kUser && deps_.evaluators.command_evidence(assertion)) {
    add_command_evidence(ar, step);
  }
  nlohmann::json event = to_json(ar);
  event.erase("seq");
  const Event& ev = deps_.trajectory.record(event::kAssertion, event);
  ar.seq = ev.seq;
  facts_.assertions.push_back(ar);
  return ar;
}

void Executor::add_command_evidence(AssertionRecord& ar, const assertions::StepView* step) {
  if (facts_.snapshot_before.empty()) return;
  if (!command_evidence_) {
    CommandEvidenceInputs in{
        .trees = deps_.snapshots.trees(),
        .evaluators = deps_.evaluators,
        .secrets = deps_.workspace.secrets(),
        .network = options_.network,
        .sandbox = options_.process_sandbox != nullptr ? *options_.process_sandbox : sandbox::SandboxPolicy{},
        .deadline = deps_.deadline,
        .mask = [this](std::string& text) { mask(text); },
        .inputs = LinkedInputs([&workspace = deps_.workspace, ignore = options_.snapshot_ignore] {
          return unsnapshotted_inputs(workspace, ignore);
        })};
    command_evidence_ = std::make_unique<CommandEvidence>(std::move(in), facts_.snapshot_before);
  }
  // What the steps changed so far; the state the command passed on is the latest scan's.
  std::vector<ChangedPath> changed;
  for (const auto& [path, steps] : changed_by_) changed.push_back({path});
  auto state = [this] { return deps_.snapshots.write_tree(); };
  if (ar.guard)
    command_evidence_->add_record(ar, step, state, changed);  // a guard proves nothing, but may be tampered with
  else
    command_evidence_->add(ar, step, state, changed, /*after_on_checkout=*/true);
}

std::string Executor::run_goal_assertions(const std::vector<nlohmann::json>& expects,
                                          const std::vector<nlohmann::json>& guards) {
  std::string first_failure;
  auto check = [&](const nlohmann::json& a, bool guard) {
    AssertionRecord ar = evaluate(a, nullptr, {.round = facts_.last_round, .by = Provenance::kUser, .guard = guard});
    if (!ar.passed && first_failure.empty()) {
      first_failure = fmt::format("{} {} failed: {}", guard ? "guard" : "goal-level assertion", ar.type, ar.message);
    }
  };
  for (const auto& a : expects) check(a, false);
  for (const auto& a : guards) check(a, true);
  return first_failure;
}

void Executor::recheck_stale_failures() {
  std::map<std::string, const AssertionRecord*> last;
  for (const auto& a : facts_.assertions) last[a.assertion.dump()] = &a;
  std::vector<AssertionRecord> stale;
  for (const auto& [key, a] : last) {
    if (!a->passed && !a->reads_step) stale.push_back(*a);  // a step's own failure stands with its step
  }
  std::sort(stale.begin(), stale.end(),
            [](const AssertionRecord& x, const AssertionRecord& y) { return x.seq < y.seq; });
  for (const auto& a : stale) {
    auto view = step_views_.find(a.step);
    evaluate(a.assertion, view == step_views_.end() ? nullptr : &view->second,
             {.step = a.step, .round = facts_.last_round, .by = a.by, .guard = a.guard, .final_check = true});
  }
}

RunFacts Executor::finish(RunStatus status, BudgetKind exhausted, const std::string& detail) {
  // Catch anything the run changed outside a step (an assertion's or a provider's process, a
  // service an http_get reached): unattributed, so no assertion can have covered it.
  // The last scan may run a little past the time budget: without it nothing the run did would be
  // known. What it has not read by then is unread (the run is incomplete), not waited for.
  // Failures nothing checked again stand only if they still fail; checked before the last scan,
  // since a checker's own process may write.
  if (!facts_.snapshot_before.empty()) recheck_stale_failures();
  deps_.snapshots.set_deadline(deps_.deadline.at_least(kFinalScanGrace));
  // Always a scan of the whole workspace (by its change events, when they are complete): a
  // read-only tool (http_get to a service of the workspace's) can have had a process outside
  // candor's sight change any file.
  scanned_ = false;
  if (!facts_.snapshot_before.empty()) scan_for_changes("");
  auto after = scanned_ ? deps_.snapshots.write_tree() : Result<std::string>(make_error(ErrorCode::kIo, "no scan"));
  if (scanned_ && !after.ok() && scan_error_.empty()) scan_error_ = after.error().message;
  if (after.ok()) {
    if (Status saved = deps_.snapshots.flush(); !saved.ok()) {
      deps_.trajectory.record(event::kScanFailed,
                              {{"step", nullptr}, {"error", saved.error().message}});  // only slower next time
    }
    facts_.snapshot_after = *after;
    (void)deps_.snapshots.pin(*after, "runs/" + facts_.run_id + "/after");
    auto mutations = deps_.snapshots.diff(facts_.snapshot_before, facts_.snapshot_after);
    if (mutations.ok()) {
      for (auto& m : *mutations) {
        m.steps = changed_by_[m.path];
        std::erase(m.steps, std::string());
        m.last_change_seq = last_change_seq_[m.path];
        m.credential = credential_change(m);
        // A credential file the run made or changed: its values are secrets from now on (the
        // report, the judge, the store's events, masked again when the run ends).
        if (m.credential && m.change != "deleted") {
          auto content = deps_.snapshots.trees().read(facts_.snapshot_after, m.path);
          const sandbox::CredentialRegistry* registry = deps_.workspace.credentials();
          if (registry != nullptr && content.ok() && content->has_value()) registry->learn(m.path, **content);
        }
      }
      facts_.mutations = std::move(mutations.value());
      record_modes();
      record_commits();
      // What undo, diffs and the judge read later, kept in the store whatever becomes of the
      // workspace's own repository (whose objects the first snapshot may only name).
      std::vector<std::string> paths;
      for (const auto& m : facts_.mutations) paths.push_back(m.path);
      std::vector<std::string> trees{facts_.snapshot_before, facts_.snapshot_after};
      if (!facts_.commits_to_tree.empty())
        trees.insert(trees.end(), {facts_.commits_from_tree, facts_.commits_to_tree});
      if (Status kept = deps_.snapshots.retain(trees, paths); !kept.ok() && scan_error_.empty()) {
        scan_error_ = kept.error().message;
      }
    } else if (scan_error_.empty()) {
      scan_error_ = mutations.error().message;
    }
  }
  record_scan_coverage();
  facts_.status = status;
  facts_.status_detail = detail;
  facts_.budget.exhausted = exhausted;
  // Something ran until the time budget stopped it (a scan, an assertion's program): the run did
  // not finish within its budget, whatever the loop concluded.
  bool out_of_time = deps_.snapshots.ran_out_of_time() || deps_.deadline.passed();
  if (out_of_time && (status == RunStatus::kCompleted || status == RunStatus::kRunning)) {
    facts_.status = RunStatus::kBudgetExhausted;
    facts_.budget.exhausted = BudgetKind::kTimeout;
    facts_.status_detail = deps_.snapshots.ran_out_of_time()
                               ? "the time budget ran out while the workspace was being read"
                               : "the time budget ran out before the run's checks had finished";
  }
  if (!scan_error_.empty() && (status == RunStatus::kCompleted || status == RunStatus::kRunning)) {
    // Without a trustworthy diff there is no evidence either way.
    facts_.status = RunStatus::kError;
    facts_.status_detail = "could not observe the workspace: " + scan_error_;
  }
  facts_.budget.used.elapsed_s = elapsed_s();
  deps_.trajectory.record(event::kRunEnded, {{"status", to_string(facts_.status)},
                                             {"detail", facts_.status_detail},
                                             {"exhausted", to_string(exhausted)},
                                             {"snapshot_after", facts_.snapshot_after},
                                             {"scan", to_json(facts_.scan)},
                                             {"protected_changes", facts_.protected_changes}});
  return facts_;
}

void Executor::record_modes() {
  const snapshot::SnapshotStore& s = deps_.snapshots;
  using Access = snapshot::SnapshotStore::Access;
  const std::string runner = fmt::format("{}:{}", ::geteuid(), ::getegid());
  auto owner = [](const Access& a) { return fmt::format("{}:{}", a.uid, a.gid); };
  // The whole modes the scans saw, where they saw them; else git's, from the tree diff. The owner
  // is said where it changed, or where a path the run made is not the run's own.
  auto fill = [&](Mutation& m, const std::optional<Access>& before, const std::optional<Access>& after) {
    if (before && m.change != "added") m.mode_before = before->mode;
    if (after && m.change != "deleted") m.mode_after = after->mode;
    if (m.change == "added" && after && owner(*after) != runner) m.owner_after = owner(*after);
    if (m.change != "added" && m.change != "deleted" && before && after && owner(*before) != owner(*after)) {
      m.owner_before = owner(*before);
      m.owner_after = owner(*after);
    }
  };
  for (auto& m : facts_.mutations) fill(m, s.access_at_start(m.path), s.access_now(m.path));
  bool appended = false;
  for (const auto& c : s.access_changes()) {
    auto same = std::find_if(facts_.mutations.begin(), facts_.mutations.end(),
                             [&](const Mutation& m) { return m.path == c.path; });
    if (same != facts_.mutations.end()) continue;  // its content changed too: filled above
    Mutation m;
    m.path = c.path;
    m.change = "mode";
    fill(m, c.before, c.after);
    m.steps = changed_by_[c.path];
    std::erase(m.steps, std::string());
    m.last_change_seq = last_change_seq_[c.path];
    m.credential = !m.path.empty() && m.path.back() != '/' && credential_change(m);
    facts_.mutations.push_back(std::move(m));
    appended = true;
  }
  // FIFOs, sockets and devices: no tree holds them, but a FIFO named Makefile hangs the build that
  // reads it. One that took a file's place (or gave it back) changes that mutation.
  for (const auto& c : s.special_changes()) {
    auto same = std::find_if(facts_.mutations.begin(), facts_.mutations.end(),
                             [&](const Mutation& m) { return m.path == c.path; });
    if (same != facts_.mutations.end()) {
      if (c.after.mode != 0) same->mode_after = c.after.mode;
      if (c.before.mode != 0) same->mode_before = c.before.mode;
      same->change = "modified";
      continue;
    }
    Mutation m;
    m.path = c.path;
    m.change = c.before.mode == 0 ? "added" : c.after.mode == 0 ? "deleted" : "mode";
    fill(m, c.before.mode != 0 ? std::optional<Access>(c.before) : std::nullopt,
         c.after.mode != 0 ? std::optional<Access>(c.after) : std::nullopt);
    m.steps = changed_by_[c.path];
    std::erase(m.steps, std::string());
    facts_.mutations.push_back(std::move(m));
    appended = true;
  }
  if (appended) {
    std::stable_sort(facts_.mutations.begin(), facts_.mutations.end(),
                     [](const Mutation& a, const Mutation& b) { return a.path < b.path; });
  }
  for (const auto& c : s.created_folders()) {
    facts_.created_folders.push_back({c.path, c.after.mode, owner(c.after) != runner ? owner(c.after) : ""});
  }
}

void Executor::record_commits() {
  if (facts_.commits_to_tree.empty()) return;
  auto committed = deps_.snapshots.diff(facts_.commits_from_tree, facts_.commits_to_tree);
  if (!committed.ok()) {
    if (scan_error_.empty()) scan_error_ = "reading what the run's commits changed: " + committed.error().message;
    return;
  }
  std::int64_t seq = 0;
  for (const auto& s : facts_.steps) {
    if (!commit_steps_.empty() && s.id == commit_steps_.back()) seq = std::max(seq, s.seq);
  }
  bool appended = false;
  for (auto& m : *committed) {
    bool known = std::any_of(facts_.mutations.begin(), facts_.mutations.end(),
                             [&](const Mutation& x) { return x.path == m.path; });
    if (known) continue;  // the workspace's own change says it
    m.committed = true;
    m.steps = commit_steps_;
    m.last_change_seq = seq;
    m.credential = deps_.workspace.secrets().refused(m.path);
    facts_.mutations.push_back(std::move(m));
    appended = true;
  }
  if (appended) {
    std::stable_sort(facts_.mutations.begin(), facts_.mutations.end(),
                     [](const Mutation& a, const Mutation& b) { return a.path < b.path; });
  }
}

void Executor::record_scan_coverage() {
  std::vector<std::string> unread = deps_.snapshots.unread();
  // A `.candor` folder anywhere is protected like the root's (the root's is fingerprinted below;
  // nested ones are in the snapshots): a `packages/web/.candor/config.json` a step plants is the
  // config of the next run given `-C packages/web`.
  for (const auto& m : facts_.mutations) {
    if (!sandbox::in_candor_folder(m.path)) continue;
    facts_.protected_changes.push_back(
        fmt::format("`{}` ({}) is a .candor folder or lies in one, which no step may change", m.path, m.change));
  }
  if (protected_before_) {
    auto after = snapshot::capture_protected_state(deps_.workspace.root(), deps_.snapshots.nested_git());
    if (after.ok()) {
      // git_commit's own writes (objects, index, refs, logs) are the history the tool records.
      bool history_recorded = std::any_of(facts_.steps.begin(), facts_.steps.end(),
                                          [](const StepRecord& s) { return s.tool == "git_commit" && s.ok; });
      auto changes = snapshot::protected_changes(*protected_before_, *after, history_recorded);
      facts_.protected_changes.insert(facts_.protected_changes.end(), changes.begin(), changes.end());
      unread.insert(unread.end(), after->unread.begin(), after->unread.end());
    } else {
      unread.push_back(".git/ and .candor/ (" + after.error().message + ")");
    }
    unread.insert(unread.end(), protected_before_->unread.begin(), protected_before_->unread.end());
  }
  std::sort(unread.begin(), unread.end());
  unread.erase(std::unique(unread.begin(), unread.end()), unread.end());
  facts_.scan.unread = unread;
  facts_.scan.complete = unread.empty();
}

}  // namespace candor::executor
