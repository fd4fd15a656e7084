// Reading other coding agents' transcripts into candor's common stream (ToolCalled, ToolResult,
// FinalAnswer), each with its own tool catalogue, so that an acceptance spec and the "did any
// effect tool run" signal apply to runs candor did not make. A folder of its own: these are parsers
// of foreign file formats, not part of running tools (executor/) nor pure verdict logic (verify/).
#pragma once

#include <fstream>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/trajectory.h"

namespace candor {
class SecretMasker;
}

namespace candor::import {

enum class Format {
  kClaudeCode,
  kSweAgent,
  kOpenHands,
  kCodex,
  kCodexExec,
  kMiniSweAgent,
  kAider,
  kCline,
  kGeminiCli,
};

// "claude-code", "swe-agent", "openhands", "codex", "codex-exec", "mini-swe-agent", "aider",
// "cline" (also "roo"), "gemini-cli".
std::optional<Format> parse_format(const std::string& name);
std::string format_name(Format format);
const std::vector<std::string>& format_names();
// "claude-code, swe-agent, ...": for usage messages.
std::string format_list();

// The tools an agent of this format can call, as its own transcripts name them.
const std::vector<std::string>& tool_catalogue(Format format);
bool in_catalogue(Format format, const std::string& tool);

// What an acceptance spec may name for this format: its catalogue, any MCP tool (the pattern
// "mcp__*": `mcp__server__tool`), and every tool `called` lists (the tools a given transcript
// itself calls). A name in none of them is refused when the spec is loaded: a typo stays a typo.
std::vector<std::string> spec_tools(Format format, const std::vector<std::string>& called = {});

// Whether a call changes files (a goal action), by the format's own tools: Write/Edit for Claude
// Code, edit/create/insert for SWE-agent, file editors except `view` for OpenHands, apply_patch
// for Codex, ... A shell command's effect cannot be seen in a transcript, so it does not count.
bool is_effect_call(Format format, const TrajectoryEvent& call);

struct ImportedTrajectory {
  Format format = Format::kClaudeCode;
  std::vector<TrajectoryEvent> events;  // seq = 1, 2, ... in file order; strings cut (import_builder.h)
  int records = 0;                      // lines or items read
  std::map<std::string, int> skipped;   // record types not used, with counts
  bool truncated_last_line = false;     // a JSONL file whose last line was cut off
  std::vector<std::string> oversized;   // records over the size limit, read past: "FILE:LINE (N bytes ...)"
  bool goal_actions_executed = false;   // some effect call happened (and did not fail)

  // The tools the transcript calls, each once, sorted.
  std::vector<std::string> tools_called() const;
};

// Reads the transcript a record at a time: memory is bounded by its largest record (16 MiB) and
// by the number of events, never by the file's size (each kept string is cut to 4 KiB).
// Fails (kInvalidInput, naming the file and where) when the file is not the format: not its
// syntax, or none of its records is one of the format's (a file of another agent, an empty file).
// Unknown record types among the format's are skipped and counted; a truncated last JSONL line is
// tolerated after a line that was read. `in` must be seekable (a file, a string).
// `masker` (may be null): the secret values known at the start of the run that reads the transcript
// (docs/design.md, Trust boundary): every string the events keep is masked, and masked before it is cut,
// since a value straddling the cut would no longer be recognised by a masking done later.
Result<ImportedTrajectory> import_trajectory(std::istream& in, Format format, const std::string& source,
                                             const SecretMasker* masker = nullptr);
Result<ImportedTrajectory> import_trajectory(const std::string& text, Format format, const std::string& source,
                                             const SecretMasker* masker = nullptr);
// The file at `path`: kNotFound when it does not exist, kInvalidInput when it cannot be read or is
// larger than kMaxTranscriptBytes. A folder is read as OpenHands V1's conversation folder (its
// events/event-NNNNN-<id>.json files, a file at a time); for any other format it is kInvalidInput.
Result<ImportedTrajectory> import_trajectory_file(const std::string& path, Format format,
                                                  const SecretMasker* masker = nullptr);
// Opens the transcript at `path` to be read as a stream, with import_trajectory_file()'s checks (it
// exists, is a regular file, within kMaxTranscriptBytes).
Status open_transcript(const std::string& path, std::ifstream& in);

}  // namespace candor::import
