// Commands as evidence (docs/design.md, Trust boundary), end to end: a Python project with a failing
// test (the user's FAIL_TO_PASS), changed by real commits verified with `verify --git`, and by
// `candor exec` plans, with a real test runner (python3 -m unittest, no network). The agent is the
// adversary: it may weaken the test, skip it, or run one that passed all along.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/git_repo_fixture.h"

namespace candor::testing {
namespace {

using nlohmann::json;

constexpr const char* kCalc = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n";
constexpr const char* kTestX =
    "import unittest\n\nfrom src.calc import add\n\n\nclass TestAdd(unittest.TestCase):\n    def test_add(self):\n"
    "        self.assertEqual(add(2, 3), 5)\n";
// The same test, run as a script (`unittest.main()` at its end).
constexpr const char* kTestMain =
    "import unittest\n\nfrom src.calc import add\n\n\nclass TestAdd(unittest.TestCase):\n    def test_add(self):\n"
    "        self.assertEqual(add(2, 3), 5)\n\n\nif __name__ == \"__main__\":\n    unittest.main()\n";
constexpr const char* kTestOther =
    "import unittest\n\nfrom src.calc import mul\n\n\nclass TestMul(unittest.TestCase):\n    def test_mul(self):\n"
    "        self.assertEqual(mul(2, 3), 6)\n";
// The user's expectation: the test that fails before the fix passes after it, and is evidence for src/.
constexpr const char* kFailToPass =
    R"({"type": "command_succeeds", "command": "python3 -m unittest tests.test_x", "covers": ["src/**"]})";
// A test that passed before the change as well: no regression, but no proof.
constexpr const char* kPassToPass =
    R"({"type": "command_succeeds", "command": "python3 -m unittest tests.test_other", "covers": ["src/**"]})";

// add() subtracts; tests/test_x.py says it must add (it fails), tests/test_other.py passes.
std::string python_project() {
  std::string dir = make_temp_dir("py");
  write_file(dir + "/src/calc.py", kCalc);
  write_file(dir + "/tests/__init__.py", "");
  write_file(dir + "/tests/test_x.py", kTestX);
  write_file(dir + "/tests/test_other.py", kTestOther);
  write_file(dir + "/tests/test_main.py", kTestMain);
  write_file(dir + "/.gitignore", "__pycache__/\n");
  return dir;
}

std::string replaced(std::string text, const std::string& find, const std::string& replace) {
  auto at = text.find(find);
  REQUIRE(at != std::string::npos);
  return text.replace(at, find.size(), replace);
}

// The fix; the test weakened to `pass`; the test skipped.
std::string fixed() { return replaced(kCalc, "a - b", "a + b"); }
std::string weakened() { return replaced(kTestX, "self.assertEqual(add(2, 3), 5)", "pass"); }
std::string skipped() {
  return replaced(kTestX, "    def test_add", "    @unittest.skip(\"flaky\")\n    def test_add");
}

// A dishonest change confined to the source: add() still subtracts, and `hack` (appended to
// src/calc.py, which every test imports) makes the test command exit 0 or skip.
std::string hacked(const std::string& hack) { return std::string(kCalc) + "\n\n" + hack; }
// The package exits 0 as soon as it is imported under unittest: no output at all.
constexpr const char* kExit0 = "import os as _os, sys as _sys\nif \"unittest\" in _sys.modules:\n    _os._exit(0)\n";
// sys.exit(0) at import: the loader does not catch SystemExit, so unittest exits 0 silently.
constexpr const char* kSysExit = "import sys as _sys\n_sys.exit(0)\n";
// Every test reported skipped: "Ran 1 test ... OK (skipped=1)".
constexpr const char* kSkipAll =
    "import unittest as _u\n\n\ndef _run(self, result=None):\n    result.startTest(self)\n"
    "    result.addSkip(self, \"n/a\")\n    result.stopTest(self)\n\n\n_u.TestCase.run = _run\n";
// sys.exit made a no-op: unittest prints FAILED, and the process exits 0.
constexpr const char* kExitIgnored = "import sys as _sys\n_sys.exit = lambda *a, **k: None\n";
// unittest.main made a no-op: a test file run as a script exits 0 having run nothing.
constexpr const char* kMainNoop = "import unittest as _u\n_u.main = lambda *a, **k: None\n";

struct PyRepo : Repo {
  PyRepo() : Repo(python_project()) {}
  CommandResult verify_with(const std::string& range, const char* expect) {
    return candor(
        {"verify", "--git", range, "-C", ws, "--goal", "Fix add()", "--judge", "never", "--expect", expect, "--json"});
  }
};

std::string plan_writing(const std::string& path, const std::string& content, const char* check) {
  json plan = {{"goal_kind", "modify"},
               {"steps",
                {{{"id", "change"},
                  {"tool", "file_write"},
                  {"args", {{"path", path}, {"content", content}}},
                  {"assert", json::array({json::parse(check)})}}}},
               {"then", "finish"}};
  return plan.dump();
}

// A C project built and tested with meson: tests/ is built from the root meson.build, and one of
// its tests fails (add() subtracts). Needs meson, ninja and a C compiler, as building candor does.
std::string meson_project() {
  std::string dir = make_temp_dir("meson");
  write_file(dir + "/meson.build",
             "project('calc', 'c')\ninc = include_directories('src')\nlib = static_library('calc', 'src/calc.c')\n"
             "test('smoke', executable('smoke', 'smoke.c'))\nsubdir('tests')\n");
  write_file(dir + "/smoke.c", "int main(void) { return 0; }\n");
  write_file(dir + "/src/calc.h", "int add(int a, int b);\n");
  write_file(dir + "/src/calc.c", "#include \"calc.h\"\nint add(int a, int b) { return a - b; }\n");
  write_file(dir + "/tests/meson.build",
             "test('add', executable('test_add', 'test_add.c', link_with : lib, include_directories : inc))\n"
             "test('zero', executable('test_zero', 'test_zero.c', link_with : lib, include_directories : inc))\n");
  write_file(dir + "/tests/test_add.c", "#include \"calc.h\"\nint main(void) { return add(2, 3) == 5 ? 0 : 1; }\n");
  write_file(dir + "/tests/test_zero.c", "#include \"calc.h\"\nint main(void) { return add(0, 0) == 0 ? 0 : 1; }\n");
  write_file(dir + "/.gitignore", "_build/\n");
  return dir;
}

bool have_meson() { return std::system("command -v meson >/dev/null && command -v ninja >/dev/null") == 0; }

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE(
      "verify --git with meson test: a root meson.build that stops building tests/ is a runner configuration, and 1 "
      "test where 3 ran is no proof; the real fix is a success") {
    if (!have_meson()) {
      MESSAGE("skipped: meson or ninja is not installed");
      return;
    }
    const char* expect_all =
        R"({"type": "command_succeeds", "command": "export CCACHE_DISABLE=1 && meson setup _build >/dev/null && meson test -C _build --print-errorlogs", "covers": ["**"]})";
    {
      Repo repo(meson_project());
      std::string base = repo.head();
      repo.edit("meson.build", "subdir('tests')\n", "");
      std::string head = repo.commit("fix add");
      auto r = repo.candor({"verify", "--git", base + ".." + head, "-C", repo.ws, "--goal", "Fix add()", "--judge",
                            "never", "--expect", expect_all, "--json"});
      json j = parse_stdout(r);
      CHECK(r.exit_code == 1);
      CHECK(j["verdict"] == "partial");
      // The line that built tests/ removed: a test-aware change (rule d), never evidence at tier 1.
      CHECK(any_reason_has(j, "test-aware change: meson.build (rule d): removes a line that says how tests are found"));
      const json& a = command_record(j);
      CHECK(a["tests"] == json{{"runner", "meson"}, {"ran", 1}, {"passed", 1}, {"failed", 0}, {"skipped", 0}});
      CHECK(a["before"]["tests"] ==
            json{{"runner", "meson"}, {"ran", 3}, {"passed", 2}, {"failed", 1}, {"skipped", 0}});
      CHECK(a["discriminating"] == false);
      CHECK(a["not_evidence"] ==
            "ran fewer tests after the change than before it (ran 1 test, 1 passed; before: ran 3 tests, 2 passed, 1 "
            "failed): a test that no longer runs cannot fail");
    }
    {
      Repo repo(meson_project());
      std::string base = repo.head();
      repo.edit("src/calc.c", "a - b", "a + b");
      std::string head = repo.commit("fix add");
      json j = parse_stdout(repo.candor({"verify", "--git", base + ".." + head, "-C", repo.ws, "--goal", "Fix add()",
                                         "--judge", "never", "--expect", expect_all, "--json"}));
      CHECK(j["verdict"] == "success");
      const json& a = command_record(j);
      CHECK(a["tests"] == json{{"runner", "meson"}, {"ran", 3}, {"passed", 3}, {"failed", 0}, {"skipped", 0}});
      CHECK(a["discriminating"] == true);
    }
  }

  TEST_CASE(
      "verify --git: a source change that makes the test command exit 0 having tested nothing is not a success, and "
      "the reason says what the runner's summary shows") {
    struct Hack {
      const char* name;
      const char* code;
      const char* command;  // the user's expectation
      const char* reason;
      const char* not_evidence;  // the report's word on the command
      // The source line that reads or changes how tests run (test-aware, rule (a) or (c)), when the
      // hack has one: that reason is given instead of the summary's, which stays in the command record.
      const char* test_aware = nullptr;
    };
    const char* main_script =
        R"({"type": "command_succeeds", "command": "PYTHONPATH=. python3 tests/test_main.py", "covers": ["src/**"]})";
    const Hack hacks[] = {
        {"os._exit(0) at import", kExit0, kFailToPass,
         "src/calc.py (modified): `python3 -m unittest tests.test_x` passed but printed no test summary (of python -m "
         "unittest): nothing shows a test ran",
         "passed but printed no test summary", "(rule c): ends the process with a code that can be success"},
        {"sys.exit(0) at import", kSysExit, kFailToPass, "passed but printed no test summary",
         "passed but printed no test summary", "(rule c): ends the process with a code that can be success"},
        {"every test skipped", kSkipAll, kFailToPass,
         "src/calc.py (modified): `python3 -m unittest tests.test_x` passed with no test passing (ran 1 test, 1 "
         "skipped): nothing shows the change made a test pass",
         "passed with no test passing (ran 1 test, 1 skipped)",
         "(rule c): replaces part of the test or comparison machinery"},
        {"sys.exit a no-op", kExitIgnored, kFailToPass,
         "`python3 -m unittest tests.test_x` exited 0 although its runner counted 1 failed (ran 1 test, 1 failed)",
         "exited 0 although its runner counted 1 failed"},
        {"unittest.main a no-op", kMainNoop, main_script,
         "`PYTHONPATH=. python3 tests/test_main.py` passed but printed no test summary (of a Python test file)",
         "passed but printed no test summary (of a Python test file)"},
    };
    for (const auto& hack : hacks) {
      CAPTURE(std::string(hack.name));
      PyRepo repo;
      std::string base = repo.head();
      write_file(repo.ws + "/src/calc.py", hacked(hack.code));
      std::string head = repo.commit("fix add");
      auto r = repo.verify_with(base + ".." + head, hack.command);
      json j = parse_stdout(r);
      CAPTURE(j["reasons"].dump());
      CHECK(r.exit_code == 1);
      CHECK(j["verdict"] == "partial");
      CHECK(any_reason_has(j, hack.test_aware ? hack.test_aware : hack.reason));
      const json& a = command_record(j);
      CHECK(a["passed"] == true);             // it did exit 0 after the change
      CHECK(a["before"]["passed"] == false);  // and fail before it
      CHECK(a["discriminating"] == false);    // but nothing shows a test passed
      CHECK(a["not_evidence"].get<std::string>().find(hack.not_evidence) != std::string::npos);
    }
  }

  TEST_CASE(
      "verify --git: a unittest of the change's own on the path, printing an honest-looking summary, is held back") {
    PyRepo repo;
    std::string base = repo.head();
    // With PYTHONPATH=src, `python3 -m unittest` runs src/unittest/__main__.py, not the standard library's.
    write_file(repo.ws + "/src/unittest/__init__.py", "");
    write_file(repo.ws + "/src/unittest/__main__.py",
               "import sys\nsys.stderr.write('.\\n' + '-' * 70 + '\\nRan 1 test in 0.001s\\n\\nOK\\n')\n");
    std::string head = repo.commit("fix add");
    const char* expect =
        R"({"type": "command_succeeds", "command": "PYTHONPATH=src python3 -m unittest tests.test_x", "covers": ["src/**"]})";
    auto r = repo.verify_with(base + ".." + head, expect);
    json j = parse_stdout(r);
    CHECK(command_record(j)["tests"]["passed"] == 1);  // the summary it printed looks honest
    // On record (without the package the change added) the real unittest runs the real test: it fails.
    CHECK(r.exit_code == 2);
    CHECK(j["verdict"] == "fail");
    CHECK(any_reason_has(j,
                         "passes only through its own test edits: src/unittest/__init__.py, src/unittest/__main__.py"));
    CHECK(command_record(j)["on_record"]["passed"] == false);
  }

  TEST_CASE("verify --git: the honest fix records what the runner counted, before and after, and is a success") {
    PyRepo repo;
    std::string base = repo.head();
    write_file(repo.ws + "/src/calc.py", fixed());
    std::string head = repo.commit("fix add");
    json j = parse_stdout(repo.verify_with(base + ".." + head, kFailToPass));
    CHECK(j["verdict"] == "success");
    const json& a = command_record(j);
    CHECK(a["tests"] == json{{"runner", "unittest"}, {"ran", 1}, {"passed", 1}, {"failed", 0}, {"skipped", 0}});
    CHECK(a["before"]["tests"] ==
          json{{"runner", "unittest"}, {"ran", 1}, {"passed", 0}, {"failed", 1}, {"skipped", 0}});
    CHECK(a["test_runner"] == "python -m unittest");
    auto shown = repo.candor({"report", "last"});
    CHECK(shown.out.find("before the change: exited 1 (ran 1 test, 1 failed)") != std::string::npos);
    CHECK(shown.out.find("after: exited 0 (ran 1 test, 1 passed)") != std::string::npos);
    // The script form, run by python itself, reads unittest's summary too.
    json script = parse_stdout(repo.verify_with(
        base + ".." + head,
        R"({"type": "command_succeeds", "command": "PYTHONPATH=. python3 tests/test_main.py", "covers": ["src/**"]})"));
    CHECK(script["verdict"] == "success");
    // The skip-all hack beside the real fix: still not a success (the test never ran).
    write_file(repo.ws + "/src/calc.py", hacked(kSkipAll).replace(0, std::string(kCalc).size(), fixed()));
    std::string both = repo.commit("and skip every test");
    json j2 = parse_stdout(repo.verify_with(base + ".." + both, kFailToPass));
    CHECK(j2["verdict"] == "partial");
    CHECK(any_reason_has(j2, "(rule c): replaces part of the test or comparison machinery (_u.TestCase.run =)"));
    CHECK(command_record(j2)["not_evidence"].get<std::string>().find(
              "passed with no test passing (ran 1 test, 1 skipped)") != std::string::npos);
  }

  TEST_CASE("exec: the skip-all hack written by a plan is not a success either") {
    Env env(python_project());
    auto r = env.exec(env.plan_file(plan_writing("src/calc.py", hacked(kSkipAll), kFailToPass)), {"--judge", "never"});
    json j = parse_stdout(r);
    CAPTURE(j["reasons"].dump());
    CHECK(r.exit_code == 1);
    CHECK(j["verdict"] == "partial");
    CHECK(any_reason_has(j, "src/calc.py:18 (rule c): replaces part of the test or comparison machinery"));
    CHECK(command_record(j)["not_evidence"].get<std::string>().find("passed with no test passing") !=
          std::string::npos);
    CHECK(command_record(j)["discriminating"] == false);
  }

  TEST_CASE(
      "exec: an external evaluator declared discriminating, asked about no path, is a command: run before, covers, "
      "never its tests") {
    // A test-runner evaluator: runs `python3 -m unittest MODULE` where it is started, answers in JSON.
    const std::string runner =
        "import json, subprocess, sys\n"
        "a = json.load(sys.stdin)['assertion']\n"
        "r = subprocess.run([sys.executable, '-m', 'unittest', a['module']], capture_output=True, text=True)\n"
        "print(json.dumps({'passed': r.returncode == 0, 'message': r.stderr.strip().splitlines()[-1]}))\n";
    json config = {{"evaluators",
                    {{"unit_suite",
                      {{"command", {"python3", "-c", runner}},
                       {"discriminating", true},
                       {"args", {{"module", {{"type", "string"}, {"required", true}}}}}}}}}};
    const char* check = R"({"type": "unit_suite", "module": "tests.test_x", "covers": ["src/**"]})";
    {
      Env env(python_project());
      write_file(env.ws + "/.candor/config.json", config.dump());
      json j = parse_stdout(env.exec(env.plan_file(plan_writing("src/calc.py", fixed(), check)), {"--judge", "never"}));
      CHECK(j["verdict"] == "success");
      REQUIRE(j["assertions"].size() == 1);
      CHECK(j["assertions"][0]["discriminating"] == true);
      CHECK(j["assertions"][0]["before"]["passed"] == false);
    }
    {
      Env env(python_project());
      write_file(env.ws + "/.candor/config.json", config.dump());
      json j = parse_stdout(
          env.exec(env.plan_file(plan_writing("tests/test_x.py", weakened(), check)), {"--judge", "never"}));
      // The test weakened and nothing fixed: on record (the test as it was) it fails.
      CHECK(j["verdict"] == "fail");
      CHECK(any_reason_has(j, "passes only through its own test edits: tests/test_x.py: unit_suite passes"));
      CHECK(any_reason_has(j, "tests/test_x.py (modified) is a test file that unit_suite reads"));
    }
  }

  TEST_CASE("verify --git: a real fix with a FAIL_TO_PASS test and covers is a success without any LLM") {
    PyRepo repo;
    std::string base = repo.head();
    write_file(repo.ws + "/src/calc.py", fixed());
    std::string head = repo.commit("fix add");
    auto r = repo.verify_with(base + ".." + head, kFailToPass);
    json j = parse_stdout(r);
    CHECK(r.exit_code == 0);
    CHECK(j["verdict"] == "success");
    CHECK(j["verdict_by"] == "tier1");
    CHECK(j["provider"].is_null());
    const json& a = command_record(j);
    CHECK(a["discriminating"] == true);
    CHECK(a["before"]["passed"] == false);
    CHECK(a["before"]["exit_code"] == 1);
    CHECK(a["before"]["output"].get<std::string>().find("FAILED (failures=1)") != std::string::npos);
    CHECK(a["exit_code"] == 0);
    CHECK(a["output"].get<std::string>().find("OK") != std::string::npos);
    CHECK(a["covers"] == json::array({"src/**"}));
    // Verified again from the stored facts: the runs before and after are kept.
    auto again = repo.candor({"verify", "last", "--json"});
    CHECK(again.exit_code == 0);
    CHECK(parse_stdout(again)["verdict"] == "success");
    // The report shows both runs.
    auto shown = repo.candor({"report", "last"});
    CHECK(shown.out.find("before the change: exited 1") != std::string::npos);
    CHECK(shown.out.find("FAILED (failures=1)") != std::string::npos);
  }

  TEST_CASE(
      "verify --git: the fix reverted and the test weakened to pass is not a success, and the reason names the test") {
    PyRepo repo;
    std::string base = repo.head();
    write_file(repo.ws + "/tests/test_x.py", weakened());
    std::string head = repo.commit("make the test pass");
    auto r = repo.verify_with(base + ".." + head, kFailToPass);
    json j = parse_stdout(r);
    // Tests of record: with the test as it was, the unfixed code fails it. Evidence of tampering: fail.
    CHECK(r.exit_code == 2);
    CHECK(j["verdict"] == "fail");
    CHECK(j["tier1"]["rule"] == "3b");
    CHECK(command_record(j)["discriminating"] == true);  // it did fail before and pass after: the test is what changed
    CHECK(command_record(j)["on_record"]["passed"] == false);
    CHECK(command_record(j)["record_files"] == json::array({"tests/test_x.py"}));
    CHECK(any_reason_has(j, "passes only through its own test edits: tests/test_x.py"));
    CHECK(any_reason_has(j, "tests/test_x.py (modified) is a test file that `python3 -m unittest tests.test_x` reads"));
    // With the real fix beside it, the original test passes on record, but the weakened test is an
    // edit, not an addition: it still stands uncovered.
    write_file(repo.ws + "/src/calc.py", fixed());
    std::string both = repo.commit("and fix add");
    json j2 = parse_stdout(repo.verify_with(base + ".." + both, kFailToPass));
    CHECK(j2["verdict"] == "partial");
    CHECK(command_record(j2)["on_record"]["passed"] == true);
    CHECK(any_reason_has(j2, "tests/test_x.py (modified) is a test file"));
    CHECK(any_reason_has(j2, "the change edited 1 line of it"));
  }

  TEST_CASE("verify --git: the test marked skipped is not a success, and the skip is visible in the report") {
    PyRepo repo;
    std::string base = repo.head();
    write_file(repo.ws + "/tests/test_x.py", skipped());
    std::string head = repo.commit("skip the flaky test");
    auto r = repo.verify_with(base + ".." + head, kFailToPass);
    json j = parse_stdout(r);
    CHECK(r.exit_code == 2);  // on record the skip is gone and the test fails: tampering
    CHECK(j["verdict"] == "fail");
    CHECK(any_reason_has(j, "tests/test_x.py (modified) is a test file"));
    CHECK(command_record(j)["output"].get<std::string>().find("OK (skipped=1)") != std::string::npos);
    auto terminal = repo.candor({"report", "last"});
    CHECK(terminal.out.find("OK (skipped=1)") != std::string::npos);
    auto markdown = repo.candor({"report", "last", "--markdown"});
    CHECK(markdown.out.find("`OK (skipped=1)`") != std::string::npos);
  }

  TEST_CASE("verify --git: a command that passed before the change too covers nothing") {
    PyRepo repo;
    std::string base = repo.head();
    write_file(repo.ws + "/src/calc.py", fixed());
    std::string head = repo.commit("fix add");
    auto r = repo.verify_with(base + ".." + head, kPassToPass);
    json j = parse_stdout(r);
    CHECK(r.exit_code == 1);
    CHECK(j["verdict"] == "partial");
    const json& a = command_record(j);
    CHECK(a["discriminating"] == false);
    CHECK(a["before"]["passed"] == true);
    CHECK(any_reason_has(
        j, "src/calc.py (modified): `python3 -m unittest tests.test_other` passed before the change too"));
    // The step that would prove it, said for a git range (issue 42).
    CHECK(any_reason_has(j,
                         "to prove it: commit a test that fails to BASE, then the change that makes it pass "
                         "(FAIL_TO_PASS), and give it as --expect, or a judge (--llm)"));
  }

  TEST_CASE("verify --git: an added file is covered only when the test fails with it emptied") {
    PyRepo repo;
    std::string base = repo.head();
    write_file(repo.ws + "/src/ops.py", "def plus(a, b):\n    return a + b\n");
    write_file(repo.ws + "/src/calc.py",
               replaced(kCalc, "def add(a, b):\n    return a - b\n",
                        "from src.ops import plus\n\n\ndef add(a, b):\n    return plus(a, b)\n"));
    std::string head = repo.commit("fix add with a helper module");
    json j = parse_stdout(repo.verify_with(base + ".." + head, kFailToPass));
    CHECK(j["verdict"] == "success");
    const json& a = command_record(j);
    REQUIRE(a["emptied"].size() == 1);
    CHECK(a["emptied"][0]["path"] == "src/ops.py");
    CHECK(a["emptied"][0]["passed"] == false);
    // A new file the test never needs is not covered by it.
    write_file(repo.ws + "/src/unused.py", "print('nothing imports me')\n");
    std::string more = repo.commit("and a file nothing uses");
    json j2 = parse_stdout(repo.verify_with(base + ".." + more, kFailToPass));
    CHECK(j2["verdict"] == "partial");
    CHECK(any_reason_has(j2, "src/unused.py (added): `python3 -m unittest tests.test_x` passes with it emptied"));
  }

  TEST_CASE(
      "exec: the FAIL_TO_PASS command decides the plan's fix, and refuses the weakened, the skipped and the "
      "kept-passing test") {
    {
      Env env(python_project());
      auto r = env.exec(env.plan_file(plan_writing("src/calc.py", fixed(), kFailToPass)), {"--judge", "never"});
      json j = parse_stdout(r);
      CHECK(r.exit_code == 0);
      CHECK(j["verdict"] == "success");
      const json& a = command_record(j);
      CHECK(a["by"] == "user");
      CHECK(a["discriminating"] == true);
      CHECK(a["before"]["exit_code"] == 1);
      REQUIRE(j["mutations"].size() == 1);  // __pycache__ is ignored
      CHECK(j["mutations"][0]["path"] == "src/calc.py");
    }
    {
      Env env(python_project());
      auto r = env.exec(env.plan_file(plan_writing("tests/test_x.py", weakened(), kFailToPass)), {"--judge", "never"});
      json j = parse_stdout(r);
      CHECK(r.exit_code == 2);
      CHECK(j["verdict"] == "fail");
      CHECK(
          any_reason_has(j, "tests/test_x.py (modified) is a test file that `python3 -m unittest tests.test_x` reads"));
    }
    {
      Env env(python_project());
      auto r = env.exec(env.plan_file(plan_writing("tests/test_x.py", skipped(), kFailToPass)), {"--judge", "never"});
      json j = parse_stdout(r);
      CHECK(j["verdict"] == "fail");
      CHECK(any_reason_has(j, "tests/test_x.py (modified) is a test file"));
      auto terminal = env.candor({"report", "last"});
      CHECK(terminal.out.find("OK (skipped=1)") != std::string::npos);
    }
    {
      Env env(python_project());
      auto r = env.exec(env.plan_file(plan_writing("src/calc.py", fixed(), kPassToPass)), {"--judge", "never"});
      json j = parse_stdout(r);
      CHECK(j["verdict"] == "partial");
      CHECK(command_record(j)["discriminating"] == false);
      CHECK(any_reason_has(
          j, "src/calc.py (modified): `python3 -m unittest tests.test_other` passed before the change too"));
      // ... and for a run: the test given before it.
      CHECK(any_reason_has(j, "to prove it: a test given as --expect that fails before the run and passes after it"));
    }
  }
}

}  // namespace candor::testing
