// `candor init`, `gate install --local`, the store pinned in the hook, and what `gate install` and
// `gate status` say the gate checks, through the built binary (issue 42, item 3).
#include <doctest/doctest.h>

#include <sstream>

#include "tests/gate_fixture.h"

namespace candor::testing {
namespace {

using gate_fixture::Gate;
using json = nlohmann::json;

// The words of a hook command as candor writes it (paths without spaces or quotes here).
std::vector<std::string> words(const std::string& command) {
  std::istringstream in(command);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("init writes a commented config with the repository's test command; a second init is refused, exit 73") {
    Gate g({{"package.json", R"({"name": "x", "scripts": {"test": "node --test", "lint": "eslint ."}})"},
            {"src/add.js", "module.exports = (a, b) => a + b;\n"},
            {"test/add.test.js", "require('node:test');\n"}});
    CommandResult first = g.candor({"init", "-C", g.ws});
    CAPTURE(first.out);
    CAPTURE(first.err);
    REQUIRE(first.exit_code == 0);
    std::string path = g.ws + "/.candor/config.json";
    CHECK(first.out.find("wrote " + path + " (JSON with comments: edit it to say what done means here)") !=
          std::string::npos);
    CHECK(first.out.find("  expect  npm test (found: package.json's scripts.test), covers src/**\n") !=
          std::string::npos);
    CHECK(first.out.find("  guard   npm run lint (found: package.json's scripts.lint)\n") != std::string::npos);
    CHECK(first.out.find("next: `candor gate install --agent claude-code`") != std::string::npos);
    std::string text = read_file(path);
    CHECK(text.rfind("// candor's checks for this repository", 0) == 0);
    CHECK(text.find(R"({"type": "command_succeeds", "command": "npm test", "covers": ["src/**"]})") !=
          std::string::npos);
    CHECK(text.find(R"(// "scope": ["src/**", "test/**"],)") != std::string::npos);

    // candor reads the commented file it wrote.
    CommandResult status = g.candor({"gate", "status", "-C", g.ws, "--json"});
    REQUIRE(status.exit_code == 0);
    json s = json::parse(status.out);
    CHECK_FALSE(s["config"].contains("error"));
    CHECK(s["config"]["gate"]["expect"] == 1);
    CHECK(s["config"]["gate"]["guard"] == 1);
    CHECK(s["config"]["no_expectations"].is_null());

    write_file(path, text + "// the person's own note\n");
    CommandResult again = g.candor({"init", "-C", g.ws});
    CHECK(again.exit_code == 73);
    CHECK(again.out.empty());
    CHECK(again.err == "candor: " + path +
                           " exists already: candor init changed nothing (--force replaces it; `candor gate status` "
                           "shows what it checks)\n");
    CHECK(read_file(path) == text + "// the person's own note\n");

    CommandResult forced = g.candor({"init", "-C", g.ws, "--force"});
    CHECK(forced.exit_code == 0);
    CHECK(forced.out.rfind("replaced " + path, 0) == 0);
    CHECK(read_file(path) == text);
  }

  TEST_CASE("init finds no test command where none is named, says so, and gate status comments expect 0") {
    Gate g({{"notes.txt", "hello\n"}});
    CommandResult init = g.candor({"init"});
    CAPTURE(init.err);
    REQUIRE(init.exit_code == 0);
    CHECK(init.out.find("  expect  none: no test command found (package.json, pyproject.toml, Cargo.toml, go.mod, "
                        "Makefile); add yours to \"expect\"\n") != std::string::npos);
    CHECK(read_file(g.ws + "/.candor/config.json").find("candor found no test command") != std::string::npos);
    CommandResult status = g.candor({"gate", "status", "-C", g.ws});
    CAPTURE(status.out);
    REQUIRE(status.exit_code == 0);
    CHECK(status.out.find("expect 0, guard 0") != std::string::npos);
    CHECK(status.out.find("  no expectations: whether the work is done is not checked, only the paths and the scan "
                          "below (add an `expect` with your test command; `candor init` suggests one)\n") !=
          std::string::npos);

    // A config that is not JSON still names its line, comments allowed or not.
    write_file(g.ws + "/.candor/config.json", "// fine\n{\n  \"expect\": [,]\n}\n");
    CommandResult bad = g.candor({"evaluators", "-C", g.ws});
    CHECK(bad.exit_code == 65);
    CHECK(bad.err.find(g.ws + "/.candor/config.json:3:14: not valid JSON") != std::string::npos);
  }

  TEST_CASE("gate install says what the gate will check: the config's expectations, or that there is none") {
    Gate g({{"hello.txt", "hello world\n"}});
    CommandResult bare = g.candor({"gate", "install", "--agent", "claude-code", "-C", g.ws});
    CAPTURE(bare.out);
    REQUIRE(bare.exit_code == 0);
    CHECK(bare.out.find("the gate will check, at every stop of a turn:\n"
                        "  missing    no .candor/config.json: nothing says what done means here (`candor init` writes "
                        "one, with this repository's test command when it names one)\n"
                        "  expect     none: whether the work is done is not checked") != std::string::npos);
    CHECK(bare.out.find("note: .claude/settings.json is the project's shared file, usually committed") !=
          std::string::npos);

    write_file(g.ws + "/.candor/config.json", std::string("// checks\n") + gate_fixture::kExpectHelloCandor);
    CommandResult given = g.candor({"gate", "install", "--agent", "claude-code", "-C", g.ws, "--llm", "script:/j"});
    CAPTURE(given.out);
    REQUIRE(given.exit_code == 0);
    CHECK(given.out.find("  expect     file_contains {\"path\":\"hello.txt\",\"text\":\"hello candor\"}\n") !=
          std::string::npos);
    CHECK(given.out.find("  scope      none: a turn may change any path\n") != std::string::npos);
    CHECK(given.out.find("  judge      gate.judge auto, with script:/j\n") != std::string::npos);
    CHECK(given.out.find("missing") == std::string::npos);
  }

  TEST_CASE("gate install --local writes settings.local.json; gate status reads it and names the file") {
    Gate g({{"hello.txt", "hello world\n"}});
    CommandResult local = g.candor({"gate", "install", "--agent", "claude-code", "--local", "-C", g.ws});
    CAPTURE(local.out);
    CAPTURE(local.err);
    REQUIRE(local.exit_code == 0);
    CHECK(local.out.rfind("wrote " + g.ws + "/.claude/settings.local.json:\n", 0) == 0);
    CHECK_FALSE(exists(g.ws + "/.claude/settings.json"));
    json settings = json::parse(read_file(g.ws + "/.claude/settings.local.json"));
    CHECK(settings["hooks"]["Stop"].size() == 1);

    CommandResult status = g.candor({"gate", "status", "-C", g.ws});
    CAPTURE(status.out);
    CHECK(status.out.find("  claude-code project " + g.ws + "/.claude/settings.json: not installed\n") !=
          std::string::npos);
    CHECK(status.out.find("  claude-code local   " + g.ws +
                          "/.claude/settings.local.json: installed (Stop, UserPromptSubmit)\n") != std::string::npos);
    CHECK(status.out.find("  claude-code effective: the hooks will run\n") != std::string::npos);
    json s = json::parse(g.candor({"gate", "status", "-C", g.ws, "--json"}).out);
    REQUIRE(s["installs"].size() == 5);
    CHECK(s["installs"][1]["scope"] == "local");
    CHECK(s["installs"][1]["installed"] == true);

    CommandResult codex = g.candor({"gate", "install", "--agent", "codex", "--local", "-C", g.ws});
    CHECK(codex.exit_code == 64);
    CHECK(codex.err == "candor: --local is Claude Code's .claude/settings.local.json: Codex has no local hooks file\n");
    CommandResult both = g.candor({"gate", "install", "--agent", "claude-code", "--local", "--user"});
    CHECK(both.exit_code == 64);

    CommandResult init = g.candor({"init", "-C", g.ws, "--gate", "claude-code", "--local"});
    CAPTURE(init.out);
    REQUIRE(init.exit_code == 0);
    CHECK(init.out.find(g.ws + "/.claude/settings.local.json: nothing to change") != std::string::npos);
    CHECK(init.out.find("the gate will check, at every stop of a turn:\n") != std::string::npos);
    CHECK(init.out.find("  expect     none: whether the work is done is not checked") != std::string::npos);
    CHECK(g.candor({"init", "--local"}).exit_code == 64);  // --local needs --gate
  }

  TEST_CASE("the store is pinned in the hook when the hook would not find it; gate status then finds its turns") {
    Gate g({{"hello.txt", "hello world\n"}});
    write_file(g.ws + "/.candor/config.json", gate_fixture::kExpectHelloCandor);
    // Env runs candor with CANDOR_HOME set (to g.store), as a person who exported it in one shell.
    CommandResult install = g.candor({"gate", "install", "--agent", "claude-code", "-C", g.ws});
    REQUIRE(install.exit_code == 0);
    json settings = json::parse(read_file(g.ws + "/.claude/settings.json"));
    std::string command = settings["hooks"]["Stop"][0]["hooks"][0]["command"];
    CHECK(command == candor_bin() + " gate claude-code --store " + g.store);

    // The agent runs the hook without CANDOR_HOME.
    std::vector<std::string> argv = words(command);
    std::vector<std::string> agent_env = g.env;
    agent_env.push_back("CANDOR_HOME=");
    std::string in = make_temp_dir("hook") + "/ups.json";
    write_file(in, g.input("claude-code", "ups", {{"prompt", "Say hello candor in hello.txt"}}).dump());
    CommandResult hook = run_command(argv, agent_env, g.ws, in);
    CAPTURE(hook.out);
    REQUIRE(hook.exit_code == 0);

    // gate status without CANDOR_HOME reads the store the hook carries, and says so.
    CommandResult status = run_command({candor_bin(), "gate", "status", "-C", g.ws}, agent_env, g.ws);
    CAPTURE(status.out);
    REQUIRE(status.exit_code == 0);
    CHECK(status.out.find("last turns (store " + g.store + ", the --store of the hook in " + g.ws +
                          "/.claude/settings.json)\n") != std::string::npos);
    CHECK(status.out.find("none yet") == std::string::npos);
    CHECK(status.out.find("(not stopped yet)") != std::string::npos);

    // Where the store is the one the hook finds by itself, nothing is pinned.
    std::vector<std::string> plain_env = g.env;
    plain_env.push_back("CANDOR_HOME=");
    plain_env.push_back("XDG_STATE_HOME=" + g.home + "/state");
    CommandResult plain =
        run_command({candor_bin(), "gate", "install", "--agent", "codex", "-C", g.ws}, plain_env, g.ws);
    REQUIRE(plain.exit_code == 0);
    CHECK(read_file(g.ws + "/.codex/hooks.json").find("--store") == std::string::npos);
  }
}

}  // namespace candor::testing
