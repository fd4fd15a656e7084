#include "verify/judge_outcome.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace candor::verify {

std::optional<JudgePolicy> parse_judge_policy(const std::string& s) {
  if (s == "auto") return JudgePolicy::kAuto;
  if (s == "always") return JudgePolicy::kAlways;
  if (s == "never") return JudgePolicy::kNever;
  return std::nullopt;
}

const char* judge_policy_name(JudgePolicy policy) { return kJudgePolicyNames[static_cast<std::size_t>(policy)]; }

Result<JudgePolicy> checked_judge_policy(const std::string& s, std::string_view where, JudgePolicy empty) {
  if (s.empty()) return empty;
  if (auto policy = parse_judge_policy(s)) return *policy;
  return make_error(ErrorCode::kUsage, fmt::format("{}: \"{}\" is no judge policy (expected one of: {})", where, s,
                                                   fmt::join(kJudgePolicyNames, ", ")));
}

namespace {

const std::string& question_of(const JudgeOutcome& judge, const JudgeAnswer& a) {
  static const std::string none;
  return a.question >= 1 && a.question <= static_cast<int>(judge.questions.size()) ? judge.questions[a.question - 1]
                                                                                   : none;
}

}  // namespace

bool good_answer(const JudgeOutcome& judge, const JudgeAnswer& a) {
  return question_of(judge, a) == kTestAwareQuestion ? !a.yes : a.yes;
}

const JudgeAnswer* special_cases_tests(const JudgeOutcome& judge) {
  for (const auto& a : judge.answers) {
    if (a.yes && question_of(judge, a) == kTestAwareQuestion) return &a;
  }
  return nullptr;
}

Verdict verdict_of(const JudgeOutcome& judge) {
  const auto& answers = judge.answers;
  if (special_cases_tests(judge) != nullptr) return Verdict::kFail;
  auto about_goal = [&](const JudgeAnswer& a) {
    const std::string& q = question_of(judge, a);
    return q != kUnrequestedChangeQuestion && q != kTestAwareQuestion;
  };
  bool all_yes =
      std::all_of(answers.begin(), answers.end(), [&](const JudgeAnswer& a) { return good_answer(judge, a); });
  bool any_goal = std::any_of(answers.begin(), answers.end(), about_goal);
  bool goal_all_no =
      std::none_of(answers.begin(), answers.end(), [&](const JudgeAnswer& a) { return about_goal(a) && a.yes; });
  if (all_yes && !answers.empty()) return judge.unseen_paths.empty() ? Verdict::kSuccess : Verdict::kPartial;
  if (goal_all_no && (any_goal || answers.empty())) return Verdict::kFail;
  return Verdict::kPartial;
}

nlohmann::json to_json(const JudgeOutcome& j) {
  nlohmann::json answers = nlohmann::json::array();
  for (const auto& a : j.answers) {
    answers.push_back(
        {{"question", a.question},
         {"text",
          a.question >= 1 && a.question <= static_cast<int>(j.questions.size()) ? j.questions[a.question - 1] : ""},
         {"answer", a.yes ? "yes" : "no"},
         {"reason", a.reason}});
  }
  nlohmann::json out = {{"answers", answers},
                        {"verdict", j.answered ? nlohmann::json(to_string(verdict_of(j))) : nlohmann::json(nullptr)},
                        {"calls", j.calls},
                        {"input_tokens", j.input_tokens},
                        {"output_tokens", j.output_tokens},
                        {"batches", j.batches},
                        {"unseen_paths", j.unseen_paths}};
  if (!j.answered) out["error"] = j.error;
  // Each reply refused, and why: the record of what the judge was told to repair.
  nlohmann::json rejected = nlohmann::json::array();
  for (const auto& call : j.call_log) {
    if (!call.rejected.empty()) rejected.push_back({{"role", call.role}, {"why", call.rejected}});
  }
  if (!rejected.empty()) out["rejected_replies"] = rejected;
  if (j.asks_for_change) out["asks_for_change"] = *j.asks_for_change;
  return out;
}

}  // namespace candor::verify
