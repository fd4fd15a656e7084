// What a test runner says it ran (docs/design.md, Trust boundary: Commands as evidence). A command that
// exits 0 has not necessarily tested anything: a package that calls `os._exit(0)` when it is
// imported under unittest, or replaces `unittest.TestCase.run` with a skip, passes as a fix does.
// The runner's own summary ("Ran 1 test ... OK (skipped=1)") says what ran. Pure: no I/O.
//
// The runner is known from the command's words (test_runner_of), never from its output: a change
// cannot make a command read as another runner, or as none. What is read of the output is the
// runner's closing summary, every one it printed, added up:
//   - python -m unittest: "Ran N tests in T" then "OK", "OK (skipped=K)", "FAILED (failures=F,
//     errors=E, skipped=K, expected failures=X, unexpected successes=U)", "NO TESTS RAN";
//   - pytest: "== 3 passed, 1 skipped, 2 deselected in 0.12s ==", "no tests ran in T";
//   - meson test: the "Ok: / Expected Fail: / Fail: / Unexpected Pass: / Skipped: / Timeout:"
//     block, "No tests defined." / "No suitable tests defined.";
//   - ctest: "N% tests passed, F tests failed out of T", with the tests it lists as "(Skipped)" or
//     "(Disabled)" under "The following tests did not run:"; "No tests were found!!!";
//   - cargo test: every "test result: ok. P passed; F failed; I ignored; M measured; ..." line;
//   - go test: every "--- PASS:", "--- FAIL:", "--- SKIP:" line, which only `go test -v` prints
//     (without -v, "ok pkg" is all it says, also when the package exited 0 before any test ran:
//     no count can be read); "[no tests to run]";
//   - node --test ("# tests N / # pass P / # fail F / # cancelled C / # skipped S / # todo T", or
//     with "ℹ"), jest ("Tests: 1 skipped, 3 passed, 4 total"), vitest ("Tests  3 passed | 1
//     skipped (4)") and mocha ("3 passing (5ms) / 1 pending / 1 failing"), for any of the
//     JavaScript runners (`npm test` runs whichever the project chose).
// Colours (ANSI escapes) and carriage returns are ignored.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/test_summary.h"
#include "evidence/frameworks.h"

namespace candor::evidence {

// A test runner whose summary candor reads.
enum class TestRunner {
  kUnittest,        // python -m unittest (coverage run -m unittest too)
  kPytest,          // pytest, py.test, python -m pytest
  kPythonTestFile,  // python tests/test_x.py: unittest.main() or pytest.main(), either summary
  kMeson,           // meson test
  kCtest,           // ctest
  kCargo,           // cargo test
  kGo,              // go test
  kJavaScript,      // node --test, npm/yarn/pnpm test, jest, vitest, mocha
};

// How a runner is named in sentences: "python -m unittest", "meson test", ...
const char* to_string(TestRunner r);

// The runner the command line runs, from its words: the program of each simple command (after
// variable assignments and wrappers such as `env`, `timeout 60`, `uv run`, `npx`; into `sh -c
// '...'`). nullopt when it runs none candor reads (`make test`, a script, `tox`), or more than one
// kind (`pytest && cargo test`): its test count cannot be read.
std::optional<TestRunner> test_runner_of_command(std::string_view command);
// Of an assertion: command_succeeds' `command`; nullopt for any other.
std::optional<TestRunner> test_runner_of(const nlohmann::json& assertion);

// The summary `runner` printed in `output`; nullopt when there is none it prints (the run
// stopped before it, or printed nothing at all).
std::optional<TestSummary> read_test_summary(TestRunner runner, std::string_view output);

// What one run of a command counted: its runner's closing summary, when the command runs one
// candor reads (test_runner_of) and it printed one; and the summaries of the test frameworks
// inside its test programs (evidence/frameworks.h), from what it printed and from the logs its
// runner left (`runner_logs`: CTest's LastTest.log, meson's testlog.txt; a runner that counts
// programs prints a passing program's output only there).
struct RunCounts {
  std::optional<TestSummary> runner;
  std::vector<TestSummary> frameworks;
};
RunCounts read_run_counts(const nlohmann::json& assertion, std::string_view output, std::string_view runner_logs = {});

// How the runner of `assertion` is named in sentences ("python -m unittest"); "" when it runs none
// candor reads.
std::string runner_name(const nlohmann::json& assertion);

}  // namespace candor::evidence
