// One turn of an agent's transcript: the records from the person's prompt that began it to the end
// of the file. The live gate (`candor gate`) checks what the agent did in this turn only, and takes
// the prompt as the goal when it saw no turn start.
#pragma once

#include <ios>
#include <istream>
#include <string>

#include "core/result.h"
#include "import/trajectory_import.h"

namespace candor::import {

struct TurnStart {
  bool found = false;         // a start of a turn was found
  bool by_key = false;        // ... the one `turn_key` names (else the last one)
  std::string prompt;         // what the person asked, "" when it cannot be told
  int first_line = 0;         // the line the turn begins on (1-based), 0 when none
  std::streamoff offset = 0;  // the byte the turn's first line begins at
};

// Claude Code: a turn begins at the first `user` record whose `promptId` is `turn_key`; without a
// key, or when no record carries it, at the last `user` record that is a person's prompt (not
// `isMeta`, no tool result in it). Codex: at the `task_started` (or, lacking one, `turn_context`)
// event whose `turn_id` is `turn_key`, else the last such event. Lines are not checked here beyond
// what finding the start needs (the importer reads the turn and says what is wrong with it); a
// line past the JSON limits is never parsed. kInvalidInput for a format other than these two.
// Reads `in` (seekable) from its start, a line at a time: memory for one line, whatever the size
// of the transcript; the caller seeks to `offset` and imports the turn from there.
Result<TurnStart> find_turn(std::istream& in, Format format, const std::string& turn_key);

// find_turn() over a transcript held in memory, with the turn's lines.
struct TurnSlice : TurnStart {
  std::string text;  // the turn's lines (JSON Lines), its first line first; "" when no turn begins in the file
};
Result<TurnSlice> slice_turn(const std::string& text, Format format, const std::string& turn_key);

}  // namespace candor::import
