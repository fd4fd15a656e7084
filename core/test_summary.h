// What a test run counted: a runner's closing summary (python -m unittest, pytest, ctest, ...) or
// the summary a test framework printed inside a test program (Unity, GoogleTest, ...). A value
// type: how it is read from a command's output is evidence/'s (evidence/test_runners.h,
// evidence/frameworks.h).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace candor {

struct TestSummary {
  // Whose summary was read: unittest, pytest, meson, ctest, cargo, go, node, jest, vitest, mocha;
  // for a framework inside a test program: unity, gtest, catch2, doctest, check, cmocka, tap.
  std::string runner;
  int ran = 0;  // every test it counted, the skipped ones too (not the deselected or filtered out)
  int passed = 0;
  int failed = 0;   // failures, errors, unexpected passes, timeouts, cancelled
  int skipped = 0;  // skipped, ignored, disabled, to do, expected to fail: counted, and proved nothing
  bool operator==(const TestSummary&) const = default;
};

// "ran 3 tests, 2 passed, 1 skipped"; "ran 0 tests".
std::string describe(const TestSummary& s);

nlohmann::json to_json(const TestSummary& s);
// nullopt when `j` is not an object holding the counts.
std::optional<TestSummary> test_summary_from_json(const nlohmann::json& j);

}  // namespace candor
