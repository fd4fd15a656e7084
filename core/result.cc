#include "core/result.h"

namespace candor {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kUsage:
      return "usage";
    case ErrorCode::kInvalidInput:
      return "invalid_input";
    case ErrorCode::kRefused:
      return "refused";
    case ErrorCode::kNotFound:
      return "not_found";
    case ErrorCode::kIo:
      return "io";
    case ErrorCode::kTimeout:
      return "timeout";
    case ErrorCode::kUnavailable:
      return "unavailable";
    case ErrorCode::kExists:
      return "exists";
    case ErrorCode::kInternal:
      return "internal";
  }
  return "internal";
}

}  // namespace candor
