// Assertion evaluators: post-conditions checked right after a step, or at the end of a run.
// Adding a type is one class and one line in builtin_evaluators() (builtins.cc).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/arg_schema.h"
#include "core/http_client.h"
#include "core/result.h"
#include "sandbox/workspace.h"

namespace candor::assertions {

// What the step that the assertion follows produced. Absent for goal-level assertions.
struct StepView {
  std::string id;
  std::string tool;
  std::string output;
  std::optional<int> exit_code;
};

// The content of a workspace path in the snapshot taken before the run: nullopt when the path
// did not exist then. Provided by verify/ through the executor.
using BaselineReader = std::function<Result<std::optional<std::string>>(const std::string& path)>;

struct Context {
  const sandbox::Workspace& workspace;
  const NetworkPolicy& network;
  const StepView* step = nullptr;  // borrowed; null for goal-level assertions
  BaselineReader baseline;         // may be empty: file_unchanged then fails saying so
};

struct Outcome {
  bool passed = false;
  std::string message;  // what was observed, in a sentence
  std::string path;     // normalised workspace path inspected, "" when none
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  virtual const Signature& signature() const = 0;
  // REQUIRES: `assertion` was validated against signature().args.
  // Never throws for bad workspace state: every observation is an Outcome.
  virtual Outcome evaluate(const nlohmann::json& assertion, const Context& context) const = 0;
};

class Registry {
 public:
  // Fails when the type is already registered: a type is never silently shadowed.
  Status add(std::unique_ptr<Evaluator> evaluator);
  const Evaluator* find(const std::string& type) const;
  std::vector<Signature> signatures() const;

  // Evaluates any assertion; an unknown type or invalid args are a failed Outcome, not a crash.
  Outcome evaluate(const nlohmann::json& assertion, const Context& context) const;

 private:
  std::vector<std::unique_ptr<Evaluator>> evaluators_;
};

// The built-in evaluators, from one explicit table.
Registry builtin_evaluators();

}  // namespace candor::assertions
