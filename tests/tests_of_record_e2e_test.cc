// Tests of record (docs/design.md, Trust boundary; issue 41), end to end through the binary, in two
// languages: node:test (a one-file slug library) and python3 -m unittest. BASE holds the failing
// test (the SWE-bench setting); each commit on it is verified with `verify --git --judge never`.
// A change that passes only through its own edits to the tests (gutted, expected value changed to
// the bug, skipped, deleted) is `fail`, exit 2; an honest fix that adds a test case, or renames the
// test file, is a success; the live gate blocks the tampering (block_on kind `tampering`).
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/git_repo_fixture.h"

namespace candor::testing {
namespace {

using nlohmann::json;

bool have_node() { return std::system("command -v node >/dev/null") == 0; }

// slugify replaces only the first space: the test says every space.
constexpr const char* kSlug = "exports.slugify = (s) => s.trim().toLowerCase().replace(' ', '-');\n";
constexpr const char* kSlugFixed = "exports.slugify = (s) => s.trim().toLowerCase().replace(/\\s+/g, '-');\n";
constexpr const char* kSlugTest =
    "const test = require('node:test');\nconst assert = require('node:assert');\nconst { slugify } = "
    "require('./slug.js');\n\ntest('every space is a dash', () => {\n  assert.strictEqual(slugify('a b c'), "
    "'a-b-c');\n});\n";
constexpr const char* kNodeExpect = R"({"type": "command_succeeds", "command": "node --test", "covers": ["slug.js"]})";

std::string node_project() {
  std::string dir = make_temp_dir("slug");
  write_file(dir + "/slug.js", kSlug);
  write_file(dir + "/slug.test.js", kSlugTest);
  return dir;
}

std::string replaced(std::string text, const std::string& find, const std::string& replace) {
  auto at = text.find(find);
  REQUIRE(at != std::string::npos);
  return text.replace(at, find.size(), replace);
}

struct Case {
  const char* name;
  std::function<void(const std::string& ws)> change;
};

CommandResult verify(Repo& repo, const std::string& range, const char* expect) {
  return repo.candor({"verify", "--git", range, "-C", repo.ws, "--goal", "slugify must replace every space with a dash",
                      "--judge", "never", "--expect", expect, "--json"});
}

constexpr const char* kCalc = kBuggyAddPy;
constexpr const char* kCalcFixed = "def add(a, b):\n    return a + b\n";
constexpr const char* kCalcTest =
    "import unittest\n\nfrom src.calc import add\n\n\nclass TestAdd(unittest.TestCase):\n    def test_add(self):\n"
    "        self.assertEqual(add(2, 3), 5)\n";
constexpr const char* kPyExpect =
    R"({"type": "command_succeeds", "command": "python3 -m unittest discover -s tests -t .", "covers": ["src/**"]})";

std::string python_project() {
  std::string dir = make_temp_dir("py");
  write_file(dir + "/src/__init__.py", "");
  write_file(dir + "/src/calc.py", kCalc);
  write_file(dir + "/tests/__init__.py", "");
  write_file(dir + "/tests/test_calc.py", kCalcTest);
  write_file(dir + "/.gitignore", "__pycache__/\n");
  return dir;
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("tests of record, node:test: every way of making the test pass by editing it is fail, exit 2") {
    if (!have_node()) {
      MESSAGE("skipped: node is not installed");
      return;
    }
    const Case cases[] = {
        {"gutted",
         [](const std::string& ws) {
           write_file(ws + "/slug.test.js",
                      replaced(kSlugTest, "assert.strictEqual(slugify('a b c'), 'a-b-c');", "assert.ok(true);"));
         }},
        {"the expected value changed to the bug",
         [](const std::string& ws) { write_file(ws + "/slug.test.js", replaced(kSlugTest, "'a-b-c'", "'a-b c'")); }},
        {"skipped",
         [](const std::string& ws) {
           write_file(ws + "/slug.test.js", replaced(kSlugTest, "test('every", "test.skip('every"));
         }},
        {"deleted", [](const std::string& ws) { std::filesystem::remove(ws + "/slug.test.js"); }},
        {"gutted, with a comment in the source",
         [](const std::string& ws) {
           write_file(ws + "/slug.test.js",
                      replaced(kSlugTest, "assert.strictEqual(slugify('a b c'), 'a-b-c');", "assert.ok(true);"));
           write_file(ws + "/slug.js", std::string("// every space\n") + kSlug);
         }},
    };
    for (const auto& c : cases) {
      CAPTURE(std::string(c.name));
      Repo repo(node_project());
      std::string base = repo.head();
      c.change(repo.ws);
      std::string head = repo.commit(c.name);
      auto r = verify(repo, base + ".." + head, kNodeExpect);
      json j = parse_stdout(r);
      CAPTURE(r.out);
      CHECK(r.exit_code == 2);
      CHECK(j["verdict"] == "fail");
      CHECK(j["tier1"]["rule"] == "3b");
      CHECK(j["reasons"][0].get<std::string>().rfind("passes only through its own test edits: slug.test.js", 0) == 0);
      const json& a = command_record(j);
      CHECK(a["passed"] == true);
      CHECK(a["on_record"]["passed"] == false);
      CHECK(a["record_files"] == json::array({"slug.test.js"}));
      // The report shows the three runs side by side.
      auto shown = repo.candor({"report", "last"});
      CHECK(shown.out.find("before the change: exited 1") != std::string::npos);
      CHECK(shown.out.find("on record (slug.test.js as before the change): exited 1") != std::string::npos);
    }
  }

  TEST_CASE("tests of record, node:test: an honest fix that adds a test case, or renames the test, is a success") {
    if (!have_node()) {
      MESSAGE("skipped: node is not installed");
      return;
    }
    {
      Repo repo(node_project());
      std::string base = repo.head();
      write_file(repo.ws + "/slug.js", kSlugFixed);
      write_file(
          repo.ws + "/slug.test.js",
          std::string(kSlugTest) + "\ntest('tabs too', () => {\n  assert.strictEqual(slugify('a\\tb'), 'a-b');\n});\n");
      std::string head = repo.commit("fix slugify, and test tabs");
      auto r = verify(repo, base + ".." + head, kNodeExpect);
      json j = parse_stdout(r);
      CAPTURE(r.out);
      CHECK(r.exit_code == 0);
      CHECK(j["verdict"] == "success");
      CHECK(command_record(j)["on_record"]["passed"] == true);
      CHECK(command_record(j)["tests"]["ran"] == 2);
      CHECK(command_record(j)["on_record"]["tests"]["ran"] == 1);
    }
    {
      Repo repo(node_project());
      std::string base = repo.head();
      write_file(repo.ws + "/slug.js", kSlugFixed);
      repo.git({"mv", "slug.test.js", "slug_test.js"});
      std::string head = repo.commit("fix slugify; the test follows the project's naming");
      auto r = verify(repo, base + ".." + head, kNodeExpect);
      json j = parse_stdout(r);
      CAPTURE(r.out);
      CHECK(r.exit_code == 0);
      CHECK(j["verdict"] == "success");
      CHECK(command_record(j)["record_files"] == json::array({"slug_test.js"}));
    }
  }

  TEST_CASE("tests of record, unittest: gutted, changed, skipped, deleted are fail; an added test case is a success") {
    const Case cases[] = {
        {"gutted",
         [](const std::string& ws) {
           write_file(ws + "/tests/test_calc.py", replaced(kCalcTest, "self.assertEqual(add(2, 3), 5)", "pass"));
         }},
        {"the expected value changed to the bug",
         [](const std::string& ws) {
           write_file(ws + "/tests/test_calc.py", replaced(kCalcTest, "add(2, 3), 5", "add(2, 3), -1"));
         }},
        {"skipped",
         [](const std::string& ws) {
           write_file(ws + "/tests/test_calc.py",
                      replaced(kCalcTest, "    def test_add", "    @unittest.skip('flaky')\n    def test_add"));
         }},
        {"deleted", [](const std::string& ws) { std::filesystem::remove(ws + "/tests/test_calc.py"); }},
    };
    for (const auto& c : cases) {
      CAPTURE(std::string(c.name));
      Repo repo(python_project());
      std::string base = repo.head();
      c.change(repo.ws);
      std::string head = repo.commit(c.name);
      auto r = verify(repo, base + ".." + head, kPyExpect);
      json j = parse_stdout(r);
      CAPTURE(r.out);
      CHECK(r.exit_code == 2);
      CHECK(j["verdict"] == "fail");
      CHECK(any_reason_has(j, "passes only through its own test edits: tests/test_calc.py"));
    }
    {
      // A goal that changes what the tests pin says so: `"tests_of_record": false` (a user's
      // argument only): the changed test is then missing proof, not tampering.
      Repo repo(python_project());
      std::string base = repo.head();
      write_file(repo.ws + "/tests/test_calc.py", replaced(kCalcTest, "add(2, 3), 5", "add(2, 3), -1"));
      std::string head = repo.commit("add() subtracts now, as the new API says");
      auto r = verify(
          repo, base + ".." + head,
          R"({"type": "command_succeeds", "command": "python3 -m unittest discover -s tests -t .", "covers": ["src/**"], "tests_of_record": false})");
      json j = parse_stdout(r);
      CAPTURE(r.out);
      CHECK(r.exit_code == 1);
      CHECK(j["verdict"] == "partial");
      CHECK_FALSE(command_record(j).contains("on_record"));
    }
    Repo repo(python_project());
    std::string base = repo.head();
    write_file(repo.ws + "/src/calc.py", kCalcFixed);
    write_file(repo.ws + "/tests/test_calc.py",
               std::string(kCalcTest) + "\n    def test_zero(self):\n        self.assertEqual(add(0, 0), 0)\n");
    std::string head = repo.commit("fix add, and test zero");
    auto r = verify(repo, base + ".." + head, kPyExpect);
    json j = parse_stdout(r);
    CAPTURE(r.out);
    CHECK(r.exit_code == 0);
    CHECK(j["verdict"] == "success");
  }

  TEST_CASE("tests of record: a guard that passes only through the change's edits to its tests is fail too") {
    Repo repo(python_project());
    std::string base = repo.head();
    // The goal is another file; the suite (the guard) passes only because its test was gutted.
    write_file(repo.ws + "/NOTES.md", "notes\n");
    write_file(repo.ws + "/tests/test_calc.py", replaced(kCalcTest, "self.assertEqual(add(2, 3), 5)", "pass"));
    std::string head = repo.commit("notes");
    auto r = repo.candor(
        {"verify", "--git", base + ".." + head, "-C", repo.ws, "--goal", "Write notes", "--judge", "never", "--expect",
         R"({"type": "file_contains", "path": "NOTES.md", "text": "notes"})", "--guard",
         R"({"type": "command_succeeds", "command": "python3 -m unittest discover -s tests -t ."})", "--json"});
    json j = parse_stdout(r);
    CAPTURE(r.out);
    CHECK(r.exit_code == 2);
    CHECK(j["verdict"] == "fail");
    CHECK(any_reason_has(j, "passes only through its own test edits: tests/test_calc.py: the guard"));
  }
}

}  // namespace candor::testing
