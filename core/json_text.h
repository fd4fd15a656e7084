// Parsing JSON text that a person or a model wrote, with errors a person can act on.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace candor {

// kInvalidInput "SOURCE:LINE:COL: not valid JSON: ..." on a syntax error; never throws.
Result<nlohmann::json> parse_json_text(const std::string& text, const std::string& source);

}  // namespace candor
