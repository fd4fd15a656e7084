// The summaries test frameworks print inside test programs (docs/design.md, Trust boundary: "Every
// summary the before-run showed must come back"). A runner that counts programs (ctest, meson,
// make) reports a program that exits 0 as passed, whatever happened inside it: a library whose
// constructor calls `_exit(0)` makes every test program "pass" before `main`. The program's own
// framework prints its own count, and that count is what a change cannot fake without running
// the tests. Pure: no I/O.
//
// Read, each kind added up over every summary of it in the text:
//   - Unity: "3 Tests 1 Failures 0 Ignored";
//   - GoogleTest: "[==========] 3 tests from 1 test suite ran." with "[  PASSED  ] 2 tests.",
//     "[  FAILED  ] 1 test, listed below:", "[  SKIPPED ] 1 test, listed below:";
//   - cmocka: "[==========] 3 test(s) run." (or "[==========] GROUP: 3 test(s) run.") with
//     "[  PASSED  ] 2 test(s).", "[  FAILED  ] 1 test(s), listed below:", "[  SKIPPED ] ...";
//   - Catch2: "All tests passed (3 assertions in 3 test cases)", "test cases: 3 | 2 passed | 1
//     failed" (and "| 1 skipped"), "No tests ran";
//   - doctest: "[doctest] test cases: 3 | 2 passed | 1 failed | 0 skipped";
//   - Check: "66%: Checks: 3, Failures: 1, Errors: 0";
//   - TAP: a plan "1..N" and its "ok N" / "not ok N" lines at the start of a line (a "# SKIP" or
//     "# TODO" directive counts as skipped; a planned test with no line, as failed).
// Colours and carriage returns are ignored.
#pragma once

#include <string_view>
#include <vector>

#include "core/test_summary.h"

namespace candor::evidence {

// Every framework summary in `text`, one per kind found (runner: unity, gtest, cmocka, catch2,
// doctest, check, tap), in that order.
std::vector<TestSummary> read_framework_summaries(std::string_view text);

// Each kind of either list once: where both hold a kind, the one that counted more tests (a
// runner's log holds every program's output, its terminal only the failing ones').
std::vector<TestSummary> merge_framework_summaries(std::vector<TestSummary> a, const std::vector<TestSummary>& b);

// Why `after`, the framework summaries of a passing run, shows fewer tests proved than `before`,
// those of the same command's run before the change: a kind the run before printed that is
// missing now, or that ran fewer tests, skipped more, or counted a failure. "" when none does.
std::string framework_gap(const std::vector<TestSummary>& after, const std::vector<TestSummary>& before);

}  // namespace candor::evidence
