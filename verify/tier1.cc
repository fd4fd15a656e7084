#include "verify/tier1.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "verify/reasons.h"
#include "verify/scope.h"

namespace candor::verify {
namespace {

bool is_effect(const StepRecord& s) { return s.ok && s.effect_tool; }

std::string join(const std::vector<std::string>& parts, const char* separator) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : separator) + p;
  return out;
}

bool changed_workspace(const StepRecord& s) { return !s.changed_paths.empty(); }

bool ended_abnormally(RunStatus s) {
  return s == RunStatus::kError || s == RunStatus::kCancelled || s == RunStatus::kRunning ||
         s == RunStatus::kGoalAttemptsExhausted;
}

std::string budget_phrase(const BudgetState& b) {
  switch (b.exhausted) {
    case BudgetKind::kReplans:
      return fmt::format("the replan budget ({}) ran out", b.limits.max_replans);
    case BudgetKind::kSteps:
      return fmt::format("the step budget ({}) ran out", b.limits.max_steps);
    case BudgetKind::kTokens:
      return fmt::format("the token budget ({} of {}) ran out", b.used.tokens, b.limits.max_tokens);
    case BudgetKind::kTimeout:
      return fmt::format("the time budget ({} s) ran out", b.limits.timeout_s);
    case BudgetKind::kStagnation:
      return "the run stagnated (three rounds in a row repeated earlier calls and changed nothing)";
    case BudgetKind::kNone:
      break;
  }
  return "a budget ran out";
}

std::string status_phrase(const RunFacts& f) {
  std::string s = f.status == RunStatus::kRunning ? "the run was killed before it ended"
                                                  : fmt::format("the run ended with status {}", to_string(f.status));
  if (!f.status_detail.empty()) s += " (" + f.status_detail + ")";
  return s;
}

// The assertions whose results stand at the end: the last round's step assertions, and the last
// evaluation of each goal-level assertion (an --expect that failed in round 1 and passed after the
// recovery replan counts as passed).
std::vector<const AssertionRecord*> final_assertions(const RunFacts& f) {
  std::vector<const AssertionRecord*> out;
  std::map<std::string, const AssertionRecord*> last_goal_level;
  for (const auto& a : f.assertions) {
    if (a.goal_level()) {
      last_goal_level[a.type + " " + a.assertion.dump()] = &a;
    } else if (a.round == f.last_round) {
      out.push_back(&a);
    }
  }
  for (const auto& [key, a] : last_goal_level) out.push_back(a);
  std::sort(out.begin(), out.end(), [](const AssertionRecord* x, const AssertionRecord* y) { return x->seq < y->seq; });
  return out;
}

// A pass that is evidence about the change at `m`: it read that path after its last change, and
// the same assertion fails on the path's content before the run.
bool covers(const AssertionRecord& a, const Mutation& m) {
  // A change whose lines could not be counted may have removed anything: not for tier 1 alone.
  if (m.lines_by == "unknown") return false;
  return a.passed && a.discriminating.value_or(false) && !a.path.empty() && a.path == m.path && a.seq > m.last_change_seq;
}

// A FIFO, socket or device: what no tree holds and no step should leave in a workspace.
const char* special_kind(std::uint32_t mode) {
  switch (mode & 0170000) {
    case 0010000: return "a FIFO";
    case 0140000: return "a socket";
    case 0020000: return "a character device";
    case 0060000: return "a block device";
    default: return nullptr;
  }
}

// What a mode gained that makes a path dangerous: setuid or setgid, or write access for the group
// or others that the run's umask keeps from new files (a step had to ask for it). "" if nothing.
std::string dangerous_gain(std::uint32_t before, std::uint32_t after, int umask) {
  constexpr std::uint32_t kLink = 0120000, kType = 0170000;
  if ((after & kType) == kLink) return "";  // a symlink's bits mean nothing
  std::uint32_t kept_from_new = static_cast<std::uint32_t>(umask >= 0 ? umask : 022) & 022;
  std::uint32_t gained = after & ~before;
  std::vector<std::string> what;
  if (gained & 04000) what.push_back("setuid");
  if (gained & 02000) what.push_back("setgid");
  if (gained & kept_from_new & 002) what.push_back("writable by others");
  else if (gained & kept_from_new & 020) what.push_back("writable by its group");
  std::string out;
  for (const auto& w : what) out += (out.empty() ? "" : " and ") + w;
  return out;
}

// Paths the run made setuid, setgid or writable by others (a planted setuid binary, a
// world-writable deploy script or folder), one sentence each.
std::vector<Suspicious> mode_findings(const RunFacts& f) {
  std::vector<Suspicious> out;
  for (const auto& m : f.mutations) {
    if (m.mode_after == 0) continue;
    if (const char* kind = special_kind(m.mode_after); kind != nullptr && m.change != "deleted") {
      out.push_back({m.steps.empty() ? "" : m.steps.front(), m.path,
                     fmt::format("`{}` was made {} (what reads it may hang or reach elsewhere)", m.path, kind)});
    }
    if (!m.owner_after.empty()) {
      out.push_back({m.steps.empty() ? "" : m.steps.front(), m.path,
                     m.owner_before.empty() ? fmt::format("`{}` was created owned by another user ({})", m.path, m.owner_after)
                                            : fmt::format("`{}` was given to another owner ({}, was {})", m.path, m.owner_after, m.owner_before)});
    }
    std::string gain = dangerous_gain(m.change == "added" ? 0 : m.mode_before, m.mode_after, f.umask);
    if (gain.empty()) continue;
    std::string by = m.steps.empty() ? "" : " by " + join(m.steps, ", ");
    out.push_back({m.steps.empty() ? "" : m.steps.front(), m.path,
                   m.change == "added" ? fmt::format("`{}` was created {} (mode {:o}){}", m.path, gain, m.mode_after & 07777, by)
                                       : fmt::format("`{}` was made {} (mode {:o}, was {:o}){}", m.path, gain, m.mode_after & 07777,
                                                     m.mode_before & 07777, by)});
  }
  for (const auto& c : f.created_folders) {
    if (!c.owner.empty()) out.push_back({"", c.path, fmt::format("folder `{}` was created owned by another user ({})", c.path, c.owner)});
    std::string gain = dangerous_gain(0, c.mode, f.umask);
    if (!gain.empty()) out.push_back({"", c.path, fmt::format("folder `{}` was created {} (mode {:o})", c.path, gain, c.mode & 07777)});
  }
  return out;
}

Signals compute_signals(const RunFacts& f) {
  Signals sig;
  sig.all_steps_executed = static_cast<int>(f.steps.size()) >= f.steps_planned &&
                           std::all_of(f.steps.begin(), f.steps.end(), [](const StepRecord& s) { return s.ok; });
  sig.budget_exhausted = f.status == RunStatus::kBudgetExhausted;
  sig.exhausted = f.budget.exhausted;
  for (const auto& s : f.steps) {
    if (is_effect(s) || changed_workspace(s)) sig.goal_actions_executed = true;
    if (is_effect(s) && s.effect_on_files && !changed_workspace(s)) {
      sig.suspicious.push_back({s.id, s.target, fmt::format("{} ({} {}) completed but changed nothing", s.id, s.tool, s.target)});
    }
  }
  if (f.goal_kind == GoalKind::kInspect) {
    for (const auto& m : f.mutations) {
      sig.suspicious.push_back({"", m.path, fmt::format("the goal only asks a question, but {} was {}", m.path, m.change)});
    }
  }
  for (const auto& change : f.protected_changes) sig.suspicious.push_back({"", "", change});
  for (auto& finding : mode_findings(f)) sig.suspicious.push_back(std::move(finding));
  for (const auto& finding : scope_findings(f)) sig.suspicious.push_back({"", finding.path, finding.reason});
  sig.assertions_evaluated = static_cast<int>(f.assertions.size());
  bool any_goal_level_failed = false;
  for (const AssertionRecord* a : final_assertions(f)) {
    (a->passed ? sig.final_assertions_passed : sig.final_assertions_failed)++;
    if (a->passed && a->by == Provenance::kUser) sig.final_user_assertions_passed++;
    if (a->goal_level() && a->by == Provenance::kUser) {
      sig.goal_level_user_assertions = true;
      any_goal_level_failed |= !a->passed;
    }
  }
  sig.goal_level_all_passed = sig.goal_level_user_assertions && !any_goal_level_failed;
  for (const auto& m : f.mutations) {
    bool covered = std::any_of(f.assertions.begin(), f.assertions.end(), [&](const AssertionRecord& a) { return covers(a, m); });
    if (!covered) sig.uncovered.push_back(m.path);
  }
  sig.scan_complete = f.scan.complete;
  return sig;
}

std::string first_failed_assertion(const RunFacts& f) {
  for (const AssertionRecord* a : final_assertions(f)) {
    if (!a->passed) {
      return a->goal_level() ? fmt::format("goal-level {}: {}", a->type, a->message)
                             : fmt::format("{} {}: {}", a->step, a->type, a->message);
    }
  }
  return "";
}

// What blocks `success` whatever any later tier says: a change to .git/ or .candor/, a change
// outside the scope or to a sensitive path, a path made setuid or writable by others, or a scan
// that could not read every path (what it missed is evidence of nothing).
std::vector<std::string> blockers(const RunFacts& f) {
  std::vector<std::string> out;
  for (const auto& change : f.protected_changes) out.push_back("protected path: " + change);
  for (const auto& finding : mode_findings(f)) out.push_back("permissions: " + finding.reason);
  for (const auto& finding : scope_findings(f)) out.push_back("scope: " + finding.reason);
  if (std::string gap = scan_gap(f); !gap.empty()) out.push_back(gap);
  return out;
}

}  // namespace

nlohmann::json to_json(const Suspicious& s) {
  return {{"step", s.step.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.step)},
          {"path", s.path},
          {"reason", s.reason}};
}

Tier1Result evaluate_tier1(const RunFacts& f) {
  Tier1Result r;
  r.signals = compute_signals(f);
  const Signals& sig = r.signals;
  auto decide = [&](int rule, std::optional<Verdict> v, std::vector<std::string> reasons) {
    r.rule = rule;
    r.verdict = v;
    r.reasons = std::move(reasons);
    return r;
  };

  // Rule 1: an abnormal end before anything was done.
  if (ended_abnormally(f.status) && !sig.goal_actions_executed) {
    return decide(1, Verdict::kFail, {status_phrase(f) + " before any effect tool ran"});
  }
  // Rule 2: a budget ran out. Never success, whatever ran.
  if (sig.budget_exhausted) {
    std::string what = budget_phrase(f.budget);
    std::vector<std::string> reasons;
    reasons.push_back(sig.goal_actions_executed
                          ? what + " before the plan finished; the changes made may be incomplete"
                          : what + " before any effect tool ran: tried, never made the change");
    if (!f.status_detail.empty()) reasons.push_back(f.status_detail);
    return decide(2, Verdict::kPartial, reasons);
  }
  // Rule 3: an abnormal end after something was changed.
  if (ended_abnormally(f.status)) {
    return decide(3, Verdict::kPartial, {status_phrase(f) + " after effect tools had run; the goal may be half done"});
  }
  // From here on the loop ended `completed`.
  std::vector<std::string> blocked = blockers(f);
  // Rule 4: claims to be finished, changed nothing: fail, unless the user's own goal-level
  // assertions all hold on the unchanged workspace (the goal was already met).
  // A change verified with `verify --git` that changes nothing did not do the job, whatever held
  // before it: "already satisfied" is for runs candor was asked to make.
  if (f.goal_kind == GoalKind::kModify && f.mutations.empty() && f.scan.complete) {
    bool already_satisfied = sig.goal_level_all_passed && f.source != "git";
    if (already_satisfied && blocked.empty()) {
      return decide(4, Verdict::kSuccess,
                    {"already satisfied: nothing needed changing; every goal-level assertion (written by the user) passed "
                     "on the unchanged workspace"});
    }
    if (!already_satisfied) {
      std::vector<std::string> reasons{f.source == "git" ? "the goal asks for a change, and the range changes no file"
                                                         : "the goal asks for a change, the run says it finished, and nothing in the workspace changed"};
      for (const auto& s : sig.suspicious) reasons.push_back(s.reason);
      return decide(4, Verdict::kFail, reasons);
    }
  }
  // Rule 5: a final assertion failed, or something blocks success outright (no judge may lift it).
  if (sig.final_assertions_failed > 0) {
    std::vector<std::string> reasons{"an assertion of the last round failed: " + first_failed_assertion(f)};
    reasons.insert(reasons.end(), blocked.begin(), blocked.end());
    return decide(5, Verdict::kPartial, reasons);
  }
  if (!blocked.empty()) return decide(5, Verdict::kPartial, blocked);
  // Rule 6: positive evidence for every claim.
  std::vector<std::string> gaps;
  if (sig.assertions_evaluated == 0) gaps.push_back("no assertion was evaluated, so nothing checked the result");
  for (const auto& s : sig.suspicious) gaps.push_back(s.reason);
  if (f.goal_kind == GoalKind::kModify) {
    if (!sig.goal_actions_executed) gaps.push_back("no effect tool ran");
    for (const auto& p : sig.uncovered) {
      gaps.push_back(fmt::format("{} changed, but no passing assertion after its last change also fails on its content "
                                 "from before the run, so nothing proves what the change did",
                                 p));
    }
  } else {
    if (!f.final_answer || f.final_answer->empty()) gaps.push_back("the goal asks a question and the run gave no final answer");
    if (sig.final_user_assertions_passed == 0) {
      gaps.push_back("the answer is backed only by the planner's own checks; no assertion written by the user passed");
    }
  }
  if (gaps.empty()) {
    std::vector<std::string> reasons;
    if (f.goal_kind == GoalKind::kModify) {
      std::string paths;
      for (const auto& m : f.mutations) paths += (paths.empty() ? "" : ", ") + m.path;
      reasons.push_back(fmt::format("every changed file ({}) was checked after its last change by a passing assertion that "
                                    "fails on the content from before the run: {}",
                                    f.mutations.size(), paths));
    } else {
      reasons.push_back(
          "the question was answered, nothing in the workspace changed, and every assertion passed, at least one written by "
          "the user");
    }
    reasons.push_back(fmt::format("{} of {} final assertions passed", sig.final_assertions_passed,
                                  sig.final_assertions_passed + sig.final_assertions_failed));
    return decide(6, Verdict::kSuccess, reasons);
  }
  // Rule 7: ambiguous: for tier 2.
  return decide(7, std::nullopt, gaps);
}

}  // namespace candor::verify
