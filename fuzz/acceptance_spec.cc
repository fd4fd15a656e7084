// libFuzzer target: the acceptance-spec parser, and the evaluator on every spec it accepts (over a
// fixed trajectory): refusals carry a message; an accepted spec evaluates to one result per
// checkpoint, and `passed` agrees with the essential ones.
#include <cstddef>
#include <cstdint>
#include <string>

#include "verify/acceptance.h"

using namespace candor;
using namespace candor::verify;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<std::string> tools = {"file_read", "file_patch", "shell", "git_commit"};
  static const std::vector<TrajectoryEvent> events = {
      {1, TrajectoryEvent::Kind::kToolCalled, "shell", {{"command", "make test"}}, nullptr, ""},
      {2,
       TrajectoryEvent::Kind::kToolResult,
       "shell",
       {{"command", "make test"}},
       {{"ok", true}, {"output", "12 passing"}, {"exit_code", 0}},
       ""},
      {3, TrajectoryEvent::Kind::kToolCalled, "git_commit", {{"message", "fix"}}, nullptr, ""},
      {4, TrajectoryEvent::Kind::kFinalAnswer, "", nlohmann::json::object(), nullptr, "all passing"}};
  std::string text(reinterpret_cast<const char*>(data), size);
  auto spec = parse_acceptance_spec_text(text, tools, "spec.json");
  if (!spec.ok()) {
    if (spec.error().message.empty()) __builtin_trap();
    return 0;
  }
  AcceptanceReport report = evaluate_acceptance(*spec, events);
  if (report.checkpoints.size() != spec->checkpoints.size()) __builtin_trap();
  bool all_essential = true;
  for (const auto& c : report.checkpoints) all_essential = all_essential && (c.matched || !c.essential);
  if (report.passed != all_essential) __builtin_trap();
  (void)to_json(report).dump();
  return 0;
}
