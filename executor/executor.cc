#include "executor/executor.h"

#include <algorithm>

#include <fmt/format.h>

#include "executor/snapshot_files.h"
#include "sandbox/credential_registry.h"
#include "sandbox/process.h"
#include "sandbox/secret_files.h"

namespace candor::executor {
namespace {

std::string cap_text(const std::string& s, std::size_t cap) {
  if (s.size() <= cap) return s;
  return s.substr(0, cap) + fmt::format("\n[observation cut: {} bytes in total]", s.size());
}

bool has_assertion(const planner::PlanStep& step, const std::string& type) {
  return std::any_of(step.asserts.begin(), step.asserts.end(),
                     [&](const nlohmann::json& a) { return a.value("type", "") == type; });
}

}  // namespace

Executor::Executor(ExecutorDeps deps, ExecutorOptions options) : deps_(deps), options_(std::move(options)) {
  facts_.budget.limits = options_.limits;
  facts_.workspace = deps_.workspace.root();
}

double Executor::elapsed_s() const {
  return std::chrono::duration<double>(deps_.clock.monotonic() - started_).count();
}

Status Executor::begin(const std::string& run_id, const std::string& goal) {
  started_ = deps_.clock.monotonic();
  facts_.run_id = run_id;
  facts_.goal = goal;
  auto protected_state = verify::capture_protected_state(deps_.workspace.root());
  if (!protected_state.ok()) return protected_state.error().wrap("protected paths before the run");
  protected_before_ = std::move(protected_state.value());
  std::uint64_t processes = sandbox::processes_started();
  auto scan = deps_.snapshots.scan();
  if (!scan.ok()) return scan.error().wrap("snapshot before the run");
  TRY_STATUS(deps_.snapshots.freeze_ignore_rules(options_.snapshot_ignore));
  auto tree = deps_.snapshots.write_tree();
  if (!tree.ok()) return tree.error().wrap("snapshot before the run");
  facts_.snapshot_before = *tree;
  note_scan(processes);
  TRY_STATUS(deps_.snapshots.pin(*tree, "runs/" + run_id + "/before"));
  deps_.trajectory.record("run_started", {{"goal", goal},
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
  if (elapsed_s() >= options_.limits.timeout_s) {
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
  deps_.trajectory.record("goal_kind", {{"kind", to_string(kind)}, {"by", by}});
}

void Executor::set_final_answer(const std::string& text) {
  facts_.final_answer = text;
  deps_.trajectory.record("final_answer", {{"text", text}});
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
          record, std::vector<AssertionRecord>(facts_.assertions.begin() + static_cast<long>(first_assertion), facts_.assertions.end()));
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
  deps_.trajectory.record("step_started", {{"step", step.id}, {"round", round}, {"tool", step.tool}, {"why", step.why}});
  deps_.trajectory.record("tool_called", {{"step", step.id}, {"tool", step.tool}, {"input", step.args}});

  double left_s = std::max(0.0, options_.limits.timeout_s - elapsed_s());
  ToolContext ctx{deps_.workspace, options_.network, options_.output_cap,
                  std::chrono::milliseconds(static_cast<long long>(left_s * 1000)), options_.cancel,
                  options_.process_sandbox};
  if (!tool->read_only()) wrote_since_scan_ = true;
  ToolResult result = tool->run(step.args, ctx);
  facts_.budget.used.steps++;
  // Masked where it is made: the output goes to the event, the planner's observations, the
  // assertions that read it (output_contains), the progress line and the facts.
  mask(result.output);
  mask(result.error);

  if (!tool->read_only()) rec.changed_paths = scan_for_changes(step.id, result.wrote);

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

  assertions::StepView view{step.id, step.tool, result.output, result.exit_code};
  for (const auto& a : step.asserts) {
    AssertionRecord ar = evaluate(a, &view, step.id, round, options_.plan_assertions_by);
    if (!ar.passed && outcome.all_passed) {
      outcome.all_passed = false;
      outcome.failure = fmt::format("step {} ({} {}): assertion {} failed: {}", step.id, step.tool, rec.target, ar.type,
                                    ar.message);
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
  wrote_since_scan_ = false;
  processes_at_scan_ = processes_before;
}

bool Executor::workspace_as_scanned() const {
  return scanned_ && !wrote_since_scan_ && sandbox::processes_started() == processes_at_scan_;
}

std::vector<std::string> Executor::scan_for_changes(const std::string& step_id,
                                                    const std::optional<std::vector<std::string>>& wrote) {
  std::uint64_t processes = sandbox::processes_started();
  // Only the step's own tool can have written since the last scan when no process has started
  // since (none outlives what started it): a tool that names what it wrote is believed, since it is
  // candor's code, not the agent's. A large workspace is then not walked after every file_write.
  bool only_named = wrote.has_value() && scanned_ && processes == processes_at_scan_;
  auto scan = only_named ? deps_.snapshots.scan_paths(*wrote) : deps_.snapshots.scan();
  if (!scan.ok()) {
    scanned_ = false;
    if (scan_error_.empty()) scan_error_ = scan.error().message;
    deps_.trajectory.record("scan_failed", {{"step", step_id}, {"error", scan.error().message}});
    return {};
  }
  note_scan(processes);
  if (scan->empty()) return {};
  const Event& ev = deps_.trajectory.record("workspace_changed", {{"step", step_id}, {"paths", *scan}});
  for (const auto& p : *scan) {
    auto& steps = changed_by_[p];
    if (steps.empty() || steps.back() != step_id) steps.push_back(step_id);
    last_change_seq_[p] = ev.seq;
  }
  return *scan;
}

assertions::Context Executor::assertion_context(const assertions::StepView* step) const {
  verify::SnapshotStore& snapshots = deps_.snapshots;
  std::string before = facts_.snapshot_before;
  return assertions::Context{deps_.workspace, options_.network, step,
                             [&snapshots, before](const std::string& path) { return snapshots.read(before, path); },
                             options_.process_sandbox};
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
                                   const std::string& step_id, int round, Provenance by) {
  assertions::Outcome o = deps_.evaluators.evaluate(assertion, assertion_context(step));
  if (o.credential && by == Provenance::kPlanner) {
    // The agent chooses its own checks: with the pass/fail bit it could guess a secret's content
    // one pattern at a time. Its check of a credential file is not made; the user's still is.
    o.passed = false;
    o.error = true;
    o.message = fmt::format("{}: the agent's own check of a credential file is not made (its answer would tell the agent "
                            "what the file holds)",
                            sandbox::content_withheld(o.path.empty() ? "a file it read" : o.path));
  }
  mask(o.message);  // an excerpt of a file that holds a secret value it is not named for
  AssertionRecord ar;
  ar.step = step_id;
  ar.round = round;
  ar.type = json_str(assertion, "type");
  ar.assertion = assertion;
  ar.path = o.path;
  ar.passed = o.passed;
  ar.message = o.message;
  ar.by = by;
  if (o.passed && !o.path.empty() && deps_.evaluators.reads_files(assertion)) {
    ar.discriminating = fails_before_run(assertion, step);
  }
  const Event& ev = deps_.trajectory.record(
      "assertion", {{"step", step_id.empty() ? nlohmann::json(nullptr) : nlohmann::json(step_id)},
                    {"round", round},
                    {"type", ar.type},
                    {"assertion", assertion},
                    {"passed", ar.passed},
                    {"message", ar.message},
                    {"path", ar.path.empty() ? nlohmann::json(nullptr) : nlohmann::json(ar.path)},
                    {"by", to_string(by)},
                    {"discriminating", ar.discriminating ? nlohmann::json(*ar.discriminating) : nlohmann::json(nullptr)}});
  ar.seq = ev.seq;
  facts_.assertions.push_back(ar);
  return ar;
}

std::string Executor::run_goal_assertions(const std::vector<nlohmann::json>& expects) {
  std::string first_failure;
  for (const auto& a : expects) {
    AssertionRecord ar = evaluate(a, nullptr, "", facts_.last_round, Provenance::kUser);
    if (!ar.passed && first_failure.empty()) {
      first_failure = fmt::format("goal-level assertion {} failed: {}", ar.type, ar.message);
    }
  }
  return first_failure;
}

RunFacts Executor::finish(RunStatus status, BudgetKind exhausted, const std::string& detail) {
  // Catch anything the run changed outside a step (an assertion's or a provider's process, say):
  // unattributed, so no assertion can have covered it. When nothing of the run could write since
  // the latest scan (no writing tool, no process: run_process leaves nothing running), that scan's
  // index is the workspace as the run leaves it, and a warm run walks the tree once less.
  if (!workspace_as_scanned()) {
    scanned_ = false;
    if (!facts_.snapshot_before.empty()) scan_for_changes("");
  }
  auto after = scanned_ ? deps_.snapshots.write_tree() : Result<std::string>(make_error(ErrorCode::kIo, "no scan"));
  if (scanned_ && !after.ok() && scan_error_.empty()) scan_error_ = after.error().message;
  if (after.ok()) {
    if (Status saved = deps_.snapshots.flush(); !saved.ok()) {
      deps_.trajectory.record("scan_failed", {{"step", nullptr}, {"error", saved.error().message}});  // only slower next time
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
      }
      facts_.mutations = std::move(mutations.value());
      // What undo, diffs and the judge read later, kept in the store whatever becomes of the
      // workspace's own repository (whose objects the first snapshot may only name).
      std::vector<std::string> paths;
      for (const auto& m : facts_.mutations) paths.push_back(m.path);
      if (Status kept = deps_.snapshots.retain({facts_.snapshot_before, facts_.snapshot_after}, paths);
          !kept.ok() && scan_error_.empty()) {
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
  if (!scan_error_.empty() && (status == RunStatus::kCompleted || status == RunStatus::kRunning)) {
    // Without a trustworthy diff there is no evidence either way.
    facts_.status = RunStatus::kError;
    facts_.status_detail = "could not observe the workspace: " + scan_error_;
  }
  facts_.budget.used.elapsed_s = elapsed_s();
  deps_.trajectory.record("run_ended", {{"status", to_string(facts_.status)},
                                        {"detail", facts_.status_detail},
                                        {"exhausted", to_string(exhausted)},
                                        {"snapshot_after", facts_.snapshot_after},
                                        {"scan", {{"complete", facts_.scan.complete}, {"unread", facts_.scan.unread}}},
                                        {"protected_changes", facts_.protected_changes}});
  return facts_;
}

void Executor::record_scan_coverage() {
  std::vector<std::string> unread = deps_.snapshots.unread();
  if (protected_before_) {
    auto after = verify::capture_protected_state(deps_.workspace.root());
    if (after.ok()) {
      // git_commit's own writes (objects, index, refs, logs) are the history the tool records.
      bool history_recorded = std::any_of(facts_.steps.begin(), facts_.steps.end(),
                                          [](const StepRecord& s) { return s.tool == "git_commit" && s.ok; });
      facts_.protected_changes = verify::protected_changes(*protected_before_, *after, history_recorded);
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
