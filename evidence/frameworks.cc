#include "evidence/frameworks.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>
#include <re2/re2.h>

namespace candor::evidence {
namespace {

int to_int(const std::string& digits) {
  if (digits.empty()) return 0;
  if (digits.size() > 9) return 999999999;
  return std::stoi(digits);
}

// No colours, no carriage returns, and no "N: " in front of a line (ctest -V and -j: the test's number).
std::string plain(std::string_view text) {
  static const RE2 escape(R"(\x1b\[[0-9;?]*[A-Za-z])");
  static const RE2 ctest_prefix(R"((?m)^\d+: )");
  std::string out(text);
  RE2::GlobalReplace(&out, escape, "");
  RE2::GlobalReplace(&out, ctest_prefix, "");
  std::erase(out, '\r');
  return out;
}

void add(std::optional<TestSummary>& s, const char* kind, int passed, int failed, int skipped) {
  if (!s) s = TestSummary{.runner = kind};
  s->passed += passed;
  s->failed += failed;
  s->skipped += skipped;
  s->ran += passed + failed + skipped;
}

std::optional<TestSummary> unity(const std::string& out) {
  static const RE2 line(R"((?m)^(\d+) Tests (\d+) Failures (\d+) Ignored\s*$)");
  std::optional<TestSummary> s;
  re2::StringPiece in(out);
  std::string tests, failures, ignored;
  while (RE2::FindAndConsume(&in, line, &tests, &failures, &ignored)) {
    int f = to_int(failures), i = to_int(ignored);
    add(s, "unity", std::max(0, to_int(tests) - f - i), f, i);
  }
  return s;
}

// GoogleTest and cmocka print the same block: "[==========] N tests ... ran." then the passed,
// failed and skipped lines; the block of each program is read on its own.
std::optional<TestSummary> gtest_like(const std::string& out, const RE2& head, const char* kind) {
  static const RE2 passed(R"(^\[  PASSED  \] (\d+) tests?(?:\(s\))?\.)");
  static const RE2 failed(R"(^\[  FAILED  \] (\d+) tests?(?:\(s\))?, listed below:)");
  static const RE2 skipped(R"(^\[  SKIPPED \] (\d+) tests?(?:\(s\))?, listed below:)");
  std::optional<TestSummary> s;
  re2::StringPiece in(out);
  std::string ran;
  while (RE2::FindAndConsume(&in, head, &ran)) {
    // The lines right after the head, up to the next blank line.
    std::string_view rest(in.data(), in.size());
    std::size_t end = rest.find("\n\n");
    std::string block(rest.substr(0, end));
    int p = 0, f = 0, k = 0;
    std::size_t at = 0;
    while (at < block.size()) {
      std::size_t nl = block.find('\n', at);
      std::string l = block.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
      std::string n;
      if (RE2::PartialMatch(l, passed, &n)) p = to_int(n);
      if (RE2::PartialMatch(l, failed, &n)) f = to_int(n);
      if (RE2::PartialMatch(l, skipped, &n)) k = to_int(n);
      if (nl == std::string::npos) break;
      at = nl + 1;
    }
    int total = to_int(ran);
    if (!s) s = TestSummary{.runner = kind};
    s->ran += total;
    s->passed += p;
    s->skipped += k;
    // A test the counts leave out (a crash between head and lines) passed nothing: a failure.
    s->failed += std::max(f, total - p - k);
  }
  return s;
}

std::optional<TestSummary> gtest(const std::string& out) {
  static const RE2 head(R"((?m)^\[==========\] (\d+) tests? from \d+ test (?:suites?|cases?) ran\.)");
  return gtest_like(out, head, "gtest");
}

std::optional<TestSummary> cmocka(const std::string& out) {
  static const RE2 head(R"((?m)^\[==========\] (?:[^\n:]*: )?(\d+) test\(s\) run\.)");
  return gtest_like(out, head, "cmocka");
}

// Catch2's and doctest's "test cases: N | P passed | F failed | S skipped" (doctest's N leaves the
// skipped ones out; Catch2's counts them).
std::optional<TestSummary> catch2(const std::string& out) {
  static const RE2 all(R"((?m)^All tests passed \(\d+ assertions? in (\d+) test cases?\))");
  static const RE2 line(R"((?m)^test cases:\s+(\d+) \|((?: +\d+ [a-z]+(?: \|)?)+))");
  static const RE2 none(R"((?m)^No tests ran\s*$)");
  static const RE2 part(R"((\d+) ([a-z]+))");
  std::optional<TestSummary> s;
  re2::StringPiece in(out);
  std::string n, parts;
  while (RE2::FindAndConsume(&in, all, &n)) add(s, "catch2", to_int(n), 0, 0);
  in = re2::StringPiece(out);
  while (RE2::FindAndConsume(&in, line, &n, &parts)) {
    int p = 0, f = 0, k = 0;
    re2::StringPiece ps(parts);
    std::string count, word;
    while (RE2::FindAndConsume(&ps, part, &count, &word)) {
      if (word == "passed") p += to_int(count);
      if (word == "failed") f += to_int(count);
      if (word == "skipped") k += to_int(count);
    }
    // What the counts leave out of the total failed (Catch2 calls a test that threw "failed as expected" too).
    f = std::max(f, to_int(n) - p - k);
    add(s, "catch2", p, f, k);
  }
  if (!s && RE2::PartialMatch(out, none)) s = TestSummary{.runner = "catch2"};
  return s;
}

std::optional<TestSummary> doctest(const std::string& out) {
  static const RE2 line(
      R"((?m)^\[doctest\] test cases:\s*(\d+) \|\s*(\d+) passed \|\s*(\d+) failed \|\s*(\d+) skipped)");
  std::optional<TestSummary> s;
  re2::StringPiece in(out);
  std::string n, p, f, k;
  while (RE2::FindAndConsume(&in, line, &n, &p, &f, &k)) add(s, "doctest", to_int(p), to_int(f), to_int(k));
  return s;
}

std::optional<TestSummary> check(const std::string& out) {
  static const RE2 line(R"((?m)^\d+%: Checks: (\d+), Failures: (\d+), Errors: (\d+))");
  std::optional<TestSummary> s;
  re2::StringPiece in(out);
  std::string n, f, e;
  while (RE2::FindAndConsume(&in, line, &n, &f, &e)) {
    int failed = to_int(f) + to_int(e);
    add(s, "check", std::max(0, to_int(n) - failed), failed, 0);
  }
  return s;
}

// TAP: each plan "1..N" (at a line's start: a subtest's is indented) with its result lines, before
// them or after them (Test::More's done_testing); several programs' streams one after another.
std::optional<TestSummary> tap(const std::string& out) {
  static const RE2 plan(R"(^1\.\.(\d+)(?:\s|$))");
  static const RE2 result(R"(^(not )?ok\b(?: \d+)?([^\n]*))");
  static const RE2 directive(R"((?i)#\s*(skip|todo)\b)");
  std::optional<TestSummary> s;
  int planned = -1, p = 0, f = 0, k = 0;
  bool any_plan = false;
  auto close = [&] {
    int seen = p + f + k;
    if (planned < 0 && seen == 0) return;
    add(s, "tap", p, f + std::max(0, planned - seen), k);
    planned = -1;
    p = f = k = 0;
  };
  std::size_t at = 0;
  while (at < out.size()) {
    std::size_t nl = out.find('\n', at);
    std::string l = out.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
    std::string n, negated, rest;
    if (RE2::PartialMatch(l, plan, &n)) {
      any_plan = true;
      if (planned < 0 && p + f + k > 0) {  // the plan after its lines ends them
        planned = to_int(n);
        close();
      } else {  // a new stream begins
        close();
        planned = to_int(n);
      }
    } else if (RE2::PartialMatch(l, result, &negated, &rest)) {
      if (RE2::PartialMatch(rest, directive))
        ++k;
      else
        ++(negated.empty() ? p : f);
    }
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  close();
  if (!any_plan) return std::nullopt;  // "ok" lines without a plan are anyone's words
  return s;
}

}  // namespace

std::vector<TestSummary> read_framework_summaries(std::string_view text) {
  std::string out = plain(text);
  std::vector<TestSummary> found;
  for (auto read : {unity, gtest, cmocka, catch2, doctest, check, tap}) {
    if (auto s = read(out)) found.push_back(*s);
  }
  return found;
}

std::vector<TestSummary> merge_framework_summaries(std::vector<TestSummary> a, const std::vector<TestSummary>& b) {
  for (const auto& s : b) {
    auto same = std::find_if(a.begin(), a.end(), [&](const TestSummary& x) { return x.runner == s.runner; });
    if (same == a.end())
      a.push_back(s);
    else if (s.ran > same->ran)
      *same = s;
  }
  return a;
}

std::string framework_gap(const std::vector<TestSummary>& after, const std::vector<TestSummary>& before) {
  for (const auto& now : after) {
    if (now.failed > 0)
      return fmt::format("exited 0 although the {} summary inside it counted {} failed ({})", now.runner, now.failed,
                         describe(now));
  }
  for (const auto& was : before) {
    auto now = std::find_if(after.begin(), after.end(), [&](const TestSummary& s) { return s.runner == was.runner; });
    if (now == after.end()) {
      return fmt::format(
          "ran fewer tests after the change than before it: the {} summary its test programs printed before ({}) "
          "is missing after (a program that exits before its tests run passes its runner)",
          was.runner, describe(was));
    }
    if (now->ran < was.ran)
      return fmt::format("ran fewer {} tests after the change than before it ({}; before: {})", was.runner,
                         describe(*now), describe(was));
    if (now->skipped > was.skipped)
      return fmt::format("skipped more {} tests after the change than before it ({}; before: {})", was.runner,
                         describe(*now), describe(was));
  }
  return "";
}

}  // namespace candor::evidence
