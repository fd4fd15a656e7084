// What a user's command may cover (docs/design.md, Trust boundary: Commands as evidence). A command
// that failed before the change and passes after it covers the mutated paths its `covers` globs
// match, except the files it reads as its tests: a weakened or skipped test makes its own command
// pass, so a test file's change must be covered by evidence of its own. Pure: no file system.
//
// The files a command reads as its tests are
//   - the paths its words name: every word of the command line that is not an option (`-k`,
//     `--name=value`), a variable assignment (`NAME=value`) or an absolute path, normalised
//     (`./tests/x.py` is `tests/x.py`; a pytest node `tests/x.py::TestX::test_y` is its file), as
//     the file of that name and as a folder with everything beneath it; a word with wildcards
//     (`tests/test_*.py`) as the glob it is; a dotted name (`tests.test_x.TestX`, what
//     `python -m unittest` takes) as the module files of its prefixes (`tests.py`,
//     `tests/test_x.py`, `tests/test_x/TestX.py`) and the package folder of the whole name. The
//     workspace itself (`.`) is not a test file: what a command finds there by itself is found by
//     the names below;
//   - the conventional test files, wherever they are: `test_*`, `*_test.*`, `*_tests.*`,
//     `*.test.*`, `*.spec.*`, `*_spec.*`, `test.*`, `tests.*` (test.py, test.c, tests.js), `*Test.java`/`*Tests.java`
//     (and `.kt`), `conftest.py`, jest snapshots (`*.snap`), anything beneath a folder named
//     `test`, `tests`, `__tests__`, `spec`, `testdata` or `__snapshots__`;
//   - the files that say which tests run and how, a test runner's or a build system's, wherever
//     they are: `pytest.ini`, `.pytest.ini`, `tox.ini`, `setup.cfg`, `pyproject.toml`,
//     `noxfile.py`, `sitecustomize.py`/`usercustomize.py` (Python imports them at startup),
//     `package.json`, `jest.config.*`, `vitest.config.*`, `vitest.workspace.*`,
//     `playwright.config.*`, `.mocharc*`, `karma.conf.*`, `phpunit.xml*`,
//     `Makefile`/`makefile`/`GNUmakefile`, `*.mk`, `Makefile.am`, `Makefile.in`, `justfile`,
//     `meson.build`, `meson_options.txt`, `meson.options`, `CMakeLists.txt`, `*.cmake`,
//     `CMakePresets.json`, `CMakeUserPresets.json`, `Cargo.toml`, `.cargo/config[.toml]`, `go.mod`,
//     `go.work`, `build.gradle[.kts]`, `settings.gradle[.kts]`, `pom.xml`, `Rakefile`, `.rspec`,
//     `mix.exs`. A root `meson.build` that stops building `tests/` runs 1 test where 16 ran;
//   - a module or package that takes a Python test runner's name (`unittest.py`, `pytest.py`,
//     anything beneath `unittest/`, `pytest/`, `_pytest/`): on the path before the standard
//     library, it is what `python -m unittest` runs, and it prints whatever it likes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/run_record.h"
#include "evidence/test_runners.h"

namespace candor::evidence {

// The words of a shell command line: quotes removed ('...' literal, "..." with \-escapes), split
// at blanks and at the shell's operators (; & | ( ) < > and backquotes). Not a shell: no
// expansion, no substitution; what it cannot read is split where it stands.
std::vector<std::string> shell_words(std::string_view command);
// The same words, grouped by the simple commands they make up: a new one begins after each
// operator (`;`, `&&`, `|`, `(`, a redirection...) and at a line's end. `cd b && meson test` is
// {{"cd", "b"}, {"meson", "test"}}.
std::vector<std::vector<std::string>> shell_commands(std::string_view command);

// A path (normalised, workspace-relative) named like a test file or a test runner's
// configuration, wherever it is.
bool conventional_test_path(std::string_view path);

// How a file a command reads as a test stands on record (docs/design.md, Tests of record): test code
// and the files a runner loads by itself are put back as they were before the change for the
// command's run on record; a build system's files (package.json, CMakeLists.txt, pyproject.toml,
// ...) stay as the change made them (a new source file must be built), and are never covered by
// the command either.
enum class TestFileKind {
  kTestCode,      // test_x.py, slug.test.js, tests/..., a path the command names
  kRunnerLoaded,  // conftest.py, sitecustomize.py, usercustomize.py, *.pth, pytest.ini,
                  // jest/vitest/mocha/karma/playwright configs, a unittest/pytest package
  kBuildSystem,   // package.json, Makefile, meson.build, CMakeLists.txt, pyproject.toml, setup.cfg, tox.ini, ...
};
TestFileKind test_file_kind(std::string_view path);

// A discriminating command covers an added path only if it also fails with that path emptied; it
// is run so for at most this many of the added paths its `covers` takes in, per evaluation (the
// rest are not covered by it: the runs stay bounded).
inline constexpr std::size_t kMaxEmptiedRuns = 8;

// The files one command reads as its tests.
class CommandTests {
 public:
  // `assertion`: command_succeeds (its `command` is the command line) or an external evaluator
  // (its string arguments are: the program is the config's, the arguments are what it is told).
  explicit CommandTests(const nlohmann::json& assertion);

  // `path`: normalised, workspace-relative.
  bool reads(std::string_view path) const;
  // The normalised paths its words name (files or folders), for messages and tests.
  const std::vector<std::string>& named() const { return named_; }

 private:
  std::vector<std::string> named_;  // a file, or a folder and everything beneath it
  std::vector<std::string> globs_;  // words with wildcards, matched as anchored globs
};

// Whether the command's run on record puts `path` back as it was before the change: a file it
// reads as a test that is one by convention (test_x.py, tests/..., conftest.py) or by its name
// (test.sh, run_checks.sh, a folder spec/), never a build system's file. A source file a command
// merely names (`grep -q x css/style.css`) is not a test of record: it is what the change changes.
bool restored_on_record(const CommandTests& tests, std::string_view path);

// The `covers` globs of an assertion ([] when it has none, or they are not a list of strings).
std::vector<std::string> covers_globs(const nlohmann::json& assertion);

// Whether a discriminating pass of `assertion` (a user's command) may cover `path`: one of its
// `covers` globs matches the path, and the command does not read it as a test.
bool command_may_cover(const nlohmann::json& assertion, std::string_view path);

// Why a pass of `assertion` (a user's command) after the change, where it failed before it, is
// still no evidence that the change made a test pass, read from its test runner's summaries
// (evidence/test_runners.h): `after` of the passing run, `before` of the failing one. "" when it is
// evidence, and when the command runs no runner candor reads (`make test`: its count cannot be
// read, and its exit code is taken as it is). Otherwise a phrase that follows the command's name
// ("passed but printed no test summary: ..."). A known runner's pass is evidence only when its
// summary shows a test passed and none failed, and, when the run before printed a summary, no
// fewer tests ran and no more were skipped than there; when it printed none, none was skipped.
std::string test_count_gap(const nlohmann::json& assertion, const std::optional<TestSummary>& after,
                           const std::optional<TestSummary>& before);

// Whether `run`, a run of the user's command `assertion` that did not pass, failed a test: its
// runner's summary (when it runs one candor reads and printed one) counts a failure. A run that ran
// no test (the test it names is not there, nothing was collected) failed for a missing input: no
// evidence of anything. A run of a command whose counts cannot be read failed by its exit code.
bool failed_a_test(const nlohmann::json& assertion, const ProgramRun& run);

// Why a user's command that failed before the change (`before`) and passed after it (`after`) is
// still no evidence by what it counted: test_count_gap over its runner's summaries, then
// framework_gap over its frameworks'. "" when the counts show a test it made pass.
std::string count_gap(const nlohmann::json& assertion, const ProgramRun& after, const ProgramRun& before);

}  // namespace candor::evidence
