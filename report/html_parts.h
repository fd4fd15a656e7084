// The sections of the HTML report (report/html.cc puts them together). Each takes the report JSON
// or the events as stored, of any shape, and escapes every string it prints with escape_html.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/trajectory.h"

namespace candor::report {

// Rounds (each with its replan reason) and their steps (each with its `why` and its outcome: ok,
// assertion failed, tool error, no result, not run).
std::string html_timeline(const std::vector<Event>& events);

// The signals table: effect tools, steps, assertions, changed files, suspicious steps, budget,
// scan, sandbox, provider, judge policy, usage.
std::string html_signals(const nlohmann::json& report);

}  // namespace candor::report
