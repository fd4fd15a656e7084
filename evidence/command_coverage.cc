#include "evidence/command_coverage.h"

#include <algorithm>
#include <array>
#include <cctype>

#include <fmt/format.h>

#include "core/glob.h"
#include "core/run_record.h"
#include "evidence/frameworks.h"

namespace candor::evidence {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool is_operator(char c) {
  return c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '<' || c == '>' || c == '`';
}
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool identifier(std::string_view s) {
  if (s.empty() || (std::isalpha(static_cast<unsigned char>(s[0])) == 0 && s[0] != '_')) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; });
}

std::vector<std::string> split(std::string_view s, char at) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (true) {
    std::size_t j = s.find(at, i);
    out.emplace_back(s.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i));
    if (j == std::string_view::npos) return out;
    i = j + 1;
  }
}

// `tests.test_x.TestX`: python -m unittest's and pytest --pyargs' names. Its module files are the
// prefixes' (`tests.py`, `tests/test_x.py`, `tests/test_x/TestX.py`), the whole name a package.
void add_dotted(const std::string& word, std::vector<std::string>& named) {
  if (word.find('/') != std::string::npos || word.find('.') == std::string::npos) return;
  std::vector<std::string> parts = split(word, '.');
  if (!std::all_of(parts.begin(), parts.end(), [](const std::string& p) { return identifier(p); })) return;
  std::string prefix;
  for (const auto& p : parts) {
    prefix += (prefix.empty() ? "" : "/") + p;
    named.push_back(prefix + ".py");
  }
  named.push_back(prefix);
}

// The command line of an assertion: command_succeeds' `command`; for any other (an external
// evaluator) its string arguments, the words it is told.
std::vector<std::string> words_of(const nlohmann::json& assertion) {
  if (!assertion.is_object()) return {};
  if (assertion.contains("command") && assertion["command"].is_string())
    return shell_words(assertion["command"].get<std::string>());
  std::vector<std::string> out;
  for (const auto& [key, value] : assertion.items()) {
    if (key == "type" || key == "covers") continue;
    if (value.is_string()) {
      for (auto& w : shell_words(value.get<std::string>())) out.push_back(std::move(w));
    }
  }
  return out;
}

}  // namespace

std::vector<std::vector<std::string>> shell_commands(std::string_view command) {
  std::vector<std::vector<std::string>> out(1);
  std::string word;
  bool in_word = false;  // a word has begun (an empty quoted word is still none worth keeping)
  auto end_word = [&] {
    if (in_word && !word.empty()) out.back().push_back(word);
    word.clear();
    in_word = false;
  };
  auto end_command = [&] {
    end_word();
    if (!out.back().empty()) out.emplace_back();
  };
  for (std::size_t i = 0; i < command.size(); ++i) {
    char c = command[i];
    if (c == '\'') {
      std::size_t close = command.find('\'', i + 1);
      if (close == std::string_view::npos) close = command.size();
      word += command.substr(i + 1, close - i - 1);
      in_word = true;
      i = close;
    } else if (c == '"') {
      in_word = true;
      for (++i; i < command.size() && command[i] != '"'; ++i) {
        if (command[i] == '\\' && i + 1 < command.size() &&
            std::string_view("$`\"\\\n").find(command[i + 1]) != std::string_view::npos)
          ++i;
        word += command[i];
      }
    } else if (c == '\\' && i + 1 < command.size()) {
      word += command[++i];
      in_word = true;
    } else if (is_operator(c) || c == '\n') {
      end_command();
    } else if (is_blank(c)) {
      end_word();
    } else {
      word += c;
      in_word = true;
    }
  }
  end_word();
  if (out.back().empty()) out.pop_back();
  return out;
}

std::vector<std::string> shell_words(std::string_view command) {
  std::vector<std::string> out;
  for (auto& simple : shell_commands(command)) {
    for (auto& w : simple) out.push_back(std::move(w));
  }
  return out;
}

bool conventional_test_path(std::string_view path) {
  // Test folders, and the Python test runners' own package names: a `unittest/` or `pytest/` on the
  // path (PYTHONPATH=src) is what `python -m unittest` runs instead of the standard library's.
  // The test helpers a project's tests import from its own tree (`numpy/testing/`, pandas'
  // `_testing/`) are tests too: gutting an assertion helper passes every test that uses it.
  static constexpr std::array<std::string_view, 12> kFolders = {"test",     "tests",         "__tests__", "spec",
                                                                "testdata", "__snapshots__", "unittest",  "pytest",
                                                                "_pytest",  "testing",       "_testing",  "testutils"};
  // Test files by name, and the files that say which tests run and how (a test runner's or a build
  // system's: which folders are built, which tests are registered, deselected or skipped).
  static constexpr std::array<std::string_view, 38> kNames = {"test.py",
                                                              "tests.py",
                                                              "unittest.py",
                                                              "pytest.py",
                                                              "conftest.py",
                                                              "pytest.ini",
                                                              ".pytest.ini",
                                                              "tox.ini",
                                                              "setup.cfg",
                                                              "pyproject.toml",
                                                              "noxfile.py",
                                                              "sitecustomize.py",
                                                              "usercustomize.py",
                                                              "package.json",
                                                              "Makefile",
                                                              "makefile",
                                                              "GNUmakefile",
                                                              "Makefile.am",
                                                              "Makefile.in",
                                                              "meson.build",
                                                              "meson_options.txt",
                                                              "meson.options",
                                                              "CMakeLists.txt",
                                                              "CMakePresets.json",
                                                              "CMakeUserPresets.json",
                                                              "Cargo.toml",
                                                              "go.mod",
                                                              "go.work",
                                                              "build.gradle",
                                                              "build.gradle.kts",
                                                              "settings.gradle",
                                                              "settings.gradle.kts",
                                                              "pom.xml",
                                                              "Rakefile",
                                                              ".rspec",
                                                              "mix.exs",
                                                              "justfile",
                                                              "Justfile"};
  static constexpr std::array<std::string_view, 7> kConfigPrefixes = {
      "jest.config.", "vitest.config.", "vitest.workspace.", "playwright.config.",
      ".mocharc",     "karma.conf.",    "phpunit.xml"};
  static constexpr std::array<std::string_view, 5> kInfixes = {"_test.", "_tests.", ".test.", ".spec.", "_spec."};
  static constexpr std::array<std::string_view, 7> kSuffixes = {"Test.java", "Tests.java", "Test.kt", "Tests.kt",
                                                                ".snap",     ".cmake",     ".mk"};
  std::vector<std::string> parts = split(path, '/');
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    if (std::find(kFolders.begin(), kFolders.end(), parts[i]) != kFolders.end()) return true;
  }
  std::string_view name = parts.back();
  // Cargo's configuration (a `runner` there runs every test binary through another program).
  if (parts.size() >= 2 && parts[parts.size() - 2] == ".cargo" && (name == "config" || name == "config.toml"))
    return true;
  if (starts_with(name, "test_")) return true;
  // test.c, tests.js, test.sh: a file named test or tests, whatever its language; test helpers by
  // their usual names (testing.py, test_utils.js, testhelpers.go).
  std::string_view stem = name.substr(0, name.find('.'));
  if ((stem == "test" || stem == "tests" || stem == "testing" || stem == "_testing" || stem == "testutil" ||
       stem == "testutils" || stem == "testhelpers" || ends_with(stem, "_testing")) &&
      name.size() > stem.size())
    return true;
  // Python's unittest discovers `test*.py` (testcalc.py), not only test_*.
  if (starts_with(name, "test") && ends_with(name, ".py")) return true;
  if (std::find(kNames.begin(), kNames.end(), name) != kNames.end()) return true;
  for (auto p : kConfigPrefixes) {
    if (starts_with(name, p)) return true;
  }
  for (auto s : kSuffixes) {
    if (ends_with(name, s)) return true;
  }
  for (auto infix : kInfixes) {
    if (name.find(infix) != std::string_view::npos) return true;
  }
  return false;
}

TestFileKind test_file_kind(std::string_view path) {
  std::string_view name = path.substr(path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1);
  static constexpr std::array<std::string_view, 7> kLoaded = {
      "conftest.py", "sitecustomize.py", "usercustomize.py", "pytest.ini", ".pytest.ini", "unittest.py", "pytest.py"};
  static constexpr std::array<std::string_view, 7> kLoadedPrefixes = {
      "jest.config.", "vitest.config.", "vitest.workspace.", "playwright.config.",
      ".mocharc",     "karma.conf.",    "phpunit.xml"};
  if (std::find(kLoaded.begin(), kLoaded.end(), name) != kLoaded.end() || ends_with(name, ".pth"))
    return TestFileKind::kRunnerLoaded;
  for (auto p : kLoadedPrefixes) {
    if (starts_with(name, p)) return TestFileKind::kRunnerLoaded;
  }
  for (std::string_view folder : {"unittest/", "pytest/", "_pytest/"}) {
    if (starts_with(path, folder) || path.find("/" + std::string(folder)) != std::string_view::npos)
      return TestFileKind::kRunnerLoaded;
  }
  // What is left of the conventional names that are not test files by name or folder: a build
  // system's or a project's manifest.
  std::vector<std::string> parts = split(path, '/');
  bool in_test_folder = false;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    for (std::string_view f :
         {"test", "tests", "__tests__", "spec", "testdata", "__snapshots__", "testing", "_testing", "testutils"})
      in_test_folder = in_test_folder || parts[i] == f;
  }
  std::string_view stem = name.substr(0, name.find('.'));
  bool test_name =
      starts_with(name, "test_") || (starts_with(name, "test") && ends_with(name, ".py")) ||
      ((stem == "test" || stem == "tests" || stem == "testing" || stem == "_testing" || stem == "testutil" ||
        stem == "testutils" || stem == "testhelpers" || ends_with(stem, "_testing")) &&
       name.size() > stem.size());
  for (std::string_view infix : {"_test.", "_tests.", ".test.", ".spec.", "_spec."})
    test_name = test_name || name.find(infix) != std::string_view::npos;
  for (std::string_view suffix : {"Test.java", "Tests.java", "Test.kt", "Tests.kt", ".snap"})
    test_name = test_name || ends_with(name, suffix);
  if (!in_test_folder && !test_name && conventional_test_path(path)) return TestFileKind::kBuildSystem;
  return TestFileKind::kTestCode;
}

CommandTests::CommandTests(const nlohmann::json& assertion) {
  for (std::string word : words_of(assertion)) {
    if (word.empty() || word[0] == '-' || word[0] == '/' || word[0] == '~' || word[0] == '$') continue;
    if (word.find('=') != std::string::npos) continue;  // NAME=value, or an option's value
    if (auto node = word.find("::"); node != std::string::npos)
      word.resize(node);  // pytest's tests/x.py::TestX::test_y
    if (word.find_first_of("*?[") != std::string::npos) {
      if (PathGlob::compile(word, PathGlob::Anchor::kRoot).ok()) globs_.push_back(word);
      continue;
    }
    std::string path = normalize_relative_path(word);
    if (path == "." || path == ".." || starts_with(path, "../")) continue;  // the workspace, or outside it
    named_.push_back(path);
    add_dotted(path, named_);
  }
  std::sort(named_.begin(), named_.end());
  named_.erase(std::unique(named_.begin(), named_.end()), named_.end());
}

bool CommandTests::reads(std::string_view path) const {
  for (const auto& n : named_) {
    if (path == n || (starts_with(path, n) && path.size() > n.size() && path[n.size()] == '/')) return true;
  }
  for (const auto& g : globs_) {
    auto glob = PathGlob::compile(g, PathGlob::Anchor::kRoot);
    if (glob.ok() && glob->matches(path)) return true;
  }
  return conventional_test_path(path);
}

bool restored_on_record(const CommandTests& tests, std::string_view path) {
  if (!tests.reads(path) || test_file_kind(path) == TestFileKind::kBuildSystem) return false;
  if (conventional_test_path(path)) return true;
  std::string lower(path);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower.find("test") != std::string::npos || lower.find("spec") != std::string::npos ||
         lower.find("check") != std::string::npos;
}

std::vector<std::string> covers_globs(const nlohmann::json& assertion) {
  std::vector<std::string> out;
  if (!assertion.is_object() || !assertion.contains("covers") || !assertion["covers"].is_array()) return out;
  for (const auto& g : assertion["covers"]) {
    if (g.is_string()) out.push_back(g.get<std::string>());
  }
  return out;
}

bool command_may_cover(const nlohmann::json& assertion, std::string_view path) {
  bool matched = false;
  for (const auto& g : covers_globs(assertion)) {
    auto glob = PathGlob::compile(g);
    if (glob.ok() && glob->matches(path)) {
      matched = true;
      break;
    }
  }
  return matched && !CommandTests(assertion).reads(path);
}

std::string test_count_gap(const nlohmann::json& assertion, const std::optional<TestSummary>& after,
                           const std::optional<TestSummary>& before) {
  auto runner = test_runner_of(assertion);
  if (!runner) return "";
  if (!after) {
    return fmt::format("passed but printed no test summary (of {}): nothing shows a test ran{}", to_string(*runner),
                       *runner == TestRunner::kGo ? " (`go test` prints one line per test only with -v)" : "");
  }
  std::string now = describe(*after);
  if (after->ran == 0) return fmt::format("passed but ran no test ({})", now);
  if (after->failed > 0)
    return fmt::format("exited 0 although its runner counted {} failed ({}): the exit code is not the runner's",
                       after->failed, now);
  if (after->passed == 0)
    return fmt::format("passed with no test passing ({}): nothing shows the change made a test pass", now);
  if (before) {
    std::string was = describe(*before);
    if (after->ran < before->ran) {
      return fmt::format(
          "ran fewer tests after the change than before it ({}; before: {}): a test that no longer runs cannot fail",
          now, was);
    }
    if (after->skipped > before->skipped) {
      return fmt::format(
          "skipped more tests after the change than before it ({}; before: {}): a skipped test cannot fail", now, was);
    }
  } else if (after->skipped > 0) {
    return fmt::format(
        "skipped tests after the change ({}), and its run before the change printed no test summary to show they were "
        "skipped there too",
        now);
  }
  return "";
}

bool failed_a_test(const nlohmann::json& assertion, const ProgramRun& run) {
  if (run.passed || run.error) return false;
  if (!test_runner_of(assertion) || !run.tests) return true;  // its exit code, or it died before its summary
  return run.tests->failed > 0;
}

std::string count_gap(const nlohmann::json& assertion, const ProgramRun& after, const ProgramRun& before) {
  std::string gap = test_count_gap(assertion, after.tests, before.tests);
  if (gap.empty()) gap = framework_gap(after.frameworks, before.frameworks);
  return gap;
}

}  // namespace candor::evidence
