// Reading other coding agents' transcripts into candor's common stream (ToolCalled, ToolResult,
// FinalAnswer), each with its own tool catalogue, so that an acceptance spec and the "did any
// effect tool run" signal apply to runs candor did not make. A folder of its own: these are parsers
// of foreign file formats, not part of running tools (executor/) nor pure verdict logic (verify/).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/trajectory.h"

namespace candor::import {

enum class Format { kClaudeCode, kSweAgent, kOpenHands, kCodex };

// "claude-code", "swe-agent", "openhands", "codex".
std::optional<Format> parse_format(const std::string& name);
std::string format_name(Format format);
const std::vector<std::string>& format_names();

// The tools an agent of this format can call: what an acceptance spec is checked against.
const std::vector<std::string>& tool_catalogue(Format format);

// Whether a call changes files (a goal action), by the format's own tools: Write/Edit for Claude
// Code, edit/create/insert for SWE-agent, str_replace_editor except `view` for OpenHands,
// apply_patch for Codex. A shell command's effect cannot be seen in a transcript, so it does not count.
bool is_effect_call(Format format, const TrajectoryEvent& call);

struct ImportedTrajectory {
  Format format = Format::kClaudeCode;
  std::vector<TrajectoryEvent> events;  // seq = 1, 2, ... in file order
  int records = 0;                      // lines or items read
  std::map<std::string, int> skipped;   // record types not used, with counts
  bool truncated_last_line = false;     // a JSONL file whose last line was cut off
  bool goal_actions_executed = false;   // some effect call happened (and did not fail)
};

// Fails (kInvalidInput, naming the file and where) only when the file cannot be read as the format
// at all; unknown record types are skipped and counted, a truncated last JSONL line is tolerated.
Result<ImportedTrajectory> import_trajectory(const std::string& text, Format format, const std::string& source);

}  // namespace candor::import
