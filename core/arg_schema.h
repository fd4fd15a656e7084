// Argument schemas for tools and assertion evaluators. One declaration drives plan validation,
// `candor evaluators`, and (later) the planner prompt.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace candor {

enum class ArgType {
  kString,
  kInteger,
  kBoolean,
  kEdits,      // [{find: string, replace: string, count?: integer >= 1}], at least one
  kRegex,      // a string that compiles as an RE2 pattern
  kJson,       // any JSON value
  kAssertion,  // an assertion object ({"type": ...}); its own arguments are checked by the caller
  kGlobs,      // a list of globs (core/glob.h's PathGlob), each valid; an invalid one is invalid input
};

struct ArgSpec {
  std::string name;
  ArgType type = ArgType::kString;
  bool required = true;
  std::string description;
  std::int64_t min = std::numeric_limits<std::int64_t>::min();  // kInteger only
  std::int64_t max = std::numeric_limits<std::int64_t>::max();  // kInteger only
  // The user's to give, not the planner's: shown by `candor evaluators`, left out of the planner's
  // prompt, and honoured on `user` assertions only (`covers`: what a user's command is evidence for).
  bool user_only = false;
};

// A tool's or an evaluator's public face.
struct Signature {
  std::string name;
  std::string description;
  std::vector<ArgSpec> args;
  // Arguments beyond `args` are accepted (an external evaluator that declared none).
  bool open_args = false;
  // Evaluators only: the verdict depends on nothing but the content (or existence) of the file at
  // the `path` argument, so evaluating it on the pre-run snapshot says whether its pass is evidence
  // about the change (docs/design.md: discriminating coverage). False for checks of step output, of
  // processes, of the network, and of comparisons with the snapshot itself.
  bool reads_files = false;
  // Evaluators that read files: a pass says something about what the file holds, so a pass that
  // also fails on an empty file at the path is positive evidence of content (docs/design.md, Trust
  // boundary). False for checks of existence, size or form alone (file_exists, file_size_gt,
  // json_valid): they pass on any content, right or wrong, and never cover a change.
  bool proves_content = true;
  // Evaluators only: the verdict is about the step the assertion follows (its output, its exit
  // code), not the workspace. Such a failure is its step's failure: it stands until a later step
  // with the same tool and target passes (tier-1 rule 5), and re-checking it proves nothing.
  bool reads_step = false;
  // Evaluators only: a program run over the whole workspace (command_succeeds; an external evaluator
  // declared discriminating, asked about no `path`). A user's pass is evaluated again on the state
  // before the change, and, when it failed there, covers the mutated paths its `covers` globs match
  // (docs/design.md, Trust boundary: Commands as evidence).
  bool command_evidence = false;
};

const char* arg_type_name(ArgType type);

// Checks `args` (the JSON object holding the arguments) against `specs`. `path` is the JSON path of
// the object, used as the prefix of every message: `steps[1].args.path: expected a string, got 3`.
// `ignored` names keys that belong to the container rather than to the arguments (e.g. "type").
Status validate_args(const nlohmann::json& args, const std::vector<ArgSpec>& specs, const std::string& path,
                     const std::vector<std::string>& ignored = {});

// The same, for a signature: with `open_args`, arguments it does not declare are accepted.
Status validate_args(const nlohmann::json& args, const Signature& signature, const std::string& path,
                     const std::vector<std::string>& ignored = {});

// Short JSON type name for messages: "string", "integer", "object", ...
std::string json_type_name(const nlohmann::json& value);

// Calls `check(value, path)` for every kAssertion argument present in `args`, so that a caller
// that knows the assertion types can validate nested assertions with their JSON paths.
Status for_each_nested_assertion(const nlohmann::json& args, const std::vector<ArgSpec>& specs, const std::string& path,
                                 const std::function<Status(const nlohmann::json&, const std::string&)>& check);

// j[key] when j is an object and that is a string, else `fallback`. For JSON that anyone else
// wrote (an LLM's reply, a stored report): nlohmann's value() throws on a wrong type.
std::string json_str(const nlohmann::json& j, const char* key, const std::string& fallback = "");

// "integer 7", "string \"abc\"", "null", "object": what a message says was found instead.
std::string json_describe(const nlohmann::json& value);

// A one-line, length-capped rendering of a JSON value for messages.
std::string json_excerpt(const nlohmann::json& value, std::size_t max_chars = 60);

// "a.b" or "a[3]" given "a" and a key/index.
std::string json_path_key(const std::string& parent, const std::string& key);
std::string json_path_index(const std::string& parent, std::size_t index);

}  // namespace candor
