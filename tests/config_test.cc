#include <doctest/doctest.h>

#include "executor/config.h"
#include "tests/test_support.h"

using namespace candor;
using nlohmann::json;

TEST_SUITE("executor") {
  TEST_CASE("config: valid fields are read, malformed ones named by path") {
    auto ok = executor::parse_config(json::parse(R"({"network": {"allow_hosts": ["example.com"]},
        "budget": {"max_steps": 10, "timeout_s": 30}, "output_cap_bytes": 4096,
        "expect": [{"type": "file_exists", "path": "a"}]})"));
    REQUIRE(ok.ok());
    CHECK(ok->network.allows("example.com"));
    CHECK_FALSE(ok->network.allows("example.org"));
    CHECK(ok->max_steps == 10);
    CHECK(ok->output_cap_bytes == 4096u);
    CHECK(ok->expect.size() == 1);
    BudgetLimits limits;
    executor::apply_config_budget(*ok, limits);
    CHECK(limits.max_steps == 10);
    CHECK(limits.timeout_s == 30);
    CHECK(limits.max_replans == 3);

    auto sandboxed = executor::parse_config(json::parse(R"({"sandbox": {"allow_network": true, "pass_env": ["GH_TOKEN"],
        "read_paths": ["/srv/tools"], "limits": {"memory_mb": 512, "file_size_mb": 8, "processes": 64, "cpu_s": 5,
        "open_files": 100}}, "secrets": {"allow": ["config/*.pem"]}})"));
    REQUIRE(sandboxed.ok());
    CHECK(sandboxed->sandbox.allow_network);
    CHECK(sandboxed->sandbox.pass_env == std::vector<std::string>{"GH_TOKEN"});
    CHECK(sandboxed->sandbox.read_paths == std::vector<std::string>{"/srv/tools"});
    CHECK(sandboxed->sandbox.limits.memory_bytes == 512ULL << 20);
    CHECK(sandboxed->sandbox.limits.file_size_bytes == 8ULL << 20);
    CHECK(sandboxed->sandbox.limits.processes == 64);
    CHECK(sandboxed->sandbox.limits.cpu_seconds == 5);
    CHECK(sandboxed->sandbox.limits.open_files == 100);
    CHECK(sandboxed->secrets_allow == std::vector<std::string>{"config/*.pem"});

    struct Row {
      std::string text, message;
    };
    for (const auto& row : std::vector<Row>{
             {R"({"budget": {"max_steps": 0}})", "budget.max_steps: must be between 1 and 100000, got 0"},
             {R"({"budget": {"max_step": 5}})",
              "budget.max_step: unknown argument \"max_step\" (known: max_replans, max_steps, max_tokens, timeout_s)"},
             {R"({"network": {"allow_hosts": [""]}})", "network.allow_hosts[0]: expected a non-empty host name"},
             {R"({"network": {"allow": []}})", "network.allow: unknown field \"allow\" (expected: allow_hosts)"},
             {R"({"output_cap_bytes": 10})", "output_cap_bytes: expected an integer from 1024 to 67108864"},
             {R"({"evaluatorz": {}})",
              "evaluatorz: unknown field \"evaluatorz\" (expected one of: network, budget, output_cap_bytes, expect, "
              "guard, sandbox, secrets, evaluators, snapshot, scope, sensitive, gate)"},
             {R"({"scope": "css/**"})", "scope: expected an array of strings"},
             {R"({"sensitive": [""]})", "sensitive[0]: expected a non-empty string"},
             {R"({"sandbox": {"allow_network": "yes"}})", "sandbox.allow_network: expected true or false"},
             {R"({"sandbox": {"pass_env": ["A", 3]}})", "sandbox.pass_env[1]: expected a non-empty string"},
             {R"({"sandbox": {"read_paths": ["relative/dir"]}})", "sandbox.read_paths[0]: expected an absolute path"},
             {R"({"sandbox": {"limits": {"memory_mb": 1}}})",
              "sandbox.limits.memory_mb: must be between 16 and 16777216, got 1"},
             {R"({"sandbox": {"limit": {}}})",
              "sandbox.limit: unknown field \"limit\" (expected one of: allow_network, pass_env, read_paths, limits)"},
             {R"({"secrets": {"allow": "*.pem"}})", "secrets.allow: expected an array of strings"},
             {R"({"secrets": {"deny": []}})", "secrets.deny: unknown field \"deny\" (expected: allow)"},
             {R"({"gate": []})", "gate: expected an object"},
             {R"({"gate": {"max_blocks": -1}})",
              "gate.max_blocks: expected an integer from 0 to 100 (0: never block, only report)"},
             {R"({"gate": {"max_blocks": "3"}})",
              "gate.max_blocks: expected an integer from 0 to 100 (0: never block, only report)"},
             {R"({"gate": {"block_on": ["expectation", "typo"]}})",
              "gate.block_on[1]: unknown kind of finding \"typo\" (expected one of: expectation, sandbox, checkpoint, "
              "protected, "
              "sensitive, scope, scan, suspicious, judge, unchanged, tampering)"},
             {R"({"gate": {"judge": "sometimes"}})", "gate.judge: expected \"auto\", \"always\" or \"never\""},
             {R"({"gate": {"acceptance": {"claude": {}}}})",
              "gate.acceptance.claude: expected a spec with \"checkpoints\", or one spec per agent: \"claude-code\", "
              "\"codex\""},
             {R"({"gate": {"max_block": 3}})",
              "gate.max_block: unknown field \"max_block\" (expected one of: max_blocks, start_timeout_s, block_on, "
              "judge, acceptance)"},
             {R"([])", "$: the config is a JSON object"}}) {
      CAPTURE(row.text);
      auto c = executor::parse_config(json::parse(row.text));
      REQUIRE_FALSE(c.ok());
      CHECK(c.error().message == row.message);
    }
  }

  TEST_CASE("config: gate holds the live gate's settings; every kind of finding blocks by default") {
    auto none = executor::parse_config(json::parse("{}"));
    REQUIRE(none.ok());
    CHECK(none->gate.max_blocks == 3);
    CHECK(none->gate.block_on == executor::gate_finding_kinds());
    CHECK(none->gate.judge.empty());
    CHECK(none->gate.acceptance.is_null());
    auto set = executor::parse_config(json::parse(
        R"({"gate": {"max_blocks": 0, "block_on": ["scope", "protected"], "judge": "always",
                     "acceptance": {"codex": {"checkpoints": []}}}})"));
    REQUIRE(set.ok());
    CHECK(set->gate.max_blocks == 0);
    CHECK(set->gate.block_on == std::vector<std::string>{"scope", "protected"});
    CHECK(set->gate.judge == "always");
    CHECK(set->gate.acceptance.contains("codex"));
    CHECK(executor::parse_config(json::parse(R"({"gate": {"block_on": []}})"))->gate.block_on.empty());
  }

  TEST_CASE("config: snapshot.ignore holds extra ignore patterns, one per entry") {
    auto ok = executor::parse_config(json::parse(R"({"snapshot": {"ignore": ["node_modules/", "*.log", "/cache/"]}})"));
    REQUIRE(ok.ok());
    CHECK(ok->snapshot_ignore == std::vector<std::string>{"node_modules/", "*.log", "/cache/"});
    // git's own forms are valid: a negation, an escaped '#', an escaped trailing space, classes.
    CHECK(executor::parse_config(
              json::parse(R"({"snapshot": {"ignore": ["!keep.log", "\\#lit", "sp\\ ", "[[:digit:]]*/"]}})"))
              .ok());
    CHECK(executor::parse_config(json::parse("{}"))->snapshot_ignore.empty());
    CHECK(executor::parse_config(json::parse("{}"))->fsmonitor.empty());
    CHECK(executor::parse_config(json::parse(R"({"snapshot": {"fsmonitor": "watchman"}})"))->fsmonitor == "watchman");
    struct Row {
      std::string text, message;
    };
    for (const auto& row : std::vector<Row>{
             {R"({"snapshot": []})", "snapshot: expected an object"},
             {R"({"snapshot": {"ignored": []}})",
              "snapshot.ignored: unknown field \"ignored\" (expected one of: ignore, change_events, max_watches, "
              "fsmonitor)"},
             {R"({"snapshot": {"fsmonitor": "git"}})",
              "snapshot.fsmonitor: expected \"watchman\" or \"\" (none: walk)"},
             {R"({"snapshot": {"fsmonitor": true}})", "snapshot.fsmonitor: expected \"watchman\" or \"\" (none: walk)"},
             {R"({"snapshot": {"max_watches": -1}})",
              "snapshot.max_watches: expected a whole number from 0 (the kernel's limit) to 100000000"},
             {R"({"snapshot": {"change_events": "yes"}})", "snapshot.change_events: expected true or false"},
             {R"({"snapshot": {"ignore": "*.log"}})", "snapshot.ignore: expected an array of strings"},
             {R"({"snapshot": {"ignore": ["*.log", ""]}})", "snapshot.ignore[1]: expected a non-empty string"},
             {R"({"snapshot": {"ignore": ["a\n!b"]}})",
              "snapshot.ignore[0]: expected one gitignore pattern, without line breaks"},
             {R"({"snapshot": {"ignore": ["# build"]}})",
              "snapshot.ignore[0]: \"# build\" is a comment in a gitignore, not a pattern (write \\# for a name that "
              "starts with '#')"},
             {R"({"snapshot": {"ignore": ["!x[[:word:]]"]}})",
              "snapshot.ignore[0]: invalid glob \"!x[[:word:]]\": [:word:] is not a character class (alnum, alpha, "
              "blank, cntrl, "
              "digit, graph, lower, print, punct, space, upper, xdigit)"}}) {
      CAPTURE(row.text);
      auto c = executor::parse_config(json::parse(row.text));
      REQUIRE_FALSE(c.ok());
      CHECK(c.error().message == row.message);
    }
  }

  TEST_CASE(
      "config: scope, sensitive and secrets.allow globs are git's wildmatch; an invalid one is refused by its JSON "
      "path") {
    auto ok = executor::parse_config(json::parse(
        R"({"scope": ["src/**", "[[:alpha:]]*.txt"], "sensitive": ["deploy/", "a[\\]]b"], "secrets": {"allow": [".env.[!p]*"]}})"));
    REQUIRE(ok.ok());
    CHECK(ok->sensitive == std::vector<std::string>{"deploy/", "a[\\]]b"});
    struct Row {
      std::string text, message;
    };
    for (const auto& row : std::vector<Row>{
             {R"({"scope": ["a[b"]})",
              "scope[0]: invalid glob \"a[b\": the '[' at offset 1 is never closed (write \\[ for a literal '[')"},
             {R"({"sensitive": ["ok/**", "/"]})",
              "sensitive[1]: invalid glob \"/\": names nothing (only '/' or './' are left of it)"},
             {R"({"secrets": {"allow": ["x\\"]}})",
              "secrets.allow[0]: invalid glob \"x\\\": ends with a lone backslash (write \\\\ for a backslash)"}}) {
      CAPTURE(row.text);
      auto c = executor::parse_config(json::parse(row.text));
      REQUIRE_FALSE(c.ok());
      CHECK(c.error().code == ErrorCode::kInvalidInput);
      CHECK(c.error().message == row.message);
    }
  }

  TEST_CASE("config: a missing file is empty; a broken one names the file, line and column") {
    std::string ws = candor::testing::make_temp_dir("ws");
    auto none = executor::load_config(ws);
    REQUIRE(none.ok());
    CHECK(none->expect.empty());
    candor::testing::write_file(ws + "/.candor/config.json", "{\n  \"budget\": {\"max_steps\": }\n}\n");
    auto broken = executor::load_config(ws);
    REQUIRE_FALSE(broken.ok());
    CHECK(broken.error().code == ErrorCode::kInvalidInput);
    CAPTURE(broken.error().message);
    CHECK(broken.error().message.rfind(ws + "/.candor/config.json:2:27: not valid JSON", 0) == 0);
  }

  TEST_CASE("config: // and /* */ comments are read as white space; everything else stays strict") {
    const std::string commented = R"(// the checks of this repository
{
  /* what done means */
  "expect": [
    // a comment with "a quote, [brackets] and {braces
    {"type": "command_succeeds", "command": "npm test // not a comment: in a string", "covers": ["src/**"]}
  ],
  "scope": ["src/**"] // trailing
}
)";
    auto ok = executor::parse_config_text(commented, "config.json");
    CAPTURE(ok.ok() ? std::string() : ok.error().message);
    REQUIRE(ok.ok());
    REQUIRE(ok->expect.size() == 1);
    CHECK(ok->expect[0]["command"] == "npm test // not a comment: in a string");
    CHECK(ok->scope == std::vector<std::string>{"src/**"});

    struct Row {
      const char* text;
      const char* message_start;  // the error names the file, the line and the column, or the JSON path
    };
    const Row rows[] = {
        {"// comment\n{\n  \"expect\": [\n    {\"type\": \"file_exists\",}\n  ]\n}\n", "config.json:4:"},
        {"{\n  /* an unclosed comment\n  \"scope\": []\n}\n", "config.json:"},
        {"{\n  // fine\n  \"unknown_key\": 1\n}\n", "config.json: unknown_key: unknown field \"unknown_key\""},
        {"{\"gate\": {/* c */ \"max_blocks\": -1}}", "config.json: gate.max_blocks: expected an integer"},
        {"# not a JSON comment\n{}", "config.json:1:1: not valid JSON"},
    };
    for (const auto& row : rows) {
      CAPTURE(row.text);
      auto bad = executor::parse_config_text(row.text, "config.json");
      REQUIRE_FALSE(bad.ok());
      CHECK(bad.error().code == ErrorCode::kInvalidInput);
      CAPTURE(bad.error().message);
      CHECK(bad.error().message.rfind(row.message_start, 0) == 0);
    }
  }

  TEST_CASE("config: a comment cannot hide nesting from the depth limit, nor a quote in it the brackets after it") {
    std::string deep = "// say \"hi\n{\"expect\": " + std::string(70, '[') + std::string(70, ']') + "}";
    auto refused = executor::parse_config_text(deep, "config.json");
    REQUIRE_FALSE(refused.ok());
    CAPTURE(refused.error().message);
    CHECK(refused.error().message.find("refused: JSON nested deeper than 64 levels") != std::string::npos);
    // Brackets inside a comment are not nesting: 70 of them there still parse.
    std::string in_comment = "/* " + std::string(70, '[') + " */ {}";
    CHECK(executor::parse_config_text(in_comment, "config.json").ok());
  }
}
