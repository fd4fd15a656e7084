#include "evidence/test_runners.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <re2/re2.h>

#include "core/run_record.h"
#include "evidence/command_coverage.h"

namespace candor::evidence {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string_view basename(std::string_view word) {
  auto slash = word.rfind('/');
  return slash == std::string_view::npos ? word : word.substr(slash + 1);
}

bool assignment(std::string_view word) {
  auto eq = word.find('=');
  if (eq == 0 || eq == std::string_view::npos) return false;
  return std::all_of(word.begin(), word.begin() + static_cast<std::ptrdiff_t>(eq),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }) &&
         std::isdigit(static_cast<unsigned char>(word[0])) == 0;
}

// python, python3, python3.12, pypy3: a name and a version.
bool python_program(std::string_view name) {
  for (std::string_view p : {"python", "pypy"}) {
    if (starts_with(name, p)) {
      std::string_view version = name.substr(p.size());
      return std::all_of(version.begin(), version.end(),
                         [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '.'; });
    }
  }
  return false;
}

// The index of the first word of `words` from `i` on that is not an option; options in
// `with_value` take the next word as theirs.
std::size_t skip_options(const std::vector<std::string>& words, std::size_t i,
                         std::initializer_list<std::string_view> with_value = {}) {
  while (i < words.size() && words[i].size() > 1 && words[i][0] == '-') {
    if (words[i] == "--") return i + 1;
    bool takes = std::find(with_value.begin(), with_value.end(), words[i]) != with_value.end();
    i += takes ? 2 : 1;
  }
  return i;
}

// A Python interpreter's arguments from `i`: `-m unittest`, `-m pytest`, or a test file it runs.
std::optional<TestRunner> python_runner(const std::vector<std::string>& w, std::size_t i) {
  for (; i < w.size(); ++i) {
    const std::string& a = w[i];
    if (a == "-m" || (starts_with(a, "-m") && a.size() > 2)) {
      std::string module = a == "-m" ? (i + 1 < w.size() ? w[i + 1] : "") : a.substr(2);
      if (module == "unittest") return TestRunner::kUnittest;
      if (module == "pytest" || module == "py.test") return TestRunner::kPytest;
      return std::nullopt;
    }
    if (a == "-c") return std::nullopt;
    if (a == "-X" || a == "-W" || a == "--check-hash-based-pycs") {
      ++i;
      continue;
    }
    if (a.size() > 1 && a[0] == '-') continue;
    if (ends_with(a, ".py") && conventional_test_path(normalize_relative_path(a))) return TestRunner::kPythonTestFile;
    return std::nullopt;
  }
  return std::nullopt;
}

constexpr int kMaxNesting = 3;

void runners_of(const std::vector<std::string>& simple, std::set<TestRunner>& found, int depth);

void runners_in(std::string_view command, std::set<TestRunner>& found, int depth) {
  if (depth > kMaxNesting) return;
  for (const auto& simple : shell_commands(command)) runners_of(simple, found, depth);
}

// One simple command: its program, after assignments and the wrappers that run another program.
void runners_of(const std::vector<std::string>& w, std::set<TestRunner>& found, int depth) {
  std::size_t i = 0;
  while (i < w.size()) {
    std::string_view program = basename(w[i]);
    if (assignment(w[i])) {
      ++i;
    } else if (program == "env") {
      ++i;
      while (i < w.size() && (assignment(w[i]) || (w[i].size() > 1 && w[i][0] == '-'))) {
        i += (w[i] == "-u" || w[i] == "-C" || w[i] == "-S") ? 2 : 1;
      }
    } else if (program == "sudo" || program == "time" || program == "exec" || program == "command" ||
               program == "nohup" || program == "xvfb-run" || program == "stdbuf" || program == "setsid" ||
               program == "npx" || program == "pnpx" || program == "bunx") {
      i = skip_options(w, i + 1, {"-u", "-g", "-p", "--package"});
    } else if (program == "nice") {
      i = skip_options(w, i + 1, {"-n"});
    } else if (program == "timeout") {
      i = skip_options(w, i + 1, {"-s", "-k", "--signal", "--kill-after"}) + 1;  // and the duration
    } else if ((program == "uv" || program == "poetry" || program == "pipenv" || program == "hatch" ||
                program == "pdm" || program == "rye") &&
               i + 1 < w.size() && w[i + 1] == "run") {
      i = skip_options(w, i + 2, {"--with", "--python", "-p", "--env", "-e"});
    } else if ((program == "pnpm" || program == "yarn" || program == "npm") && i + 1 < w.size() && w[i + 1] == "exec") {
      i = skip_options(w, i + 2);
    } else {
      break;
    }
  }
  if (i >= w.size()) return;
  std::string_view program = basename(w[i]);
  auto next = [&](std::size_t from) -> std::string_view {
    std::size_t j = skip_options(w, from);
    return j < w.size() ? std::string_view(w[j]) : std::string_view();
  };
  if ((program == "sh" || program == "bash" || program == "dash" || program == "zsh") && i + 1 < w.size()) {
    for (std::size_t j = i + 1; j + 1 < w.size() && w[j].size() > 1 && w[j][0] == '-'; ++j) {
      if (w[j][1] != '-' && w[j].find('c') != std::string::npos) {
        runners_in(w[j + 1], found, depth + 1);
        return;
      }
    }
    return;
  }
  if (python_program(program)) {
    if (auto r = python_runner(w, i + 1)) found.insert(*r);
  } else if (program == "coverage" && i + 1 < w.size() && w[i + 1] == "run") {
    if (auto r = python_runner(w, i + 2)) found.insert(*r);
  } else if (program == "pytest" || program == "py.test" || program == "pytest-3" || program == "py.test-3") {
    found.insert(TestRunner::kPytest);
  } else if (program == "meson" && next(i + 1) == "test") {
    found.insert(TestRunner::kMeson);
  } else if (program == "ctest") {
    found.insert(TestRunner::kCtest);
  } else if (program == "cargo") {
    std::size_t j = i + 1;
    while (j < w.size() && (w[j][0] == '+' || w[j][0] == '-')) ++j;  // +toolchain, -q, --offline
    if (j < w.size() && w[j] == "test") found.insert(TestRunner::kCargo);
  } else if (program == "go" && next(i + 1) == "test") {
    found.insert(TestRunner::kGo);
  } else if (program == "node" || program == "nodejs") {
    for (std::size_t j = i + 1; j < w.size() && w[j].size() > 1 && w[j][0] == '-'; ++j) {
      if (w[j] == "--test") found.insert(TestRunner::kJavaScript);
    }
  } else if (program == "npm" || program == "yarn" || program == "pnpm") {
    std::string_view sub = next(i + 1);
    if (sub == "test" || sub == "t" || sub == "tst") {
      found.insert(TestRunner::kJavaScript);
    } else if (sub == "run" || sub == "run-script") {
      std::size_t j = skip_options(w, i + 1);
      if (starts_with(next(j + 1), "test")) found.insert(TestRunner::kJavaScript);
    } else if (program == "yarn" && (sub == "jest" || sub == "mocha" || sub == "vitest")) {
      found.insert(TestRunner::kJavaScript);
    }
  } else if (program == "jest" || program == "mocha" || program == "_mocha" || program == "vitest") {
    found.insert(TestRunner::kJavaScript);
  }
}

// --- summaries -------------------------------------------------------------------------------

int to_int(const std::string& digits) {
  if (digits.empty() || digits.size() > 9) return digits.empty() ? 0 : 999999999;
  return std::stoi(digits);
}

// "failures=1, errors=2, skipped=1" or "1 failed, 1 skipped" or "1 failed | 2 passed": each count by its name.
std::vector<std::pair<std::string, int>> counts(const std::string& text, const RE2& part) {
  std::vector<std::pair<std::string, int>> out;
  re2::StringPiece in(text);
  std::string a, b;
  while (RE2::FindAndConsume(&in, part, &a, &b)) {
    if (!a.empty() && std::isdigit(static_cast<unsigned char>(a[0])) != 0)
      out.emplace_back(b, to_int(a));
    else
      out.emplace_back(a, to_int(b));
  }
  return out;
}

int count_of(const std::vector<std::pair<std::string, int>>& parts, std::initializer_list<std::string_view> names) {
  int n = 0;
  for (const auto& [name, value] : parts) {
    if (std::find(names.begin(), names.end(), name) != names.end()) n += value;
  }
  return n;
}

std::optional<TestSummary> unittest_summary(const std::string& out) {
  static const RE2 block(R"((?m)^Ran (\d+) tests? in [0-9.]+m?s\s*\n\s*(OK|FAILED|NO TESTS RAN)(?: \(([^)\n]*)\))?)");
  static const RE2 part(R"(([a-z][a-z ]*)=(\d+))");
  std::optional<TestSummary> s;
  re2::StringPiece in(out);
  std::string ran, status, details;
  while (RE2::FindAndConsume(&in, block, &ran, &status, &details)) {
    if (!s) s = TestSummary{.runner = "unittest"};
    auto parts = counts(details, part);
    int n = to_int(ran);
    int failed = count_of(parts, {"failures", "errors", "unexpected successes"});
    int skipped = count_of(parts, {"skipped", "expected failures"});
    s->ran += n;
    s->failed += failed;
    s->skipped += skipped;
    s->passed += std::max(0, n - failed - skipped);
  }
  if (s) {
    // A name it was told that does not exist is loaded as a failing test (_FailedTest): it ran nothing.
    static const RE2 not_found(
        R"((?m)^ERROR: (\w+) \(unittest\.loader\._FailedTest\.\w+\)\n-+\nAttributeError: [^\n]* has no attribute '(\w+)')");
    re2::StringPiece scan(out);
    std::string told, missing;
    while (RE2::FindAndConsume(&scan, not_found, &told, &missing)) {
      if (told != missing || s->failed == 0) continue;
      --s->failed;
      --s->ran;
    }
  }
  return s;
}

std::optional<TestSummary> pytest_summary(const std::string& out) {
  static const RE2 line(R"((?m)^=*[ \t]*((?:\d+ [a-z]+, )*\d+ [a-z]+) in [0-9.]+s(?: \([0-9:.]+\))?[ \t]*=*[ \t]*$)");
  static const RE2 none(R"((?m)^=*[ \t]*no tests ran in [0-9.]+s)");
  static const RE2 part(R"((\d+) ([a-z]+))");
  std::optional<TestSummary> s;
  re2::StringPiece in(out);
  std::string parts_text;
  while (RE2::FindAndConsume(&in, line, &parts_text)) {
    if (!s) s = TestSummary{.runner = "pytest"};
    auto parts = counts(parts_text, part);
    int passed = count_of(parts, {"passed", "xpassed"});
    int failed = count_of(parts, {"failed", "error", "errors"});
    int skipped = count_of(parts, {"skipped", "xfailed"});
    s->passed += passed;
    s->failed += failed;
    s->skipped += skipped;
    s->ran += passed + failed + skipped;
  }
  if (!s && RE2::PartialMatch(out, none)) s = TestSummary{.runner = "pytest"};
  return s;
}

std::optional<TestSummary> meson_summary(const std::string& out) {
  static const RE2 block(
      R"((?m)^Ok:\s+(\d+)\s*\nExpected Fail:\s+(\d+)\s*\nFail:\s+(\d+)\s*\nUnexpected Pass:\s+(\d+)\s*\nSkipped:\s+(\d+)\s*\nTimeout:\s+(\d+))");
  static const RE2 none(R"((?m)^No (?:suitable )?tests defined\.)");
  std::optional<TestSummary> s;
  re2::StringPiece in(out);
  std::string ok, xfail, fail, xpass, skip, timeout;
  while (RE2::FindAndConsume(&in, block, &ok, &xfail, &fail, &xpass, &skip, &timeout)) {
    if (!s) s = TestSummary{.runner = "meson"};
    s->passed += to_int(ok);
    s->failed += to_int(fail) + to_int(xpass) + to_int(timeout);
    s->skipped += to_int(skip) + to_int(xfail);
    s->ran += to_int(ok) + to_int(fail) + to_int(xpass) + to_int(timeout) + to_int(skip) + to_int(xfail);
  }
  if (!s && RE2::PartialMatch(out, none)) s = TestSummary{.runner = "meson"};
  return s;
}

std::optional<TestSummary> ctest_summary(const std::string& out) {
  static const RE2 line(R"((?m)^\d+% tests passed, (\d+) tests? failed out of (\d+))");
  static const RE2 not_run(R"((?m)^[ \t]+\d+ - .+ \((Skipped|Disabled)\)[ \t]*$)");
  static const RE2 none(R"((?m)^No tests were found!!!)");
  std::optional<TestSummary> s;
  re2::StringPiece in(out);
  std::string failed, total;
  while (RE2::FindAndConsume(&in, line, &failed, &total)) {
    if (!s) s = TestSummary{.runner = "ctest"};
    s->ran += to_int(total);
    s->failed += to_int(failed);
    s->passed += to_int(total) - to_int(failed);
  }
  if (!s) {
    if (RE2::PartialMatch(out, none)) return TestSummary{.runner = "ctest"};
    return s;
  }
  // Skipped tests are in "out of", disabled ones are not; both are listed as not run.
  re2::StringPiece list(out);
  std::string why;
  while (RE2::FindAndConsume(&list, not_run, &why)) {
    ++s->skipped;
    if (why == "Disabled")
      ++s->ran;
    else
      --s->passed;
  }
  s->passed = std::max(0, s->passed);
  return s;
}

std::optional<TestSummary> cargo_summary(const std::string& out) {
  static const RE2 line(
      R"((?m)^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored; (\d+) measured; \d+ filtered out)");
  std::optional<TestSummary> s;
  re2::StringPiece in(out);
  std::string passed, failed, ignored, measured;
  while (RE2::FindAndConsume(&in, line, &passed, &failed, &ignored, &measured)) {
    if (!s) s = TestSummary{.runner = "cargo"};
    s->passed += to_int(passed) + to_int(measured);
    s->failed += to_int(failed);
    s->skipped += to_int(ignored);
    s->ran += to_int(passed) + to_int(measured) + to_int(failed) + to_int(ignored);
  }
  return s;
}

std::optional<TestSummary> go_summary(const std::string& out) {
  static const RE2 line(R"((?m)^[ \t]*--- (PASS|FAIL|SKIP): )");
  static const RE2 none(R"((?m)(\[no tests to run\]|^testing: warning: no tests to run))");
  std::optional<TestSummary> s;
  re2::StringPiece in(out);
  std::string result;
  while (RE2::FindAndConsume(&in, line, &result)) {
    if (!s) s = TestSummary{.runner = "go"};
    ++s->ran;
    ++(result == "PASS" ? s->passed : result == "FAIL" ? s->failed : s->skipped);
  }
  if (!s && RE2::PartialMatch(out, none)) s = TestSummary{.runner = "go"};
  return s;
}

std::optional<TestSummary> node_summary(const std::string& out) {
  static const RE2 block(
      R"((?m)^(?:#|ℹ) tests (\d+)\n(?:(?:#|ℹ) suites \d+\n)?(?:#|ℹ) pass (\d+)\n(?:#|ℹ) fail (\d+)\n(?:(?:#|ℹ) cancelled (\d+)\n)?(?:#|ℹ) skipped (\d+)\n(?:#|ℹ) todo (\d+))");
  std::optional<TestSummary> s;
  re2::StringPiece in(out);
  std::string tests, pass, fail, cancelled, skipped, todo;
  while (RE2::FindAndConsume(&in, block, &tests, &pass, &fail, &cancelled, &skipped, &todo)) {
    if (!s) s = TestSummary{.runner = "node"};
    s->ran += to_int(tests);
    s->passed += to_int(pass);
    s->failed += to_int(fail) + to_int(cancelled);
    s->skipped += to_int(skipped) + to_int(todo);
  }
  return s;
}

// A summary line "<counts by word> <total>" (jest: "Tests: 1 failed, 2 passed, 3 total"; vitest:
// "Tests  1 failed | 2 passed (3)"), each one found added up.
std::optional<TestSummary> counted_summary(const std::string& out, const RE2& line, const char* runner,
                                           std::initializer_list<std::string_view> skipped_words) {
  static const RE2 part(R"((\d+) ([a-z]+))");
  std::optional<TestSummary> s;
  re2::StringPiece in(out);
  std::string parts_text, total;
  while (RE2::FindAndConsume(&in, line, &parts_text, &total)) {
    if (!s) s = TestSummary{.runner = runner};
    auto parts = counts(parts_text, part);
    s->ran += to_int(total);
    s->passed += count_of(parts, {"passed"});
    s->failed += count_of(parts, {"failed"});
    s->skipped += count_of(parts, skipped_words);
  }
  return s;
}

std::optional<TestSummary> jest_summary(const std::string& out) {
  static const RE2 line(R"((?m)^Tests:[ \t]+((?:\d+ [a-z]+, )*)(\d+) total)");
  return counted_summary(out, line, "jest", {"skipped", "todo", "pending"});
}

std::optional<TestSummary> vitest_summary(const std::string& out) {
  static const RE2 line(R"((?m)^[ \t]*Tests[ \t]+((?:\d+ [a-z]+(?: \| )?)+)[ \t]*\((\d+)\))");
  return counted_summary(out, line, "vitest", {"skipped", "todo"});
}

std::optional<TestSummary> mocha_summary(const std::string& out) {
  static const RE2 block(
      R"((?m)^[ \t]+(\d+) passing \([^)\n]*\)[ \t]*(?:\n[ \t]+(\d+) pending[ \t]*)?(?:\n[ \t]+(\d+) failing[ \t]*)?$)");
  std::optional<TestSummary> s;
  re2::StringPiece in(out);
  std::string passing, pending, failing;
  while (RE2::FindAndConsume(&in, block, &passing, &pending, &failing)) {
    if (!s) s = TestSummary{.runner = "mocha"};
    s->passed += to_int(passing);
    s->skipped += to_int(pending);
    s->failed += to_int(failing);
    s->ran += to_int(passing) + to_int(pending) + to_int(failing);
  }
  return s;
}

// The output as the runner meant it: no colours, no carriage returns.
std::string plain(std::string_view output) {
  static const RE2 escape(R"(\x1b\[[0-9;?]*[A-Za-z])");
  std::string out(output);
  RE2::GlobalReplace(&out, escape, "");
  std::erase(out, '\r');
  return out;
}

}  // namespace

const char* to_string(TestRunner r) {
  switch (r) {
    case TestRunner::kUnittest:
      return "python -m unittest";
    case TestRunner::kPytest:
      return "pytest";
    case TestRunner::kPythonTestFile:
      return "a Python test file";
    case TestRunner::kMeson:
      return "meson test";
    case TestRunner::kCtest:
      return "ctest";
    case TestRunner::kCargo:
      return "cargo test";
    case TestRunner::kGo:
      return "go test";
    case TestRunner::kJavaScript:
      return "a JavaScript test runner";
  }
  return "a test runner";
}

std::optional<TestRunner> test_runner_of_command(std::string_view command) {
  std::set<TestRunner> found;
  runners_in(command, found, 0);
  if (found.size() != 1) return std::nullopt;
  return *found.begin();
}

std::optional<TestRunner> test_runner_of(const nlohmann::json& assertion) {
  if (!assertion.is_object() || !assertion.contains("type") || assertion["type"] != "command_succeeds" ||
      !assertion.contains("command") || !assertion["command"].is_string())
    return std::nullopt;
  return test_runner_of_command(assertion["command"].get<std::string>());
}

std::optional<TestSummary> read_test_summary(TestRunner runner, std::string_view output) {
  std::string out = plain(output);
  switch (runner) {
    case TestRunner::kUnittest:
      return unittest_summary(out);
    case TestRunner::kPytest:
      return pytest_summary(out);
    case TestRunner::kPythonTestFile:
      if (auto s = unittest_summary(out)) return s;
      return pytest_summary(out);
    case TestRunner::kMeson:
      return meson_summary(out);
    case TestRunner::kCtest:
      return ctest_summary(out);
    case TestRunner::kCargo:
      return cargo_summary(out);
    case TestRunner::kGo:
      return go_summary(out);
    case TestRunner::kJavaScript:
      for (auto read : {node_summary, jest_summary, vitest_summary, mocha_summary}) {
        if (auto s = read(out)) return s;
      }
      return std::nullopt;
  }
  return std::nullopt;
}

RunCounts read_run_counts(const nlohmann::json& assertion, std::string_view output, std::string_view runner_logs) {
  RunCounts counts;
  if (auto runner = test_runner_of(assertion)) counts.runner = read_test_summary(*runner, output);
  counts.frameworks =
      merge_framework_summaries(read_framework_summaries(output), read_framework_summaries(runner_logs));
  return counts;
}

std::string runner_name(const nlohmann::json& assertion) {
  auto runner = test_runner_of(assertion);
  return runner ? to_string(*runner) : "";
}

}  // namespace candor::evidence
