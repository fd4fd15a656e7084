// What a user's command may cover (core/command_coverage.h): its `covers` globs, less the files
// it reads as its tests. Table-driven: each row is a command, a path, and whether it may cover it.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "evidence/command_coverage.h"

namespace candor {
namespace {

using namespace candor::evidence;

using nlohmann::json;

json command(const std::string& line, json covers = json::array({"**"})) {
  return {{"type", "command_succeeds"}, {"command", line}, {"covers", covers}};
}

struct Row {
  const char* command;
  const char* path;
  bool may_cover;
};

}  // namespace

TEST_SUITE("evidence") {
  TEST_CASE("shell_words: quotes, escapes and the shell's operators") {
    CHECK(shell_words("python3 -m unittest tests.test_x") ==
          std::vector<std::string>{"python3", "-m", "unittest", "tests.test_x"});
    CHECK(shell_words("cd 'my dir' && pytest \"a b.py\"::t") ==
          std::vector<std::string>{"cd", "my dir", "pytest", "a b.py::t"});
    CHECK(shell_words("a\\ b;c|d>e<f(g)`h`") == std::vector<std::string>{"a b", "c", "d", "e", "f", "g", "h"});
    CHECK(shell_words("echo \"q\\\"q\" '' x") == std::vector<std::string>{"echo", "q\"q", "x"});
    CHECK(shell_words("  ").empty());
  }

  TEST_CASE("conventional test files and test-runner configuration, wherever they are") {
    for (const char* p :
         {"tests/test_x.py", "test_x.py", "pkg/x_test.go", "src/a.test.ts", "src/a.spec.js", "spec/models/user_spec.rb",
          "web/__tests__/a.js", "src/test/java/FooTest.java", "FooTests.kt", "conftest.py", "pkg/conftest.py",
          "tests.py", "x/__snapshots__/a.js.snap", "go/testdata/in.txt", "pytest.ini", "pyproject.toml", "setup.cfg",
          "tox.ini", "package.json", "Makefile", "jest.config.js", ".mocharc.yml", "phpunit.xml.dist", "test/a.c",
          "test.c", "tests.js", "src/test.sh",
          // test helpers the tests import (red team, round four: a gutted assert_equal in src/testing.py
          // passed every test), and the names unittest discovers (test*.py)
          "src/testing.py", "pkg/_testing/asserters.py", "numpy/testing/utils.py", "src/testcalc.py",
          // Build systems' files say which tests are built and registered.
          "meson.build", "src/meson.build", "meson_options.txt", "meson.options", "CMakeLists.txt",
          "lib/CMakeLists.txt", "CTestCustom.cmake", "cmake/Testing.cmake", "CMakePresets.json", "Cargo.toml",
          "crates/a/Cargo.toml", ".cargo/config.toml", "crates/a/.cargo/config", "go.mod", "sub/go.mod", "go.work",
          "build.gradle", "app/build.gradle.kts", "settings.gradle.kts", "pom.xml", "Rakefile", ".rspec", "mix.exs",
          "Makefile.am", "rules.mk", "justfile", ".pytest.ini", "noxfile.py", "src/sitecustomize.py",
          "vitest.workspace.ts", "playwright.config.ts",
          // The runner itself, shadowed: `python -m unittest` runs these first.
          "unittest.py", "src/unittest/__main__.py", "src/pytest.py", "_pytest/main.py"}) {
      CAPTURE(p);
      CHECK(conventional_test_path(p));
    }
    for (const char* p : {"src/x.py", "latest.py", "contest.py", "src/attest/a.py", "README.md", "src/tests_helper.md",
                          "src/cmake_helpers.c", "config.toml", "cargo/config.toml", "docs/meson.build.md",
                          "src/go.sum.txt", "src/mk.c"}) {
      CAPTURE(p);
      CHECK_FALSE(conventional_test_path(p));
    }
  }

  TEST_CASE("a command covers what its covers globs match, never the files it reads as tests") {
    const Row rows[] = {
        {"python3 -m unittest tests.test_x", "src/x.py", true},
        {"python3 -m unittest tests.test_x", "tests/test_x.py", false},      // conventional, and named
        {"python3 -m unittest checks.parser", "checks/parser.py", false},    // a dotted module name
        {"python3 -m unittest checks.parser", "checks/parser/a.py", false},  // ...or the package of that name
        {"python3 -m unittest checks.parser", "checks.py", false},           // ...and the modules of its prefixes
        {"python3 -m unittest checks.parser", "checks/other.py", true},
        {"pytest checks/parser_check.py::TestP::test_a", "checks/parser_check.py", false},  // pytest's node id
        {"pytest checks/", "checks/deep/a.py", false},                                      // a folder: all beneath it
        {"pytest ./checks//x.py", "checks/x.py", false},                                    // normalised
        {"pytest checks/*_check.py", "checks/a_check.py", false},                           // a glob word
        {"pytest checks/*_check.py", "checks/a.py", true},
        {"pytest .", "src/x.py", true},                          // the workspace itself names no test file
        {"pytest --cov=src -k parse checks", "src/x.py", true},  // option values are not paths
        {"PYTHONPATH=src pytest checks", "src/x.py", true},      // nor are variable assignments
        {"cd src && pytest", "src/x.py", false},                 // a folder word, whatever it follows
        {"sh run_checks.sh", "run_checks.sh", false},            // the script the command runs
        {"make check", "Makefile", false},                       // what says how tests run
        {"meson test -C build", "meson.build", false},           // which folders are built, which tests exist
        {"meson test -C build", "src/meson.build", false},
        {"ctest --test-dir build", "CMakeLists.txt", false},
        {"cargo test", "Cargo.toml", false},
        {"go test ./...", "pkg/go.mod", false},  // a nested module is left out of ./...
        {"python3 -m unittest tests.test_x", "../outside.py", true},
        {"/usr/bin/pytest /abs/checks", "abs/checks/a.py", true},  // absolute paths are not the workspace's
    };
    for (const auto& row : rows) {
      CAPTURE(row.command);
      CAPTURE(row.path);
      CHECK(command_may_cover(command(row.command), row.path) == row.may_cover);
    }
  }

  TEST_CASE("covers: only the paths its globs match; none without covers") {
    CHECK(command_may_cover(command("make check", json::array({"src/**"})), "src/a/b.c"));
    CHECK_FALSE(command_may_cover(command("make check", json::array({"src/**"})), "docs/a.md"));
    CHECK(command_may_cover(command("make check", json::array({"*.c"})), "lib/deep/b.c"));  // a bare name at any depth
    CHECK_FALSE(command_may_cover({{"type", "command_succeeds"}, {"command", "make check"}}, "src/a.c"));
    CHECK_FALSE(command_may_cover(command("make check", json::array()), "src/a.c"));
    CHECK_FALSE(command_may_cover(command("make check", json::array({"src/["})),
                                  "src/a.c"));  // an invalid glob matches nothing
    CHECK(covers_globs(command("x", json::array({"a/**", "b"}))) == std::vector<std::string>{"a/**", "b"});
  }

  TEST_CASE("an external evaluator's string arguments are its command line") {
    json a = {{"type", "run_suite"}, {"suite", "checks/parser_check.py"}, {"covers", json::array({"**"})}};
    CHECK_FALSE(command_may_cover(a, "checks/parser_check.py"));
    CHECK(command_may_cover(a, "src/parser.py"));
    CHECK(CommandTests(a).named() == std::vector<std::string>{"checks/parser_check.py"});
  }
}

}  // namespace candor
