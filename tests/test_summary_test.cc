// A test runner's summary, read from what it printed (core/test_summary.h). The outputs are real:
// tests/data/test_summaries/produce.sh made each one by running the runner on a tiny project (its
// comments say how; python3 -m unittest 3.11, pytest 7.2, meson 1.0, ctest 3.25, cargo 1.95,
// go 1.19, node 20, mocha 10, jest 29, vitest 1.6).
#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "evidence/test_runners.h"
#include "tests/test_support.h"

namespace candor {
namespace {

using namespace candor::evidence;

using candor::testing::data_dir;
using candor::testing::read_file;

std::string sample(const std::string& name) { return read_file(data_dir() + "/test_summaries/" + name + ".txt"); }

struct Row {
  const char* sample;
  TestRunner runner;
  std::optional<TestSummary> expected;  // nullopt: no summary to read
};

TestSummary counted(const char* runner, int ran, int passed, int failed, int skipped) {
  return {.runner = runner, .ran = ran, .passed = passed, .failed = failed, .skipped = skipped};
}

struct RunnerRow {
  const char* command;
  std::optional<TestRunner> runner;
};

}  // namespace

TEST_SUITE("evidence") {
  TEST_CASE("test summaries: each runner's real output, read as ran, passed, failed and skipped") {
    using R = TestRunner;
    const Row rows[] = {
        // python3 -m unittest
        {"unittest_ok", R::kUnittest, counted("unittest", 2, 2, 0, 0)},
        {"unittest_ok_skipped", R::kUnittest, counted("unittest", 3, 2, 0, 1)},
        {"unittest_verbose", R::kUnittest, counted("unittest", 3, 2, 0, 1)},
        {"unittest_failed", R::kUnittest, counted("unittest", 1, 0, 1, 0)},
        {"unittest_import_error", R::kUnittest, counted("unittest", 1, 0, 1, 0)},  // the module did not import
        {"unittest_mixed", R::kUnittest, counted("unittest", 6, 1, 3, 2)},         // failure, error, unexpected success
        {"unittest_all_skipped", R::kUnittest, counted("unittest", 1, 0, 0, 1)},
        {"unittest_no_tests", R::kUnittest, counted("unittest", 0, 0, 0, 0)},
        {"unittest_two_runs", R::kUnittest, counted("unittest", 4, 2, 1, 1)},  // two summaries, added up
        // pytest
        {"pytest_passed", R::kPytest, counted("pytest", 4, 3, 0, 1)},  // deselected tests did not run
        {"pytest_passed_quiet", R::kPytest, counted("pytest", 5, 4, 0, 1)},
        {"pytest_verbose", R::kPytest, counted("pytest", 2, 1, 0, 1)},
        {"pytest_color", R::kPytest, counted("pytest", 2, 1, 0, 1)},  // ANSI colours
        {"pytest_mixed", R::kPytest, counted("pytest", 5, 2, 2, 1)},  // xpassed passed, xfailed proved nothing
        {"pytest_collection_error", R::kPytest, counted("pytest", 1, 0, 1, 0)},
        {"pytest_no_tests_ran", R::kPytest, counted("pytest", 0, 0, 0, 0)},  // every test deselected
        // Either summary for a test file run by python itself.
        {"unittest_ok_skipped", R::kPythonTestFile, counted("unittest", 3, 2, 0, 1)},
        {"pytest_passed", R::kPythonTestFile, counted("pytest", 4, 3, 0, 1)},
        // meson test
        {"meson_ok", R::kMeson, counted("meson", 3, 3, 0, 0)},
        {"meson_skipped", R::kMeson, counted("meson", 4, 3, 0, 1)},
        {"meson_failed", R::kMeson, counted("meson", 6, 3, 1, 2)},  // an expected fail proved nothing
        {"meson_none", R::kMeson, counted("meson", 0, 0, 0, 0)},    // exit 0: "No suitable tests defined."
        // ctest: skipped tests are in "out of", disabled ones are not; both are listed as not run.
        {"ctest_ok", R::kCtest, counted("ctest", 3, 3, 0, 0)},
        {"ctest_skipped", R::kCtest, counted("ctest", 5, 3, 0, 2)},
        {"ctest_failed", R::kCtest, counted("ctest", 6, 3, 1, 2)},
        {"ctest_none", R::kCtest, counted("ctest", 0, 0, 0, 0)},  // exit 0: "No tests were found!!!"
        // cargo test: one "test result" per test binary (unit tests, each integration test, doc tests).
        {"cargo_ok", R::kCargo, counted("cargo", 6, 4, 0, 2)},
        {"cargo_failed", R::kCargo, counted("cargo", 5, 3, 1, 1)},
        {"cargo_filtered", R::kCargo, counted("cargo", 1, 1, 0, 0)},  // filtered out: not run
        // go test: a line per test only with -v; without it "ok" is all, and a failure is shown.
        {"go_verbose", R::kGo, counted("go", 6, 5, 0, 1)},  // subtests count
        {"go_failed_verbose", R::kGo, counted("go", 6, 4, 1, 1)},
        {"go_failed", R::kGo, counted("go", 1, 0, 1, 0)},
        {"go_ok", R::kGo, std::nullopt},
        {"go_exit0_in_init", R::kGo, std::nullopt},  // `ok` with -v, and not one test ran
        // JavaScript: node --test (TAP and spec reporters), jest, vitest, mocha.
        {"node_test", R::kJavaScript, counted("node", 4, 3, 0, 1)},
        {"node_test_spec", R::kJavaScript, counted("node", 4, 3, 0, 1)},
        {"node_test_failed", R::kJavaScript, counted("node", 4, 2, 1, 1)},
        {"jest_ok", R::kJavaScript, counted("jest", 4, 3, 0, 1)},
        {"jest_failed", R::kJavaScript, counted("jest", 4, 2, 1, 1)},
        {"vitest_ok", R::kJavaScript, counted("vitest", 4, 3, 0, 1)},
        {"vitest_failed", R::kJavaScript, counted("vitest", 4, 2, 1, 1)},
        {"mocha_ok", R::kJavaScript, counted("mocha", 4, 3, 0, 1)},
        {"mocha_failed", R::kJavaScript, counted("mocha", 4, 2, 1, 1)},
        // A runner's summary is read only as that runner's.
        {"pytest_passed", R::kUnittest, std::nullopt},
        {"unittest_ok", R::kPytest, std::nullopt},
        {"meson_ok", R::kCtest, std::nullopt},
        {"cargo_ok", R::kJavaScript, std::nullopt},
    };
    for (const auto& row : rows) {
      CAPTURE(row.sample);
      CAPTURE(to_string(row.runner));
      auto got = read_test_summary(row.runner, sample(row.sample));
      REQUIRE(got.has_value() == row.expected.has_value());
      if (!got) continue;
      CAPTURE(describe(*got));
      CHECK(*got == *row.expected);
    }
  }

  TEST_CASE("test summaries: nothing printed, or something else, is no summary") {
    for (auto runner : {TestRunner::kUnittest, TestRunner::kPytest, TestRunner::kPythonTestFile, TestRunner::kMeson,
                        TestRunner::kCtest, TestRunner::kCargo, TestRunner::kGo, TestRunner::kJavaScript}) {
      CAPTURE(to_string(runner));
      CHECK_FALSE(read_test_summary(runner, "").has_value());  // os._exit(0) as the package is imported
      CHECK_FALSE(read_test_summary(runner, "Segmentation fault (core dumped)\n").has_value());
      CHECK_FALSE(read_test_summary(runner, "Ran out of patience\nOK\n").has_value());
    }
    // Carriage returns (a Windows-made log) are ignored; a truncated summary line is none.
    CHECK(read_test_summary(TestRunner::kUnittest, "Ran 2 tests in 0.001s\r\n\r\nOK\r\n") ==
          counted("unittest", 2, 2, 0, 0));
    CHECK_FALSE(read_test_summary(TestRunner::kMeson, "Ok:                 3\nExpected Fail:      0\n").has_value());
  }

  TEST_CASE("describe: what a report says of a summary") {
    CHECK(describe(counted("unittest", 1, 0, 0, 1)) == "ran 1 test, 1 skipped");
    CHECK(describe(counted("meson", 16, 15, 1, 0)) == "ran 16 tests, 15 passed, 1 failed");
    CHECK(describe(counted("pytest", 0, 0, 0, 0)) == "ran 0 tests");
    auto j = to_json(counted("cargo", 6, 4, 0, 2));
    CHECK(j == nlohmann::json{{"runner", "cargo"}, {"ran", 6}, {"passed", 4}, {"failed", 0}, {"skipped", 2}});
    CHECK(test_summary_from_json(j) == counted("cargo", 6, 4, 0, 2));
    CHECK_FALSE(test_summary_from_json(nullptr).has_value());
    CHECK_FALSE(test_summary_from_json({{"ran", "1"}}).has_value());
  }

  TEST_CASE("the runner a command runs, from its words") {
    using R = TestRunner;
    const RunnerRow rows[] = {
        {"python3 -m unittest tests.test_x", R::kUnittest},
        {"PYTHONPATH=src python3 -m unittest tests.test_cachedmethod.AutospecTest.test_autospec_no_warnings",
         R::kUnittest},
        {"python -X dev -m unittest discover -s tests", R::kUnittest},
        {"/usr/bin/python3.12 -munittest", R::kUnittest},
        {"coverage run -m unittest", R::kUnittest},
        {"cd src && python3 -m unittest", R::kUnittest},
        {"sh -c 'python3 -m unittest tests.test_a && python3 -m unittest tests.test_b'", R::kUnittest},
        {"bash -lc \"uv run pytest -q\"", R::kPytest},
        {"pytest tests/test_x.py::TestX::test_y", R::kPytest},
        {"python3 -m pytest -k parse", R::kPytest},
        {"env -u HOME FOO=1 timeout 60 pytest", R::kPytest},
        {"poetry run pytest", R::kPytest},
        {"python3 tests/test_x.py", R::kPythonTestFile},
        {"python3 ./test_calc.py -v", R::kPythonTestFile},
        {"export CCACHE_DISABLE=1 && meson setup _build && meson test -C _build --print-errorlogs", R::kMeson},
        {"cmake -B b && cmake --build b && ctest --test-dir b --output-on-failure", R::kCtest},
        {"cargo test", R::kCargo},
        {"cargo +nightly -q test --offline parse", R::kCargo},
        {"go vet ./... && go test -v ./...", R::kGo},
        {"node --test test/", R::kJavaScript},
        {"npm ci && npm test", R::kJavaScript},
        {"npm run test:unit", R::kJavaScript},
        {"yarn test", R::kJavaScript},
        {"pnpm exec vitest run", R::kJavaScript},
        {"npx jest --ci", R::kJavaScript},
        {"npx mocha", R::kJavaScript},
        // No runner candor reads: their count cannot be read.
        {"make test", std::nullopt},
        {"make -C build check", std::nullopt},
        {"tox -e py311", std::nullopt},
        {"python3 setup.py test", std::nullopt},
        {"python3 -c 'import x'", std::nullopt},
        {"python3 scripts/check.py", std::nullopt},  // not a test file by its name
        {"sh run_tests.sh", std::nullopt},
        {"grep -q pytest README.md", std::nullopt},  // the word is an argument, not the program
        {"cargo build", std::nullopt},
        {"meson compile -C b", std::nullopt},
        {"go build ./...", std::nullopt},
        {"node test.js", std::nullopt},
        {"npm run build", std::nullopt},
        {"pytest && cargo test", std::nullopt},  // more than one kind: whose count?
        {"", std::nullopt},
    };
    for (const auto& row : rows) {
      CAPTURE(row.command);
      CHECK(test_runner_of_command(row.command) == row.runner);
    }
    CHECK(test_runner_of(nlohmann::json{{"type", "command_succeeds"}, {"command", "cargo test"}}) == R::kCargo);
    CHECK_FALSE(test_runner_of(nlohmann::json{{"type", "run_suite"}, {"command", "cargo test"}}).has_value());
  }
}

}  // namespace candor
