// `candor check SPEC` and `candor verify --trajectory FILE --format F`: acceptance specs on their own,
// and other agents' runs.
#include <cstdio>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/session.h"
#include "executor/tool.h"
#include "import/trajectory_import.h"
#include "report/report.h"
#include "verify/acceptance.h"

namespace candor::cli {

std::vector<std::string> tools_for_format(const std::string& format) {
  if (format.empty()) return executor::builtin_tools().names();
  return import::tool_catalogue(*import::parse_format(format));
}

Result<verify::AcceptanceSpec> load_acceptance_spec(const std::string& file, const std::string& format) {
  TRY(std::string text, read_text_file(file));
  return verify::parse_acceptance_spec_text(text, tools_for_format(format), file);
}

int check_command(const CheckArgs& args) {
  auto spec = load_acceptance_spec(args.spec_file, args.format);
  if (!spec.ok()) return report_error(spec.error());
  int essential = 0;
  for (const auto& c : spec->checkpoints) essential += c.essential ? 1 : 0;
  std::printf("%s: valid for %s: %zu checkpoint%s (%d essential), %s\n", args.spec_file.c_str(),
              args.format.empty() ? "candor" : args.format.c_str(), spec->checkpoints.size(),
              spec->checkpoints.size() == 1 ? "" : "s", essential, spec->ordered ? "ordered" : "unordered");
  return kExitSuccess;
}

int verify_trajectory_command(const VerifyArgs& args) {
  if (args.format.empty()) return report_error(make_error(ErrorCode::kUsage, "--trajectory needs --format (claude-code, swe-agent, openhands, codex)"));
  import::Format format = *import::parse_format(args.format);
  std::optional<verify::AcceptanceSpec> spec;
  if (!args.acceptance_file.empty()) {
    auto loaded = load_acceptance_spec(args.acceptance_file, args.format);
    if (!loaded.ok()) return report_error(loaded.error());
    spec = std::move(*loaded);
  }
  auto text = read_text_file(args.trajectory_file, kMaxTranscriptBytes);
  if (!text.ok()) return report_error(text.error());
  auto imported = import::import_trajectory(*text, format, args.trajectory_file);
  if (!imported.ok()) return report_error(imported.error());
  int calls = 0, results = 0, finals = 0;
  for (const auto& e : imported->events) {
    calls += e.kind == TrajectoryEvent::Kind::kToolCalled;
    results += e.kind == TrajectoryEvent::Kind::kToolResult;
    finals += e.kind == TrajectoryEvent::Kind::kFinalAnswer;
  }
  nlohmann::json report = {{"trajectory", args.trajectory_file},
                           {"format", args.format},
                           {"records", imported->records},
                           {"events", {{"tool_called", calls}, {"tool_result", results}, {"final_answer", finals}}},
                           {"skipped", imported->skipped},
                           {"truncated_last_line", imported->truncated_last_line},
                           {"goal_actions_executed", imported->goal_actions_executed},
                           {"acceptance", nullptr}};
  if (spec) report["acceptance"] = verify::to_json(verify::evaluate_acceptance(*spec, imported->events));
  if (args.json) {
    std::puts(report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else {
    int skipped = 0;
    for (const auto& [type, n] : imported->skipped) skipped += n;
    std::printf("%s (%s): %d records; %d tool calls, %d results, %d final answer%s; %d records skipped%s\n",
                args.trajectory_file.c_str(), args.format.c_str(), imported->records, calls, results, finals,
                finals == 1 ? "" : "s", skipped, imported->truncated_last_line ? "; the last line was truncated" : "");
    std::printf("goal actions: %s\n", imported->goal_actions_executed ? "yes (an effect tool ran)" : "none ran");
    if (spec) std::fputs(report::render_acceptance(report["acceptance"]).c_str(), stdout);
  }
  if (!spec) return kExitSuccess;
  return report["acceptance"]["passed"].get<bool>() ? kExitSuccess : kExitAcceptanceNotPassed;
}

}  // namespace candor::cli
