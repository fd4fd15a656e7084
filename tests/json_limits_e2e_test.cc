// Budgets bound everything (docs/design.md, Trust boundary): every JSON input of the built binary, nested
// far past 64 levels, is refused with exit 65 and the JSON path, fast, never a crash or a hang.
// Each case ran minutes or died of a stack overflow before the limits (core/json_text.h).
#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "tests/e2e_support.h"

using namespace candor;
using namespace candor::testing;
using nlohmann::json;

namespace {

constexpr int kLimitSeconds = 60;  // the process is killed past it: a hang fails, exit 137

std::string arrays(int depth) {
  return std::string(static_cast<std::size_t>(depth), '[') + std::string(static_cast<std::size_t>(depth), ']');
}

// `{"type":"not","assertion":` `depth` times around a file_exists: a plan's assertion.
std::string nested_not(int depth) {
  std::string s;
  s.reserve(static_cast<std::size_t>(depth) * 28 + 64);
  for (int i = 0; i < depth; ++i) s += R"({"type":"not","assertion":)";
  s += R"({"type":"file_exists","path":"index.html"})";
  s.append(static_cast<std::size_t>(depth), '}');
  return s;
}

std::string plan_with_assertion(const std::string& assertion) {
  return R"({"goal_kind":"inspect","steps":[{"id":"s1","tool":"file_read","args":{"path":"index.html"},"assert":[)" +
         assertion + R"(]}],"then":"finish","final_answer":"done"})";
}

struct Timed {
  CommandResult r;
  double seconds;
};

// `candor ARGS` as Env::candor runs it, killed after kLimitSeconds.
Timed timed(Env& env, std::vector<std::string> args) {
  args.insert(args.begin(), {"/usr/bin/timeout", "-s", "KILL", std::to_string(kLimitSeconds), candor_bin()});
  std::vector<std::string> e = env.env;
  e.push_back("CANDOR_HOME=" + env.store);
  auto start = std::chrono::steady_clock::now();
  CommandResult r = run_command(args, e);
  return {r, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}

const char* kFinalAnswerSpec = R"({"checkpoints": [{"id": "answered", "when": {"type": "FinalAnswer",
  "predicate": {"left": "{{final_answer}}", "op": "contains", "right": "done"}}}]})";

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE(
      "run: a planner reply with `not` nested 4,000 and 100,000 deep is refused at once: one repair, then exit 65 "
      "naming the path") {
    for (int depth : {4000, 100000}) {
      CAPTURE(depth);
      Env env;
      std::string deep = plan_with_assertion(nested_not(depth));
      std::string script = json{{"reply", deep}}.dump() + "\n" +
                           json{{"reply", deep}, {"expect", "nested deeper than 64 levels"}}.dump() + "\n";
      std::string path = make_temp_dir("script") + "/replies.jsonl";
      write_file(path, script);
      auto t = timed(env, {"run", "Look at the page", "-C", env.ws, "--llm", "script:" + path, "--json"});
      CAPTURE(t.r.err);
      CHECK(t.r.exit_code == 65);
      CHECK(t.seconds < 30);
      CHECK(t.r.err.find(
                "candor: the planner's reply was refused: the planner's reply was invalid twice: first: reply:1:") !=
            std::string::npos);
      CHECK(t.r.err.find("refused: JSON nested deeper than 64 levels at $.steps[0].assert[0].assertion.assertion") !=
            std::string::npos);
      // The run is still recorded and reported: an error before any goal action, one repair call.
      json j = parse_stdout(t.r);
      CHECK(j["status"] == "error");
      CHECK(j["verdict"] == "fail");
      CHECK(j["usage"]["llm_calls"] == 2);
    }
  }

  TEST_CASE("run: a reply refused past the limits and repaired goes on as any repaired reply") {
    Env env;
    std::string good =
        R"({"goal_kind":"inspect","steps":[{"id":"s1","tool":"file_read","args":{"path":"index.html"}}],)"
        R"("then":"finish","final_answer":"The page has a title."})";
    std::string script = json{{"reply", plan_with_assertion(nested_not(200))}}.dump() + "\n" +
                         json{{"reply", good}, {"expect", "nested deeper than 64 levels"}}.dump() + "\n";
    std::string path = make_temp_dir("script") + "/replies.jsonl";
    write_file(path, script);
    auto t =
        timed(env, {"run", "Look at the page", "-C", env.ws, "--llm", "script:" + path, "--json", "--judge", "never"});
    CAPTURE(t.r.err);
    CHECK(t.r.exit_code != 65);
    json j = parse_stdout(t.r);
    CHECK(j["status"] == "completed");
    CHECK(j["usage"]["llm_calls"] == 2);
  }

  TEST_CASE("exec: a plan nested 100,000 deep is exit 65 naming the JSON path") {
    Env env;
    std::string plan = env.plan_file(plan_with_assertion(nested_not(100000)));
    auto t = timed(env, {"exec", plan, "-C", env.ws, "--json"});
    CHECK(t.r.exit_code == 65);
    CHECK(t.seconds < 30);
    CHECK(t.r.err.find("candor: " + plan + ":1:") == 0);
    CHECK(t.r.err.find(
              ": refused: JSON nested deeper than 64 levels at $.steps[0].assert[0].assertion.assertion.assertion") !=
          std::string::npos);
    CHECK(t.r.err.find("more levels") != std::string::npos);  // the path is cut, not 64 components long
  }

  TEST_CASE("a config and an --expect nested past 64 levels are exit 65 naming the file or option and the path") {
    Env env;
    std::filesystem::create_directories(env.ws + "/.candor");
    write_file(env.ws + "/.candor/config.json", R"({"expect": [)" + nested_not(100000) + "]}");
    auto t = timed(env, {"exec", example_plan("patch.json"), "-C", env.ws, "--json"});
    CHECK(t.r.exit_code == 65);
    CHECK(t.r.err.find(env.ws + "/.candor/config.json:1:") != std::string::npos);
    CHECK(t.r.err.find("refused: JSON nested deeper than 64 levels at $.expect[0].assertion.assertion") !=
          std::string::npos);

    Env other;  // 3,000 levels: one argument holds at most 128 KiB
    auto expect =
        timed(other, {"exec", example_plan("patch.json"), "-C", other.ws, "--json", "--expect", nested_not(3000)});
    CHECK(expect.r.exit_code == 65);
    CHECK(expect.r.err.find("--expect #1:1:") != std::string::npos);
    CHECK(expect.r.err.find("nested deeper than 64 levels at $.assertion.assertion") != std::string::npos);
  }

  TEST_CASE("an acceptance spec nested past 64 levels is exit 65 naming the path") {
    Env env;
    std::string spec = env.plan_file(R"({"checkpoints": [{"id": "x", "when": {"type": "FinalAnswer", "predicate": )" +
                                     arrays(100000) + "}}]}");
    auto t = timed(env, {"check", spec});
    CHECK(t.r.exit_code == 65);
    CHECK(t.r.err.find("refused: JSON nested deeper than 64 levels at $.checkpoints[0].when.predicate[0][0]") !=
          std::string::npos);
    auto exec = timed(env, {"exec", example_plan("patch.json"), "-C", env.ws, "--json", "--acceptance", spec});
    CHECK(exec.r.exit_code == 65);
    CHECK(exec.r.err.find(spec + ":1:") != std::string::npos);
  }

  TEST_CASE(
      "verify --trajectory: a transcript with a record nested 200,000 deep is exit 65 naming its line, in every "
      "format") {
    const std::string deep = arrays(200000);  // 400 KB
    struct Format {
      std::string name;
      std::string text;
      std::string where;  // ":LINE:" of the deep record
      std::string path;   // its JSON path
    };
    const std::vector<Format> formats = {
        {"claude-code",
         R"({"type":"user","message":{"role":"user","content":"write it"}})"
         "\n"
         R"({"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"a","content":)" +
             deep +
             R"(}}]}})"
             "\n"
             R"({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}})"
             "\n",
         ":2:", "$.message.content[0].input.content[0]"},
        {"codex",
         R"({"type":"session_meta","payload":{"id":"s"}})"
         "\n"
         R"({"type":"response_item","payload":{"type":"local_shell_call","call_id":"c1","action":{"command":)" +
             deep + "}}}\n",
         ":2:", "$.payload.action.command[0]"},
        {"openhands",
         "[\n"
         R"({"id":1,"source":"user","action":"message","message":"go"},)"
         "\n"
         R"({"id":2,"source":"agent","action":"run","args":{"command":)" +
             deep + "}}\n]\n",
         ":3:", "$[1].args.command[0]"},
        {"swe-agent",
         "{\n"
         R"("history":[{"role":"assistant","tool_calls":[{"id":"1","function":{"name":"bash","arguments":{"command":)" +
             deep +
             "}}}]}],\n"
             R"("info":{"submission":"done"})"
             "\n}\n",
         ":2:", "$.history[0].tool_calls[0].function.arguments.command[0]"},
    };
    for (const auto& f : formats) {
      CAPTURE(f.name);
      Env env;
      std::string file = make_temp_dir("transcript") + "/transcript";
      write_file(file, f.text);
      std::string spec = env.plan_file(kFinalAnswerSpec);
      auto t = timed(env, {"verify", "--trajectory", file, "--format", f.name, "--acceptance", spec, "--json"});
      CAPTURE(t.r.err);
      CHECK(t.r.exit_code == 65);
      CHECK(t.seconds < 30);
      CHECK(t.r.err.find("candor: " + file + f.where) == 0);
      CHECK(t.r.err.find("refused: JSON nested deeper than 64 levels at " + f.path) != std::string::npos);
    }
  }

  TEST_CASE("verify --trajectory: tool arguments given as a JSON string are held to the same limits") {
    Env env;
    std::string file = make_temp_dir("transcript") + "/rollout.jsonl";
    write_file(file,
               json{{"type", "response_item"},
                    {"payload",
                     {{"type", "function_call"}, {"call_id", "c1"}, {"name", "shell"}, {"arguments", arrays(100000)}}}}
                       .dump() +
                   "\n");
    auto t = timed(env, {"verify", "--trajectory", file, "--format", "codex", "--json"});
    CHECK(t.r.exit_code == 65);
    CHECK(t.r.err.find("candor: " + file +
                       ":1: a tool call's arguments (JSON in a string):1:65: refused: JSON nested deeper than 64") ==
          0);
  }

  TEST_CASE("json_valid on a workspace file nested past 64 levels is a failed check saying why, not exit 65") {
    Env env;
    write_file(env.ws + "/deep.json", arrays(100000));
    std::string plan = env.plan_file(
        R"({"goal_kind":"inspect","steps":[{"id":"s1","tool":"file_read","args":{"path":"index.html"},"assert":[{"type":"json_valid","path":"deep.json"}]}],"then":"finish","final_answer":"read"})");
    auto t = timed(env, {"exec", plan, "-C", env.ws, "--json"});
    CAPTURE(t.r.err);
    REQUIRE(t.r.exit_code != 65);
    json j = parse_stdout(t.r);
    // The failed check is made once more at the end of the run (final_check), with the same outcome.
    REQUIRE(j["assertions"].size() == 2);
    CHECK(j["assertions"][1]["final_check"] == true);
    for (const auto& a : j["assertions"]) {
      CHECK(a["passed"] == false);
      CHECK(a["message"].get<std::string>().find("deep.json:1:65: refused: JSON nested deeper than 64 levels") == 0);
    }
  }
}
