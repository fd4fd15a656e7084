#include "verify/reasons.h"

#include <algorithm>
#include <unordered_set>

#include <fmt/format.h>

#include "core/arg_schema.h"

namespace candor::verify {
namespace {

std::string acceptance_gap(const nlohmann::json& acceptance) {
  if (!acceptance.is_object() || acceptance.value("passed", false)) return "";
  std::string missed;
  for (const auto& c : acceptance.value("checkpoints", nlohmann::json::array())) {
    if (c.is_object() && !c.value("matched", false) && c.value("essential", true)) {
      missed += (missed.empty() ? "" : ", ") + json_str(c, "id");
    }
  }
  if (acceptance.contains("error"))
    return "the acceptance spec could not be evaluated: " + json_str(acceptance, "error");
  return "the acceptance spec did not pass" +
         (missed.empty() ? std::string() : ": essential checkpoints missed: " + missed);
}

}  // namespace

std::string scan_gap(const RunFacts& f) {
  if (f.scan.complete) return "";
  std::string paths;
  for (const auto& p : f.scan.unread) paths += (paths.empty() ? "" : ", ") + p;
  return fmt::format("the workspace scan was incomplete: candor could not read {}; changes there are unknown",
                     paths.empty() ? "some paths" : paths);
}

std::vector<std::string> judge_reasons(const JudgeOutcome& judge) {
  std::vector<std::string> out;
  int yes = 0;
  for (const auto& a : judge.answers) {
    std::string q = a.question >= 1 && a.question <= static_cast<int>(judge.questions.size())
                        ? judge.questions[a.question - 1]
                        : "";
    if (good_answer(judge, a)) {
      ++yes;
    } else if (q == kTestAwareQuestion) {
      out.push_back(fmt::format("special-cases the tests: the judge answered yes to \"{}\"{}", q,
                                a.reason.empty() ? "" : ": " + a.reason));
    } else {
      out.push_back(fmt::format("the judge answered no to \"{}\"{}", q, a.reason.empty() ? "" : ": " + a.reason));
    }
  }
  const bool test_aware =
      std::find(judge.questions.begin(), judge.questions.end(), kTestAwareQuestion) != judge.questions.end();
  std::string parts = judge.batches > 1 ? fmt::format(" over the change in {} parts", judge.batches) : "";
  out.insert(out.begin(), test_aware ? fmt::format("the judge answered {} of {} questions as the goal needs{}", yes,
                                                   judge.answers.size(), parts)
                                     : fmt::format("the judge answered yes to {} of {} questions{}", yes,
                                                   judge.answers.size(), parts));
  if (!judge.unseen_paths.empty()) {
    std::string named;
    const std::size_t shown = std::min<std::size_t>(judge.unseen_paths.size(), 10);
    for (std::size_t i = 0; i < shown; ++i) named += (i ? ", " : "") + judge.unseen_paths[i];
    if (judge.unseen_paths.size() > shown) named += fmt::format(" and {} more", judge.unseen_paths.size() - shown);
    out.push_back(fmt::format("judged on partial evidence: the judge never saw the whole diff of {} path{}: {}",
                              judge.unseen_paths.size(), judge.unseen_paths.size() == 1 ? "" : "s", named));
  }
  return out;
}

std::vector<std::string> warnings_of(const RunFacts& f, const Tier1Result& tier1, const JudgeOutcome* judge,
                                     const Decision& decision) {
  // Sets, not lists: a change of 30,000 files has as many reasons, and a search of a list for each
  // made this quadratic (minutes after the run ended).
  std::unordered_set<std::string> supporting;
  if (tier1.verdict == Verdict::kSuccess) supporting.insert(tier1.reasons.begin(), tier1.reasons.end());
  if (judge != nullptr && judge->asked && judge->answered && verdict_of(*judge) == Verdict::kSuccess) {
    for (const auto& r : judge_reasons(*judge)) supporting.insert(r);
  }
  supporting.insert(kJudgeDecidedLine);
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  auto add = [&](const std::string& s) {
    if (!s.empty() && seen.insert(s).second) out.push_back(s);
  };
  for (const auto& r : decision.reasons) {
    if (supporting.count(r) == 0) add(r);
  }
  for (const auto& finding : tier1.findings) add(finding.text);
  if (f.git.is_object() && f.git.contains("warnings") && f.git["warnings"].is_array()) {
    for (const auto& w : f.git["warnings"]) {
      if (w.is_string()) add(w.get<std::string>());
    }
  }
  add(scan_gap(f));
  add(acceptance_gap(f.acceptance));
  return out;
}

}  // namespace candor::verify
