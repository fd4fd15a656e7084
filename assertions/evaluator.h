// Assertion evaluators: post-conditions checked right after a step, or at the end of a run.
// Adding a type is one class and one line in builtin_evaluators() (builtins.cc).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "assertions/file_source.h"
#include "core/arg_schema.h"
#include "core/deadline.h"
#include "core/result.h"
#include "core/run_record.h"
#include "net/http_client.h"
#include "sandbox/process_sandbox.h"
#include "sandbox/workspace.h"
#include "sandbox/workspace_policy.h"

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

class Registry;

struct Context {
  const sandbox::Workspace& workspace;
  const net::NetworkPolicy& network;
  const StepView* step = nullptr;  // borrowed; null for goal-level assertions
  BaselineReader baseline;         // may be empty: file_unchanged then fails saying so
  // Borrowed; the process sandbox for commands (command_succeeds, external evaluators). Null: the
  // default policy for the workspace.
  const sandbox::SandboxPolicy* process_sandbox = nullptr;
  const Registry* registry = nullptr;  // set by Registry::evaluate, for assertions that nest (`not`)
  // Borrowed; where file assertions read. Null: the workspace as it is now.
  const FileSource* files = nullptr;
  // Set by Registry::evaluate (shared with the assertions it nests); raised through
  // saw_credential() when a read or stat for this evaluation met a credential file, whose
  // message Registry::evaluate then withholds.
  bool* credential_seen = nullptr;
  // The run's time budget: a program an assertion runs is stopped by it, whatever its own
  // timeout, and one that would start after it does not start (an error, never a pass).
  Deadline deadline = {};
  // How the credential files are found again before a program runs (sandbox/workspace_policy.h).
  sandbox::SecretRefresh secret_refresh = {};
};

// The timeout a program run for an assertion gets: its own, cut to what is left before the
// deadline. nullopt when the deadline has passed.
std::optional<std::chrono::milliseconds> bounded_timeout(std::chrono::milliseconds own, const Context& ctx);

struct Outcome {
  bool passed = false;
  std::string message;  // what was observed, in a sentence
  std::string path;     // normalised workspace path inspected, "" when none
  // The check could not be made (a crash, a timeout, bad output, an unknown type): never a pass,
  // and `not` does not turn it into one.
  bool error = false;
  // It read or stat'ed a credential file (set by Registry::evaluate): its message is withheld, and
  // even its pass/fail bit is an answer about the file's content.
  bool credential = false;
  // A program it ran (command_succeeds): its exit code, and the tail of what it printed
  // (kOutputTail bytes), passing or not.
  std::optional<int> exit_code = std::nullopt;
  std::string output = {};
  // All it printed, up to the cap of what is read for test counts, else its last bytes (where
  // runners summarise): what the executor reads its test counts from (evidence/test_runners.h).
  std::string summary_text = {};
  // Paths outside the workspace that candor's sandbox refused the program it ran (sandbox/refusals.h).
  std::vector<std::string> sandbox_refused = {};
};

// What an assertion's record takes from its outcome, in one place for every caller (the
// executor's checks, verify --git's): the path, the result and message, and for a program its exit
// code, output and what the sandbox refused it.
inline void record_outcome(AssertionRecord& r, const Outcome& o) {
  r.path = o.path;
  r.passed = o.passed;
  r.message = o.message;
  r.exit_code = o.exit_code;
  r.output = o.output;
  r.sandbox_refused = o.sandbox_refused;
}

// How much of a program's output an assertion record keeps: its end, where test runners summarise.
inline constexpr std::size_t kOutputTail = 800;

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
  // An assertion on a credential file (by its path, or by what its reads met) is evaluated, and
  // its message is only "PATH is a credential file: content withheld" and the verdict: no
  // evaluator's quote or excerpt of one reaches a prompt or a report.
  Outcome evaluate(const nlohmann::json& assertion, const Context& context) const;
  // The type is known and the arguments (nested assertions included) fit its signature.
  Status validate(const nlohmann::json& assertion, const std::string& path) const;
  // The assertion's verdict depends only on the file at its path (its evaluator, or for `not` the
  // evaluator it wraps, declares `reads_files`): only such an assertion can be checked against the
  // pre-run snapshot and so cover a change.
  bool reads_files(const nlohmann::json& assertion) const;
  // It reads files (above) and its pass says what the file holds, not only that it exists, its size
  // or its form (Signature::proves_content; a wrapper such as `not` as the assertion it wraps).
  // Only such a pass that also fails on an empty file at its path is positive evidence.
  bool proves_content(const nlohmann::json& assertion) const;
  // Its evaluator (or one it wraps) declares `reads_step`: it checks the step, not the workspace.
  bool reads_step(const nlohmann::json& assertion) const;
  // A program over the whole workspace whose user pass is evidence by the command rule (docs/design.md,
  // Commands as evidence): its evaluator declares `command_evidence` (command_succeeds, a
  // discriminating external evaluator) and, for one that also reads files, the assertion names no
  // `path` (with a path, the file rule applies).
  bool command_evidence(const nlohmann::json& assertion) const;

 private:
  std::vector<std::unique_ptr<Evaluator>> evaluators_;
};

// The built-in evaluators, from one explicit table.
Registry builtin_evaluators();

// What `candor evaluators` prints: JSON (type, description, args, open_args), and text, one
// evaluator per two lines. The planner's prompt is built from the same signatures.
nlohmann::json describe_evaluators(const Registry& registry);
std::string list_evaluators(const Registry& registry);

}  // namespace candor::assertions
