// Parsing JSON text that a person, a model or another program wrote, with errors a person can act
// on, and within limits (docs/design.md, Trust boundary: "Budgets bound everything").
//
// Every JSON input from outside candor (plans, LLM replies, specs, configs, scripts, transcripts,
// evaluator output) goes through here. Past a nesting depth of kMaxJsonDepth or a stated size it is
// refused with kInvalidInput (exit 65) naming the source and the JSON path, before nlohmann builds
// anything. What is parsed is then at most kMaxJsonDepth deep, and that is what makes the recursive
// walks over parsed values safe (assertion validation and `not`, arg schemas, dump(), operator==):
// they rely on it and say so.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace candor {

// Containers nested in one another: `[[1]]` is 2 deep; 64 are accepted, 65 refused.
inline constexpr int kMaxJsonDepth = 64;

// Sizes, each far above what the input is for and far below what would hurt:
// a plan, an acceptance spec, a config, an --expect, a line of a script, an evaluator's output;
inline constexpr std::size_t kMaxDocumentBytes = std::size_t{8} << 20;
// what a model wrote in one reply (a plan is a few KiB; replies are capped by output tokens anyway);
inline constexpr std::size_t kMaxReplyBytes = std::size_t{4} << 20;
// a provider's HTTP answer around that reply (escaped, with metadata);
inline constexpr std::size_t kMaxWireBytes = std::size_t{16} << 20;
// one record of a JSON Lines transcript (a tool result can carry a whole file);
inline constexpr std::size_t kMaxTranscriptLineBytes = std::size_t{16} << 20;
// a whole transcript: one document (OpenHands, SWE-agent) or all its lines (Claude Code, Codex).
inline constexpr std::size_t kMaxTranscriptBytes = std::size_t{256} << 20;
// the events one transcript may hold: what bounds an import's memory when its records are tiny
// (about 200 bytes an event: 13 million empty tool calls fit in 256 MiB); a real session has
// thousands.
inline constexpr std::size_t kMaxTranscriptEvents = 1'000'000;

struct JsonLimits {
  std::size_t max_bytes = kMaxDocumentBytes;
  int max_depth = kMaxJsonDepth;
  // `//` and `/* */` comments read as white space (nlohmann's ignore_comments), for a file a person
  // writes and annotates (.candor/config.json); every other input is strict JSON.
  bool comments = false;
};

inline constexpr JsonLimits kDocumentLimits{kMaxDocumentBytes, kMaxJsonDepth};
inline constexpr JsonLimits kReplyLimits{kMaxReplyBytes, kMaxJsonDepth};
inline constexpr JsonLimits kWireLimits{kMaxWireBytes, kMaxJsonDepth};
inline constexpr JsonLimits kTranscriptLineLimits{kMaxTranscriptLineBytes, kMaxJsonDepth};
inline constexpr JsonLimits kTranscriptLimits{kMaxTranscriptBytes, kMaxJsonDepth};
// A document a person writes and comments: .candor/config.json.
inline constexpr JsonLimits kCommentedDocumentLimits{kMaxDocumentBytes, kMaxJsonDepth, true};

// Ok when `text` is within `limits`; else kInvalidInput "SOURCE: refused: ... over the limit" or
// "SOURCE:LINE:COL: refused: JSON nested deeper than 64 levels at $.steps[0].assert[0]…" (the path
// of the first value too deep, cut in the middle when long). One linear pass, no recursion, memory
// bounded by max_depth; any text is read, also invalid JSON (the parser then says what is wrong):
// brackets inside strings are not counted, nor, with `limits.comments`, inside comments. `first_line` numbers the
// text's first line.
Status check_json_limits(std::string_view text, const std::string& source, const JsonLimits& limits = kDocumentLimits,
                         int first_line = 1);

// The limits, then the parse: kInvalidInput "SOURCE:LINE:COL: not valid JSON: ..." on a syntax
// error. Never throws.
Result<nlohmann::json> parse_json_text(std::string_view text, const std::string& source,
                                       const JsonLimits& limits = kDocumentLimits);

// For a reader that says "not JSON" its own way: the text parsed, or a discarded value when it is
// not JSON, a NUL byte included (nlohmann's lexer would end the input there and read what came
// before). REQUIRES: the text passed check_json_limits (or check_json_line).
nlohmann::json parse_within_limits_or_discarded(std::string_view text);

// One record of a JSON Lines file (a line without its newline): messages name "SOURCE:LINE_NO"
// (and the column where it matters). check_json_line is the limits alone: a reader that tolerates
// a cut last line tells a syntax error from a refusal with it.
Status check_json_line(std::string_view line, const std::string& source, int line_no,
                       const JsonLimits& limits = kTranscriptLineLimits);
Result<nlohmann::json> parse_json_line(std::string_view line, const std::string& source, int line_no,
                                       const JsonLimits& limits = kTranscriptLineLimits);

// The text of the file at `path`, read up to one byte past `max_bytes`: a file of any size costs no
// more than that to refuse. Errors name the path: kNotFound "cannot read PATH: No such file or
// directory" when it does not exist, else kInvalidInput (unreadable, or over the limit).
Result<std::string> read_input_file(const std::string& path, std::size_t max_bytes);

// "4 MiB", "1.5 KiB", "37 bytes": a size as a person reads it.
std::string format_bytes(std::size_t bytes);

}  // namespace candor
