// What a use case reads from its caller before anything runs: files named on the command line,
// the goal-level assertions, the --scope globs. Every error names the input that is wrong.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/json_text.h"
#include "core/result.h"
#include "planner/plan.h"

namespace candor::app {

// Each --scope GLOB in candor's one dialect (core/glob.h); kInvalidInput naming the first invalid
// one and what is wrong with it (exit 65): a glob is never dropped.
Status check_scope_option(const std::vector<std::string>& scope);

// The file's text; kInvalidInput naming the path when it cannot be read or is over `max_bytes`
// (the JSON limits, core/json_text.h: a file of any size is never read whole to be refused).
Result<std::string> read_text_file(const std::string& path, std::size_t max_bytes = kMaxDocumentBytes);

// The goal-level assertions of a run: the config's `expect` (from `config_where`), then each
// --expect text, all validated against `catalog`; errors name the one that is wrong. `key` says
// which list: "expect" (config `expect`, --expect) or "guard" (config `guard`, --guard).
Result<std::vector<nlohmann::json>> parse_expects(const std::vector<std::string>& texts,
                                                  const std::vector<nlohmann::json>& from_config,
                                                  const planner::Catalog& catalog, const std::string& config_where,
                                                  const std::string& key = "expect");

// The workspace a caller names: `workspace` ("" = the current folder), absolute and canonical, as
// runs record theirs; kUsage naming it when it is not a folder.
Result<std::string> caller_workspace(const std::string& workspace);

// Whether `path` is `dir` or lies beneath it, symlinks resolved (for the parts that exist).
bool path_within(const std::string& path, const std::string& dir);

}  // namespace candor::app
