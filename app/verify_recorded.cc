// `verify RUN` (a recorded run's verdict worked out again) and `undo` (its changes put back).
#include <unistd.h>

#include <fmt/format.h>

#include "app/inputs.h"
#include "app/recorded_run.h"
#include "app/run_end.h"
#include "app/session.h"
#include "core/arg_schema.h"
#include "core/clock.h"
#include "core/events.h"
#include "executor/tool.h"
#include "executor/undo.h"
#include "sandbox/credential_registry.h"
#include "snapshot/range.h"
#include "snapshot/store.h"

namespace candor::app {
namespace {

// The tier-2 policy for a verify: --judge, else the one the run was recorded with, else never (a run
// recorded before the policy was kept, which is how verify always behaved).
struct JudgeChoice {
  std::string policy;
  std::string from;  // --judge | as recorded | not recorded | no LLM provider | working tree not kept
};

// What to pass for the judge to be asked this time, said after "the judge was not asked".
std::string judge_hint(const JudgeChoice& choice) {
  if (choice.from == "no LLM provider") return " (--llm PROVIDER to ask it)";
  if (choice.from == "working tree not kept") return "";
  if (choice.policy == "never") return " (--judge always --llm PROVIDER to ask it)";
  return " (tier 1 decided; --judge always to ask it anyway)";
}

JudgeChoice judge_choice(const std::string& given, const std::string& recorded) {
  if (!given.empty()) return {given, "--judge"};
  if (verify::parse_judge_policy(recorded)) return {recorded, "as recorded"};
  return {"never", "not recorded"};
}

// The questions an earlier judge of this run was given or fixed from the goal, when there was one.
void questions_from_events(const std::vector<Event>& events, JudgeSetup& setup) {
  for (const auto& e : events) {
    if (e.type == event::kJudgeQuestions) setup.questions = e.data.value("questions", std::vector<std::string>{});
    if (e.type == event::kJudge && e.data.contains("answers") && e.data["answers"].is_array() &&
        !e.data["answers"].empty()) {
      setup.questions.clear();
      for (const auto& a : e.data["answers"]) setup.questions.push_back(json_str(a, "text"));
    }
  }
}

// What the judge of a recorded run reads, opened now: a `git` run's repository (its own commits),
// else the run's snapshots, with its credentials read back from them (this process did not see the
// run start). Each borrowed pointer of `setup` points into this.
struct OpenedTrees {
  std::unique_ptr<snapshot::GitRepository> repo;
  std::shared_ptr<const sandbox::CredentialRegistry> credentials;
};

void open_trees(const RecordedRun& l, OpenedTrees& opened, JudgeSetup& setup) {
  std::optional<snapshot::GitTrees> trees;
  if (l.facts.source == "git") {
    if (auto r = snapshot::GitRepository::open(l.facts.workspace); r.ok()) {
      opened.repo = std::move(r.value());
      trees = opened.repo->trees();
    }
  } else if (l.opening->open_snapshots(l.facts.workspace, {}).ok()) {
    trees = l.opening->snapshots().trees();
    opened.credentials = snapshot::run_credentials(*trees, l.facts, ::environ);
    setup.credentials = opened.credentials.get();
  }
  if (trees && l.finished) setup.trees = trees;
}

// The judge of a recorded run, opened only when the policy asks it: first what leaves it unasked
// (said aloud, and `choice` says why), then the provider, the questions an earlier judge had, the
// trees. Owns what the JudgeSetup it returns borrows.
class RecordedJudge {
 public:
  RecordedJudge(const RecordedRun& l, JudgeChoice& choice, llm::ProviderChoice provider,
                const ProviderFactory& make_provider, RunObserver* observer)
      : l_(l),
        choice_(choice),
        provider_choice_(std::move(provider)),
        make_provider_(make_provider),
        observer_(observer) {}

  Result<JudgeSetup> open() {
    if (l_.facts.source == "git" && l_.facts.git.is_object() && l_.facts.git.value("worktree", false)) {
      // The working tree was read into memory and not kept: a judge now would see no diff, and the
      // files may have changed since. Tier 1 alone, said aloud.
      say(fmt::format(
          "run {} verified a working tree, which is not kept: the judge is not asked (verify it again with --git {})",
          l_.facts.run_id, json_str(l_.facts.git, "range")));
      choice_ = {"never", "working tree not kept"};
      return JudgeSetup{};
    }
    if (provider_choice_.spec.empty()) {
      if (choice_.from == "--judge") {
        return make_error(ErrorCode::kUsage,
                          "--judge " + choice_.policy + " needs an LLM provider: " + llm::kNoProviderHint);
      }
      // The record asks for a judge, and nothing here names an LLM: tier 1 alone, said aloud.
      say(fmt::format(
          "the run was recorded with --judge {}, but no LLM provider is named here ({}): the judge is not asked",
          choice_.policy, llm::kNoProviderHint));
      choice_ = {"never", "no LLM provider"};
      return JudgeSetup{};
    }
    TRY(provider_, make_provider_(provider_choice_.spec, {}));
    JudgeSetup setup{.provider = provider_.get(), .trees = std::nullopt, .questions = {}, .credentials = nullptr};
    questions_from_events(l_.run.events, setup);
    open_trees(l_, opened_, setup);
    // A new process after the run: the judge has the run's whole time budget again, from now.
    l_.opening->start_deadline(l_.facts.budget.limits.timeout_s);
    return setup;
  }

 private:
  void say(const std::string& message) {
    if (observer_ != nullptr) observer_->warning(message);
  }

  const RecordedRun& l_;
  JudgeChoice& choice_;
  llm::ProviderChoice provider_choice_;
  const ProviderFactory& make_provider_;
  RunObserver* observer_;
  std::unique_ptr<llm::Provider> provider_;
  OpenedTrees opened_;
};

}  // namespace

Result<VerifyResult> Session::verify(const VerifyRequest& request) {
  TRY_STATUS(verify::checked_judge_policy(request.judge, "VerifyRequest.judge"));
  std::optional<verify::AcceptanceSpec> spec;
  if (!request.acceptance_file.empty()) {
    TRY(std::string text, read_text_file(request.acceptance_file));
    TRY(spec, verify::parse_acceptance_spec_text(text, executor::builtin_tools().names(), request.acceptance_file));
  }
  TRY(RecordedRun l, load_recorded_run(request.store_dir, {request.run, request.workspace, request.any}));
  JudgeChoice choice = judge_choice(request.judge, l.facts.judge_policy);
  RecordedJudge judge(l, choice, llm::choose_provider(request.llm), make_provider_, observer_);
  RunEnd end{.facts = l.facts,
             .created_at = l.run.summary.created_at,
             .trajectory = nullptr,
             .store = nullptr,
             .acceptance = spec ? &*spec : nullptr,
             .events = &l.run.events,
             .policy = verify::parse_judge_policy(choice.policy).value_or(verify::JudgePolicy::kNever),
             .judge = [&judge] { return judge.open(); },
             .trees = nullptr,
             .before_verdict = nullptr,
             .deadline = &l.opening->deadline()};
  TRY(RunResult ended, end_run(std::move(end), observer_));
  VerifyResult out;
  static_cast<RunResult&>(out) = std::move(ended);
  out.ended = l.finished;
  out.events = l.run.events.size();
  if (l.run.report.is_object() && l.run.report.contains("undone")) out.report["undone"] = l.run.report["undone"];
  (void)l.store->append_late(out.facts.run_id, "verified",
                             {{"verdict", to_string(out.decision.verdict)},
                              {"verdict_by", out.decision.by},
                              {"status", to_string(out.facts.status)},
                              {"from", l.finished ? "stored facts" : "events only"},
                              {"acceptance", out.facts.acceptance}},
                             format_timestamp(std::chrono::system_clock::now()));
  // The stored verdict may have come from a judge this verify does not ask (or a different one).
  std::string stored = l.run.report.is_object() ? json_str(l.run.report, "verdict") : "";
  if (!stored.empty() && stored != to_string(out.decision.verdict) && observer_ != nullptr) {
    observer_->warning(fmt::format("stored verdict {} (by {}), recomputed {} (by {}) with judge policy {} ({}){}",
                                   stored, json_str(l.run.report, "verdict_by", "?"), to_string(out.decision.verdict),
                                   out.decision.by, choice.policy, choice.from,
                                   out.judge.asked ? "" : "; the judge was not asked" + judge_hint(choice)));
  }
  return out;
}

}  // namespace candor::app
