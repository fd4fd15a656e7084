#include "app/acceptance_check.h"

#include <unistd.h>

#include <optional>

#include <fmt/format.h>

#include "app/inputs.h"
#include "executor/tool.h"
#include "import/trajectory_import.h"
#include "sandbox/credential_registry.h"
#include "verify/acceptance.h"

namespace candor::app {
namespace {

Result<import::Format> format_of(const std::string& name) {
  if (auto format = import::parse_format(name)) return *format;
  return make_error(ErrorCode::kUsage,
                    fmt::format("unknown transcript format \"{}\" ({})", name, import::format_list()));
}

// The tools an acceptance spec is checked against: candor's ("") or an import format's, with the
// tools the transcript calls (`called`) when one is given.
Result<std::vector<std::string>> tools_for_format(const std::string& format, const std::vector<std::string>& called) {
  if (format.empty()) return executor::builtin_tools().names();
  TRY(import::Format f, format_of(format));
  return import::spec_tools(f, called);
}

Result<verify::AcceptanceSpec> load_acceptance_spec(const std::string& file, const std::string& format,
                                                    const std::vector<std::string>& called = {}) {
  TRY(std::vector<std::string> tools, tools_for_format(format, called));
  TRY(std::string text, read_text_file(file));
  return verify::parse_acceptance_spec_text(text, tools, file);
}

// The request's masker, else the environment's scrubbed variables': the values known at the start.
std::shared_ptr<const SecretMasker> masker_of(const TrajectoryRequest& request) {
  if (request.masker != nullptr) return request.masker;
  sandbox::CredentialRegistry secrets;
  secrets.add_environment(::environ, {});
  return secrets.masker();
}

// An error as it is said: masked (a parse error quotes what it read of the line).
template <typename T>
Result<T> masked(Result<T> r, const SecretMasker& masker) {
  if (!r.ok()) return Error{r.error().code, masker.mask(r.error().message)};
  return r;
}

// Read a record at a time (import_trajectory_file): a transcript of any size within the limit costs
// memory for its events, not for its bytes. The events are masked as they are read, before their
// strings are cut (import_trajectory).
Result<import::ImportedTrajectory> import_trajectory_file(const std::string& file, const std::string& format,
                                                          const SecretMasker* masker) {
  TRY(import::Format f, format_of(format));
  return import::import_trajectory_file(file, f, masker);
}

nlohmann::json report_of(const TrajectoryRequest& request, const import::ImportedTrajectory& imported) {
  int calls = 0, results = 0, finals = 0;
  for (const auto& e : imported.events) {
    calls += e.kind == TrajectoryEvent::Kind::kToolCalled;
    results += e.kind == TrajectoryEvent::Kind::kToolResult;
    finals += e.kind == TrajectoryEvent::Kind::kFinalAnswer;
  }
  return {{"trajectory", request.trajectory_file},
          {"format", request.format},
          {"records", imported.records},
          {"events", {{"tool_called", calls}, {"tool_result", results}, {"final_answer", finals}}},
          {"skipped", imported.skipped},
          {"truncated_last_line", imported.truncated_last_line},
          {"goal_actions_executed", imported.goal_actions_executed},
          {"acceptance", nullptr}};
}

}  // namespace

std::vector<std::string> transcript_format_names() {
  std::vector<std::string> names = import::format_names();
  names.emplace_back("roo");
  return names;
}

Result<SpecCheck> check_acceptance_spec(const std::string& spec_file, const std::string& format) {
  TRY(verify::AcceptanceSpec spec, load_acceptance_spec(spec_file, format));
  SpecCheck out;
  out.checkpoints = spec.checkpoints.size();
  for (const auto& c : spec.checkpoints) out.essential += c.essential ? 1 : 0;
  out.ordered = spec.ordered;
  return out;
}

namespace {

Result<nlohmann::json> read_and_check(const TrajectoryRequest& request, const SecretMasker& masker) {
  if (request.format.empty())
    return make_error(ErrorCode::kUsage, fmt::format("--trajectory needs --format ({})", import::format_list()));
  TRY(import::Format f, format_of(request.format));
  // A spec that cannot be read is refused before the transcript is read; its tool names are checked
  // once the transcript says which tools it calls.
  if (!request.acceptance_file.empty()) TRY_STATUS(read_text_file(request.acceptance_file));
  TRY(import::ImportedTrajectory imported, import::import_trajectory_file(request.trajectory_file, f, &masker));
  std::optional<verify::AcceptanceSpec> spec;
  if (!request.acceptance_file.empty()) {
    TRY(spec, load_acceptance_spec(request.acceptance_file, request.format, imported.tools_called()));
  }
  nlohmann::json report = report_of(request, imported);
  if (spec) report["acceptance"] = verify::to_json(verify::evaluate_acceptance(*spec, imported.events, &masker));
  masker.mask_json(report);  // as its own guard: every text of it came from the events or the spec
  return report;
}

Result<nlohmann::json> acceptance_only(const TrajectoryRequest& request, const SecretMasker& masker) {
  TRY(import::ImportedTrajectory imported, import_trajectory_file(request.trajectory_file, request.format, &masker));
  TRY(verify::AcceptanceSpec spec,
      load_acceptance_spec(request.acceptance_file, request.format, imported.tools_called()));
  nlohmann::json report = verify::to_json(verify::evaluate_acceptance(spec, imported.events, &masker));
  masker.mask_json(report);
  return report;
}

}  // namespace

Result<nlohmann::json> verify_trajectory(const TrajectoryRequest& request) {
  std::shared_ptr<const SecretMasker> masker = masker_of(request);
  return masked(read_and_check(request, *masker), *masker);
}

Result<nlohmann::json> transcript_acceptance(const TrajectoryRequest& request) {
  std::shared_ptr<const SecretMasker> masker = masker_of(request);
  return masked(acceptance_only(request, *masker), *masker);
}

}  // namespace candor::app
