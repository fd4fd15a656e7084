// `candor check SPEC` and `candor verify --trajectory FILE --format F`: acceptance specs on their own,
// and other agents' runs.
#include <cstdio>

#include "app/acceptance_check.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "report/report.h"

namespace candor::cli {
namespace {

struct CheckArgs {
  std::string spec_file;
  std::string format;  // "" = candor's own tools
};

int check_command(const CheckArgs& args) {
  auto spec = app::check_acceptance_spec(args.spec_file, args.format);
  if (!spec.ok()) return report_error(spec.error());
  std::printf("%s: valid for %s: %zu checkpoint%s (%d essential), %s\n", args.spec_file.c_str(),
              args.format.empty() ? "candor" : args.format.c_str(), spec->checkpoints,
              spec->checkpoints == 1 ? "" : "s", spec->essential, spec->ordered ? "ordered" : "unordered");
  return exit_code(app::ExitCategory::kSuccess);
}

// The transcript in a few lines, then the acceptance spec's checkpoints when there was one.
void print_trajectory(const nlohmann::json& report) {
  int skipped = 0;
  for (const auto& [type, n] : report["skipped"].items()) skipped += n.get<int>();
  const nlohmann::json& events = report["events"];
  int finals = events["final_answer"].get<int>();
  bool truncated = report["truncated_last_line"].get<bool>();
  std::printf("%s (%s): %d records; %d tool calls, %d results, %d final answer%s; %d records skipped%s\n",
              report["trajectory"].get<std::string>().c_str(), report["format"].get<std::string>().c_str(),
              report["records"].get<int>(), events["tool_called"].get<int>(), events["tool_result"].get<int>(), finals,
              finals == 1 ? "" : "s", skipped, truncated ? "; the last line was truncated" : "");
  std::printf("goal actions: %s\n",
              report["goal_actions_executed"].get<bool>() ? "yes (an effect tool ran)" : "none ran");
  if (!report["acceptance"].is_null()) std::fputs(report::render_acceptance(report["acceptance"]).c_str(), stdout);
}

}  // namespace

int verify_trajectory_command(const std::string& trajectory_file, const std::string& format_name,
                              const std::string& acceptance_file, bool json) {
  auto report = app::verify_trajectory({trajectory_file, format_name, acceptance_file});
  if (!report.ok()) return report_error(report.error());
  if (json) {
    std::puts(report->dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else {
    print_trajectory(*report);
  }
  const nlohmann::json& acceptance = (*report)["acceptance"];
  if (acceptance.is_null()) return exit_code(app::ExitCategory::kSuccess);
  return acceptance["passed"].get<bool>() ? exit_code(app::ExitCategory::kSuccess)
                                          : exit_code(app::ExitCategory::kAcceptanceNotPassed);
}

Subcommand add_check_command(CLI::App& app) {
  auto args = std::make_shared<CheckArgs>();
  auto* cmd = app.add_subcommand("check", "validate an acceptance spec without running anything");
  cmd->add_option("spec", args->spec_file, "acceptance spec JSON")->required();
  one_of(cmd->add_option("--format", args->format,
                         "check against this agent's tools instead of candor's (docs/acceptance.md)"),
         app::transcript_format_names());
  cmd->footer(examples("candor check spec.json", "candor check spec.json --format swe-agent"));
  return {cmd, [args] { return check_command(*args); }, nullptr};
}

}  // namespace candor::cli
