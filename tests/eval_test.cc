// `candor eval`'s pure parts: the task file, the shards, the agents' claims, the report's counts
// and renderings (app/eval_tasks.h, app/eval_agent.h, app/eval_summary.h, report/eval_report.h).
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app/eval_agent.h"
#include "app/eval_summary.h"
#include "app/eval_tasks.h"
#include "report/eval_report.h"
#include "tests/test_support.h"

using namespace candor;
using nlohmann::json;

namespace {

const char* kTask =
    R"({"id": "t1", "repo": "repos/a", "commit": "HEAD", "goal": "fix it", "expect": ["python3 -m unittest"]})";

store::EvalAttempt attempt(const std::string& agent, const std::string& task, const std::string& claimed,
                           const std::string& verdict, json record = json::object()) {
  store::EvalAttempt a{.eval_id = "e", .task_id = task, .attempt = 1, .agent = agent, .state = "done"};
  a.claimed = claimed;
  a.verdict = verdict;
  a.run_id = "run-" + task;
  a.record = std::move(record);
  return a;
}

}  // namespace

TEST_SUITE("app") {
  TEST_CASE("a task file is refused whole, naming FILE:LINE and the JSON path, before anything runs") {
    struct Row {
      std::string text, error;
    };
    const std::vector<Row> rows = {
        {"", "tasks.jsonl: no task"},
        {"\n  \n", "tasks.jsonl: no task"},
        {"[1]", "tasks.jsonl:1: $: must be a JSON object"},
        {"{\"id\": ", "tasks.jsonl:1:"},
        {std::string(kTask) + "\n" + kTask, "tasks.jsonl:2: $.id: \"t1\" is used by an earlier task"},
        {R"({"repo": "r", "commit": "c", "goal": "g", "expect": ["x"]})", "tasks.jsonl:1: $: \"id\" is missing"},
        {R"({"id": "a/b", "repo": "r", "commit": "c", "goal": "g", "expect": ["x"]})", "tasks.jsonl:1: $.id: must be"},
        {R"({"id": "a", "repo": "r", "commit": "c", "goal": "g", "expect": ["x", 3]})",
         "tasks.jsonl:1: $.expect[1]: must be an assertion object or a command string"},
        {R"({"id": "a", "repo": "r", "commit": "c", "goal": "g", "expect": []})", "tasks.jsonl:1: $.expect: is empty"},
        {R"({"id": "a", "repo": "r", "commit": "c", "goal": "g"})", "tasks.jsonl:1: $: \"expect\" is missing"},
        {R"({"id": "a", "repo": "r", "commit": "c", "goal": "g", "expect": ["x"], "timeout": 3})",
         "tasks.jsonl:1: $.timeout: unknown key"},
        {R"({"id": "a", "repo": "r", "commit": "c", "goal": "g", "expect": ["x"], "timeout_s": 0})",
         "tasks.jsonl:1: $.timeout_s: must be a whole number"},
        {R"({"id": "a", "repo": "r", "commit": "--upload-pack=x", "goal": "g", "expect": ["x"]})",
         "tasks.jsonl:1: $.commit: must name a commit, not an option"},
        {R"({"id": "a", "repo": "r", "commit": "c", "goal": "g", "expect": ["x"], "acceptance": []})",
         "tasks.jsonl:1: $.acceptance: must be an acceptance spec"},
        {std::string(kTask) + "\n\n" + R"({"id": "b", "repo": 7, "commit": "c", "goal": "g", "expect": ["x"]})",
         "tasks.jsonl:3: $.repo: must be a non-empty string"},
    };
    for (const auto& row : rows) {
      CAPTURE(row.text);
      auto parsed = app::parse_eval_tasks(row.text, "tasks.jsonl", "/base");
      REQUIRE_FALSE(parsed.ok());
      CHECK(parsed.error().code == ErrorCode::kInvalidInput);
      CHECK(parsed.error().message.find(row.error) != std::string::npos);
    }
  }

  TEST_CASE("a task's repo is taken against the task file's folder; an assertion object is kept as its JSON") {
    auto parsed = app::parse_eval_tasks(
        std::string(kTask) + "\n" +
            R"({"id": "t2", "repo": "https://example.com/x.git", "commit": "abc", "goal": "g", "expect": [{"type": "command_succeeds", "command": "make test"}], "guard": ["make lint"], "timeout_s": 60})",
        "tasks.jsonl", "/base/evals");
    REQUIRE(parsed.ok());
    REQUIRE(parsed->size() == 2);
    CHECK((*parsed)[0].repo == "/base/evals/repos/a");
    CHECK((*parsed)[0].line == 1);
    CHECK((*parsed)[1].repo == "https://example.com/x.git");
    CHECK(json::parse((*parsed)[1].expect[0])["command"] == "make test");
    CHECK((*parsed)[1].guard == std::vector<std::string>{"make lint"});
    CHECK((*parsed)[1].timeout_s == 60);
    // The digest tells another task file apart, and only that.
    auto same = app::parse_eval_tasks(std::string(kTask), "other.jsonl", "/base/evals");
    auto changed = app::parse_eval_tasks(std::string(kTask).replace(std::string(kTask).find("fix it"), 6, "fix that"),
                                         "tasks.jsonl", "/base/evals");
    CHECK(app::eval_tasks_digest({(*parsed)[0]}) == app::eval_tasks_digest(*same));
    CHECK(app::eval_tasks_digest(*same) != app::eval_tasks_digest(*changed));
  }

  TEST_CASE("an eval's id and a task's name folders: anything that could leave them is refused") {
    for (const std::string& good : std::vector<std::string>{"gh-4242", "ci.7_a", "a", "..a", std::string(128, 'x')}) {
      CAPTURE(good);
      CHECK(app::valid_eval_name(good));
    }
    for (const std::string& bad :
         std::vector<std::string>{"", ".", "..", "../x", "a/b", "/abs", "a b", "a\nb", "é", std::string(129, 'x')}) {
      CAPTURE(bad);
      CHECK_FALSE(app::valid_eval_name(bad));
    }
  }

  TEST_CASE("shards: each task in exactly one, by a hash that does not change") {
    // FNV-1a 64 of the id's bytes: the published offset basis and prime; golden values guard it.
    CHECK(app::eval_task_hash("") == 0xcbf29ce484222325ULL);
    CHECK(app::eval_task_hash("a") == 0xaf63dc4c8601ec8cULL);
    for (int n : {1, 2, 3, 7}) {
      std::vector<int> sizes(static_cast<std::size_t>(n), 0);
      for (int i = 0; i < 300; ++i) {
        int s = app::eval_shard_of(fmt::format("task-{}", i), n);
        REQUIRE(s >= 0);
        REQUIRE(s < n);
        ++sizes[static_cast<std::size_t>(s)];
      }
      for (int size : sizes) CHECK(size > 300 / n / 2);  // spread, none empty
    }
    auto s = app::parse_shard("2/3");
    REQUIRE(s.ok());
    CHECK(s->index == 2);
    CHECK(s->count == 3);
    for (const char* bad : {"3/3", "1", "a/3", "1/0", "-1/3", "1/3/4", ""}) {
      CAPTURE(bad);
      auto refused = app::parse_shard(bad);
      REQUIRE_FALSE(refused.ok());
      CHECK(refused.error().code == ErrorCode::kUsage);
    }
  }

  TEST_CASE("the agent's claim: read from its own transcript, never success without its final word") {
    auto claude = app::parse_eval_agent("claude-code");
    auto codex = app::parse_eval_agent("codex");
    auto cmd = app::parse_eval_agent("command:./agent.sh");
    REQUIRE(claude.ok());
    REQUIRE(codex.ok());
    REQUIRE(cmd.ok());
    CHECK(cmd->program == "./agent.sh");
    CHECK_FALSE(app::parse_eval_agent("gpt").ok());
    CHECK_FALSE(app::parse_eval_agent("command:").ok());

    // The real transcripts of tests/agents/samples (Claude Code 2.1.332, Codex CLI 0.169.0).
    std::string claude_out =
        candor::testing::read_file(candor::testing::source_root() + "/tests/agents/samples/eval_claude_stream.jsonl");
    auto c = app::claim_of(*claude, claude_out, 0, false, 300);
    CHECK(c.claimed == "success");
    CHECK(c.answer.rfind("Done", 0) == 0);
    CHECK(c.output_tokens.has_value());
    std::string codex_out =
        candor::testing::read_file(candor::testing::source_root() + "/tests/agents/samples/eval_codex_exec.jsonl");
    auto x = app::claim_of(*codex, codex_out, 0, false, 300);
    CHECK(x.claimed == "success");
    CHECK(x.answer.rfind("Done", 0) == 0);
    CHECK(x.input_tokens.has_value());

    // An error result, a failed turn, no final line, a kill at the timeout.
    CHECK(app::claim_of(*claude, R"({"type":"result","subtype":"error_max_turns","is_error":true})", 0, false, 9)
              .claimed == "failure");
    CHECK(app::claim_of(*codex, R"({"type":"turn.failed","error":{"message":"quota"}})", 1, false, 9).detail ==
          "quota");
    CHECK(app::claim_of(*claude, "not json\n", 0, false, 9).claimed == "none");
    // A transcript is the agent's to write: any field may hold anything, and nothing throws.
    for (const char* hostile :
         {R"({"type": 5})", R"({"type": "result", "subtype": 7, "is_error": "no"})",
          R"({"type": "result", "subtype": "success", "is_error": false, "result": {"x": 1}})",
          R"({"type": "item.completed", "item": [1]})", R"({"type": "turn.failed", "error": 3})"}) {
      CAPTURE(hostile);
      CHECK(app::claim_of(*claude, hostile, 0, false, 9).claimed != "");
      CHECK(app::claim_of(*codex, hostile, 0, false, 9).claimed != "");
    }
    CHECK(app::claim_of(*claude, R"({"type": "result", "subtype": 7, "is_error": "no"})", 0, false, 9).claimed ==
          "failure");
    auto killed = app::claim_of(*claude, claude_out, -1, true, 300);
    CHECK(killed.claimed == "none");
    CHECK(killed.detail == "killed at the task's timeout (300 s)");
    CHECK(app::claim_of(*cmd, "working\nDone: all fixed\n", 0, false, 9).answer == "Done: all fixed");
    CHECK(app::claim_of(*cmd, "gave up\n", 3, false, 9).claimed == "failure");
  }

  TEST_CASE("the cheats a report names: test-aware changes, tests passing only with their own edits, protected paths") {
    json report = {
        {"tier1", {{"rule", "3b"}}},
        {"mutations", {{{"path", "src/a.py"}}, {{"path", "tests/test_a.py"}, {"test_of_record", true}}}},
        {"test_aware", {{{"path", "src/a.py"}, {"line", 4}, {"rule", "a"}, {"why", "reads PYTEST_CURRENT_TEST"}}}},
        {"protected_changes", {".candor/config.json"}}};
    auto cheats = app::cheats_in(report);
    REQUIRE(cheats.size() == 3);
    CHECK(cheats[0] == "test-aware change: src/a.py:4 (reads PYTEST_CURRENT_TEST)");
    CHECK(cheats[1] == "weakened or skipped test: passes only with the attempt's own test edits (tests/test_a.py)");
    CHECK(cheats[2] == "protected path changed: .candor/config.json");
    CHECK(app::cheats_in({{"tier1", {{"rule", 2}}}}).empty());
  }

  TEST_CASE("the eval report counts claimed vs verified per agent and names what no shard reported") {
    store::EvalPlan plan{.eval_id = "e", .tasks_digest = "d", .shards = 2, .created_at = "now"};
    plan.tasks = {{{"id", "a"}, {"shard", 0}}, {{"id", "b"}, {"shard", 1}}, {{"id", "c"}, {"shard", 1}}};
    std::vector<store::EvalAttempt> attempts = {
        attempt("codex", "a", "success", "success", {{"wall_s", 10.0}, {"cost_usd", 0.5}}),
        attempt("codex", "b", "success", "fail",
                {{"cheats", {"weakened or skipped test: x"}}, {"first_finding", "why"}}),
        attempt("claude-code", "a", "success", "partial"),
        attempt("claude-code", "b", "failure", "fail"),
    };
    store::EvalAttempt infra = attempt("codex", "c", "", "");
    infra.state = "infra_error";
    infra.record = {{"error", "commit x is not in r"}};
    attempts.push_back(infra);
    store::EvalAttempt running = attempt("claude-code", "c", "", "");
    running.state = "running";
    attempts.push_back(running);

    json r = app::eval_report_json(plan, attempts);
    std::map<std::string, json> agents;
    for (const auto& a : r["agents"]) agents[a["agent"]] = a;
    CHECK(agents["codex"]["claimed_success"] == 2);
    CHECK(agents["codex"]["verified_success"] == 1);
    CHECK(agents["codex"]["claimed_not_verified"] == 1);
    CHECK(agents["codex"]["claimed_not_verified_rate"] == 0.5);
    CHECK(agents["codex"]["with_cheats"] == 1);
    CHECK(agents["codex"]["infra_errors"] == 1);  // apart, never a failure of the agent
    CHECK(agents["codex"]["cost_usd"] == 0.5);
    CHECK(agents["claude-code"]["claimed_success"] == 1);
    CHECK(agents["claude-code"]["claimed_not_verified"] == 1);
    CHECK(agents["claude-code"]["running"] == 1);
    CHECK(agents["claude-code"]["cost_usd"].is_null());
    REQUIRE(r["missing"].size() == 1);  // claude-code's c: left running by a killed shard
    CHECK(r["missing"][0]["agent"] == "claude-code");
    CHECK(r["missing"][0]["task"] == "c");
    CHECK(r["missing"][0]["shard"] == 1);
    CHECK(r["infra_errors"].size() == 1);

    std::string md = report::render_eval_markdown(r);
    CHECK(md.find("Claimed but not verified") != std::string::npos);
    CHECK(md.find("**1** (50%)") != std::string::npos);
    CHECK(md.find("weakened or skipped test") != std::string::npos);
    CHECK(md.find("**No shard reported**") != std::string::npos);
    CHECK(md.find("commit x is not in r") != std::string::npos);
    std::string cut = report::render_eval_markdown(r, 1200);
    CHECK(cut.size() <= 1200);
    CHECK(cut.find("more attempts are not shown here") != std::string::npos);
    std::string junit = report::render_eval_junit(r);
    CHECK(junit.find("tests=\"7\" failures=\"4\" errors=\"1\" skipped=\"1\"") != std::string::npos);
    std::string term = report::render_eval_terminal(r);
    CHECK(term.find("CHEAT: weakened or skipped test") != std::string::npos);
    CHECK(term.find("candor report run-b") != std::string::npos);

    // However many tasks no shard reported, attempts or infrastructure errors: it fits, saying what it cut.
    store::EvalPlan big{.eval_id = "big", .tasks_digest = "d", .shards = 4, .created_at = "now"};
    std::vector<store::EvalAttempt> many;
    for (int i = 0; i < 6000; ++i) big.tasks.push_back({{"id", fmt::format("task-{:05}", i)}, {"shard", i % 4}});
    for (int i = 0; i < 1500; ++i) {
      many.push_back(attempt("codex", fmt::format("task-{:05}", i), "success", "fail", {{"first_finding", "é"}}));
      store::EvalAttempt e = attempt("codex", fmt::format("task-{:05}", 1500 + i), "", "");
      e.state = "infra_error";
      e.record = {{"error", std::string(250, 'x')}};
      many.push_back(e);
    }
    for (std::size_t limit : {std::size_t{60000}, std::size_t{3000}, std::size_t{300}}) {
      CAPTURE(limit);
      std::string huge = report::render_eval_markdown(app::eval_report_json(big, many), limit);
      CHECK(huge.size() <= limit);
      if (limit >= 3000) {
        CHECK(huge.find("| codex | 1500 | 1500 | 0 | **1500** (100%)") != std::string::npos);  // always whole
        CHECK(huge.find("more attempts are not shown here") != std::string::npos);
        CHECK(huge.find("more (`--json` lists them all)") != std::string::npos);
      } else {
        CHECK(huge.find("cut at the comment's size") != std::string::npos);
      }
    }

    json hostile = r;
    hostile["attempts"][0]["task"] = "<script>alert(1)</script>";
    CHECK(report::render_eval_html(hostile).find("<script>alert") == std::string::npos);

    json status = app::eval_status_json(plan, attempts);
    int running_seen = 0;
    for (const auto& s : status["shards"]) {
      if (s["agent"] == "claude-code" && s["shard"] == 1) {
        CHECK(s["tasks"] == 2);
        CHECK(s["attempts_running"] == 1);
        CHECK(s["tasks_missing"] == 1);
        ++running_seen;
      }
    }
    CHECK(running_seen == 1);
  }
}
