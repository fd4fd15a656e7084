// What every format's importer shares: the builder of the common event stream, the readers that
// hand it records one at a time, and the small readings of foreign values (arguments as JSON in a
// string, content blocks, exit codes written only in text). Internal to import/.
#pragma once

#include <cstddef>
#include <functional>
#include <istream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "core/secret_masker.h"
#include "import/trajectory_import.h"

namespace candor::import {

// A string kept in an event is cut to its first and last kKeptHalf bytes: what a spec looks at (a
// command, a test summary at the end of its output, an exit code) stays, and the events of a long
// session cost memory by their count, not by the size of what the tools printed.
inline constexpr std::size_t kKeptHalf = 2048;
std::string kept_text(std::string s, std::size_t half = kKeptHalf);

class Builder {
 public:
  // `masker` (may be null; must outlive the builder): the secret values to mask in every string an
  // event keeps. Masked before the string is cut (kept_text): a value straddling the cut would no
  // longer be the value the masker knows, and a later masking would let all but its cut-off bytes
  // through.
  Builder(Format format, std::string source, const SecretMasker* masker = nullptr);

  // kept_text() of the text masked: for a format that holds texts before it hands them over.
  std::string kept(std::string_view text) const;

  void call(const std::string& id, const std::string& tool, nlohmann::json input);
  // Pairs with the call of that id (tool and input), when there was one. `result` is an object
  // with at least "ok"; a false "ok" marks the call as failed (it is then no goal action).
  // `tool` names the tool when no call of that id was read (a stream that begins mid-session).
  void result(const std::string& id, nlohmann::json result, const std::string& tool = "");
  void final_answer(const std::string& text);
  // A record of the format that is not used (counted by type; it still shows the file is the format).
  void skip(const std::string& type);
  // A record the format does not have (counted; a file made only of these is not the format).
  void unknown(const std::string& type);
  // A record of the format that was used without an event of its own (an answer kept for later).
  void seen() { ++recognised_; }
  void count_record() { ++out_.records; }
  void mark_truncated() { out_.truncated_last_line = true; }
  void note_oversized(const std::vector<std::string>& lines) { out_.oversized = lines; }

  // "FILE:LINE" or "FILE" of the record being read, for messages.
  void at(std::string where) { where_ = std::move(where); }
  const std::string& where() const { return where_; }
  const std::string& source() const { return source_; }
  // The first refusal inside a record (a string holding JSON over the limits); reported after it.
  void refuse(Error e) {
    if (!refused_) refused_ = std::move(e);
  }
  const std::optional<Error>& refused() const { return refused_; }
  bool has_call(const std::string& id) const { return calls_.count(id) > 0; }

  // The trajectory, with goal_actions_executed; kInvalidInput when no record was the format's.
  Result<ImportedTrajectory> finish(const std::string& expected);

 private:
  void push(TrajectoryEvent e);

  // Every string of `j` masked, then cut (kept_text).
  void mask_and_cut(nlohmann::json& j) const;

  ImportedTrajectory out_;
  std::string source_;
  const SecretMasker* masker_ = nullptr;
  std::string where_;
  std::optional<Error> refused_;
  int recognised_ = 0;
  std::map<std::string, std::size_t> calls_;  // call id -> index of its ToolCalled event
  std::set<std::size_t> failed_calls_;        // indexes of calls whose result said ok: false
};

// A JSON string holding JSON (tool-call arguments): parsed, or kept as {"raw": text}. It is JSON
// from outside like the record around it: past the limits the transcript is refused (b.refuse).
nlohmann::json arguments_of(const nlohmann::json& j, Builder& b);

// Content as text: a string, or the text of [{type: text|output_text|input_text, text}] blocks joined.
std::string text_of(const nlohmann::json& content);

// The member `key` of an object, else null (safe on any value); a boolean member that is true.
const nlohmann::json& member(const nlohmann::json& j, const char* key);
bool flag(const nlohmann::json& j, const char* key);

// An exit code an agent wrote only in the text of a result: "Exit code 1" (Claude Code's Bash),
// "Exit code: 0" and "Process exited with code 0" (Codex), "<returncode>1</returncode>"
// (mini-swe-agent). Read only where the agent writes it, before the command's output: a line of its
// own among the lines before an "Output:" line, or the first line when there is none. What the
// command printed ("Exit code: 0" in a failing test's log) is never read as its code, and a Codex
// command still running ("Process running with session ID") has none.
std::optional<int> exit_code_in_text(std::string_view text);
// The code on the last line of the text that is `label` and a number alone ("Exit Code: 1", which
// Gemini CLI writes after the command's output: a line the output itself printed comes before it).
std::optional<int> exit_code_on_last_line(std::string_view text, std::string_view label);
// The number right after `label` at the start of `line` ("Command failed with exit code 1.").
std::optional<int> exit_code_after(std::string_view line, std::string_view label);

// JSON Lines: each line parsed and handed to `visit` (b.at() names it); a last line that does not
// parse and has no newline after it is tolerated (truncated_last_line) when an earlier line was
// read; any other bad line, and a line that is JSON but not an object, is an error naming it.
Status for_each_line(std::istream& in, Builder& b, const std::function<void(const nlohmann::json&)>& visit);

// A piece of a document (an element, a member's value) as JSON, within the limits: those of a
// record, less the `depth` of the containers around it. Messages name the file, the line the
// piece begins on and the full JSON path (`path` is the piece's own: "$[3]", "$.history[0]").
Result<nlohmann::json> parse_piece(const std::string& text, const std::string& source, int line,
                                   const std::string& path, int depth);

}  // namespace candor::import
