// The test binary's main: one binary, suites selected with --test-suite. Each test case gets a
// scratch folder, removed when the case passes and kept (and named) when it fails. A case skipped
// because this machine lacks a kernel feature (tests/kernel_facts.h) is named, with the feature.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <fnmatch.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/test_support.h"

namespace {

// The --test-suite and --test-case filters of the command line: doctest keeps its own to itself.
std::vector<std::string> g_suite_filters, g_case_filters;

void split_into(std::vector<std::string>& out, const std::string& list) {
  for (std::size_t pos = 0; pos <= list.size();) {
    std::size_t comma = list.find(',', pos);
    if (comma == std::string::npos) comma = list.size();
    out.push_back(list.substr(pos, comma - pos));
    pos = comma + 1;
  }
}

void read_filters(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--dt-", 0) == 0) arg = "--" + arg.substr(5);
    for (const char* name : {"--test-suite=", "-ts="})
      if (arg.rfind(name, 0) == 0) split_into(g_suite_filters, arg.substr(std::string(name).size()));
    for (const char* name : {"--test-case=", "-tc="})
      if (arg.rfind(name, 0) == 0) split_into(g_case_filters, arg.substr(std::string(name).size()));
  }
}

bool selected(const std::vector<std::string>& filters, const char* name) {
  if (filters.empty()) return true;
  for (const auto& f : filters)
    if (::fnmatch(f.c_str(), name, FNM_CASEFOLD) == 0) return true;
  return false;
}

struct ScratchListener : doctest::IReporter {
  explicit ScratchListener(const doctest::ContextOptions& /*opts*/) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_start(const doctest::TestCaseData&) override { candor::testing::begin_scratch(); }
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats& stats) override {
    // A test marked should_fail (a known gap) that failed as expected passed: nothing to keep.
    bool expected_failure = (stats.failure_flags & doctest::TestCaseFailureReason::ShouldHaveFailedAndDid) != 0;
    candor::testing::end_scratch(stats.testCaseSuccess && (stats.failure_flags == 0 || expected_failure));
  }
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData& tc) override {
    // Called for every case the filters leave out too: only a skip decorator's own are named.
    if (!tc.m_skip || tc.m_description == nullptr || *tc.m_description == '\0') return;
    if (!selected(g_suite_filters, tc.m_test_suite) || !selected(g_case_filters, tc.m_name)) return;
    std::printf("[doctest] SKIPPED, this machine lacks %s: %s\n", tc.m_description, tc.m_name);
  }
};

}  // namespace

REGISTER_LISTENER("scratch", 1, ScratchListener);

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  read_filters(argc, argv);
  doctest::Context context(argc, argv);
  return context.run();
}
