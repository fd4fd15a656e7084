#include "cli/run_output.h"

#include <cstdio>

#include "cli/commands.h"
#include "report/escape.h"
#include "report/formats.h"
#include "report/report.h"

namespace candor::cli {

int report_error(const Error& error) {
  std::fprintf(stderr, "candor: %s\n", report::terminal_safe(error.message, true).c_str());
  return exit_code(app::exit_category(error));
}

void print_report(const nlohmann::json& report, ReportFormat format) {
  if (format == ReportFormat::kJson) {
    std::fputs((report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n").c_str(), stdout);
  } else if (format == ReportFormat::kMarkdown) {
    std::fputs(report::render_markdown(report).c_str(), stdout);
  } else {
    std::fputs(report::render_terminal(report, {report::want_color(1), 80}).c_str(), stdout);
  }
}

int print_run_result(const app::RunResult& r, ReportFormat format) {
  print_report(r.report, r.not_started ? ReportFormat::kTerminal : format);
  std::fflush(stdout);
  if (!r.stored.ok())
    std::fprintf(stderr, "candor: warning: the verdict was not stored: %s\n", r.stored.error().message.c_str());
  if (r.judge.provider_failed) {
    std::fprintf(stderr, "candor: the judge's LLM provider (%s) failed: %s\n", r.judge_provider.c_str(),
                 r.judge.error.c_str());
  }
  if (r.provider_failed) {
    std::fprintf(stderr, "candor: the LLM provider (%s) failed: %s\n", r.facts.provider.c_str(),
                 report::terminal_safe(r.facts.status_detail, true).c_str());
  } else if (r.input_refused) {
    std::fprintf(stderr, "candor: the planner's reply was refused: %s\n",
                 report::terminal_safe(r.facts.status_detail, true).c_str());
  }
  if (r.not_started) return report_error(*r.not_started);
  return exit_code(r.exit);
}

}  // namespace candor::cli
