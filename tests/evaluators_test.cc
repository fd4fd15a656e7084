// Extending candor with evaluators: a C++ evaluator from examples/ registered here, the built-ins of
// issue 7, and external evaluators with every way they can go wrong.
#include <doctest/doctest.h>

#include <filesystem>

#include "assertions/builtins.h"
#include "assertions/external.h"
#include "evidence/test_runners.h"
#include "executor/tool.h"
#include "planner/plan.h"
#include "sandbox/process_sandbox.h"
#include "tests/kernel_facts.h"
#include "tests/test_support.h"

namespace candor::assertions {
std::unique_ptr<Evaluator> make_css_color_is();  // examples/evaluators/cpp/css_color_is.cc
}

using namespace candor;
using candor::testing::exists;
using candor::testing::git;
using candor::testing::make_temp_dir;
using candor::testing::read_file;
using candor::testing::source_root;
using candor::testing::write_file;
using nlohmann::json;

namespace {
const candor::testing::needs kLandlock{candor::testing::kernel_facts().landlock_abi > 0, "Landlock"};
}  // namespace

namespace {

struct Fixture {
  std::string root = make_temp_dir("ws");
  std::unique_ptr<sandbox::Workspace> ws;
  assertions::Registry registry = assertions::builtin_evaluators();
  net::NetworkPolicy network;
  std::map<std::string, std::string> baseline{{"same.txt", "same\n"}, {"edited.txt", "old\n"}, {"gone.txt", "bye\n"}};

  Fixture() {
    write_file(root + "/css/style.css", "body {\n  background-color: #006400;\n  color: white;\n}\n");
    write_file(root + "/same.txt", "same\n");
    write_file(root + "/edited.txt", "new!\n");
    write_file(root + "/package.json",
               R"({"name": "site", "version": "1.2.0", "scripts": {"test": "jest"}, "files": ["a", "b"]})");
    write_file(root + "/broken.json", "{\n  \"a\": 1,\n}\n");
    ws = std::move(sandbox::Workspace::open(root).value());
  }
  void open() { ws = std::move(sandbox::Workspace::open(root).value()); }
  assertions::Outcome eval(const json& a) {
    assertions::BaselineReader reader = [this](const std::string& p) -> Result<std::optional<std::string>> {
      auto it = baseline.find(p);
      if (it == baseline.end()) return std::optional<std::string>();
      return std::optional<std::string>(it->second);
    };
    return registry.evaluate(a, assertions::Context{*ws, network, nullptr, reader});
  }
  // An external evaluator whose program is the sh script `body`.
  void add_external(const std::string& type, const std::string& body,
                    std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    write_file(root + "/.candor/" + type + ".sh", body);
    assertions::ExternalEvaluatorSpec spec{type, "", {"sh", ".candor/" + type + ".sh"}, timeout, {}, true};
    REQUIRE(assertions::add_external_evaluators(registry, {spec}, "config").ok());
  }
};

struct Row {
  json assertion;
  bool passed;
  std::string message;
};

void check_rows(Fixture& f, const std::vector<Row>& rows) {
  for (const auto& row : rows) {
    CAPTURE(row.assertion.dump());
    auto o = f.eval(row.assertion);
    CHECK(o.passed == row.passed);
    CHECK(o.message == row.message);
  }
}

}  // namespace

TEST_SUITE("assertions") {
  TEST_CASE("a C++ evaluator from examples/ registered in one line: listed, validated, evaluated") {
    Fixture f;
    REQUIRE(f.registry.add(assertions::make_css_color_is()).ok());
    // Listed: `candor evaluators` prints exactly these two renderings.
    json listed = assertions::describe_evaluators(f.registry);
    auto it = std::find_if(listed.begin(), listed.end(), [](const json& e) { return e["type"] == "css_color_is"; });
    REQUIRE(it != listed.end());
    CHECK((*it)["args"].size() == 3);
    CHECK(
        (*it)["args"][1] ==
        json({{"name", "property"}, {"type", "string"}, {"required", true}, {"description", "e.g. background-color"}}));
    CHECK(assertions::list_evaluators(f.registry)
              .find("css_color_is       path: string, property: string, value: string") != std::string::npos);
    // A second registration of the same type is refused, never shadowing.
    CHECK_FALSE(f.registry.add(assertions::make_css_color_is()).ok());

    // Validated with JSON paths when a plan uses it: the catalog comes from the same registry.
    executor::ToolRegistry tools = executor::builtin_tools();
    planner::Catalog catalog = executor::make_catalog(tools, f.registry);
    auto plan = [&](const std::string& assertion) {
      return planner::parse_plan_text(
          R"({"goal_kind": "modify", "steps": [{"id": "s1", "tool": "file_read", "args": {"path": "a"}, "assert": [)" +
              assertion + "]}], \"then\": \"finish\"}",
          catalog, "plan.json");
    };
    CHECK(plan(R"({"type": "css_color_is", "path": "css/style.css", "property": "color", "value": "white"})").ok());
    auto unknown = plan(R"({"type": "css_color_is", "path": "a", "property": "b", "value": "c", "colour": "d"})");
    REQUIRE_FALSE(unknown.ok());
    CHECK(unknown.error().message ==
          "plan.json: steps[0].assert[0].colour: unknown argument \"colour\" (known: path, property, value)");
    auto typed = plan(R"({"type": "css_color_is", "path": "a", "property": "b", "value": 3})");
    REQUIRE_FALSE(typed.ok());
    CHECK(typed.error().message == "plan.json: steps[0].assert[0].value: expected a string, got integer 3");

    check_rows(
        f, {
               {{{"type", "css_color_is"},
                 {"path", "css/style.css"},
                 {"property", "background-color"},
                 {"value", "#006400"}},
                true,
                "css/style.css: background-color is #006400"},
               {{{"type", "css_color_is"}, {"path", "css/style.css"}, {"property", "color"}, {"value", "black"}},
                false,
                "css/style.css: color is white, not black"},
               {{{"type", "css_color_is"}, {"path", "css/style.css"}, {"property", "border-color"}, {"value", "red"}},
                false,
                "css/style.css sets no border-color"},
           });
  }

  TEST_CASE("file_matches, content_changed, json_valid and json_path_eq: pass and fail, saying what was seen") {
    Fixture f;
    check_rows(
        f,
        {
            {{{"type", "file_matches"}, {"path", "css/style.css"}, {"pattern", "(?m)^\\s*background-color:\\s*#0+64"}},
             true,
             "css/style.css line 2 matches /(?m)^\\s*background-color:\\s*#0+64/: \"  background-color: #0064\""},
            {{{"type", "file_matches"}, {"path", "css/style.css"}, {"pattern", "#fff+"}},
             false,
             "css/style.css (54 bytes) has no match for /#fff+/"},
            {{{"type", "content_changed"}, {"path", "edited.txt"}},
             true,
             "edited.txt changed: 4 bytes before the run, 5 now"},
            {{{"type", "content_changed"}, {"path", "same.txt"}}, false, "same.txt is unchanged (5 bytes)"},
            {{{"type", "content_changed"}, {"path", "gone.txt"}},
             true,
             "gone.txt existed before the run (4 bytes) and is gone"},
            {{{"type", "content_changed"}, {"path", "package.json"}},
             true,
             "package.json did not exist before the run and exists now (86 bytes)"},
            {{{"type", "json_valid"}, {"path", "package.json"}}, true, "package.json is valid JSON (object)"},
            {{{"type", "json_valid"}, {"path", "broken.json"}},
             false,
             "broken.json:3:1: not valid JSON: syntax error while parsing object key - unexpected '}'; expected string "
             "literal"},
            {{{"type", "json_path_eq"}, {"path", "package.json"}, {"json_path", "version"}, {"value", "1.2.0"}},
             true,
             "package.json: $.version is \"1.2.0\""},
            {{{"type", "json_path_eq"}, {"path", "package.json"}, {"json_path", "$.scripts.test"}, {"value", "vitest"}},
             false,
             "package.json: $.scripts.test is \"jest\", expected \"vitest\""},
            {{{"type", "json_path_eq"}, {"path", "package.json"}, {"json_path", "/files/1"}, {"value", "b"}},
             true,
             "package.json: $.files[1] is \"b\""},
            {{{"type", "json_path_eq"}, {"path", "package.json"}, {"json_path", "files[5]"}, {"value", "b"}},
             false,
             "package.json: $.files has no element [5] (array of 2)"},
            {{{"type", "json_path_eq"}, {"path", "package.json"}, {"json_path", "scripts.build"}, {"value", "x"}},
             false,
             "package.json: $.scripts has no key \"build\" (object)"},
        });
    // Without a snapshot the comparison cannot be made: an error, never a pass either way.
    assertions::Outcome o = f.registry.evaluate({{"type", "content_changed"}, {"path", "edited.txt"}},
                                                assertions::Context{*f.ws, f.network, nullptr, {}});
    CHECK_FALSE(o.passed);
    CHECK(o.error);
  }

  TEST_CASE("not: negates a checked failure, never an error") {
    Fixture f;
    check_rows(f,
               {
                   {{{"type", "not"}, {"assertion", {{"type", "file_exists"}, {"path", "gone.txt"}}}},
                    true,
                    "not file_exists: gone.txt does not exist (as required)"},
                   {{{"type", "not"}, {"assertion", {{"type", "file_exists"}, {"path", "same.txt"}}}},
                    false,
                    "not file_exists: same.txt exists (5 bytes) (it holds, so this fails)"},
                   {{{"type", "not"},
                     {"assertion", {{"type", "not"}, {"assertion", {{"type", "file_exists"}, {"path", "same.txt"}}}}}},
                    true,
                    "not not: not file_exists: same.txt exists (5 bytes) (it holds, so this fails) (as required)"},
               });
    auto o = f.eval(
        {{"type", "not"}, {"assertion", {{"type", "command_succeeds"}, {"command", "sleep 5"}, {"timeout_s", 1}}}});
    CHECK_FALSE(o.passed);
    CHECK(o.error);
    CHECK(o.message.find("the inner check could not be made") != std::string::npos);
    // The path of the inner assertion is what the negation covers (a deletion, for tier 1).
    CHECK(f.eval({{"type", "not"}, {"assertion", {{"type", "file_exists"}, {"path", "./gone.txt"}}}}).path ==
          "gone.txt");
    // Nested arguments are validated with their JSON path.
    Status bad =
        f.registry.validate({{"type", "not"}, {"assertion", {{"type", "file_exists"}, {"paht", "x"}}}}, "assert");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message == "assert.assertion.paht: unknown argument \"paht\" (known: path)");
  }

  TEST_CASE("command_succeeds runs sandboxed: exit 0 passes, anything else fails with the output's tail") {
    Fixture f;
    auto ok = f.eval({{"type", "command_succeeds"}, {"command", "test -f package.json && echo fine"}});
    CHECK(ok.passed);
    CHECK(ok.message.rfind("`test -f package.json && echo fine` exited 0 after", 0) == 0);
    auto failing = f.eval({{"type", "command_succeeds"}, {"command", "echo 3 tests FAILED; exit 4"}});
    CHECK_FALSE(failing.passed);
    CHECK_FALSE(failing.error);
    CHECK(failing.message.find("exited 4 after") != std::string::npos);
    CHECK(failing.message.find("3 tests FAILED") != std::string::npos);
  }

  TEST_CASE("command_succeeds keeps all it printed for the test counts, when it runs one candor reads") {
    Fixture f;
    write_file(f.root + "/test_t.py",
               "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_a(self):\n        pass\n\n"
               "    @unittest.skip('no')\n    def test_b(self):\n        pass\n");
    nlohmann::json one_cmd = {{"type", "command_succeeds"}, {"command", "python3 -m unittest test_t"}};
    auto one = f.eval(one_cmd);
    CHECK(one.passed);
    CHECK(evidence::read_run_counts(one_cmd, one.summary_text).runner ==
          TestSummary{.runner = "unittest", .ran = 2, .passed = 1, .failed = 0, .skipped = 1});
    // Two runs 200 kB apart, past the 64 KiB a step's output keeps: both summaries are read.
    nlohmann::json two_cmd = {
        {"type", "command_succeeds"},
        {"command",
         "python3 -m unittest test_t && python3 -c 'print(\"x\" * 200000)' && python3 -m unittest "
         "test_t"}};
    auto two = f.eval(two_cmd);
    CHECK(two.passed);
    CHECK(evidence::read_run_counts(two_cmd, two.summary_text).runner ==
          TestSummary{.runner = "unittest", .ran = 4, .passed = 2, .failed = 0, .skipped = 2});
    CHECK(two.output.size() <= assertions::kOutputTail);
    // A runner that printed nothing has no summary; a command that is no runner is not read.
    nlohmann::json silent_cmd = {{"type", "command_succeeds"},
                                 {"command", "python3 -m unittest test_t >/dev/null 2>&1"}};
    auto silent = f.eval(silent_cmd);
    CHECK(silent.passed);
    CHECK_FALSE(evidence::read_run_counts(silent_cmd, silent.summary_text).runner);
    nlohmann::json make_cmd = {{"type", "command_succeeds"}, {"command", "echo 'Ran 3 tests in 0.1s'; echo; echo OK"}};
    auto make = f.eval(make_cmd);
    CHECK(make.passed);
    CHECK_FALSE(evidence::read_run_counts(make_cmd, make.summary_text).runner);
  }

  TEST_CASE("command_succeeds cannot write outside the workspace" * kLandlock) {
    Fixture f;
    std::string outside = make_temp_dir("outside");
    auto escape = f.eval({{"type", "command_succeeds"}, {"command", "echo x > " + outside + "/canary"}});
    CHECK_FALSE(escape.passed);
    CHECK_FALSE(exists(outside + "/canary"));
  }

  TEST_CASE("git_clean reads the workspace's repository") {
    Fixture f;
    auto none = f.eval({{"type", "git_clean"}});
    CHECK_FALSE(none.passed);
    CHECK(none.message.rfind("the workspace is not in a git repository", 0) == 0);
    git(f.root, {"init", "-q"});
    git(f.root, {"add", "-A"});
    git(f.root, {"commit", "-q", "-m", "init"});
    f.open();
    auto clean = f.eval({{"type", "git_clean"}});
    CHECK(clean.passed);
    CHECK(clean.message == "the worktree is clean: everything is committed");
    write_file(f.root + "/same.txt", "changed\n");
    write_file(f.root + "/new.txt", "n\n");
    auto dirty = f.eval({{"type", "git_clean"}});
    CHECK_FALSE(dirty.passed);
    CHECK(dirty.message == "the worktree has 2 uncommitted changes: untracked new.txt, modified same.txt");
    auto scoped = f.eval({{"type", "git_clean"}, {"path", "css"}});
    CHECK(scoped.passed);
  }

  TEST_CASE("external evaluators: an answer is taken; every failure is a failed assertion saying why") {
    Fixture f;
    f.add_external("says_yes", "cat > /dev/null; echo '{\"passed\": true, \"message\": \"looked and liked it\"}'\n");
    f.add_external("echoes_input",
                   "input=$(cat); printf '{\"passed\": false, \"message\": %s}' \"$(printf '%s' \"$input\" | python3 "
                   "-c 'import json,sys; print(json.dumps(json.load(sys.stdin)[\"assertion\"][\"path\"]))')\"\n");
    f.add_external("crashes", "kill -SEGV $$\n");
    f.add_external("hangs", "trap '' TERM; sleep 30\n", std::chrono::seconds(1));
    f.add_external("exits_3", "echo 'cannot parse config' >&2; exit 3\n");
    f.add_external("floods", "head -c 200000 /dev/zero | tr '\\0' 'x'\n");
    f.add_external("prose", "echo 'Looks good to me!'\n");
    f.add_external("no_passed", "echo '{\"message\": \"hmm\"}'\n");
    f.add_external("stringly", "echo '{\"passed\": \"true\"}'\n");
    std::string outside = make_temp_dir("outside");
    write_file(outside + "/canary", "untouched\n");
    f.add_external("escapes", "echo pwned > " + outside + "/canary; echo x > inside.txt; echo '{\"passed\": true}'\n");
    f.open();

    auto yes = f.eval({{"type", "says_yes"}, {"anything", 1}});
    CHECK(yes.passed);
    CHECK(yes.message == "looked and liked it");
    auto echoed = f.eval({{"type", "echoes_input"}, {"path", "css/style.css"}});
    CHECK_FALSE(echoed.passed);
    CHECK_FALSE(echoed.error);
    CHECK(echoed.message == "css/style.css");
    CHECK(echoed.path == "css/style.css");

    struct Bad {
      std::string type, message_start;
    };
    for (const auto& bad : std::vector<Bad>{
             {"crashes", "external evaluator crashes (sh) crashed (signal 11)"},
             {"hangs", "external evaluator hangs (sh) timed out after 1.0 s and was killed"},
             {"exits_3", "external evaluator exits_3 (sh) exited with status 3: cannot parse config"},
             {"floods", "external evaluator floods (sh) printed 200000 bytes, over the 65536 an answer may have"},
             {"prose", "external evaluator prose (sh) printed invalid JSON: its output:1:1: not valid JSON"},
             {"no_passed",
              "external evaluator no_passed (sh) printed {\"message\":\"hmm\"} without a boolean \"passed\""},
             {"stringly",
              "external evaluator stringly (sh) printed {\"passed\":\"true\"} without a boolean \"passed\""},
         }) {
      CAPTURE(bad.type);
      auto o = f.eval({{"type", bad.type}});
      CHECK_FALSE(o.passed);
      CHECK(o.error);
      CHECK(o.message.rfind(bad.message_start, 0) == 0);
    }

    // The sandbox: it may not write outside the workspace (nor inside it: the next case). Its
    // answer is still read.
    auto escape = f.eval({{"type", "escapes"}});
    CHECK(read_file(outside + "/canary") == "untouched\n");
    CHECK(escape.passed);
  }

  TEST_CASE("an external evaluator cannot write inside the workspace: a checker does not change what it checks" *
            kLandlock) {
    Fixture f;
    f.add_external("writes_inside", "echo x > inside.txt; echo '{\"passed\": true}'\n");
    f.open();
    auto answer = f.eval({{"type", "writes_inside"}});
    CHECK_FALSE(exists(f.root + "/inside.txt"));
    CHECK(answer.passed);
  }

  TEST_CASE("an external evaluator cannot shadow a built-in") {
    Fixture f;
    assertions::ExternalEvaluatorSpec spec{"file_exists", "", {"true"}, std::chrono::seconds(1), {}, true};
    Status s = assertions::add_external_evaluators(f.registry, {spec}, ".candor/config.json");
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message ==
          ".candor/config.json: evaluators.file_exists: \"file_exists\" is a built-in assertion type; an external "
          "evaluator "
          "cannot replace it (choose another name)");
  }

  TEST_CASE("the example evaluators in examples/evaluators/ work as documented") {
    Fixture f;
    std::filesystem::create_directories(f.root + "/.candor/evaluators");
    for (const char* name : {"html_has_title.sh", "max_line_length.py"}) {
      std::filesystem::copy_file(source_root() + "/examples/evaluators/" + name,
                                 f.root + "/.candor/evaluators/" + name);
    }
    write_file(f.root + "/index.html", "<html><head>\n<title> Dark Green </title></head></html>\n");
    write_file(f.root + "/bare.html", "<html><body>no title</body></html>\n");
    std::vector<assertions::ExternalEvaluatorSpec> specs = {
        {"html_has_title",
         "",
         {"sh", ".candor/evaluators/html_has_title.sh"},
         std::chrono::seconds(10),
         {{"path", ArgType::kString, true, ""}},
         false},
        {"max_line_length",
         "",
         {"python3", ".candor/evaluators/max_line_length.py"},
         std::chrono::seconds(10),
         {{"path", ArgType::kString, true, ""}, {"max", ArgType::kInteger, true, ""}},
         false},
    };
    REQUIRE(assertions::add_external_evaluators(f.registry, specs, "config").ok());
    f.open();
    check_rows(
        f, {
               {{{"type", "html_has_title"}, {"path", "index.html"}}, true, "index.html has the title \"Dark Green\""},
               {{{"type", "html_has_title"}, {"path", "bare.html"}}, false, "bare.html has no non-empty <title>"},
               {{{"type", "max_line_length"}, {"path", "css/style.css"}, {"max", 40}},
                true,
                "css/style.css: all 4 lines are at most 40 characters"},
               {{{"type", "max_line_length"}, {"path", "css/style.css"}, {"max", 10}},
                false,
                "css/style.css: 2 line(s) over 10 characters, first line 2 (28)"},
           });
    Status undeclared =
        f.registry.validate({{"type", "max_line_length"}, {"path", "a"}, {"max", 1}, {"min", 0}}, "assert");
    REQUIRE_FALSE(undeclared.ok());
    CHECK(undeclared.error().message == "assert.min: unknown argument \"min\" (known: path, max)");
  }
}
