// Expected failures as values. Exceptions and aborts are for broken invariants only.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace candor {

// Few codes, named for what the caller does about them. Each maps to one exit code (cli/).
enum class ErrorCode {
  kUsage,         // the command line is wrong                      -> 64
  kInvalidInput,  // a plan, spec, config or script is malformed     -> 65
  kRefused,       // a sandbox or policy refused an operation        -> step failure
  kNotFound,      // a file, run or object does not exist            -> step failure / 65
  kIo,            // the OS said no (permissions, disk full, ...)    -> step failure / 70
  kTimeout,       // a deadline passed                               -> step failure
  kUnavailable,   // an LLM provider or remote service did not answer -> 69
  kExists,        // a file the command would create is there already -> 73 (--force replaces it)
  kInternal,      // a bug or an impossible state                    -> 70
};

struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;

  // Prefixes context ("steps[2]: ", "css/style.css: ") without losing the code.
  Error wrap(const std::string& context) const { return {code, context + ": " + message}; }
};

inline Error make_error(ErrorCode code, std::string message) { return {code, std::move(message)}; }

const char* error_code_name(ErrorCode code);

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // REQUIRES: ok()
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // REQUIRES: !ok()
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

struct Unit {};
using Status = Result<Unit>;
inline Status ok_status() { return Unit{}; }

}  // namespace candor

#define CANDOR_CONCAT_INNER(a, b) a##b
#define CANDOR_CONCAT(a, b) CANDOR_CONCAT_INNER(a, b)

// TRY(auto x, expr): evaluates expr (a Result); returns its error from the enclosing function,
// else binds the value. TRY_STATUS(expr) for Results whose value is not needed.
#define TRY(decl, expr)                                                                                \
  auto CANDOR_CONCAT(try_result_, __LINE__) = (expr);                                                  \
  if (!CANDOR_CONCAT(try_result_, __LINE__).ok()) return CANDOR_CONCAT(try_result_, __LINE__).error(); \
  decl = std::move(CANDOR_CONCAT(try_result_, __LINE__)).value()

#define TRY_STATUS(expr)                               \
  do {                                                 \
    auto try_status_ = (expr);                         \
    if (!try_status_.ok()) return try_status_.error(); \
  } while (0)
