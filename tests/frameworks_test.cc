// The summaries test frameworks print inside test programs (evidence/frameworks.h). The outputs are
// real: tests/data/framework_summaries/produce.sh made each one by building a tiny program against
// the framework (Unity, GoogleTest, Catch2 2, doctest 2.4, Check 0.15, cmocka 1.1, Perl's
// Test::More for TAP) and running it, and CTest running Unity programs.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "evidence/frameworks.h"
#include "tests/test_support.h"

namespace doctest {
// Failed checks print the counts, not "{?}".
template <>
struct StringMaker<std::vector<candor::TestSummary>> {
  static String convert(const std::vector<candor::TestSummary>& v) {
    std::string out = "[";
    for (const auto& s : v) out += (out.size() > 1 ? "; " : "") + s.runner + ": " + candor::describe(s);
    return (out + "]").c_str();
  }
};
}  // namespace doctest

namespace candor {
namespace {

using candor::testing::data_dir;
using candor::testing::read_file;
using evidence::framework_gap;
using evidence::merge_framework_summaries;
using evidence::read_framework_summaries;

std::string sample(const std::string& name) { return read_file(data_dir() + "/framework_summaries/" + name + ".txt"); }

TestSummary counted(const char* kind, int ran, int passed, int failed, int skipped) {
  return {.runner = kind, .ran = ran, .passed = passed, .failed = failed, .skipped = skipped};
}

struct Row {
  const char* sample;
  std::vector<TestSummary> expected;
};

}  // namespace

TEST_SUITE("evidence") {
  TEST_CASE("framework summaries: each framework's real output, read as ran, passed, failed and skipped") {
    const Row rows[] = {
        {"unity_ok", {counted("unity", 3, 3, 0, 0)}},
        {"unity_failed", {counted("unity", 3, 2, 1, 0)}},
        {"unity_ignored", {counted("unity", 3, 2, 0, 1)}},
        {"gtest_ok", {counted("gtest", 3, 3, 0, 0)}},
        {"gtest_failed", {counted("gtest", 3, 2, 1, 0)}},
        {"gtest_skipped", {counted("gtest", 3, 2, 0, 1)}},
        {"catch2_ok", {counted("catch2", 3, 3, 0, 0)}},
        {"catch2_failed", {counted("catch2", 3, 2, 1, 0)}},
        {"doctest_ok", {counted("doctest", 3, 3, 0, 0)}},
        {"doctest_failed", {counted("doctest", 3, 2, 1, 0)}},
        {"doctest_skipped", {counted("doctest", 3, 2, 0, 1)}},  // doctest's own total leaves the skipped out
        {"check_ok", {counted("check", 3, 3, 0, 0)}},
        {"check_failed", {counted("check", 3, 2, 1, 0)}},
        {"cmocka_ok", {counted("cmocka", 3, 3, 0, 0)}},
        {"cmocka_failed", {counted("cmocka", 3, 2, 1, 0)}},
        {"cmocka_skipped", {counted("cmocka", 3, 2, 0, 1)}},
        {"tap_ok", {counted("tap", 3, 3, 0, 0)}},
        {"tap_failed", {counted("tap", 3, 2, 1, 0)}},
        {"tap_skipped", {counted("tap", 3, 2, 0, 1)}},
        // ctest -V prints every program's output: both Unity programs, added up.
        {"ctest_unity_verbose", {counted("unity", 6, 5, 1, 0)}},
        // --output-on-failure prints only the failing program's.
        {"ctest_unity_output_on_failure", {counted("unity", 3, 2, 1, 0)}},
        {"ctest_unity_ok_output_on_failure", {}},
    };
    for (const auto& row : rows) {
      std::string name = row.sample;
      CAPTURE(name);
      CHECK(read_framework_summaries(sample(row.sample)) == row.expected);
    }
  }

  TEST_CASE("framework summaries: words that only look like a summary are not one") {
    CHECK(read_framework_summaries("ok 1 - looks like TAP\nok 2\n").empty());  // no plan
    CHECK(read_framework_summaries("we ran 3 Tests today\n").empty());
    CHECK(read_framework_summaries("").empty());
    // A plan with fewer result lines than planned: the missing ones failed (the program died).
    CHECK(read_framework_summaries("1..3\nok 1\n") == std::vector<TestSummary>{counted("tap", 3, 1, 2, 0)});
    // Colours and carriage returns are ignored.
    CHECK(read_framework_summaries("\x1b[32m3 Tests 0 Failures 0 Ignored \x1b[0m\r\n") ==
          std::vector<TestSummary>{counted("unity", 3, 3, 0, 0)});
  }

  TEST_CASE("framework summaries: a runner's log beside its terminal, each kind once, the larger count") {
    auto merged = merge_framework_summaries(read_framework_summaries(sample("ctest_unity_output_on_failure")),
                                            read_framework_summaries(sample("ctest_unity_verbose")));
    CHECK(merged == std::vector<TestSummary>{counted("unity", 6, 5, 1, 0)});
    CHECK(merge_framework_summaries({}, {counted("gtest", 2, 2, 0, 0)}) ==
          std::vector<TestSummary>{counted("gtest", 2, 2, 0, 0)});
  }

  TEST_CASE("framework gap: every kind the run before printed must come back, no fewer run, none failing") {
    struct GapRow {
      const char* name;
      std::vector<TestSummary> after, before;
      const char* gap;  // a phrase the reason holds, "" for none
    };
    const GapRow rows[] = {
        {"the same kind, all passing", {counted("unity", 3, 3, 0, 0)}, {counted("unity", 3, 2, 1, 0)}, ""},
        {"more ran", {counted("unity", 4, 4, 0, 0)}, {counted("unity", 3, 2, 1, 0)}, ""},
        {"nothing before, nothing after", {}, {}, ""},
        {"a kind only after", {counted("gtest", 1, 1, 0, 0)}, {}, ""},
        // The constructor that exits 0 before main: Unity's summary is gone.
        {"vanished", {}, {counted("unity", 1, 0, 1, 0)}, "is missing after"},
        {"fewer ran", {counted("unity", 2, 2, 0, 0)}, {counted("unity", 3, 2, 1, 0)}, "ran fewer unity tests"},
        {"more skipped", {counted("tap", 3, 2, 0, 1)}, {counted("tap", 3, 2, 1, 0)}, "skipped more tap tests"},
        {"a failure counted after", {counted("check", 3, 2, 1, 0)}, {counted("check", 3, 2, 1, 0)}, "counted 1 failed"},
        {"one kind of two vanished",
         {counted("unity", 3, 3, 0, 0)},
         {counted("unity", 3, 2, 1, 0), counted("gtest", 2, 1, 1, 0)},
         "gtest summary"},
    };
    for (const auto& row : rows) {
      CAPTURE(row.name);
      std::string gap = framework_gap(row.after, row.before);
      if (std::string(row.gap).empty()) {
        CHECK(gap.empty());
      } else {
        CHECK(gap.find(row.gap) != std::string::npos);
      }
    }
  }
}

}  // namespace candor
