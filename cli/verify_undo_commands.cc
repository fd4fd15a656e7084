// `candor verify` and `candor undo`: working from a recorded run.
#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/finish_run.h"
#include "cli/progress_output.h"
#include "cli/session.h"
#include "core/clock.h"
#include "executor/undo.h"
#include "llm/provider.h"
#include "report/escape.h"
#include "report/report.h"
#include "sandbox/credential_registry.h"
#include "snapshot/range.h"
#include "snapshot/store.h"
#include "store/run_store.h"
#include "verify/acceptance.h"
#include "verify/judge.h"
#include "verify/judge_run.h"
#include "verify/replay.h"
#include "verify/tier1.h"
#include "verify/verdict.h"

namespace candor::cli {
namespace {

struct Loaded {
  std::unique_ptr<store::RunStore> store;
  store::StoredRun run;
  RunFacts facts;
  bool finished = false;  // the run has stored facts (it reached run_ended)
};

Result<Loaded> load(const std::string& store_dir, const std::string& ref) {
  Loaded l;
  TRY(l.store, store::RunStore::open(store_dir.empty() ? store::default_store_dir() : store_dir));
  TRY(std::string id, l.store->resolve(ref));
  TRY(l.run, l.store->load(id));
  if (l.run.facts.is_object()) {
    TRY(l.facts, run_facts_from_json(l.run.facts));
    l.finished = true;
  } else {
    l.facts = verify::facts_from_events(id, l.run.events);
  }
  return l;
}

// The tier-2 policy for a verify: --judge, else the one the run was recorded with, else never (a run
// recorded before the policy was kept, which is how verify always behaved).
struct JudgeChoice {
  std::string policy;
  std::string from;  // --judge | as recorded | not recorded | no LLM provider
};

JudgeChoice judge_choice(const std::string& given, const std::string& recorded) {
  if (!given.empty()) return {given, "--judge"};
  if (verify::parse_judge_policy(recorded)) return {recorded, "as recorded"};
  return {"never", "not recorded"};
}

}  // namespace

int verify_command(const VerifyArgs& args) {
  if (!args.trajectory_file.empty()) return verify_trajectory_command(args);
  std::optional<verify::AcceptanceSpec> spec;
  if (!args.acceptance_file.empty()) {
    auto text = read_text_file(args.acceptance_file);
    if (!text.ok()) return report_error(text.error());
    auto parsed = verify::parse_acceptance_spec_text(*text, tools_for_format(""), args.acceptance_file);
    if (!parsed.ok()) return report_error(parsed.error());
    spec = std::move(*parsed);
  }
  auto loaded = load(args.store_dir, args.run);
  if (!loaded.ok()) return report_error(loaded.error());
  Loaded& l = *loaded;
  if (spec) l.facts.acceptance = verify::to_json(verify::evaluate_acceptance(*spec, stream_from_events(l.run.events)));
  verify::Tier1Result tier1 = verify::evaluate_tier1(l.facts);
  JudgeChoice choice = judge_choice(args.judge, l.facts.judge_policy);
  llm::ProviderChoice provider_choice = llm::choose_provider(args.llm);
  bool ask = verify::should_ask_judge(tier1, *verify::parse_judge_policy(choice.policy));
  if (ask && l.facts.source == "git" && l.facts.git.is_object() && l.facts.git.value("worktree", false)) {
    // The working tree was read into memory and not kept: a judge now would see no diff, and the
    // files may have changed since. Tier 1 alone, said aloud.
    std::fprintf(stderr, "candor: run %s verified a working tree, which is not kept: the judge is not asked (verify it again with --git %s)\n",
                 l.facts.run_id.c_str(), json_str(l.facts.git, "range").c_str());
    choice = {"never", "working tree not kept"};
    ask = false;
  }
  if (ask && provider_choice.spec.empty()) {
    if (choice.from == "--judge") {
      return report_error(make_error(ErrorCode::kUsage, "--judge " + choice.policy + " needs an LLM provider: " + llm::kNoProviderHint));
    }
    // The record asks for a judge, and nothing here names an LLM: tier 1 alone, said aloud.
    std::fprintf(stderr, "candor: the run was recorded with --judge %s, but no LLM provider is named here (%s): the judge is not asked\n",
                 choice.policy.c_str(), llm::kNoProviderHint);
    choice = {"never", "no LLM provider"};
    ask = false;
  }
  verify::JudgeOutcome judge;
  if (ask) {
    auto provider = llm::make_provider(provider_choice.spec, {});
    if (!provider.ok()) return report_error(provider.error());
    // The questions an earlier judge of this run was given or fixed from the goal, when there was
    // one; the planner's round-1 questions are its reading of the goal, shown as evidence.
    // A new process, after the run: the judge gets the run's whole time budget again.
    verify::JudgeRunInputs inputs{.questions = {}, .planner_questions = {}, .credentials = nullptr,
                                  .time = std::chrono::seconds(l.facts.budget.limits.timeout_s)};
    for (const auto& e : l.run.events) {
      if (e.type == "plan" && e.data.value("round", 0) == 1 && e.data.contains("plan") && e.data["plan"].is_object()) {
        inputs.planner_questions = e.data["plan"].value("questions", std::vector<std::string>{});
      }
      if (e.type == "judge_questions") inputs.questions = e.data.value("questions", std::vector<std::string>{});
      if (e.type == "judge" && e.data.contains("answers") && e.data["answers"].is_array() && !e.data["answers"].empty()) {
        inputs.questions.clear();
        for (const auto& a : e.data["answers"]) inputs.questions.push_back(json_str(a, "text"));
      }
    }
    auto progress = stderr_progress(args.quiet);
    ProgressWait waiting(progress.get(), WaitKind::kJudge);
    std::shared_ptr<const sandbox::CredentialRegistry> credentials;
    std::unique_ptr<snapshot::GitRepository> repo;
    std::unique_ptr<snapshot::SnapshotStore> snapshots;
    const snapshot::GitTrees* trees = nullptr;
    std::optional<snapshot::GitTrees> opened;
    if (l.facts.source == "git") {
      // The trees are the repository's own commits, not snapshots in the store.
      if (auto r = snapshot::GitRepository::open(l.facts.workspace); r.ok()) {
        repo = std::move(r.value());
        opened = repo->trees();
      }
    } else if (auto s = snapshot::SnapshotStore::open(l.store->dir(), l.facts.workspace, system_clock()); s.ok()) {
      snapshots = std::move(s.value());
      opened = snapshots->trees();
      // This process did not see the run start: its credentials are read back from the snapshot.
      credentials = snapshot::run_credentials(*opened, l.facts, ::environ);
      inputs.credentials = credentials.get();
    }
    if (opened && l.finished) trees = &*opened;
    if (trees != nullptr) {
      verify::JudgeRun judged = verify::judge_run(**provider, *trees, l.facts, inputs);
      judge = std::move(judged.outcome);
    } else {
      judge.asked = true;
      judge.error = "the run's snapshots could not be read, so the judge was shown nothing";
    }
    if (l.facts.provider.empty()) l.facts.provider = (*provider)->describe();  // a run that used no LLM before
  }
  verify::Decision decision = verify::decide(tier1, judge.asked ? &judge : nullptr, l.facts.goal_validations);
  nlohmann::json report = report::build_report(l.facts, tier1, decision, l.run.summary.created_at, judge.asked ? &judge : nullptr);
  if (l.run.report.is_object() && l.run.report.contains("undone")) report["undone"] = l.run.report["undone"];
  (void)l.store->append_late(l.facts.run_id, "verified",
                             {{"verdict", to_string(decision.verdict)}, {"verdict_by", decision.by}, {"status", to_string(l.facts.status)},
                              {"from", l.finished ? "stored facts" : "events only"},
                              {"acceptance", l.facts.acceptance}},
                             format_timestamp(std::chrono::system_clock::now()));
  // The stored verdict may have come from a judge this verify does not ask (or a different one).
  std::string stored = l.run.report.is_object() ? json_str(l.run.report, "verdict") : "";
  if (!stored.empty() && stored != to_string(decision.verdict)) {
    std::fprintf(stderr, "candor: stored verdict %s (by %s), recomputed %s (by %s) with judge policy %s (%s)%s\n", stored.c_str(),
                 json_str(l.run.report, "verdict_by", "?").c_str(), to_string(decision.verdict), decision.by.c_str(),
                 choice.policy.c_str(), choice.from.c_str(), judge.asked ? "" : "; the judge was not asked (--judge auto to ask it)");
  }
  if (args.json) {
    std::puts(report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else {
    if (!l.finished) std::printf("run %s never ended: verified from its %zu recorded events\n\n", l.facts.run_id.c_str(), l.run.events.size());
    std::fputs(report::render_terminal(report, {report::want_color(1), 80}).c_str(), stdout);
  }
  if (judge.provider_failed) {
    std::fprintf(stderr, "candor: the judge's LLM provider failed: %s\n", judge.error.c_str());
    return kExitUnavailable;
  }
  return exit_code_for(decision.verdict, l.facts.acceptance);
}

int undo_command(const UndoArgs& args) {
  auto loaded = load(args.store_dir, args.run);
  if (!loaded.ok()) return report_error(loaded.error());
  Loaded& l = *loaded;
  if (!l.finished) {
    return report_error(make_error(ErrorCode::kInvalidInput,
                                   fmt::format("run {} never ended, so it has no snapshot after it to undo from", l.facts.run_id)));
  }
  if (l.facts.source == "git") {
    bool worktree = l.facts.git.is_object() && l.facts.git.value("worktree", false);
    return report_error(make_error(
        ErrorCode::kInvalidInput,
        worktree ? fmt::format("run {} verified the working tree against {}, it changed no files itself: put them back with git "
                               "(git restore, git clean)",
                               l.facts.run_id, json_str(l.facts.git, "range"))
                 : fmt::format("run {} verified commits ({}), it changed no files itself: undo them with git (git revert)",
                               l.facts.run_id, json_str(l.facts.git, "range"))));
  }
  if (const auto& was = l.run.report.is_object() ? l.run.report.value("undone", nlohmann::json()) : nlohmann::json();
      was.is_object() && !args.force) {
    std::printf("run %s was already undone at %s (%zu restored, %zu removed); nothing to do (--force undoes it again)\n",
                l.facts.run_id.c_str(), was.value("at", "?").c_str(), was.value("restored", nlohmann::json::array()).size(),
                was.value("removed", nlohmann::json::array()).size());
    return kExitSuccess;
  }
  auto workspace = sandbox::Workspace::open(l.facts.workspace, {.force_fallback = false, .protected_dirs = {l.store->dir()}, .secrets = {}});
  if (!workspace.ok()) return report_error(make_error(ErrorCode::kInvalidInput, workspace.error().message));
  auto snapshots = snapshot::SnapshotStore::open(l.store->dir(), (*workspace)->root(), system_clock());
  if (!snapshots.ok()) return report_error(snapshots.error());
  auto undone = executor::undo_run(l.facts, **workspace, **snapshots, args.force);
  if (!undone.ok()) return report_error(undone.error());
  for (const auto& p : undone->restored) std::printf("restored  %s\n", report::terminal_safe(p).c_str());
  for (const auto& p : undone->removed) std::printf("removed   %s\n", report::terminal_safe(p).c_str());
  for (const auto& p : undone->modes) std::printf("mode      %s\n", report::terminal_safe(p).c_str());
  for (const auto& p : undone->skipped) std::printf("skipped   %s (a symlink: restore it by hand)\n", report::terminal_safe(p).c_str());
  for (const auto& f : undone->failed) {
    std::fprintf(stderr, "candor: could not restore %s: %s\n", report::terminal_safe(f.path).c_str(), report::terminal_safe(f.reason).c_str());
  }
  if (undone->restored.empty() && undone->removed.empty() && undone->modes.empty() && undone->failed.empty()) {
    std::printf("run %s changed nothing: nothing to undo\n", l.facts.run_id.c_str());
  }
  std::string at = format_timestamp(std::chrono::system_clock::now());
  nlohmann::json failed = nlohmann::json::array();
  for (const auto& f : undone->failed) failed.push_back({{"path", f.path}, {"reason", f.reason}});
  nlohmann::json record = {{"restored", undone->restored}, {"removed", undone->removed}, {"modes", undone->modes},
                           {"skipped", undone->skipped},   {"failed", failed},           {"forced_over", undone->drifted}};
  Status recorded = l.store->append_late(l.facts.run_id, "undo", record, at);
  record["at"] = at;
  if (recorded.ok()) recorded = l.store->set_undone(l.facts.run_id, record);
  if (!recorded.ok()) std::fprintf(stderr, "candor: warning: the undo was not recorded: %s\n", recorded.error().message.c_str());
  if (!undone->failed.empty()) {
    std::fprintf(stderr, "candor: undo incomplete: %zu path(s) could not be restored\n", undone->failed.size());
    return kExitInternal;
  }
  return kExitSuccess;
}

}  // namespace candor::cli
