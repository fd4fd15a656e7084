// How `run`, `exec` and `verify --git` end on the terminal: the report on stdout, then on stderr
// what else the result says (the verdict not stored, a provider that failed, a run that could not
// begin), and the exit code.
#pragma once

#include <nlohmann/json.hpp>

#include "app/session.h"

namespace candor::cli {

// How the report is printed on stdout.
enum class ReportFormat { kTerminal, kJson, kMarkdown };

// The report as `format` says (JSON: indented, with a newline), not flushed.
void print_report(const nlohmann::json& report, ReportFormat format);

// Prints `result` (the report of a run that could not begin is printed for the terminal whatever
// `format` says) and returns its exit code.
int print_run_result(const app::RunResult& result, ReportFormat format);

}  // namespace candor::cli
