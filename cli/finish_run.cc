#include "cli/finish_run.h"

#include <csignal>
#include <cstdio>

#include "cli/commands.h"
#include "report/formats.h"
#include "report/report.h"
#include "verify/tier1.h"
#include "verify/verdict.h"

namespace candor::cli {

int exit_code_for(Verdict verdict) {
  switch (verdict) {
    case Verdict::kSuccess: return kExitSuccess;
    case Verdict::kPartial: return kExitPartial;
    case Verdict::kFail: return kExitFail;
  }
  return kExitInternal;
}

int exit_code_for(Verdict verdict, const nlohmann::json& acceptance) {
  int code = exit_code_for(verdict);
  if (code == kExitSuccess && acceptance.is_object() && !acceptance.value("passed", false)) return kExitAcceptanceNotPassed;
  return code;
}

namespace {
std::atomic<bool> g_interrupted{false};
void on_interrupt(int) {
  g_interrupted.store(true);
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends candor at once
}
}  // namespace

void install_interrupt_handler() { std::signal(SIGINT, on_interrupt); }
void remove_interrupt_handler() { std::signal(SIGINT, SIG_DFL); }
const std::atomic<bool>& interrupted() { return g_interrupted; }

int finish_run(store::RunStore& store, const RunFacts& facts, const std::string& created_at, bool json,
               const verify::Tier1Result& tier1, const verify::JudgeOutcome* judge) {
  return finish_run(store, facts, created_at, json ? ReportFormat::kJson : ReportFormat::kTerminal, tier1, judge);
}

int finish_run(store::RunStore& store, const RunFacts& facts, const std::string& created_at, ReportFormat format,
               const verify::Tier1Result& tier1, const verify::JudgeOutcome* judge) {
  verify::Decision decision = verify::decide(tier1, judge, facts.goal_validations);
  nlohmann::json report = report::build_report(facts, tier1, decision, created_at, judge);
  // Masked once, here, where the report is made: what is printed below is what is stored (the
  // store masks again, as its own guard).
  if (store.masker() != nullptr) store.masker()->mask_json(report);
  Status stored = store.finish_run(facts.run_id, {to_string(facts.status), to_string(decision.verdict), decision.by,
                                                  to_json(facts), report});
  if (format == ReportFormat::kJson) {
    std::fputs((report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n").c_str(), stdout);
  } else if (format == ReportFormat::kMarkdown) {
    std::fputs(report::render_markdown(report).c_str(), stdout);
  } else {
    std::fputs(report::render_terminal(report, {report::want_color(1), 80}).c_str(), stdout);
  }
  std::fflush(stdout);
  if (!stored.ok()) {
    std::fprintf(stderr, "candor: warning: the verdict was not stored: %s\n", stored.error().message.c_str());
  }
  return exit_code_for(decision.verdict, facts.acceptance);
}

}  // namespace candor::cli
