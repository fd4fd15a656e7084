// Acceptance specs on their own, and other agents' runs: `candor check SPEC` (is the spec valid
// for these tools?) and `candor verify --trajectory FILE --format F` (another agent's transcript
// read into candor's events and, with a spec, checked against it).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace candor {
class SecretMasker;
}

namespace candor::app {

// What `check` says of a valid spec.
struct SpecCheck {
  std::size_t checkpoints = 0;
  int essential = 0;
  bool ordered = false;
};

// The names --format accepts (import/trajectory_import.h: claude-code, swe-agent, ...; roo).
std::vector<std::string> transcript_format_names();

// `format` "": checked against candor's own tools; else an import format's catalogue, any MCP tool
// (mcp__server__tool). kInvalidInput naming the file and what is wrong.
Result<SpecCheck> check_acceptance_spec(const std::string& spec_file, const std::string& format);

struct TrajectoryRequest {
  std::string trajectory_file;
  std::string format;           // required: one of transcript_format_names()
  std::string acceptance_file;  // "" = none: the transcript is only read
  // The secret values to mask in all that is said of the transcript (docs/design.md, Trust boundary):
  // null = the process's environment's scrubbed variables (names_a_secret, credential-looking
  // values), the values known at the start of a command that has no workspace.
  std::shared_ptr<const SecretMasker> masker = nullptr;
};

// The transcript's report, as `verify --trajectory --json` prints it, every text masked (the
// events as they are read, before their strings are cut; an error's message): trajectory, format, records,
// events {tool_called, tool_result, final_answer}, skipped (record type -> count),
// truncated_last_line, goal_actions_executed, and acceptance (the spec's report; null without one).
// The spec may name the format's tools, MCP tools and the tools the transcript calls. kUsage
// without a format; errors of the spec or the transcript name the file (a file that is not the
// format is kInvalidInput).
Result<nlohmann::json> verify_trajectory(const TrajectoryRequest& request);

// Only the spec's report over the transcript (verify::to_json of the acceptance report), for
// `verify --git` with --acceptance.
Result<nlohmann::json> transcript_acceptance(const TrajectoryRequest& request);

}  // namespace candor::app
