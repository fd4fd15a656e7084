#include "report/report.h"

#include <set>

#include <fmt/format.h>

#include "core/arg_schema.h"
#include "report/fields.h"
#include "report/formats.h"
#include "verify/reasons.h"

namespace candor::report {
namespace {

nlohmann::json pair(std::int64_t used, std::int64_t limit) { return nlohmann::json::array({used, limit}); }

std::optional<TestSummary> summary_in(const nlohmann::json& run) {
  return test_summary_from_json(json_field(run, "tests"));
}

// Why a user's command run before the change too is no evidence ("" when it is, or was not run
// before): it passed there, could not be run there, failed on a checkout of the state it passed on,
// or its test runner's and frameworks' summaries show no test it made pass (`count_gap`).
std::string not_evidence(const AssertionRecord& a, const verify::CommandReading& reading) {
  if (!a.before || a.discriminating.value_or(false)) return "";
  if (a.before->error) return "could not be run before the change";
  if (a.before->passed) return "passed before the change too";
  if (a.after && a.after->error) return "could not be run on a checkout of the state it passed on";
  if (a.after && !a.after->passed)
    return "failed on a checkout of the state it passed on: its pass rests on files no snapshot holds";
  return reading.count_gap;
}

nlohmann::json test_aware_json(const RunFacts& f) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& flag : f.test_aware) out.push_back(to_json(flag));
  return out;
}

}  // namespace

std::string not_discriminating_why(const nlohmann::json& a) {
  std::string why = json_str(a, "not_evidence");
  return why.empty() ? "passed before the run too" : why;
}

std::string assertion_provenance(const nlohmann::json& a) {
  bool guard = a.contains("guard") && a["guard"].is_boolean() && a["guard"].get<bool>();
  std::string out = (guard ? "guard by " : "by ") + json_str(a, "by", "planner");
  if (a.contains("discriminating") && a["discriminating"].is_boolean()) {
    out += " · " + (a["discriminating"].get<bool>() ? std::string("discriminating") : not_discriminating_why(a));
  }
  if (a.contains("positive") && a["positive"].is_boolean()) {
    out += a["positive"].get<bool>() ? " · fails on an empty file" : " · not evidence of content";
  }
  if (a.contains("final_check") && a["final_check"].is_boolean() && a["final_check"].get<bool>())
    out += " · re-checked at the end";
  if (const auto& covers = json_field(a, "covers"); covers.is_array() && !covers.empty()) {
    std::string globs;
    for (const auto& g : covers)
      globs += (globs.empty() ? "" : ", ") + (g.is_string() ? g.get<std::string>() : g.dump());
    out += " · covers " + globs;
  }
  return out;
}

namespace {

std::vector<std::string> last_lines(const std::string& text, std::size_t n) {
  std::vector<std::string> lines;
  std::size_t end = text.size();
  while (end > 0 && lines.size() < n) {
    std::size_t start = text.rfind('\n', end - 1);
    std::size_t from = start == std::string::npos ? 0 : start + 1;
    std::string line = text.substr(from, end - from);
    // Blank lines and rules ("-----", "=====") say nothing.
    if (line.find_first_not_of(" \t\r-=_*~") != std::string::npos) lines.insert(lines.begin(), line);
    if (start == std::string::npos) break;
    end = start;
  }
  return lines;
}

// `unread`: what to say when the run has no summary and its command runs no runner candor reads
// ("" to say nothing).
ProgramRunLine run_line(std::string label, const nlohmann::json& run, std::size_t max_lines,
                        const std::string& unread = "") {
  ProgramRunLine line{std::move(label), "", last_lines(json_str(run, "output"), max_lines)};
  const auto& code = json_field(run, "exit_code");
  if (json_bool(run, "error")) {
    line.outcome = "could not be run: " + json_str(run, "message");
  } else if (code.is_number_integer()) {
    line.outcome = fmt::format("exited {}", code.get<std::int64_t>());
    // What its test runner said it ran (core/test_summary.h).
    if (auto s = summary_in(run))
      line.outcome += " (" + describe(*s) + ")";
    else if (run.is_object() && run.contains("tests"))
      line.outcome += " (no test summary)";
    else if (!unread.empty())
      line.outcome += " (" + unread + ")";
    // The frameworks inside its test programs (evidence/frameworks.h).
    for (const auto& f : json_list(run, "frameworks")) {
      if (auto s = test_summary_from_json(f)) line.outcome += fmt::format(" ({}: {})", s->runner, describe(*s));
    }
  } else {
    line.outcome = json_str(run, "message");
  }
  return line;
}

}  // namespace

std::vector<ProgramRunLine> program_runs(const nlohmann::json& a, std::size_t max_lines) {
  std::vector<ProgramRunLine> out;
  if (const auto& before = json_field(a, "before"); before.is_object())
    out.push_back(run_line("before the change", before, max_lines));
  // A user's command taken as evidence that runs no test runner candor reads: its pass is its exit code.
  bool unread =
      json_field(a, "before").is_object() && a.contains("test_runner") && json_field(a, "test_runner").is_null();
  if (!json_field(a, "exit_code").is_null() || !json_str(a, "output").empty())
    out.push_back(run_line("after", a, max_lines, unread ? "its test count cannot be read" : ""));
  if (const auto& checkout = json_field(a, "after"); checkout.is_object())
    out.push_back(run_line("after, on a checkout of that state", checkout, max_lines));
  if (const auto& record = json_field(a, "on_record"); record.is_object()) {
    std::string files;
    for (const auto& f : json_list(a, "record_files"))
      files += (files.empty() ? "" : ", ") + (f.is_string() ? f.get<std::string>() : f.dump());
    out.push_back(run_line("on record (" + files + " as before the change)", record, max_lines));
  }
  for (const auto& e : json_list(a, "emptied"))
    out.push_back(run_line("with " + json_str(e, "path") + " emptied", e, max_lines));
  // A command that ran only after (no run before) needs no label beside its own message.
  if (out.size() == 1 && out[0].label == "after" && out[0].output.empty()) out.clear();
  return out;
}

nlohmann::json build_report(const RunFacts& f, const verify::Tier1Result& tier1, const verify::Decision& decision,
                            const std::string& created_at, const verify::JudgeOutcome* judge) {
  int executed = static_cast<int>(f.steps.size());
  int failed = 0;
  nlohmann::json step_results = nlohmann::json::array();
  for (const auto& s : f.steps) {
    if (!s.ok) ++failed;
    step_results.push_back({{"id", s.id},
                            {"round", s.round},
                            {"tool", s.tool},
                            {"target", s.target},
                            {"ok", s.ok},
                            {"error", s.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.error)},
                            {"exit_code", s.exit_code ? nlohmann::json(*s.exit_code) : nlohmann::json(nullptr)},
                            {"changed_paths", s.changed_paths}});
  }
  // The test files a command ran on record first (docs/design.md, Tests of record): what the change did
  // to its own tests is the first thing a reviewer reads.
  std::set<std::string> record_files;
  for (const auto& a : f.assertions) record_files.insert(a.record_files.begin(), a.record_files.end());
  nlohmann::json mutations = nlohmann::json::array();
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& m : f.mutations) {
      bool record = record_files.count(m.path) > 0;
      if ((pass == 0) != record) continue;
      nlohmann::json j = to_json(m);
      j.erase("last_change_seq");  // an internal ordering, not for readers
      if (record) j["test_of_record"] = true;
      mutations.push_back(std::move(j));
    }
  }
  nlohmann::json suspicious = nlohmann::json::array();
  for (const auto& s : tier1.signals.suspicious) suspicious.push_back(verify::to_json(s));
  nlohmann::json findings = nlohmann::json::array();
  for (const auto& finding : tier1.findings) findings.push_back(verify::to_json(finding));
  nlohmann::json assertions = nlohmann::json::array();
  for (std::size_t i = 0; i < f.assertions.size(); ++i) {
    const AssertionRecord& a = f.assertions[i];
    verify::CommandReading reading = i < tier1.commands.size() ? tier1.commands[i] : verify::CommandReading{};
    nlohmann::json j = to_json(a);
    // What a user's command is said to cover (the planner's `covers` is not honoured, so not shown).
    if (a.by == Provenance::kUser && a.assertion.is_object() && a.assertion.contains("covers"))
      j["covers"] = a.assertion["covers"];
    // A user's command run before the change: the test runner candor read it as (null: none, so its
    // count cannot be read), and why its pass is no evidence when it is not.
    if (a.before && a.type == "command_succeeds")
      j["test_runner"] = reading.runner.empty() ? nlohmann::json(nullptr) : nlohmann::json(reading.runner);
    if (std::string why = not_evidence(a, reading); !why.empty()) j["not_evidence"] = why;
    for (const char* internal : {"seq", "assertion", "reads_step"}) j.erase(internal);
    assertions.push_back(std::move(j));
  }
  nlohmann::json validations = nlohmann::json::array();
  for (const auto& g : f.goal_validations) validations.push_back(to_json(g));
  const BudgetState& b = f.budget;
  return {
      {"run_id", f.run_id},
      {"source", f.source},
      {"provider", f.provider.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.provider)},
      {"judge_policy", f.judge_policy.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.judge_policy)},
      {"created_at", created_at},
      {"goal", f.goal},
      {"goal_kind", to_string(f.goal_kind)},
      {"workspace", f.workspace},
      {"status", to_string(f.status)},
      {"status_detail", f.status_detail.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.status_detail)},
      {"verdict", to_string(decision.verdict)},
      {"verdict_by", decision.by},
      {"reasons", decision.reasons},
      {"warnings", verify::warnings_of(f, tier1, judge != nullptr && judge->asked ? judge : nullptr, decision)},
      {"findings", findings},
      {"tier1",
       {{"rule", tier1.tampering ? nlohmann::json("3b") : nlohmann::json(tier1.rule)},
        {"verdict", tier1.verdict ? to_string(*tier1.verdict) : "ambiguous"}}},
      {"goal_actions_executed", tier1.signals.goal_actions_executed},
      {"signals",
       {{"all_steps_executed", tier1.signals.all_steps_executed},
        {"budget_exhausted", tier1.signals.budget_exhausted},
        {"assertions_evaluated", tier1.signals.assertions_evaluated},
        {"final_assertions_passed", tier1.signals.final_assertions_passed},
        {"final_assertions_failed", tier1.signals.final_assertions_failed},
        {"uncovered", tier1.signals.uncovered}}},
      {"steps", {{"planned", f.steps_planned}, {"executed", executed}, {"failed", failed}}},
      {"step_results", step_results},
      {"budget",
       {{"exhausted",
         b.exhausted == BudgetKind::kNone ? nlohmann::json(nullptr) : nlohmann::json(to_string(b.exhausted))},
        {"replans", pair(b.used.replans, b.limits.max_replans)},
        {"steps", pair(b.used.steps, b.limits.max_steps)},
        {"tokens", pair(b.used.tokens, b.limits.max_tokens)},
        {"time_s", nlohmann::json::array({b.used.elapsed_s, b.limits.timeout_s})}}},
      {"mutations", mutations},
      {"test_aware", test_aware_json(f)},
      {"suspicious", suspicious},
      {"scan", to_json(f.scan)},
      {"protected_changes", f.protected_changes},
      {"scope", f.scope},
      {"git", f.git},
      {"gate", f.gate},
      {"assertions", assertions},
      {"tier2", judge != nullptr && judge->asked ? verify::to_json(*judge) : nlohmann::json(nullptr)},
      {"goal_validations", validations},
      {"sandbox", f.sandbox},
      {"acceptance", f.acceptance},
      {"final_answer", f.final_answer ? nlohmann::json(*f.final_answer) : nlohmann::json(nullptr)},
      {"usage",
       {{"llm_calls", f.usage.llm_calls},
        {"input_tokens", f.usage.input_tokens},
        {"output_tokens", f.usage.output_tokens},
        {"estimated_calls", f.usage.estimated_calls}}},
  };
}

}  // namespace candor::report
