// The end of every run, whatever command started it: tier 1, the verdict, the report, the
// store, the printed report, the exit code.
#pragma once

#include <atomic>
#include <string>

#include <nlohmann/json.hpp>

#include "core/run_record.h"
#include "store/run_store.h"
#include "verify/judge.h"
#include "verify/tier1.h"

namespace candor::cli {

// Decides (tier 1, the judge's answers when asked, the reviews), builds, stores and prints the
// report. Returns the exit code for the verdict (0 success, 1 partial, 2 fail).
// How the report is printed on stdout.
enum class ReportFormat { kTerminal, kJson, kMarkdown };

int finish_run(store::RunStore& store, const RunFacts& facts, const std::string& created_at, bool json,
               const verify::Tier1Result& tier1, const verify::JudgeOutcome* judge);
int finish_run(store::RunStore& store, const RunFacts& facts, const std::string& created_at, ReportFormat format,
               const verify::Tier1Result& tier1, const verify::JudgeOutcome* judge);

int exit_code_for(Verdict verdict);
// The verdict's exit code, 3 instead of 0 when `acceptance` (a report's acceptance object, or
// null) did not pass.
int exit_code_for(Verdict verdict, const nlohmann::json& acceptance);

// Ctrl-C during a run: the first sets the flag (the run winds down, is verified, recorded and
// printed, and candor exits 130); a second ends candor at once.
void install_interrupt_handler();
void remove_interrupt_handler();
const std::atomic<bool>& interrupted();

}  // namespace candor::cli
