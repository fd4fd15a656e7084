// The test binary's main: one binary, suites selected with --test-suite. Each test case gets a
// scratch folder, removed when the case passes and kept (and named) when it fails.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <csignal>
#include <cstdio>
#include <filesystem>

#include "tests/test_support.h"

namespace {

struct ScratchListener : doctest::IReporter {
  explicit ScratchListener(const doctest::ContextOptions& /*opts*/) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_start(const doctest::TestCaseData&) override { candor::testing::begin_scratch(); }
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats& stats) override {
    candor::testing::end_scratch(stats.failure_flags == 0 && stats.testCaseSuccess);
  }
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

}  // namespace

REGISTER_LISTENER("scratch", 1, ScratchListener);

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  doctest::Context context(argc, argv);
  return context.run();
}
