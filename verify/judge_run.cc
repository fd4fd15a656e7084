#include "verify/judge_run.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/events.h"

namespace candor::verify {
namespace {

// The judge's calls verify the run rather than do it: counted in the usage, never in its budget.
LlmCall as_llm_call(const JudgeCall& call) {
  return {.role = call.role,
          .ok = call.ok,
          .input_tokens = call.input_tokens,
          .output_tokens = call.output_tokens,
          .error = call.ok ? "" : call.error,
          .budgeted = false};
}

}  // namespace

std::vector<std::string> with_unrequested_change_question(std::vector<std::string> given, const std::string& goal,
                                                          bool test_aware) {
  given.erase(std::remove(given.begin(), given.end(), kUnrequestedChangeQuestion), given.end());
  given.erase(std::remove(given.begin(), given.end(), kTestAwareQuestion), given.end());
  if (given.empty()) given = judge_questions(goal, {});
  if (test_aware) given.push_back(kTestAwareQuestion);
  given.push_back(kUnrequestedChangeQuestion);
  return given;
}

EvidencePiece test_aware_evidence(const TreeReader& trees, const RunFacts& facts) {
  std::string text =
      "candor found lines in this change that read or change how the tests run. Each is FILE:LINE (rule): why: the "
      "line. Rules: (a) reads whether a test runs, (b) a literal of the tests copied into the code, (c) ends or "
      "bypasses the process or the comparison machinery, (d) edits what a test runner loads.\n";
  std::vector<std::string> tests;
  for (const auto& f : facts.test_aware) {
    text += fmt::format("- {}{} ({}): {}: {}\n", f.path, f.line > 0 ? fmt::format(":{}", f.line) : "", f.rule, f.why,
                        f.text);
    if (!f.test_file.empty() && std::find(tests.begin(), tests.end(), f.test_file) == tests.end() && tests.size() < 4)
      tests.push_back(f.test_file);
  }
  for (const auto& path : tests) {
    auto content = trees.read(facts.snapshot_before, path);
    if (!content.ok() || !content->has_value()) continue;
    std::string shown = (*content)->substr(0, 4096);
    text += fmt::format("\nThe test file {} (what the flagged literals come from){}:\n{}\n", path,
                        (*content)->size() > shown.size() ? ", its first 4 KiB" : "", shown);
  }
  return {"test_aware", "", text};
}

JudgeRun judge_run(llm::Provider& provider, const TreeReader& trees, const RunFacts& facts, const JudgeRunInputs& in) {
  JudgeRun out;
  auto left = [&] { return in.deadline.left(); };
  if (left() < std::chrono::seconds(1)) {
    out.outcome.asked = true;
    out.outcome.error = "the time budget ran out before the judge could be asked";
    return out;
  }
  std::vector<std::string> questions = in.questions;
  if (questions.empty()) {
    out.decomposition = decompose_goal(provider, facts.goal, left() / 3);
    questions = out.decomposition->questions;
  }
  std::optional<bool> asks_for_change = out.decomposition ? out.decomposition->asks_for_change : std::nullopt;
  questions = with_unrequested_change_question(std::move(questions), facts.goal, !facts.test_aware.empty());
  std::vector<std::string> named = questions;
  named.insert(named.end(), in.planner_questions.begin(), in.planner_questions.end());
  std::vector<EvidencePiece> evidence = gather_evidence(trees, facts, named, {}, in.credentials);
  if (!facts.test_aware.empty()) evidence.insert(evidence.begin(), test_aware_evidence(trees, facts));
  if (!in.planner_questions.empty()) {
    std::string reading;
    for (const auto& q : in.planner_questions) reading += "- " + q + "\n";
    evidence.insert(
        evidence.begin(),
        {"planner_reading", "", "The planner's own questions (its reading of the goal, not the goal):\n" + reading});
  }
  EvidenceBatches plan = plan_batches(evidence, in.caps);
  if (plan.batches.size() == 1) {
    out.outcome =
        ask_judge(provider, facts.goal, questions, plan.batches[0], std::max(left(), std::chrono::milliseconds(1000)));
    out.outcome.unseen_paths = plan.unseen_paths;
    if (!out.outcome.answered)
      out.outcome.unseen_paths.insert(out.outcome.unseen_paths.end(), plan.diff_paths[0].begin(),
                                      plan.diff_paths[0].end());
    out.outcome.asks_for_change = asks_for_change;
    return out;
  }
  // The same questions over each share of the change, while the time lasts; a share not asked is
  // unseen, never assumed.
  std::vector<JudgeOutcome> parts;
  for (std::size_t k = 0; k < plan.batches.size(); ++k) {
    if (left() < std::chrono::seconds(1)) break;
    parts.push_back(ask_judge(provider, facts.goal, questions, plan.batches[k], left(), {k + 1, plan.batches.size()}));
    if (parts.back().provider_failed) break;
  }
  out.outcome = combine_batches(questions, parts, plan);
  out.outcome.asks_for_change = asks_for_change;
  return out;
}

void record_judge_run(const JudgeRun& run, const std::string& provider_name, Trajectory* trajectory, RunFacts& facts) {
  auto call = [&](const JudgeCall& c) {
    if (trajectory != nullptr) {
      record_llm_call(*trajectory, facts, as_llm_call(c));
    } else {
      count_llm_call(facts, as_llm_call(c));
    }
  };
  if (run.decomposition) {
    const Decomposition& d = *run.decomposition;
    call(d.call);
    if (trajectory != nullptr) {
      trajectory->record(
          event::kJudgeQuestions,
          {{"questions", d.questions},
           {"decomposed", d.decomposed},
           {"error", d.error},
           {"prompt", d.prompt},
           {"asks_for_change", d.asks_for_change ? nlohmann::json(*d.asks_for_change) : nlohmann::json(nullptr)}});
    }
  }
  for (const auto& c : run.outcome.call_log) call(c);
  if (trajectory != nullptr) trajectory->record(event::kJudge, to_json(run.outcome));
  if (facts.provider.empty()) facts.provider = provider_name;
}

}  // namespace candor::verify
