// libcandor's own value types: the enumerations a request and a result carry, and the Error and
// Result that every call returns. Nothing here is candor's inside; a program that embeds candor
// compiles against these headers and nlohmann_json alone.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace candor::api {

// What is true about the run (never the model's own word): `success`, `partial` or `fail`.
enum class Verdict { kSuccess, kPartial, kFail };
// How the run's loop ended: the model's story, not the verdict.
enum class RunStatus { kRunning, kCompleted, kBudgetExhausted, kError, kCancelled, kGoalAttemptsExhausted };
// When the tier-2 judge is asked: `auto` only when tier 1 cannot decide, `always`, or `never`.
enum class JudgePolicy { kAuto, kAlways, kNever };
// What the goal asks for: a change, or an answer that changes nothing.
enum class GoalKind { kModify, kInspect };
// The `candor` command's exit codes, by what they mean; the values are the codes.
enum class ExitCategory {
  kSuccess = 0,
  kPartial = 1,
  kFail = 2,
  kAcceptanceNotPassed = 3,  // success, but the acceptance spec did not pass
  kUsage = 64,
  kInvalidInput = 65,
  kUnavailable = 69,
  kInternal = 70,
  kExists = 73,      // a file the command would create is there already
  kRefused = 77,     // the sandbox asked for is not available
  kCancelled = 130,  // Session::cancel(): the run was still verified, recorded and reported
};

// "success", "partial", "fail"; "completed", "budget_exhausted", ...; "auto", "always", "never";
// "modify", "inspect". An out-of-range value gives "?".
const char* to_string(Verdict v);
const char* to_string(RunStatus v);
const char* to_string(JudgePolicy v);
const char* to_string(GoalKind v);

// Why a call did no work, or stopped: `code` is one of usage, invalid_input, refused, not_found,
// io, timeout, unavailable, exists, internal; `message` names what was wrong and where.
struct Error {
  std::string code;
  std::string message;
  ExitCategory exit = ExitCategory::kInternal;  // what the `candor` command would exit with
};

// A value, or the Error that took its place.
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}      // NOLINT: implicit, as a return value
  Result(Error error) : error_(std::move(error)) {}  // NOLINT
  bool ok() const { return value_.has_value(); }
  // REQUIRES: ok().
  const T& value() const& { return *value_; }
  T& value() & { return *value_; }
  const T* operator->() const { return &*value_; }
  T* operator->() { return &*value_; }
  // REQUIRES: !ok().
  const Error& error() const { return error_; }

 private:
  std::optional<T> value_;
  Error error_;
};

}  // namespace candor::api
