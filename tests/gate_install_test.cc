// `candor gate install` (app/gate_install.h): candor's hooks merged into an agent's settings with
// every other key and hook kept, idempotent, removable, and a malformed file left untouched.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/gate_install.h"
#include "tests/test_support.h"

namespace candor::testing {
namespace {

using nlohmann::json;
const std::string kCmd = "/opt/candor/bin/candor gate claude-code";

std::vector<app::HookEntry> hooks(const std::string& cmd = kCmd) { return app::gate_hooks(cmd); }

json parsed(const app::MergeResult& r) { return json::parse(r.text); }

const char* kUserSettings = R"JSON({
  "model": "sonnet",
  "hooks": {
    "Stop": [
      {"matcher": "", "hooks": [{"type": "command", "command": "/usr/local/bin/notify-done"}]}
    ],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}]
  },
  "permissions": {"allow": ["Bash(ls)"]}
})JSON";

std::function<std::string(const char*)> env_of(std::map<std::string, std::string> vars) {
  return [vars](const char* name) {
    auto it = vars.find(name);
    return it == vars.end() ? std::string() : it->second;
  };
}

}  // namespace

TEST_SUITE("app") {
  TEST_CASE("install into a missing or empty file adds the two hooks; a second install changes nothing") {
    for (const std::string& start : {std::string(), std::string("  \n"), std::string("{}")}) {
      auto first = app::merge_hooks(start, "settings.json", hooks(), false);
      REQUIRE(first.ok());
      CHECK(first->changed);
      CHECK(first->what.size() == 2);
      json j = parsed(*first);
      CHECK(j["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"] == kCmd);
      CHECK(j["hooks"]["Stop"][0]["hooks"][0] == json({{"type", "command"}, {"command", kCmd}, {"timeout", 600}}));
      auto second = app::merge_hooks(first->text, "settings.json", hooks(), false);
      REQUIRE(second.ok());
      CHECK_FALSE(second->changed);
      CHECK(second->what.empty());
      CHECK(second->text == first->text);
    }
  }

  TEST_CASE("install keeps every other key and hook, in order, and appends its own group after them") {
    auto r = app::merge_hooks(kUserSettings, "settings.json", hooks(), false);
    REQUIRE(r.ok());
    json before = json::parse(kUserSettings), after = parsed(*r);
    CHECK(after["model"] == before["model"]);
    CHECK(after["permissions"] == before["permissions"]);
    CHECK(after["hooks"]["PreToolUse"] == before["hooks"]["PreToolUse"]);
    REQUIRE(after["hooks"]["Stop"].size() == 2);
    CHECK(after["hooks"]["Stop"][0] == before["hooks"]["Stop"][0]);  // the user's group keeps its place (Codex trust)
    CHECK(after["hooks"]["Stop"][1]["hooks"][0]["command"] == kCmd);
    // The key order of the user's file is kept.
    CHECK(r->text.find("\"model\"") < r->text.find("\"hooks\""));
    CHECK(r->text.find("\"hooks\"") < r->text.find("\"permissions\""));
  }

  TEST_CASE("an older candor's hook (another path, options) is updated in place; duplicates collapse to one") {
    json settings = json::parse(kUserSettings);
    settings["hooks"]["Stop"].push_back(
        {{"hooks", {{{"type", "command"}, {"command", "'/old path/candor' gate claude-code --store /s"}}}}});
    settings["hooks"]["Stop"].push_back({{"hooks", {{{"type", "command"}, {"command", "candor gate claude-code"}}}}});
    auto r = app::merge_hooks(settings.dump(), "settings.json", hooks(), false);
    REQUIRE(r.ok());
    json j = parsed(*r);
    REQUIRE(j["hooks"]["Stop"].size() == 2);
    CHECK(j["hooks"]["Stop"][1]["hooks"][0]["command"] == kCmd);
    CHECK(j["hooks"]["Stop"][1]["hooks"][0]["timeout"] == 600);
    CHECK(j["hooks"]["Stop"][0] == settings["hooks"]["Stop"][0]);
  }

  TEST_CASE("uninstall removes candor's hooks and the groups and events it empties, nothing else") {
    auto installed = app::merge_hooks(kUserSettings, "settings.json", hooks(), false);
    REQUIRE(installed.ok());
    auto removed = app::merge_hooks(installed->text, "settings.json", hooks(), true);
    REQUIRE(removed.ok());
    CHECK(removed->changed);
    CHECK(parsed(*removed) == json::parse(kUserSettings));
    auto again = app::merge_hooks(removed->text, "settings.json", hooks(), true);
    REQUIRE(again.ok());
    CHECK_FALSE(again->changed);
    // A file holding only candor's hooks ends as an empty object.
    auto only = app::merge_hooks("", "settings.json", hooks(), false);
    auto gone = app::merge_hooks(only->text, "settings.json", hooks(), true);
    REQUIRE(gone.ok());
    CHECK(parsed(*gone) == json::object());
    // A handler of candor's beside another in one group: only candor's goes.
    json shared = json::parse(R"({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "a.sh"},
                                                                {"type": "command", "command": "CMD"}]}]}})");
    shared["hooks"]["Stop"][0]["hooks"][1]["command"] = kCmd;
    auto one = app::merge_hooks(shared.dump(), "settings.json", hooks(), true);
    REQUIRE(one.ok());
    CHECK(parsed(*one)["hooks"]["Stop"][0]["hooks"] == json::parse(R"([{"type": "command", "command": "a.sh"}])"));
  }

  TEST_CASE("a malformed settings file is refused with the file and the JSON path; nothing is to be written") {
    struct Row {
      std::string text, path;
    };
    for (const auto& row : std::vector<Row>{
             {"{\"hooks\": ", "settings.json:1:"},
             {"[1, 2]", "settings.json: $: expected an object"},
             {R"({"hooks": []})", "settings.json: hooks: expected an object"},
             {R"({"hooks": {"Stop": {}}})", "settings.json: hooks.Stop: expected an array"},
             {R"({"hooks": {"Stop": [3]}})", "settings.json: hooks.Stop[0]: expected a hook group"},
             {R"({"hooks": {"UserPromptSubmit": [{"hooks": "x"}]}})",
              "hooks.UserPromptSubmit[0].hooks: expected an array"},
             {R"({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "a"}, 7]}]}})",
              "hooks.Stop[0].hooks[1]: expected a hook"},
             {std::string(70, '[') + std::string(70, ']'), "deeper than 64"},
         }) {
      CAPTURE(row.text);
      for (bool uninstall : {false, true}) {
        auto r = app::merge_hooks(row.text, "settings.json", hooks(), uninstall);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().code == ErrorCode::kInvalidInput);
        CHECK(r.error().message.find(row.path) != std::string::npos);
        CHECK(r.error().message.find("changed nothing") != std::string::npos);
      }
    }
  }

  TEST_CASE("candor's hook is known by its program and arguments, whatever its path or quoting") {
    struct Row {
      std::string command;
      bool candor;
    };
    for (const auto& row : std::vector<Row>{
             {"candor gate claude-code", true},
             {"/usr/local/bin/candor gate codex --store /s", true},
             {"'/home/me/my tools/candor' gate claude-code", true},
             {"\"/x/candor\" gate codex --llm 'command:judge.sh'", true},
             {"env A=1 /x/candor gate codex", true},
             {"candor gate status", false},
             {"candor run gate claude-code", false},
             {"/x/candor-old gate codex", false},
             {"echo candor gate claude-code",
              true},  // the words are there: treated as candor's (updated, not duplicated)
             {"notify-done", false},
             {"", false},
         }) {
      CAPTURE(row.command);
      CHECK(app::is_candor_hook_command(row.command) == row.candor);
    }
    CHECK(app::shell_quote("/usr/bin/candor") == "/usr/bin/candor");
    CHECK(app::shell_quote("/my tools/candor") == "'/my tools/candor'");
    CHECK(app::shell_quote("it's") == "'it'\\''s'");
    CHECK(app::is_candor_hook_command(app::shell_quote("/it's here/candor") + " gate codex"));
  }

  TEST_CASE("Codex's hooks feature: turned on where it is off or missing, left alone where it is on") {
    struct Row {
      std::string toml;
      bool changed;
      std::string contains;
    };
    for (const auto& row : std::vector<Row>{
             {"", true, "[features]\nhooks = true\n"},
             {"model = \"gpt-5.5\"\n", true, "model = \"gpt-5.5\"\n\n[features]\nhooks = true\n"},
             {"[features]\nweb_search = true\n", true, "[features]\nhooks = true\nweb_search = true\n"},
             {"[features]\nhooks = false # off\n", true, "hooks = true"},
             {"[features]\nhooks = true\n", false, "[features]\nhooks = true\n"},
             {"features.hooks = true\n[other]\nx = 1\n", false, "features.hooks = true"},
             {"[projects.\"/w\"]\ntrust_level = \"trusted\"\nhooks = false\n", true, "[features]\nhooks = true"},
             {"# [features]\n# hooks = true\n", true, "[features]\nhooks = true"},
         }) {
      CAPTURE(row.toml);
      auto r = app::enable_codex_hooks(row.toml, "config.toml");
      REQUIRE(r.ok());
      CHECK(r->changed == row.changed);
      CHECK(r->text.find(row.contains) != std::string::npos);
      if (row.changed) {
        auto again = app::enable_codex_hooks(r->text, "config.toml");
        REQUIRE(again.ok());
        CHECK_FALSE(again->changed);
      }
    }
    auto inline_table = app::enable_codex_hooks("features = { web_search = true }\n", "config.toml");
    REQUIRE_FALSE(inline_table.ok());
    CHECK(inline_table.error().message.find("by hand") != std::string::npos);
  }

  TEST_CASE("the hook's store: pinned when the hook would not find it in the agent's environment") {
    struct Row {
      std::string given, candor_home, xdg;
      std::string pinned;  // "" = the hook finds it itself
    };
    const Row rows[] = {
        {"", "", "", ""},                        // the default: nothing to pin
        {"", "", "/x/state", ""},                // $XDG_STATE_HOME/candor, the agent's too
        {"", "/srv/candor", "", "/srv/candor"},  // CANDOR_HOME of one shell: pinned
        {"", "/h/.local/state/candor", "", ""},  // CANDOR_HOME naming the default itself
        {"/srv/other", "", "", "/srv/other"},    // --store: always kept
        {"/h/.local/state/candor", "", "", "/h/.local/state/candor"},
    };
    for (const auto& row : rows) {
      CAPTURE(row.candor_home);
      CAPTURE(row.given);
      auto env = env_of({{"HOME", "/h"}, {"CANDOR_HOME", row.candor_home}, {"XDG_STATE_HOME", row.xdg}});
      CHECK(app::hook_store_dir(row.given, env) == row.pinned);
    }
    // The team store's URL is pinned, from --store or CANDOR_STORE_URL; never with a password in it.
    auto team = env_of({{"HOME", "/h"}, {"CANDOR_STORE_URL", "postgresql://ci@db/candor"}});
    CHECK(app::hook_store_dir("", team) == "postgresql://ci@db/candor");
    CHECK(app::hook_store_dir("/srv/s", team) == "/srv/s");  // --store wins over the variable
    CHECK(app::check_hook_store("", team).ok());
    auto with_password = app::check_hook_store("postgres://ci:hunter2pw@db/candor", team);
    REQUIRE_FALSE(with_password.ok());
    CHECK(with_password.error().code == ErrorCode::kUsage);
    CHECK(with_password.error().message.find("hunter2pw") == std::string::npos);
    CHECK(with_password.error().message.find("PGPASSFILE") != std::string::npos);
    CHECK(app::hook_option("/b/candor gate claude-code --store '/s t/x' --llm anthropic", "--store") == "/s t/x");
    CHECK(app::hook_option("/b/candor gate codex --llm=script:/j", "--llm") == "script:/j");
    CHECK(app::hook_option("/b/candor gate codex", "--store").empty());
  }

  TEST_CASE("install_gate writes the project's or the user's files, once, and leaves a malformed file untouched") {
    std::string project = make_temp_dir("project");
    std::string home = make_temp_dir("home");
    std::string codex_home = make_temp_dir("codex-home");
    auto env = env_of({{"HOME", home}, {"CODEX_HOME", codex_home}});
    app::InstallRequest claude{.agent = app::GateAgent::kClaudeCode,
                               .user = false,
                               .uninstall = false,
                               .project_dir = project,
                               .command = kCmd,
                               .env = env};
    auto first = app::install_gate(claude);
    REQUIRE_MESSAGE(first.ok(), first.error().message);
    REQUIRE(first->files.size() == 1);
    CHECK(first->files[0].path == project + "/.claude/settings.json");
    CHECK(first->files[0].changed);
    std::string written = read_file(project + "/.claude/settings.json");
    auto second = app::install_gate(claude);
    REQUIRE(second.ok());
    CHECK_FALSE(second->files[0].changed);
    CHECK(read_file(project + "/.claude/settings.json") == written);
    CHECK(second->notes[0].find("only when it is started in") != std::string::npos);

    claude.user = true;
    auto user = app::install_gate(claude);
    REQUIRE(user.ok());
    CHECK(user->files[0].path == home + "/.claude/settings.json");
    claude.env = env_of({{"HOME", home}, {"CLAUDE_CONFIG_DIR", home + "/cfg"}});
    auto configured = app::install_gate(claude);
    REQUIRE(configured.ok());
    CHECK(configured->files[0].path == home + "/cfg/settings.json");

    app::InstallRequest codex{.agent = app::GateAgent::kCodex,
                              .user = false,
                              .uninstall = false,
                              .project_dir = project,
                              .command = "/opt/candor/bin/candor gate codex",
                              .env = env};
    write_file(codex_home + "/config.toml", "model = \"gpt-5.5\"\n");
    auto c = app::install_gate(codex);
    REQUIRE_MESSAGE(c.ok(), c.error().message);
    REQUIRE(c->files.size() == 2);
    CHECK(c->files[0].path == project + "/.codex/hooks.json");
    CHECK(c->files[1].path == codex_home + "/config.toml");
    CHECK(read_file(codex_home + "/config.toml") == "model = \"gpt-5.5\"\n\n[features]\nhooks = true\n");
    CHECK(c->notes[0].find("/hooks") != std::string::npos);
    CHECK(c->notes[0].find("silently") != std::string::npos);

    // A malformed file: the error names it and the path, and its bytes and mode stay as they were.
    std::string bad = project + "/.claude/settings.json";
    write_file(bad, "{\"hooks\": {\"Stop\": 1}}");
    ::chmod(bad.c_str(), 0600);
    auto refused = app::install_gate({.agent = app::GateAgent::kClaudeCode,
                                      .user = false,
                                      .uninstall = false,
                                      .project_dir = project,
                                      .command = kCmd,
                                      .env = env});
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message.find(bad + ": hooks.Stop: expected an array") != std::string::npos);
    CHECK(read_file(bad) == "{\"hooks\": {\"Stop\": 1}}");
    struct stat st {};
    REQUIRE(::stat(bad.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    // No temporary file left beside it.
    int files = 0;
    for (const auto& e : std::filesystem::directory_iterator(project + "/.claude")) files += e.is_regular_file();
    CHECK(files == 1);
  }
}

}  // namespace candor::testing
