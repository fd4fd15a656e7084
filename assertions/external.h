// Evaluators that run a program: external evaluators named in .candor/config.json (docs/design.md:
// JSON on stdin, {"passed", "message"} on stdout), run in the process sandbox with the workspace
// read-only and a timeout.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "assertions/evaluator.h"

namespace candor::assertions {

struct ExternalEvaluatorSpec {
  std::string type;
  std::string description;
  std::vector<std::string> command;  // argv; a relative program is looked up on PATH, run in the workspace
  std::chrono::milliseconds timeout{30000};
  std::vector<ArgSpec> args;  // declared arguments; none declared: any are accepted
  bool open_args = true;
  // Declared by the config: the verdict depends only on the file at the `path` argument. Only then
  // can a pass cover a change: candor also runs it on a read-only copy of the pre-run version of
  // that path, and it covers only if it fails there.
  bool discriminating = false;
};

// What an external evaluator may print: more is a failed assertion, not a truncated verdict.
inline constexpr std::size_t kMaxExternalOutput = 64 * 1024;

std::unique_ptr<Evaluator> make_external_evaluator(ExternalEvaluatorSpec spec);

// Adds each spec to `registry`; a type that is already there (a built-in) is refused, naming it:
// an external evaluator never shadows a built-in.
Status add_external_evaluators(Registry& registry, const std::vector<ExternalEvaluatorSpec>& specs,
                               const std::string& where);

}  // namespace candor::assertions
