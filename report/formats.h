// The other renderings of a stored report: Markdown for a pull-request comment, JUnit XML for CI,
// one self-contained HTML file, and the step log for `report --verbose`. All take the report JSON
// (built once by build_report); HTML and the step log also take the run's events and diffs.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/trajectory.h"

namespace candor::report {

std::string render_markdown(const nlohmann::json& report);

// One <testsuite> per run: a test case for the run (failure for fail, error for partial, as CI
// systems show them) and one per assertion.
std::string render_junit(const std::vector<nlohmann::json>& reports);

// `diffs`: path -> unified diff text. No network fetches, no external assets; every piece of
// workspace and LLM text is escaped.
std::string render_html(const nlohmann::json& report, const std::vector<Event>& events,
                        const std::map<std::string, std::string>& diffs);

// Each step with its tool, target, outcome and capped output, from the events.
std::string render_step_log(const std::vector<Event>& events, std::size_t output_cap, bool color);

// Who wrote an assertion and whether its pass is evidence about the change, for every rendering:
// "by user · discriminating", "by planner · passed before the run too", "by planner".
std::string assertion_provenance(const nlohmann::json& assertion);
// Why a pass recorded `discriminating: false` is no evidence: "passed before the run too", "could
// not be run before the change", or what its test runner's summary shows ("passed but
// printed no test summary ...", core/command_coverage.h's test_count_gap).
std::string not_discriminating_why(const nlohmann::json& assertion);

// The runs of a program an assertion ran (command_succeeds), for every rendering: before the
// change (a user's command), after it, and with each added path emptied. Empty for an assertion
// that ran none.
struct ProgramRunLine {
  std::string label;  // "before the change", "after", "with src/new.py emptied"
  // "exited 1", "exited 0 (ran 1 test, 1 skipped)", "exited 0 (no test summary)", "could not be run: ..."
  std::string outcome;
  std::vector<std::string> output;  // the last lines of its output, blank lines left out
};
std::vector<ProgramRunLine> program_runs(const nlohmann::json& assertion, std::size_t max_lines = 3);

std::string escape_html(const std::string& s);
std::string escape_xml(const std::string& s);

}  // namespace candor::report
