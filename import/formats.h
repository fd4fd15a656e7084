// The importers of each format, one file each (format_*.cc), and what they share beyond the
// builder. Internal to import/: trajectory_import.cc's table is the only caller.
#pragma once

#include <istream>

#include "core/result.h"
#include "import/import_builder.h"

namespace candor::import {

// Each reads `in` from its start to its end into `b` with memory bounded by its largest record;
// an error names the file and where (b.source()).
Status import_claude_code(std::istream& in, Builder& b);
Status import_codex(std::istream& in, Builder& b);
Status import_codex_exec(std::istream& in, Builder& b);
Status import_swe_agent(std::istream& in, Builder& b);
Status import_mini_swe_agent(std::istream& in, Builder& b);
Status import_openhands(std::istream& in, Builder& b);
Status import_aider(std::istream& in, Builder& b);
Status import_cline(std::istream& in, Builder& b);
Status import_gemini_cli(std::istream& in, Builder& b);

// OpenHands V1's conversation folder: DIR/events/ (or DIR itself when it is that folder) of
// event-NNNNN-<id>.json files, one event each, read one at a time in the order of their numbers.
Status import_openhands_folder(const std::string& dir, Builder& b);

// The event-NNNNN-<id>.json files of such a folder, in order; kInvalidInput when there are none.
Result<std::vector<std::string>> event_files(const std::string& dir);
// Each file as one JSON object (within the limits of a record), one at a time, handed to `visit`
// with b.at() naming the file.
Status for_each_file(const std::vector<std::string>& files, Builder& b,
                     const std::function<void(const nlohmann::json&)>& visit);

// A document of one JSON array (`[...]`) or of one object with an array member among `keys`
// (`{"messages": [...], ...}`): `visit` gets each element parsed, with where it is; `other` (may
// be empty) gets each other member of the object parsed. JSON Lines of such elements, one a line,
// are read too, unless `object_only` (a format that is never an array nor lines: SWE-agent's
// .traj). Any other shape is an error saying what was expected.
Status for_each_element(std::istream& in, Builder& b, const std::vector<std::string>& keys, const std::string& expected,
                        const std::function<void(const nlohmann::json&)>& visit,
                        const std::function<void(const std::string&, const nlohmann::json&)>& other = {},
                        bool object_only = false);

}  // namespace candor::import
