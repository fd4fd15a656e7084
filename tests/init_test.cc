// `candor init`'s decision: which test command, lint and source folders a repository names, and
// the commented config written from them (app/init.h). Pure: the repository is a table of texts.
#include <doctest/doctest.h>

#include "app/gate_checks.h"
#include "app/init.h"
#include "executor/config.h"

using namespace candor;

TEST_SUITE("app") {
  TEST_CASE("init: the test command is the one the repository names, else none; lint is a guard") {
    struct Row {
      std::map<std::string, std::string> files;
      std::vector<std::string> folders;
      std::string test;  // "" = none found
      std::string from;
      std::string guard;
      std::vector<std::string> covers;
    };
    const Row rows[] = {
        {{{"package.json", R"({"scripts": {"test": "node --test", "lint": "eslint ."}})"}},
         {"src", "test", "node_modules"},
         "npm test",
         "package.json's scripts.test",
         "npm run lint",
         {"src/**"}},
        {{{"package.json", R"({"scripts": {"test": "vitest"}})"}, {"pnpm-lock.yaml", ""}},
         {"lib"},
         "pnpm test",
         "package.json's scripts.test",
         "",
         {"lib/**"}},
        // npm's placeholder script is no test.
        {{{"package.json", R"({"scripts": {"test": "echo \"Error: no test specified\" && exit 1"}})"}},
         {},
         "",
         "",
         "",
         {}},
        {{{"pyproject.toml", "[project]\nname = \"calc\"\n[tool.pytest.ini_options]\n"}},
         {"calc", "tests"},
         "python3 -m pytest -q",
         "pytest in pyproject.toml",
         "",
         {}},
        // A pyproject that names no test runner says no test command.
        {{{"pyproject.toml", "[project]\nname = \"calc\"\n"}}, {"src"}, "", "", "", {"src/**"}},
        {{{"setup.cfg", "[tool:pytest]\ntestpaths = tests\n"}},
         {},
         "python3 -m pytest -q",
         "[tool:pytest] in setup.cfg",
         "",
         {}},
        {{{"Cargo.toml", "[package]\n"}}, {"src", "target"}, "cargo test", "Cargo.toml", "", {"src/**"}},
        {{{"go.mod", "module x\n"}}, {"cmd", "internal"}, "go test ./...", "go.mod", "", {"cmd/**", "internal/**"}},
        {{{"Makefile", "all:\n\tcc x.c\ncheck: all\n\t./t\nlint:\n\tcppcheck .\n"}},
         {},
         "make check",
         "the check target of Makefile",
         "make lint",
         {}},
        // `test := x` is a variable, not a target.
        {{{"Makefile", "test := x\nall:\n"}}, {}, "", "", "", {}},
    };
    for (const auto& row : rows) {
      CAPTURE(row.test);
      CAPTURE(row.from);
      app::RepositoryFiles repo{row.files, row.folders};
      app::InitConfig c = app::plan_init(repo);
      CAPTURE(c.text);
      if (row.test.empty()) {
        CHECK(c.tests.empty());
      } else {
        REQUIRE(!c.tests.empty());
        CHECK(c.tests.front().command == row.test);
        CHECK(c.tests.front().from == row.from);
      }
      CHECK((c.guards.empty() ? std::string() : c.guards.front().command) == row.guard);
      CHECK(c.covers == row.covers);
      // What init writes is what candor reads: the commented text parses, its expectation is the test.
      auto parsed = executor::parse_config_text(c.text, "config.json");
      CAPTURE(parsed.ok() ? std::string() : parsed.error().message);
      REQUIRE(parsed.ok());
      REQUIRE(parsed->expect.size() == (row.test.empty() ? 0u : 1u));
      if (!row.test.empty()) {
        CHECK(parsed->expect[0]["type"] == "command_succeeds");
        CHECK(parsed->expect[0]["command"] == row.test);
        CHECK(parsed->expect[0].value("covers", std::vector<std::string>{}) == row.covers);
      }
      CHECK(parsed->guard.size() == (row.guard.empty() ? 0u : 1u));
      CHECK(parsed->scope.empty());  // a suggestion in a comment, never enforced unasked
      CHECK(c.text.find(row.test.empty() ? "candor found no test command" : "// found: " + row.from) !=
            std::string::npos);
    }
  }

  TEST_CASE("init: an unreadable package.json is said, a folder name that could break a comment is left out") {
    app::RepositoryFiles repo{{{"package.json", "{\"scripts\": "}}, {"src", "evil\n\"scope\": [\"x\"]", "docs"}};
    app::InitConfig c = app::plan_init(repo);
    REQUIRE(c.unread.size() == 1);
    CHECK(c.unread[0].rfind("package.json:1:", 0) == 0);
    CHECK(c.scope == std::vector<std::string>{"docs/**", "src/**"});
    auto parsed = executor::parse_config_text(c.text, "config.json");
    REQUIRE(parsed.ok());
    CHECK(parsed->scope.empty());
  }

  TEST_CASE("gate checks: each expectation, guard and scope said; no expectation said plainly") {
    auto config = executor::parse_config_text(
        R"({"expect": [{"type": "command_succeeds", "command": "pytest -q", "covers": ["src/**"]},
                       {"type": "file_contains", "path": "a.txt", "text": "hi"}],
            "guard": [{"type": "command_succeeds", "command": "ruff check ."}], "scope": ["src/**", "tests/**"],
            "gate": {"judge": "always", "acceptance": {"checkpoints": [{"id": "a"}, {"id": "b"}]}}})",
        "config.json");
    REQUIRE(config.ok());
    std::vector<std::string> lines;
    std::string all;
    for (const auto& c : app::gate_checks(*config, true, "")) {
      lines.push_back(c.what + " " + c.text);
      all += lines.back() + "\n";
    }
    CAPTURE(all);
    REQUIRE(lines.size() == 9);
    CHECK(lines[0] == "expect command_succeeds: pytest -q (covers src/**)");
    CHECK(lines[1] == R"(expect file_contains {"path":"a.txt","text":"hi"})");
    CHECK(lines[2] == "guard command_succeeds: ruff check . (must still hold)");
    CHECK(lines[3] == "scope src/**, tests/** (a change elsewhere blocks)");
    CHECK(lines[4].rfind("sensitive .github/workflows/**", 0) == 0);
    CHECK(lines[5] == "acceptance an acceptance spec of 2 checkpoints over the turn's transcript");
    CHECK(lines[6] == "judge gate.judge always, but never asked: the hook has no --llm");
    CHECK(lines[7].rfind("always protected paths", 0) == 0);
    CHECK(lines[8].rfind("blocks at most gate.max_blocks 3 a turn, on: expectation, sandbox", 0) == 0);

    auto empty = executor::parse_config_text("{}", "config.json");
    REQUIRE(empty.ok());
    auto none = app::gate_checks(*empty, false, "anthropic");
    REQUIRE(none.size() >= 2);
    CHECK(none[0].what == "missing");
    CHECK(none[0].text.find("candor init") != std::string::npos);
    CHECK(none[1].what == "expect");
    CHECK(none[1].text.rfind("none: the judge alone decides whether the work is done", 0) == 0);
    CHECK(app::no_expectations("").rfind("whether the work is done is not checked", 0) == 0);
  }
}
