// A read-only temporary folder holding one file, for a program that reads files itself (an
// external evaluator) to be shown a path as another file source has it.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "assertions/file_source.h"
#include "core/result.h"

namespace candor::assertions {

// A new folder under $TMPDIR (else /tmp), mode 0555 all the way down, holding `rel` (a normalised
// workspace-relative path) with `content` (mode 0444) when given, else nothing. Removed with all
// it holds when the returned object dies.
Result<std::unique_ptr<MaterializedFiles>> materialize_one(const std::string& rel,
                                                           const std::optional<std::string>& content);

}  // namespace candor::assertions
