#include "verify/tier1.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/arg_schema.h"
#include "evidence/command_coverage.h"
#include "evidence/frameworks.h"
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

// A command as a reason names it: `pytest tests/x.py`, or the assertion's type.
std::string command_text(const AssertionRecord& a) {
  return a.assertion.contains("command") && a.assertion["command"].is_string()
             ? "`" + a.assertion["command"].get<std::string>() + "`"
             : a.type;
}

// "added", "modified", "deleted", "added, renamed from a/x.txt", or "mode 0644 → 0755" for a
// change of permission bits only.
std::string change_phrase(const Mutation& m) {
  if (!m.renamed_from.empty()) return m.change + ", renamed from " + m.renamed_from;
  if (m.change != "mode") return m.change;
  if (m.mode_before == 0 || m.mode_after == 0) return "mode changed";
  return fmt::format("mode {:04o} → {:04o}", m.mode_before & 07777, m.mode_after & 07777);
}

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

// The assertions whose results stand at the end: the last evaluation of each assertion (by its
// JSON), in whatever round it was last evaluated — the end's re-check of one that had failed is its
// last (Executor::finish). One about a step (output_contains, exit_code_eq) is its step's: the last
// evaluation of it for that step; its failure stands with the step (failed_steps below).
std::vector<const AssertionRecord*> final_assertions(const RunFacts& f) {
  std::map<std::string, const AssertionRecord*> last;
  for (const auto& a : f.assertions) {
    last[(a.reads_step ? fmt::format("{}@{} ", a.step, a.round) : std::string()) + a.assertion.dump()] = &a;
  }
  std::vector<const AssertionRecord*> out;
  for (const auto& [key, a] : last) out.push_back(a);
  std::sort(out.begin(), out.end(), [](const AssertionRecord* x, const AssertionRecord* y) { return x->seq < y->seq; });
  return out;
}

bool can_change_workspace(const StepRecord& s) { return s.tool == "shell" || s.effect_tool; }

// A step's failure: it did not complete, or an assertion about its own output or exit code failed.
bool step_failed(const RunFacts& f, const StepRecord& s) {
  if (!s.ok) return true;
  return std::any_of(f.assertions.begin(), f.assertions.end(), [&](const AssertionRecord& a) {
    return a.reads_step && a.step == s.id && a.round == s.round && !a.passed;
  });
}

// Steps that could change the workspace (shell, the effect tools), failed, and were never re-run
// successfully: no later step of the same kind (a command, or a file tool) on the same target
// passed. A failing test command the planner never ran again stands.
std::vector<const StepRecord*> failed_steps(const RunFacts& f) {
  std::vector<const StepRecord*> out;
  for (const auto& s : f.steps) {
    if (!can_change_workspace(s) || !step_failed(f, s)) continue;
    bool rerun = std::any_of(f.steps.begin(), f.steps.end(), [&](const StepRecord& t) {
      return t.seq > s.seq && can_change_workspace(t) && (t.tool == "shell") == (s.tool == "shell") &&
             t.target == s.target && !step_failed(f, t);
    });
    if (!rerun) out.push_back(&s);
  }
  return out;
}

bool is_not_file_exists(const nlohmann::json& a) {
  if (json_str(a, "type") != "not" || !a.contains("assertion")) return false;
  return json_str(a["assertion"], "type") == "file_exists";
}

bool is_symlink_mode(std::uint32_t mode) { return (mode & 0170000) == 0120000; }

// A net removal beyond max(3, 10%) of the file's lines: never covered by tier 1 alone (what was
// removed is for the judge to see). "" when there is none.
std::string removal_of(const Mutation& m) {
  if (m.change != "modified" || m.binary || !m.lines_by.empty()) return "";
  int net = m.lines_removed - m.lines_added;
  int allowed = std::max(3, m.lines_before / 10);
  if (net <= allowed) return "";
  return fmt::format(
      "{} lost {} more lines than it gained ({} removed, {} added, of {}): what was removed is for the judge to see; "
      "to "
      "prove it: pass --llm for a judge",
      m.path, net, m.lines_removed, m.lines_added, m.lines_before);
}

// What showed the command passing after the change: its run on a checkout of the state it passed on
// (`run`, `exec`), else the pass itself.
ProgramRun after_proof(const AssertionRecord& a) {
  if (a.after) return *a.after;
  return {.passed = a.passed, .tests = a.tests, .frameworks = a.frameworks};
}

// Why a user's command that failed before the change is no evidence of what the change did: it ran
// no test there (a before-run that failed for a missing input), or its counts show no test it made
// pass. "" when it is evidence (or passed before).
std::string before_gap(const AssertionRecord& a) {
  if (!a.before || a.before->passed || a.before->error) return "";
  if (!evidence::failed_a_test(a.assertion, *a.before)) {
    return fmt::format(
        "failed before the change without failing a test ({}): a run that failed for a missing input (the test it "
        "names did not exist yet, nothing was collected) is not evidence; to prove it: the test must exist before the "
        "change and fail there (commit it to BASE first, or write it before the run)",
        a.before->tests ? describe(*a.before->tests) : a.before->message);
  }
  return evidence::count_gap(a.assertion, after_proof(a), *a.before);
}

// The command ran on record and passed there: the original tests pass on the change's source.
bool passed_on_record(const AssertionRecord& a) { return a.on_record && a.on_record->passed && !a.on_record->error; }

// Tests of record (docs/design.md, Trust boundary): a user's command that passes with the change's own
// edits to its tests and fails with those tests as they were before the change. "" when it does not.
std::string record_tampering(const AssertionRecord& a) {
  if (a.by != Provenance::kUser || !a.passed || !a.on_record || !evidence::failed_a_test(a.assertion, *a.on_record))
    return "";
  if (a.after && (!a.after->passed || a.after->error)) return "";
  std::string files;
  for (const auto& f : a.record_files) files += (files.empty() ? "" : ", ") + f;
  return fmt::format(
      "{}: {}: {}{} passes with the change's version of {} and fails with the "
      "version from before the change ({}), so the change made the tests pass, not the code",
      kTamperingPhrase, files, a.guard ? "the guard " : "", command_text(a), a.record_files.size() == 1 ? "it" : "them",
      a.on_record->message);
}

// A user's command run before the change too (docs/design.md, Commands as evidence) covers `m` when it
// failed there and passes after the path's last change (on a checkout of the state it passed on,
// for `run` and `exec`), its test runner's and frameworks' summaries show a test passed and no
// fewer ran, none more skipped (`count_gap`, folded into `discriminating`), one of its `covers`
// globs matches the path and it does not read the path as a test (evidence/command_coverage.h); an
// added path also needs the command to fail with it emptied; when the change edited the command's
// tests, the command must pass on record (with the tests as they were). A deletion is shown only
// by `not file_exists`; a change that lies only in a commit the run made may not be in the files
// the command ran on. The planner's `covers` is not honoured.
bool command_covers(const AssertionRecord& a, const Mutation& m) {
  if (a.by != Provenance::kUser || !a.passed || !a.discriminating.value_or(false) || a.seq <= m.last_change_seq)
    return false;
  if (!before_gap(a).empty()) return false;
  if (m.change == "deleted" || m.committed || !evidence::command_may_cover(a.assertion, m.path)) return false;
  if (!a.record_files.empty() && !passed_on_record(a)) return false;
  if (m.change != "added") return true;
  return std::any_of(a.emptied.begin(), a.emptied.end(),
                     [&](const EmptiedRun& e) { return e.path == m.path && !e.run.passed && !e.run.error; });
}

// A test file the change added to is covered by the command's run on record: the command failed
// before the change, passes on record (the original tests pass on the change's source) and with the
// change's tests, which run no fewer tests and skip none more than the original ones did, and the
// change removed no line of it (an edited line may be a weakened assertion: that is for the judge).
bool record_covers(const AssertionRecord& a, const Mutation& m, const RunFacts& f) {
  if (a.by != Provenance::kUser || a.guard || !a.passed || !a.discriminating.value_or(false) ||
      a.seq <= m.last_change_seq || m.committed || !passed_on_record(a) || !before_gap(a).empty())
    return false;
  std::string path = m.path;
  if (m.change == "deleted") {
    // A test renamed: its old path is covered with the new one.
    auto renamed = std::find_if(f.mutations.begin(), f.mutations.end(),
                                [&](const Mutation& x) { return x.renamed_from == m.path; });
    if (renamed == f.mutations.end()) return false;
    path = renamed->path;
  }
  if (std::find(a.record_files.begin(), a.record_files.end(), path) == a.record_files.end()) return false;
  // Only a test the change added to: an edited line may be a weakened assertion.
  auto target = std::find_if(f.mutations.begin(), f.mutations.end(), [&](const Mutation& x) { return x.path == path; });
  if (target == f.mutations.end() || target->lines_removed > 0 || target->binary || !target->lines_by.empty())
    return false;
  ProgramRun after = after_proof(a);
  const ProgramRun& record = *a.on_record;
  if (after.tests && record.tests &&
      (after.tests->ran < record.tests->ran || after.tests->skipped > record.tests->skipped))
    return false;
  return evidence::framework_gap(after.frameworks, record.frameworks).empty();
}

// The concrete step that makes a command evidence of a change, said where the user would take it:
// for a git range, the failing test committed to BASE; for a gate turn, the config's `expect`; for
// a run, an --expect given before it.
std::string failing_test_step(const RunFacts& f) {
  if (f.source == "git")
    return "commit a test that fails to BASE, then the change that makes it pass (FAIL_TO_PASS), and give it as "
           "--expect";
  if (f.source == "eval") return "a task \"expect\" that fails at the task's commit and passes after the attempt";
  if (f.source == "gate")
    return "a test in .candor/config.json's \"expect\" that fails before the turn and passes after it";
  return "a test given as --expect that fails before the run and passes after it";
}

// Why the user's passing commands do not cover `m`, when one of them says something about it: the
// test file it runs, a pass before the change too, a run before that could not be made, a test
// runner whose summary shows no test passed (none printed, none ran, fewer ran, more skipped), an
// added path it passes with emptied or was never run with emptied. "" when none does. `what` names the
// mutation ("src/x.py (modified)").
std::string command_gap(const RunFacts& f, const Mutation& m, const std::string& what) {
  std::string uncovered_by_globs;  // a command that proves something, but says it covers other paths
  for (const auto& a : f.assertions) {
    if (!a.before || a.by != Provenance::kUser || a.guard || !a.passed || a.seq <= m.last_change_seq) continue;
    std::string cmd = command_text(a);
    if (evidence::CommandTests(a.assertion).reads(m.path)) {
      return fmt::format(
          "{} is a test file that {} reads: a command never covers its own tests (a weakened or skipped test "
          "passes too), so it needs evidence of its own{}",
          what, cmd,
          passed_on_record(a) && m.lines_removed > 0
              ? fmt::format("; the original tests pass on record, but the change edited {} line{} of it, and only a "
                            "test the change added to is covered on record",
                            m.lines_removed, m.lines_removed == 1 ? "" : "s")
              : "; to prove it: " + failing_test_step(f) +
                    " (a test the change only adds to is then covered on record), a check of its own, or a judge "
                    "(--llm)");
    }
    if (!evidence::command_may_cover(a.assertion, m.path) || m.change == "deleted" || m.committed) {
      if (m.change != "deleted" && !m.committed && a.discriminating.value_or(false) && uncovered_by_globs.empty()) {
        auto globs = evidence::covers_globs(a.assertion);
        uncovered_by_globs = fmt::format(
            "{}: {} failed before the change and passes after it, but its \"covers\" ({}) does not take this path "
            "in; to prove it: add the path (or its folder, \"{}/**\") to the command's \"covers\" if it tests it",
            what, cmd, globs.empty() ? std::string("none") : join(globs, ", "),
            m.path.find('/') == std::string::npos ? std::string(".") : m.path.substr(0, m.path.rfind('/')));
      }
      continue;
    }
    if (a.before->error) {
      return fmt::format(
          "{}: {} could not be run on the state before the change ({}), so its pass proves nothing about it; to prove "
          "it: make it run on the state before the change (what it needs committed there), or pass --llm",
          what, cmd, a.before->message);
    }
    if (a.after && a.after->error) {
      return fmt::format(
          "{}: {} could not be run on a checkout of the state it passed on ({}), so its pass proves "
          "nothing about it; to prove it: make it run on a clean checkout (what it needs committed), or pass --llm",
          what, cmd, a.after->message);
    }
    if (a.after && !a.after->passed && !a.before->passed) {
      return fmt::format(
          "{}: {} passed in the workspace but failed on a checkout of the state it passed on ({}): its pass rests on "
          "files no snapshot holds (an ignored or unwatched file such as a .pyc or a build output), so it proves "
          "nothing about the change; to prove it: make it build what it needs itself, or pass --llm",
          what, cmd, a.after->message);
    }
    if (!a.before->passed) {
      if (std::string gap = before_gap(a); !gap.empty()) return fmt::format("{}: {} {}", what, cmd, gap);
    }
    if (!a.record_files.empty() && !passed_on_record(a) && a.discriminating.value_or(false)) {
      return fmt::format(
          "{}: the change edited the tests of {} ({}), and its run with them as they were before the change {}, "
          "so the original tests do not show the change works; to prove it: make the change pass the tests as "
          "they were, or pass --llm",
          what, cmd, join(a.record_files, ", "),
          !a.on_record         ? std::string("was not made")
          : a.on_record->error ? "could not be made: " + a.on_record->message
                               : std::string("ran no test (the test it names is the change's own: it has no record)"));
    }
    if (!a.discriminating.value_or(false)) {
      return fmt::format(
          "{}: {} passed before the change too: it shows nothing broke, not what the change did; to prove it: {}, "
          "or a judge (--llm)",
          what, cmd, failing_test_step(f));
    }
    if (m.change != "added") continue;
    auto run = std::find_if(a.emptied.begin(), a.emptied.end(), [&](const EmptiedRun& e) { return e.path == m.path; });
    if (run == a.emptied.end()) {
      return fmt::format(
          "{}: {} was not run with it emptied (at most {} added paths per command are), so nothing shows "
          "its content matters; to prove it: a check of what it holds (file_contains), or a judge (--llm)",
          what, cmd, evidence::kMaxEmptiedRuns);
    }
    if (run->run.error)
      return fmt::format(
          "{}: {} could not be run with it emptied ({}); to prove it: a check of what it holds "
          "(file_contains), or a judge (--llm)",
          what, cmd, run->run.message);
    if (run->run.passed)
      return fmt::format(
          "{}: {} passes with it emptied, so its content is not what made it pass; to prove it: a test that "
          "fails without what it holds, or a judge (--llm)",
          what, cmd);
  }
  return uncovered_by_globs;
}

// A pass that is evidence about the change at `m` (docs/design.md, Trust boundary): it read that path
// after its last change and fails on the path's content before the run; for an added or modified
// path it is a check of content that also fails on an empty file (positive evidence); a deletion is
// shown only by `not file_exists`, judged on the directory entry. A guard proves nothing about the
// change; a link, or a change whose lines could not be counted, is for the judge.
bool covers(const AssertionRecord& a, const Mutation& m, const RunFacts& f) {
  if (m.lines_by == "unknown" || is_symlink_mode(m.mode_after) || a.guard) return false;
  if (a.before) return command_covers(a, m) || record_covers(a, m, f);
  if (!a.passed || !a.discriminating.value_or(false) || a.path.empty() || a.path != m.path ||
      a.seq <= m.last_change_seq)
    return false;
  if (m.change == "deleted") return is_not_file_exists(a.assertion);
  return a.positive.value_or(false) && !is_not_file_exists(a.assertion);
}

// "test-aware change: src/slug.js:3 (rule b): adds ...": every flag of `path`, the first three said.
std::string test_aware_gap(const RunFacts& f, const std::string& path) {
  std::string said;
  int n = 0, more = 0;
  for (const auto& flag : f.test_aware) {
    if (flag.path != path) continue;
    if (++n > 3) {
      ++more;
      continue;
    }
    said += fmt::format("{}{}{} (rule {}): {}: `{}`", said.empty() ? "" : "; ", flag.path,
                        flag.line > 0 ? fmt::format(":{}", flag.line) : "", flag.rule, flag.why, flag.text);
  }
  if (more > 0) said += fmt::format("; and {} more", more);
  return "test-aware change: " + said +
         ". A change that reads or changes how the tests run is never evidence at tier 1; to prove it: pass --llm, and "
         "the judge is asked whether it special-cases the tests";
}

// Why the user's own passing check of `m`'s content is no evidence, when one was made after its
// last change: it held before the run too, or it holds on an empty file. "" when there is none.
std::string user_check_gap(const RunFacts& f, const Mutation& m, const std::string& what) {
  for (const auto& a : f.assertions) {
    if (a.by != Provenance::kUser || a.guard || !a.passed || a.path != m.path || a.seq <= m.last_change_seq) continue;
    std::string check = fmt::format("`{} {}`", a.type, a.path);
    if (a.discriminating == false) {
      return fmt::format(
          "{}: your check {} passed on its content from before the run too (it was already true), so it shows "
          "nothing about the change; to prove it: check for something the change must make true that is not true "
          "now (file_contains with text the goal asks for that is not there yet), or a judge (--llm)",
          what, check);
    }
    if (a.discriminating == true && a.positive == false) {
      return fmt::format(
          "{}: your check {} passes on an empty file too, so it shows the file is there, not what it holds; to "
          "prove it: check what it holds (file_contains with text the goal asks for), or a judge (--llm)",
          what, check);
    }
  }
  return "";
}

// A FIFO, socket or device: what no tree holds and no step should leave in a workspace.
const char* special_kind(std::uint32_t mode) {
  switch (mode & 0170000) {
    case 0010000:
      return "a FIFO";
    case 0140000:
      return "a socket";
    case 0020000:
      return "a character device";
    case 0060000:
      return "a block device";
    default:
      return nullptr;
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
  if (gained & kept_from_new & 002)
    what.push_back("writable by others");
  else if (gained & kept_from_new & 020)
    what.push_back("writable by its group");
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
      out.push_back(
          {m.steps.empty() ? "" : m.steps.front(), m.path,
           m.owner_before.empty()
               ? fmt::format("`{}` was created owned by another user ({})", m.path, m.owner_after)
               : fmt::format("`{}` was given to another owner ({}, was {})", m.path, m.owner_after, m.owner_before)});
    }
    std::string gain = dangerous_gain(m.change == "added" ? 0 : m.mode_before, m.mode_after, f.umask);
    if (gain.empty()) continue;
    std::string by = m.steps.empty() ? "" : " by " + join(m.steps, ", ");
    out.push_back({m.steps.empty() ? "" : m.steps.front(), m.path,
                   m.change == "added"
                       ? fmt::format("`{}` was created {} (mode {:o}){}", m.path, gain, m.mode_after & 07777, by)
                       : fmt::format("`{}` was made {} (mode {:o}, was {:o}){}", m.path, gain, m.mode_after & 07777,
                                     m.mode_before & 07777, by)});
  }
  for (const auto& c : f.created_folders) {
    if (!c.owner.empty())
      out.push_back({"", c.path, fmt::format("folder `{}` was created owned by another user ({})", c.path, c.owner)});
    std::string gain = dangerous_gain(0, c.mode, f.umask);
    if (!gain.empty())
      out.push_back({"", c.path, fmt::format("folder `{}` was created {} (mode {:o})", c.path, gain, c.mode & 07777)});
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
      // verify --git's one step (tool "git") targets the range, not a workspace path.
      std::string path = s.tool == "git" ? "" : s.target;
      sig.suspicious.push_back(
          {s.id, path, fmt::format("{} ({} {}) completed but changed nothing", s.id, s.tool, s.target)});
    }
  }
  if (f.goal_kind == GoalKind::kInspect) {
    for (const auto& m : f.mutations) {
      sig.suspicious.push_back(
          {"", m.path, fmt::format("the goal only asks a question, but {} was {}", m.path, change_phrase(m))});
    }
  }
  for (const auto& change : f.protected_changes) sig.suspicious.push_back({"", "", change});
  for (auto& finding : mode_findings(f)) sig.suspicious.push_back(std::move(finding));
  for (const auto& finding : scope_findings(f)) sig.suspicious.push_back({"", finding.path, finding.reason});
  sig.assertions_evaluated = static_cast<int>(f.assertions.size());
  bool any_goal_level_failed = false;
  for (const AssertionRecord* a : final_assertions(f)) {
    if (a->reads_step) {  // its step's: failed_steps; a user's check of what a step read backs an answer
      if (a->passed && a->by == Provenance::kUser && !a->guard) sig.final_user_step_assertions_passed++;
      continue;
    }
    (a->passed ? sig.final_assertions_passed : sig.final_assertions_failed)++;
    if (a->passed && a->by == Provenance::kUser && !a->guard) sig.final_user_assertions_passed++;
    if (a->goal_level() && a->by == Provenance::kUser && !a->guard) {
      sig.goal_level_user_assertions = true;
      any_goal_level_failed |= !a->passed;
    }
  }
  for (const StepRecord* s : failed_steps(f)) {
    sig.failed_steps.push_back(fmt::format("step {} ({} {}) failed{} and no later step ran it again successfully",
                                           s->id, s->tool, s->target, s->error.empty() ? "" : ": " + s->error));
  }
  sig.goal_level_all_passed = sig.goal_level_user_assertions && !any_goal_level_failed;
  for (const auto& m : f.mutations) {
    bool by_user = false, by_planner = false;
    for (const auto& a : f.assertions) {
      if (!covers(a, m, f)) continue;
      (a.by == Provenance::kUser ? by_user : by_planner) = true;
    }
    std::string removal = removal_of(m);
    auto flagged = std::find_if(f.test_aware.begin(), f.test_aware.end(),
                                [&](const TestAwareFlag& flag) { return flag.path == m.path; });
    if (by_user && removal.empty() && flagged == f.test_aware.end()) continue;
    sig.uncovered.push_back(m.path);
    std::string what =
        fmt::format("{} ({}{})", m.path, change_phrase(m), m.committed ? ", in a commit the run made" : "");
    if (flagged != f.test_aware.end()) {
      sig.coverage_gaps.push_back(test_aware_gap(f, m.path));
    } else if (!removal.empty()) {
      sig.coverage_gaps.push_back(removal);
    } else if (m.lines_by == "unknown") {
      sig.coverage_gaps.push_back(fmt::format(
          "{}: its lines could not be counted, so what it removed is unknown; to prove it: a judge (--llm)", what));
    } else if (is_symlink_mode(m.mode_after)) {
      sig.coverage_gaps.push_back(fmt::format(
          "{} is a symbolic link now: what it leads to is for the judge to see; to prove it: a judge (--llm)", what));
    } else if (std::string gap = command_gap(f, m, what); !gap.empty()) {
      sig.coverage_gaps.push_back(gap);
    } else if (by_planner) {
      sig.coverage_gaps.push_back(
          fmt::format("{} is covered only by the planner's own checks, which show what the model meant, "
                      "not what the user asked for; to prove it: a check of your own (--expect), or a judge "
                      "(--llm)",
                      what));
    } else if (m.change == "deleted") {
      sig.coverage_gaps.push_back(fmt::format(
          "{}: no passing `not file_exists` after it was deleted proves the deletion; to prove it: "
          "--expect '{{\"type\": \"not\", \"assertion\": {{\"type\": \"file_exists\", \"path\": \"{}\"}}}}'",
          what, m.path));
    } else if (std::string gap = user_check_gap(f, m, what); !gap.empty()) {
      sig.coverage_gaps.push_back(gap);
    } else {
      sig.coverage_gaps.push_back(
          fmt::format("{}: no passing assertion after its last change fails both on its content from "
                      "before the run and on an empty file, so nothing proves what the change did; to prove "
                      "it: a check that fails before the change (file_contains with text the change wrote that was not "
                      "there before), a test that fails before and passes after with \"covers\" naming this path, or "
                      "a judge (--llm)",
                      what));
    }
  }
  sig.scan_complete = f.scan.complete;
  return sig;
}

// One sentence per assertion or guard whose last evaluation failed, each naming its check.
std::vector<Finding> failed_assertions(const RunFacts& f) {
  std::vector<Finding> out;
  for (const AssertionRecord* a : final_assertions(f)) {
    if (a->passed || a->reads_step) continue;
    std::string what = a->guard ? "guard" : a->goal_level() ? "goal-level" : a->step;
    out.push_back(
        {Severity::kFailed, a->path,
         fmt::format("an assertion failed and still fails at the end: {} {}: {}", what, a->type, a->message)});
  }
  return out;
}

// What blocks `success` whatever any later tier says: a change to .git/ or .candor/, a change
// outside the scope or to a sensitive path, a path made setuid or writable by others, a change at
// all when the goal only asks a question, or a scan that could not read every path (what it missed
// is evidence of nothing).
std::vector<Finding> blockers(const RunFacts& f) {
  std::vector<Finding> out;
  for (const auto& change : f.protected_changes) out.push_back({Severity::kBlocked, "", "protected path: " + change});
  for (const auto& finding : mode_findings(f))
    out.push_back({Severity::kBlocked, finding.path, "permissions: " + finding.reason});
  for (const auto& finding : scope_findings(f))
    out.push_back({Severity::kBlocked, finding.path, "scope: " + finding.reason});
  if (f.goal_kind == GoalKind::kInspect) {
    for (const auto& m : f.mutations)
      out.push_back({Severity::kBlocked, m.path,
                     fmt::format("the goal only asks a question, but {} was {}", m.path, change_phrase(m))});
  }
  if (std::string gap = scan_gap(f); !gap.empty()) out.push_back({Severity::kBlocked, "", gap});
  return out;
}

// What keeps a run that ended `completed`, changed what it had to and failed nothing from being a
// success: no assertion, a step that claimed an effect and made none, and for a change, each path
// nothing proves; for a question, a missing answer or one no user assertion backs.
std::vector<Finding> evidence_gaps(const RunFacts& f, const Signals& sig) {
  std::vector<Finding> out;
  if (sig.assertions_evaluated == 0)
    out.push_back({Severity::kUnproven, "", "no assertion was evaluated, so nothing checked the result"});
  for (const auto& s : sig.suspicious) {
    // The workspace-level ones (protected, permissions, scope, a question's changes) are blockers.
    if (!s.step.empty()) out.push_back({Severity::kSuspicious, s.path, s.reason});
  }
  if (f.goal_kind == GoalKind::kModify) {
    if (!sig.goal_actions_executed) out.push_back({Severity::kUnproven, "", "no effect tool ran"});
    for (std::size_t i = 0; i < sig.coverage_gaps.size(); ++i)
      out.push_back({Severity::kUnproven, sig.uncovered[i], sig.coverage_gaps[i]});
  } else {
    if (!f.final_answer || f.final_answer->empty())
      out.push_back({Severity::kUnproven, "", "the goal asks a question and the run gave no final answer"});
    if (sig.final_user_assertions_passed + sig.final_user_step_assertions_passed == 0) {
      out.push_back({Severity::kUnproven, "",
                     "the answer is backed only by the planner's own checks or by guards; no assertion of the goal "
                     "written by the user passed"});
    }
  }
  return out;
}

}  // namespace

nlohmann::json to_json(const Suspicious& s) {
  return {{"step", s.step.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.step)},
          {"path", s.path},
          {"reason", s.reason}};
}

const char* to_string(Severity s) {
  switch (s) {
    case Severity::kRunEnded:
      return "run ended";
    case Severity::kBlocked:
      return "blocked";
    case Severity::kFailed:
      return "failed";
    case Severity::kSuspicious:
      return "suspicious";
    case Severity::kUnproven:
      break;
  }
  return "unproven";
}

nlohmann::json to_json(const Finding& f) {
  return {{"severity", to_string(f.severity)}, {"path", f.path}, {"text", f.text}};
}

namespace {

// What tier 1 read of each assertion's command runs (its runner, the tests the before-run counted
// that the after-run lacks), index for index with f.assertions.
std::vector<CommandReading> command_readings(const RunFacts& f) {
  std::vector<CommandReading> out;
  for (const auto& a : f.assertions) {
    CommandReading reading;
    if (a.before) {
      reading.runner = evidence::runner_name(a.assertion);
      reading.count_gap = before_gap(a);
    }
    out.push_back(std::move(reading));
  }
  return out;
}

// How the run ended, when that alone keeps it from success: abnormally, or with a budget spent.
std::vector<Finding> ending_findings(const RunFacts& f, const Signals& sig) {
  std::vector<Finding> out;
  if (ended_abnormally(f.status)) {
    out.push_back(
        {Severity::kRunEnded, "",
         status_phrase(f) + (sig.goal_actions_executed ? " after effect tools had run; the goal may be half done"
                                                       : " before any effect tool ran")});
  } else if (sig.budget_exhausted) {
    std::string what = budget_phrase(f.budget);
    out.push_back({Severity::kRunEnded, "",
                   sig.goal_actions_executed ? what + " before the plan finished; the changes made may be incomplete"
                                             : what + " before any effect tool ran: tried, never made the change"});
    if (!f.status_detail.empty()) out.push_back({Severity::kRunEnded, "", f.status_detail});
  }
  return out;
}

// Rule 3b's evidence: user commands that pass only through the change's own test edits.
std::vector<Finding> tampering_findings(const RunFacts& f) {
  std::vector<Finding> out;
  for (const AssertionRecord* a : final_assertions(f)) {
    if (std::string why = record_tampering(*a); !why.empty())
      out.push_back({Severity::kBlocked, a->record_files.empty() ? "" : a->record_files.front(), why});
  }
  return out;
}

// "Already satisfied" needs every goal-level command to pass on the state before the run as well
// (a checkout of the pre-run snapshot): a command that fails there and passes on the workspace
// rests on state no snapshot holds (an ignored .pyc, a build output). One finding per such command.
std::vector<Finding> unheld_findings(const RunFacts& f) {
  std::vector<Finding> out;
  for (const AssertionRecord* a : final_assertions(f)) {
    if (!a->goal_level() || a->by != Provenance::kUser || a->guard || !a->before || a->before->passed) continue;
    out.push_back(
        {Severity::kUnproven, "",
         fmt::format(
             "nothing changed and {} passes on the workspace, but on a checkout of the state before the run "
             "it {} ({}): it rests on state no snapshot holds (an ignored or unwatched file such as a .pyc, "
             "or a build output), so nothing shows the goal was already met; to prove it: make the command pass on "
             "a clean checkout (commit what it needs), or pass --llm",
             command_text(*a), a->before->error ? "could not be run" : "fails", a->before->message)});
  }
  return out;
}

// Rule 6's reasons: what proved each claim.
std::vector<std::string> success_reasons(const RunFacts& f, const Signals& sig) {
  std::vector<std::string> out;
  if (f.goal_kind == GoalKind::kModify) {
    std::string paths;
    for (const auto& m : f.mutations) paths += (paths.empty() ? "" : ", ") + m.path;
    out.push_back(
        fmt::format("every changed file ({}) was checked after its last change by a passing assertion of the "
                    "user's that fails on the state from before the run and, where it proves content, on an "
                    "empty file: {}",
                    f.mutations.size(), paths));
  } else {
    out.push_back(
        "the question was answered, nothing in the workspace changed, and every assertion passed, at least one "
        "written by the user");
  }
  out.push_back(fmt::format("{} of {} final assertions passed", sig.final_assertions_passed,
                            sig.final_assertions_passed + sig.final_assertions_failed));
  return out;
}

}  // namespace

Tier1Result evaluate_tier1(const RunFacts& f) {
  Tier1Result r;
  r.signals = compute_signals(f);
  r.test_aware = !f.test_aware.empty();
  r.commands = command_readings(f);
  const Signals& sig = r.signals;

  // Every finding, whichever rule decides: the verdict comes from the first rule that matches, the
  // reasons name everything that blocks success (docs/design.md, "Every finding is reported").
  std::vector<Finding> found;
  auto add = [&](std::vector<Finding> more) { std::move(more.begin(), more.end(), std::back_inserter(found)); };
  add(ending_findings(f, sig));
  add(blockers(f));
  const std::vector<Finding> tampering = tampering_findings(f);
  found.insert(found.end(), tampering.begin(), tampering.end());
  add(failed_assertions(f));
  for (const auto& s : sig.failed_steps) found.push_back({Severity::kFailed, "", s});
  const bool changed_nothing = f.goal_kind == GoalKind::kModify && f.mutations.empty() && f.scan.complete;
  // Guards never make a run already satisfied (they are not counted in goal_level_all_passed), and
  // one that fails keeps it from being so. A change verified with `verify --git` that changes
  // nothing did not do the job, whatever held before it: "already satisfied" is for runs candor was
  // asked to make.
  const bool expects_held = changed_nothing && sig.goal_level_all_passed && sig.final_assertions_failed == 0 &&
                            f.source != "git" && f.source != "eval";
  const std::vector<Finding> unheld = expects_held ? unheld_findings(f) : std::vector<Finding>{};
  const bool already_satisfied = expects_held && unheld.empty();
  if (changed_nothing && !already_satisfied && unheld.empty() && !ended_abnormally(f.status) && !sig.budget_exhausted) {
    found.push_back(
        {Severity::kFailed, "",
         f.source == "git" || f.source == "eval"
             ? "the goal asks for a change, and the range changes no file"
             : "the goal asks for a change, the run says it finished, and nothing in the workspace changed"});
  }
  std::vector<Finding> gaps = evidence_gaps(f, sig);
  // "No effect tool ran" says again what a run that ended before any effect tool ran already said.
  if (!sig.goal_actions_executed && (ended_abnormally(f.status) || sig.budget_exhausted || changed_nothing)) {
    std::erase_if(gaps, [](const Finding& g) { return g.text == "no effect tool ran"; });
  }
  const bool has_gaps = !gaps.empty();
  add(std::move(gaps));
  add(unheld);
  std::stable_sort(found.begin(), found.end(),
                   [](const Finding& a, const Finding& b) { return a.severity < b.severity; });

  auto decide = [&](int rule, std::optional<Verdict> v) {
    r.rule = rule;
    r.verdict = v;
    r.findings = std::move(found);
    for (const auto& finding : r.findings) r.reasons.push_back(finding.text);
    return r;
  };
  // Rule 1: an abnormal end before anything was done.
  if (ended_abnormally(f.status) && !sig.goal_actions_executed) return decide(1, Verdict::kFail);
  // Rule 2: a budget ran out. Never success, whatever ran.
  if (sig.budget_exhausted) return decide(2, Verdict::kPartial);
  // Rule 3: an abnormal end after something was changed.
  if (ended_abnormally(f.status)) return decide(3, Verdict::kPartial);
  // Rule 3b: evidence of tampering (tests of record) is a problem, not missing proof.
  if (!tampering.empty()) {
    r.tampering = true;
    return decide(3, Verdict::kFail);
  }
  // From here on the loop ended `completed`.
  const bool blocked =
      std::any_of(found.begin(), found.end(), [](const Finding& x) { return x.severity == Severity::kBlocked; });
  // Rule 4: claims to be finished, changed nothing: fail, unless the user's own goal-level
  // assertions all hold on the unchanged workspace (the goal was already met).
  if (changed_nothing && !unheld.empty()) return decide(4, Verdict::kPartial);
  if (changed_nothing && !already_satisfied) return decide(4, Verdict::kFail);
  if (changed_nothing && !blocked) {
    r.rule = 4;
    r.verdict = Verdict::kSuccess;
    r.reasons = {
        "already satisfied: nothing needed changing; every goal-level assertion (written by the user) passed on the "
        "unchanged workspace"};
    return r;
  }
  // Rule 5: an assertion or guard whose last evaluation failed, a failed step never re-run, or
  // something that blocks success outright (no judge may lift it).
  if (sig.final_assertions_failed > 0 || !sig.failed_steps.empty() || blocked) return decide(5, Verdict::kPartial);
  // Rule 7: positive evidence is missing for some claim: ambiguous, for tier 2.
  if (has_gaps) return decide(7, std::nullopt);
  // Rule 6: positive evidence for every claim.
  r.rule = 6;
  r.verdict = Verdict::kSuccess;
  for (auto& reason : success_reasons(f, sig)) r.reasons.push_back(std::move(reason));
  return r;
}

}  // namespace candor::verify
