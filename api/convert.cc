#include "api/convert.h"

#include <fmt/format.h>

#include "core/run_record.h"
#include "verify/judge_outcome.h"
#include "verify/verdict.h"

namespace candor::api {
namespace {

// The public enumerations are app/'s, value for value: a reordering on either side fails here.
static_assert(static_cast<int>(Verdict::kFail) == static_cast<int>(candor::Verdict::kFail));
static_assert(static_cast<int>(Verdict::kPartial) == static_cast<int>(candor::Verdict::kPartial));
static_assert(static_cast<int>(RunStatus::kGoalAttemptsExhausted) ==
              static_cast<int>(candor::RunStatus::kGoalAttemptsExhausted));
static_assert(static_cast<int>(RunStatus::kRunning) == static_cast<int>(candor::RunStatus::kRunning));
static_assert(static_cast<int>(GoalKind::kInspect) == static_cast<int>(candor::GoalKind::kInspect));
static_assert(static_cast<int>(ExitCategory::kCancelled) == static_cast<int>(app::ExitCategory::kCancelled));
static_assert(static_cast<int>(ExitCategory::kRefused) == static_cast<int>(app::ExitCategory::kRefused));
static_assert(static_cast<int>(ExitCategory::kExists) == static_cast<int>(app::ExitCategory::kExists));

candor::Error out_of_range(const std::string& field, int value, const char* type, const char* names) {
  return make_error(ErrorCode::kUsage, fmt::format("{}: {} is not a {} ({})", field, value, type, names));
}

}  // namespace

const char* to_string(Verdict v) {
  return v >= Verdict::kSuccess && v <= Verdict::kFail ? candor::to_string(static_cast<candor::Verdict>(v)) : "?";
}
const char* to_string(RunStatus v) {
  return v >= RunStatus::kRunning && v <= RunStatus::kGoalAttemptsExhausted
             ? candor::to_string(static_cast<candor::RunStatus>(v))
             : "?";
}
const char* to_string(JudgePolicy v) {
  switch (v) {
    case JudgePolicy::kAuto:
      return "auto";
    case JudgePolicy::kAlways:
      return "always";
    case JudgePolicy::kNever:
      return "never";
  }
  return "?";
}
const char* to_string(GoalKind v) {
  return v >= GoalKind::kModify && v <= GoalKind::kInspect ? candor::to_string(static_cast<candor::GoalKind>(v)) : "?";
}

candor::Result<std::string> judge_name(JudgePolicy policy, const std::string& field) {
  std::string name = to_string(policy);
  if (name == "?") return out_of_range(field, static_cast<int>(policy), "JudgePolicy", "kAuto, kAlways, kNever");
  return name;
}

candor::Result<std::string> judge_name(const std::optional<JudgePolicy>& policy, const std::string& field) {
  if (!policy) return std::string();
  return judge_name(*policy, field);
}

candor::Result<std::string> kind_name(const std::optional<GoalKind>& kind, const std::string& field) {
  if (!kind) return std::string();
  std::string name = to_string(*kind);
  if (name == "?") return out_of_range(field, static_cast<int>(*kind), "GoalKind", "kModify, kInspect");
  return name;
}

candor::Result<app::WorkspaceOptions> to_app(const WorkspaceOptions& o, const std::string& field) {
  TRY(std::string kind, kind_name(o.kind, field + ".kind"));
  return app::WorkspaceOptions{.workspace = o.workspace,
                               .store_dir = o.store_dir,
                               .expects = o.expects,
                               .guards = o.guards,
                               .trust_config = o.trust_config,
                               .max_replans = o.max_replans,
                               .max_steps = o.max_steps,
                               .timeout_s = o.timeout_s,
                               .max_tokens = o.max_tokens,
                               .allow_network = o.allow_network,
                               .require_sandbox = o.require_sandbox,
                               .pass_env = o.pass_env,
                               .acceptance_file = o.acceptance_file,
                               .kind = kind,
                               .scope = o.scope};
}

candor::Result<app::RunRequest> to_app(const RunRequest& r) {
  TRY(std::string judge, judge_name(r.judge, "RunRequest.judge"));
  TRY(app::WorkspaceOptions workspace, to_app(r.workspace, "RunRequest.workspace"));
  return app::RunRequest{.goal = r.goal,
                         .llm = r.llm,
                         .judge = judge,
                         .criterion = r.criterion,
                         .criterion_file = r.criterion_file,
                         .max_goal_attempts = r.max_goal_attempts,
                         .workspace = std::move(workspace)};
}

candor::Result<app::ExecRequest> to_app(const ExecRequest& r) {
  TRY(std::string judge, judge_name(r.judge, "ExecRequest.judge"));
  TRY(app::WorkspaceOptions workspace, to_app(r.workspace, "ExecRequest.workspace"));
  return app::ExecRequest{
      .plan_file = r.plan_file, .goal = r.goal, .llm = r.llm, .judge = judge, .workspace = std::move(workspace)};
}

candor::Result<app::VerifyRequest> to_app(const VerifyRequest& r) {
  TRY(std::string judge, judge_name(r.judge, "VerifyRequest.judge"));
  return app::VerifyRequest{.run = r.run,
                            .store_dir = r.store_dir,
                            .judge = judge,
                            .llm = r.llm,
                            .acceptance_file = r.acceptance_file,
                            .workspace = r.workspace,
                            .any = r.any};
}

candor::Result<app::VerifyGitRequest> to_app(const VerifyGitRequest& r) {
  TRY(std::string judge, judge_name(r.judge, "VerifyGitRequest.judge"));
  TRY(std::string kind, kind_name(r.kind, "VerifyGitRequest.kind"));
  app::VerifyGitRequest out;
  out.range = r.range;
  out.repo = r.repo;
  out.goal = r.goal;
  out.goal_file = r.goal_file;
  out.kind = kind;
  out.expects = r.expects;
  out.guards = r.guards;
  out.questions = r.questions;
  out.scope = r.scope;
  out.timeout_s = r.timeout_s;
  out.criterion = r.criterion;
  out.criterion_file = r.criterion_file;
  out.store_dir = r.store_dir;
  out.judge = judge;
  out.llm = r.llm;
  out.acceptance_file = r.acceptance_file;
  out.trajectory_file = r.trajectory_file;
  out.format = r.format;
  return out;
}

app::UndoRequest to_app(const UndoRequest& r) {
  return app::UndoRequest{
      .run = r.run, .store_dir = r.store_dir, .force = r.force, .workspace = r.workspace, .any = r.any, .yes = r.yes};
}

Error from_app(const candor::Error& e) {
  return Error{
      .code = error_code_name(e.code), .message = e.message, .exit = static_cast<ExitCategory>(app::exit_category(e))};
}

RunResult from_app(const app::RunResult& r) {
  RunResult out;
  out.run_id = r.facts.run_id;
  out.verdict = static_cast<Verdict>(r.decision.verdict);
  out.verdict_by = r.decision.by;
  out.reasons = r.decision.reasons;
  out.status = static_cast<RunStatus>(r.facts.status);
  out.status_detail = r.facts.status_detail;
  out.report = r.report;
  if (!r.stored.ok()) out.store_error = r.stored.error().message;
  out.judge = JudgeSummary{
      .asked = r.judge.asked, .answered = r.judge.answered, .error = r.judge.error, .provider = r.judge_provider};
  out.provider_failed = r.provider_failed;
  out.input_refused = r.input_refused;
  if (r.not_started) out.not_started = from_app(*r.not_started);
  out.exit = static_cast<ExitCategory>(r.exit);
  return out;
}

VerifyResult from_app(const app::VerifyResult& r) {
  VerifyResult out;
  static_cast<RunResult&>(out) = from_app(static_cast<const app::RunResult&>(r));
  out.ended = r.ended;
  out.events = r.events;
  return out;
}

UndoResult from_app(const app::UndoResult& r) {
  UndoResult out;
  out.run_id = r.run_id;
  out.workspace = r.workspace;
  out.already_undone = r.already_undone;
  out.restored = r.undone.restored;
  out.removed = r.undone.removed;
  out.modes = r.undone.modes;
  out.drifted = r.undone.drifted;
  out.already = r.undone.already;
  for (const auto& f : r.undone.failed) out.failed.push_back(f.path + ": " + f.reason);
  if (!r.recorded.ok()) out.record_error = r.recorded.error().message;
  out.exit = static_cast<ExitCategory>(r.exit);
  return out;
}

}  // namespace candor::api
