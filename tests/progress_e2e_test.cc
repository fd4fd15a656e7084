// Live progress through the binary: on a pseudo-terminal the running step's status line is
// redrawn in place; piped, the log is plain lines; -q prints none.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "report/escape.h"
#include "tests/e2e_support.h"

using namespace candor;
using namespace candor::testing;
using nlohmann::json;

namespace {

const std::string kErase = "\r\033[K";

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A plan whose first step sleeps `seconds`, then reads a file.
std::string sleeping_plan(Env& env, int seconds) {
  json plan = {{"goal_kind", "inspect"},
               {"steps",
                {{{"id", "s1"}, {"tool", "shell"}, {"args", {{"command", "sleep " + std::to_string(seconds)}}}},
                 {{"id", "s2"}, {"tool", "file_read"}, {"args", {{"path", "index.html"}}}}}},
               {"then", "finish"},
               {"final_answer", "It slept."}};
  return env.plan_file(plan.dump());
}

// Every frame of the status line drawn before `until` (each follows an erase), in order.
std::vector<std::string> frames_before(const std::string& out, std::size_t until) {
  std::vector<std::string> frames;
  for (std::size_t at = out.find(kErase); at < until; at = out.find(kErase, at + 1)) {
    std::size_t start = at + kErase.size();
    std::size_t end = std::min({out.find(kErase, start), out.find('\n', start), until});
    frames.push_back(out.substr(start, end - start));
  }
  return frames;
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("progress on a terminal: exec redraws the running step's line with its seconds until the step's ok line") {
    Env env;
    const unsigned short columns = 60;
    auto r = env.in_terminal({"exec", sleeping_plan(env, 3), "-C", env.ws, "--json"}, columns);
    CAPTURE(r.out);
    const std::string finished = "  ok     s1   shell       sleep 3\n";
    std::size_t finished_at = r.out.find(finished);
    REQUIRE(finished_at != std::string::npos);
    // The finished line starts on a fresh line: the status line was erased just before it.
    CHECK(r.out.compare(finished_at - kErase.size(), kErase.size(), kErase) == 0);

    std::vector<int> seconds;
    const std::string prefix = "  s1 shell sleep 3 … ";
    for (const auto& frame : frames_before(r.out, finished_at)) {
      CAPTURE(frame);
      CHECK(report::column_bound(frame) <= columns - 1);  // never wraps
      if (frame.empty()) continue;
      REQUIRE(frame.rfind(prefix, 0) == 0);
      REQUIRE(frame.ends_with(" s"));
      seconds.push_back(std::stoi(frame.substr(prefix.size())));
    }
    // Redrawn at least twice after the first frame, each time with more seconds than before.
    REQUIRE(seconds.size() >= 2);
    CHECK(seconds.front() == 0);
    for (std::size_t i = 1; i < seconds.size(); ++i) CHECK(seconds[i] > seconds[i - 1]);
    CHECK(r.exit_code < 64);           // the run ended with a verdict
    CHECK(has(r.out, "\"verdict\""));  // the report follows the progress
  }

  TEST_CASE("progress not on a terminal: exec logs plain lines, with no carriage return and no escape code") {
    Env env;
    auto r = env.exec(sleeping_plan(env, 3));
    CAPTURE(r.err);
    CHECK(r.exit_code < 64);
    CHECK(r.err == "round 1 (2 steps)\n");  // the quiet log: steps that passed are not listed
    CHECK_FALSE(has(r.err + r.out, "\r"));
    CHECK_FALSE(has(r.err + r.out, "\x1b"));

    json broken = {{"goal_kind", "modify"},
                   {"steps", {{{"id", "s1"}, {"tool", "shell"}, {"args", {{"command", "printf '\x1b[2J'; exit 4"}}}}}},
                   {"then", "finish"}};
    auto failed = env.exec(env.plan_file(broken.dump()));
    CAPTURE(failed.err);
    CHECK(has(failed.err, "  FAILED s1   shell       printf '␛[2J'; exit 4\n"));
    CHECK_FALSE(has(failed.err, "\r"));
    CHECK_FALSE(has(failed.err, "\x1b"));
  }

  TEST_CASE("progress: -q prints none, on a terminal or not") {
    Env env;
    std::string plan = sleeping_plan(env, 1);
    auto terminal = env.in_terminal({"exec", plan, "-C", env.ws, "--json", "-q"});
    CAPTURE(terminal.out);
    CHECK(terminal.exit_code < 64);
    CHECK(terminal.out.rfind("{", 0) == 0);  // the report, and nothing before it
    CHECK_FALSE(has(terminal.out, "\r"));
    CHECK_FALSE(has(terminal.out, "\x1b"));
    CHECK_FALSE(has(terminal.out, "round 1"));

    auto piped = env.exec(plan, {"--quiet"});
    CHECK(piped.exit_code < 64);
    CHECK(piped.err.empty());

    json read = {{"goal_kind", "inspect"},
                 {"steps", {{{"id", "s1"}, {"tool", "file_read"}, {"args", {{"path", "index.html"}}}}}},
                 {"then", "finish"},
                 {"final_answer", "A page."}};
    std::string script = make_temp_dir("script") + "/replies.jsonl";
    write_file(script, json{{"reply_json", read}}.dump() + "\n");
    auto run = env.in_terminal(
        {"run", "Read the page", "-C", env.ws, "--llm", "script:" + script, "--judge", "never", "--json", "-q"});
    CAPTURE(run.out);
    CHECK(run.out.rfind("{", 0) == 0);
    CHECK_FALSE(has(run.out, "planning"));
    CHECK_FALSE(has(run.out, "\x1b"));
  }

  TEST_CASE("progress on a terminal: verify shows the judge's wait, and -q hides it") {
    Env env;
    REQUIRE(env.exec(sleeping_plan(env, 0)).exit_code < 64);
    // The run had no judge: verify first turns the goal into questions, then the judge answers them
    // and the question candor appends.
    json questions = {{"questions", {"Did it sleep?"}}};
    json judge = {{"answers",
                   {{{"question", 1}, {"answer", "yes"}, {"reason", "from the page"}},
                    {{"question", 2}, {"answer", "yes"}, {"reason", "from the page"}}}}};
    std::string script = make_temp_dir("script") + "/replies.jsonl";
    write_file(script, json{{"reply_json", questions}}.dump() + "\n" + json{{"reply_json", judge}}.dump() + "\n");
    auto shown = env.in_terminal({"verify", "last", "--judge", "always", "--llm", "script:" + script, "--json"});
    CAPTURE(shown.out);
    // Drawn first, erased before anything else is written.
    CHECK(shown.out.rfind(kErase + "  judge… 0 s" + kErase + "candor: stored verdict partial", 0) == 0);
    auto quiet = env.in_terminal({"verify", "last", "--judge", "always", "--llm", "script:" + script, "--json", "-q"});
    CAPTURE(quiet.out);
    CHECK(quiet.out.rfind("candor: stored verdict partial", 0) == 0);
    CHECK_FALSE(has(quiet.out, "judge…"));
    CHECK_FALSE(has(quiet.out, "\x1b"));
  }

  TEST_CASE("progress on a terminal: run shows the planner, reviewer and judge waits") {
    Env env;
    json plan = {{"goal_kind", "modify"},
                 {"questions", {"Is the background dark green?"}},
                 {"steps",
                  {{{"id", "s1"},
                    {"tool", "file_patch"},
                    {"args",
                     {{"path", "css/style.css"},
                      {"edits", {{{"find", "background: #ffffff;"}, {"replace", "background: #006400;"}}}}}}}}},
                 {"then", "finish"},
                 {"final_answer", "Done."}};
    json review = {{"verdict", "pass"}, {"reason", "the background is #006400"}};
    json questions = {{"questions", {"Is the background dark green?"}}};
    json judge = {{"answers",
                   {{{"question", 1}, {"answer", "yes"}, {"reason", "from the diff"}},
                    {{"question", 2}, {"answer", "yes"}, {"reason", "from the diff"}}}}};
    std::string script = make_temp_dir("script") + "/replies.jsonl";
    write_file(script, json{{"reply_json", plan}}.dump() + "\n" + json{{"reply_json", review}}.dump() + "\n" +
                           json{{"reply_json", questions}}.dump() + "\n" + json{{"reply_json", judge}}.dump() + "\n");
    auto r = env.in_terminal({"run", "Make the background dark green", "-C", env.ws, "--llm", "script:" + script,
                              "--criterion", "the background is dark green", "--judge", "always", "--json"});
    CAPTURE(r.out);
    CHECK(r.exit_code == 0);
    // Each wait is drawn as it starts and erased as it ends, in the order the run waits.
    std::size_t planning = r.out.find(kErase + "  planning… 0 s" + kErase);
    std::size_t step = r.out.find("  ok     s1   file_patch  css/style.css  (changed 1)\n");
    std::size_t reviewer = r.out.find(kErase + "  reviewer… 0 s" + kErase);
    std::size_t judging = r.out.find(kErase + "  judge… 0 s" + kErase);
    REQUIRE(planning != std::string::npos);
    REQUIRE(step != std::string::npos);
    REQUIRE(reviewer != std::string::npos);
    REQUIRE(judging != std::string::npos);
    CHECK(planning < step);
    CHECK(step < reviewer);
    CHECK(reviewer < judging);
    CHECK(judging < r.out.find("{\n"));  // erased before the report is printed
  }
}
