// Property: whenever tier 1 says `success`, every mutated path has an assertion that passed after
// the path's last change and fails on the path's content before the run; for an added or modified
// path it is a check of content that also fails on an empty file there, for a deleted one a
// `not file_exists`. The oracles ("fails before", "fails on empty") are computed here from the
// files, independently of the executor's own checks.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>

#include "core/glob.h"
#include "evidence/test_aware.h"
#include "executor/executor.h"
#include "tests/test_support.h"
#include "verify/tier1.h"

using namespace candor;
using candor::testing::FakeClock;
using candor::testing::make_temp_dir;
using candor::testing::write_file;
using nlohmann::json;

namespace {

class NullSink final : public EventSink {
 public:
  Status append(const std::string&, const Event&) override { return ok_status(); }
};

const std::vector<std::string> kWords = {"red", "green", "blue", "dark", "#006400"};
const std::vector<std::string> kPaths = {"a.txt", "b.txt", "css/c.txt", "new.txt", "long.txt"};

using Files = std::map<std::string, std::string>;

// What the assertion says about `files` (the workspace before the run), computed here.
bool holds_on(const json& a, const Files& files) {
  std::string type = a.value("type", "");
  if (type == "not") return !holds_on(a["assertion"], files);
  auto it = files.find(a.value("path", ""));
  bool exists = it != files.end();
  if (type == "file_exists") return exists;
  if (type == "file_contains") return exists && it->second.find(a.value("text", "")) != std::string::npos;
  if (type == "file_not_contains") return exists && it->second.find(a.value("text", "")) == std::string::npos;
  FAIL("unexpected assertion type " << type);
  return false;
}

struct Case {
  Files initial;
  json steps = json::array();
};

Case random_case(std::mt19937& rng) {
  auto pick = [&](const std::vector<std::string>& from) { return from[rng() % from.size()]; };
  Case c;
  c.initial = {{"a.txt", "red " + pick(kWords) + "\n"}, {"b.txt", "green blue\n"}, {"css/c.txt", pick(kWords) + "\n"}};
  // A file a write of one line empties of most of its lines: a removal for the judge.
  for (int i = 0; i < 20; ++i) c.initial["long.txt"] += pick(kWords) + " line " + std::to_string(i) + "\n";
  int steps = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < steps; ++i) {
    std::string path = pick(kPaths);
    json step = {{"id", "s" + std::to_string(i + 1)}};
    json asserts = json::array();
    // Half the time the step checks what it did, as an honest planner would; the rest are noise.
    bool honest = rng() % 2 == 0;
    switch (rng() % 3) {
      case 0: {
        std::string word = pick(kWords);
        step["tool"] = "file_write";
        step["args"] = {{"path", path}, {"content", word + " " + pick(kWords) + "\n"}};
        if (honest) asserts.push_back({{"type", "file_contains"}, {"path", path}, {"text", word}});
        break;
      }
      case 1: {
        std::string word = pick(kWords);
        step["tool"] = "file_patch";
        step["args"] = {{"path", path}, {"edits", {{{"find", pick(kWords)}, {"replace", word}}}}};
        if (honest) asserts.push_back({{"type", "file_contains"}, {"path", path}, {"text", word}});
        break;
      }
      default:
        step["tool"] = "file_delete";
        step["args"] = {{"path", path}};
        if (honest) asserts.push_back({{"type", "not"}, {"assertion", {{"type", "file_exists"}, {"path", path}}}});
    }
    int n = static_cast<int>(rng() % 2);
    for (int k = 0; k < n; ++k) {
      std::string on = rng() % 3 == 0 ? pick(kPaths) : path;
      switch (rng() % 4) {
        case 0:
          asserts.push_back({{"type", "file_exists"}, {"path", on}});
          break;
        case 1:
          asserts.push_back({{"type", "not"}, {"assertion", {{"type", "file_exists"}, {"path", on}}}});
          break;
        case 2:
          asserts.push_back({{"type", "file_contains"}, {"path", on}, {"text", pick(kWords)}});
          break;
        default:
          asserts.push_back({{"type", "file_not_contains"}, {"path", on}, {"text", pick(kWords)}});
      }
    }
    step["assert"] = asserts;
    c.steps.push_back(step);
  }
  return c;
}

// The command rule (docs/design.md, Commands as evidence): user commands that read the files themselves.
// `grep -q W P` names its file (so it never covers P); `grep -rq W .` reads every file, naming none.
struct Command {
  json assertion;
  std::string word;
  std::string named;  // the path it names, "" when it reads the whole workspace
};

const std::vector<std::string> kCommandPaths = {"a.txt", "b.txt", "css/c.txt", "new.txt", "tests/t.txt"};

// What the command's exit says about `files`, computed here: grep finds the word.
bool command_holds(const Command& c, const Files& files) {
  if (!c.named.empty()) {
    auto it = files.find(c.named);
    return it != files.end() && it->second.find(c.word) != std::string::npos;
  }
  return std::any_of(files.begin(), files.end(),
                     [&](const auto& f) { return f.second.find(c.word) != std::string::npos; });
}

struct CommandCase {
  Files initial;
  json steps = json::array();
  std::vector<Command> commands;
};

CommandCase random_command_case(std::mt19937& rng) {
  auto pick = [&](const std::vector<std::string>& from) { return from[rng() % from.size()]; };
  CommandCase c;
  // "dark" and "#006400" are nowhere before the run: a command looking for them fails there.
  c.initial = {{"a.txt", "red blue\n"}, {"b.txt", "green blue\n"}, {"css/c.txt", "red\n"}, {"tests/t.txt", "red\n"}};
  int steps = 1 + static_cast<int>(rng() % 3);
  for (int i = 0; i < steps; ++i) {
    std::string path = pick(kCommandPaths);
    std::string word = rng() % 3 == 0 ? pick(kWords) : pick({"dark", "#006400"});
    json step = {{"id", "s" + std::to_string(i + 1)}};
    json asserts = json::array();
    bool honest = rng() % 3 == 0;  // mostly the commands' to prove
    switch (rng() % 6) {
      case 0:
      case 1:
      case 2:
      case 3: {
        // Now and then with a line that reads or bypasses the test run (docs/design.md, Tests that pass for
        // the wrong reason): the word is there, and so is a test-aware line.
        static const std::vector<std::string> kTestAware = {"if os.environ.get('PYTEST_CURRENT_TEST'): pass",
                                                            "os._exit(0)", "process.exit(0);"};
        // (a) and (c) read code: the line goes into a Python file beside the text ones.
        std::string aware = rng() % 5 == 0 ? pick(kTestAware) + "\n" : "";
        if (!aware.empty()) path = "src/" + path.substr(path.rfind('/') + 1) + ".py";
        step["tool"] = "file_write";
        step["args"] = {{"path", path}, {"content", word + "\n" + aware}};
        if (honest) asserts.push_back({{"type", "file_contains"}, {"path", path}, {"text", word}});
        break;
      }
      case 4:
        step["tool"] = "file_patch";
        step["args"] = {{"path", path}, {"edits", {{{"find", pick(kWords)}, {"replace", word}}}}};
        if (honest) asserts.push_back({{"type", "file_contains"}, {"path", path}, {"text", word}});
        break;
      default:
        step["tool"] = "file_delete";
        step["args"] = {{"path", path}};
        if (honest) asserts.push_back({{"type", "not"}, {"assertion", {{"type", "file_exists"}, {"path", path}}}});
    }
    step["assert"] = asserts;
    c.steps.push_back(step);
  }
  const std::vector<json> covers = {nullptr,
                                    json::array({"*.txt"}),
                                    json::array({"*.txt"}),
                                    json::array({"css/**"}),
                                    json::array({"**"}),
                                    json::array({"**"}),
                                    json::array({"a.txt", "new.txt"})};
  int n = 1 + static_cast<int>(rng() % 2);
  for (int k = 0; k < n; ++k) {
    Command cmd;
    cmd.word = rng() % 4 == 0 ? pick(kWords) : pick({"dark", "#006400"});
    bool whole = rng() % 3 != 0;
    cmd.named = whole ? "" : pick(kCommandPaths);
    std::string line = whole ? "grep -rq '" + cmd.word + "' ." : "grep -q '" + cmd.word + "' " + cmd.named;
    cmd.assertion = {{"type", "command_succeeds"}, {"command", line}};
    if (json g = covers[rng() % covers.size()]; !g.is_null()) cmd.assertion["covers"] = g;
    c.commands.push_back(cmd);
  }
  return c;
}

// A known test runner (docs/design.md, Commands as evidence: the runner's summary): `python3 -m
// unittest tests.test_files`, one test per file of FILES that exists, passing when the file holds
// WORD, skipped when it says "skip"; any of the source files saying "exit0" makes it exit 0 as it
// is imported, printing nothing (the os._exit(0) hack).
constexpr const char* kTestFiles = R"(import os
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read(path):
    try:
        with open(os.path.join(ROOT, path)) as f:
            return f.read()
    except OSError:
        return None


for name in ("a.txt", "b.txt", "css/c.txt", "new.txt"):
    if "exit0" in (read(name) or ""):
        os._exit(0)


class TestFiles(unittest.TestCase):
    pass


def make(path):
    def test(self):
        text = read(path)
        if "skip" in text:
            self.skipTest("skip")
        self.assertIn(os.environ["WORD"], text)
    return test


for i, path in enumerate(os.environ["FILES"].split(",")):
    if read(path) is not None:
        setattr(TestFiles, "test_%d" % i, make(path))
)";

struct RunnerCommand {
  json assertion;
  std::string word;
  std::vector<std::string> files;
};

// What the runner prints on `files`, computed here: nullopt when it exits having printed nothing.
std::optional<TestSummary> runner_summary(const RunnerCommand& c, const Files& files) {
  for (const char* name : {"a.txt", "b.txt", "css/c.txt", "new.txt"}) {
    auto it = files.find(name);
    if (it != files.end() && it->second.find("exit0") != std::string::npos) return std::nullopt;
  }
  TestSummary s{.runner = "unittest"};
  for (const auto& path : c.files) {
    auto it = files.find(path);
    if (it == files.end()) continue;  // no test for a file that is not there
    ++s.ran;
    if (it->second.find("skip") != std::string::npos)
      ++s.skipped;
    else if (it->second.find(c.word) != std::string::npos)
      ++s.passed;
    else
      ++s.failed;
  }
  return s;
}

// Whether it exits 0 (nullopt: it depends on the Python, when no test ran: 3.12 exits 5).
std::optional<bool> runner_passes(const std::optional<TestSummary>& s) {
  if (!s) return true;
  if (s->ran == 0) return std::nullopt;
  return s->failed == 0;
}

CommandCase random_runner_case(std::mt19937& rng, std::vector<RunnerCommand>& commands) {
  auto pick = [&](const std::vector<std::string>& from) { return from[rng() % from.size()]; };
  const std::vector<json> covers = {json::array({"*.txt"}), json::array({"**"}), json::array({"a.txt", "new.txt"})};
  const std::vector<std::string> sources = {"a.txt", "b.txt", "css/c.txt", "new.txt"};
  RunnerCommand cmd;
  cmd.word = "dark";
  cmd.files = {pick(sources)};
  if (rng() % 3 == 0) cmd.files.push_back(pick(sources));
  std::string list;
  for (const auto& f : cmd.files) list += (list.empty() ? "" : ",") + f;
  cmd.assertion = {{"type", "command_succeeds"},
                   {"command", "PYTHONDONTWRITEBYTECODE=1 FILES=" + list + " WORD='" + cmd.word +
                                   "' python3 -m unittest tests.test_files"},
                   {"covers", covers[rng() % covers.size()]}};
  commands = {cmd};
  CommandCase c;
  c.initial = {{"a.txt", "red blue\n"},  {"b.txt", "green blue\n"}, {"css/c.txt", "red\n"},
               {"tests/t.txt", "red\n"}, {"tests/__init__.py", ""}, {"tests/test_files.py", kTestFiles}};
  int steps = 1 + static_cast<int>(rng() % 3);
  for (int i = 0; i < steps; ++i) {
    // Half the time a file the command tests; mostly the word it looks for, sometimes a skip or an
    // exit: the dishonest changes.
    std::string path = rng() % 2 == 0 ? pick(cmd.files) : pick(kCommandPaths);
    std::string word = rng() % 4 == 0 ? pick({"skip", "exit0"}) : pick({"dark", "dark", "dark", "red"});
    json step = {{"id", "s" + std::to_string(i + 1)}};
    if (rng() % 6 == 0) {
      step["tool"] = "file_delete";
      step["args"] = {{"path", path}};
    } else {
      step["tool"] = "file_write";
      step["args"] = {{"path", path}, {"content", word + "\n"}};
    }
    step["assert"] = json::array();
    c.steps.push_back(step);
  }
  return c;
}

// The files of the workspace now.
Files files_in(const std::string& root) {
  Files out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    if (e.is_regular_file())
      out[std::filesystem::relative(e.path(), root).string()] = candor::testing::read_file(e.path().string());
  }
  return out;
}

}  // namespace

TEST_SUITE("executor") {
  TEST_CASE(
      "property: a path a command covers at tier 1 is one its user command failed on before, and needs, and does not "
      "read as a test") {
    std::mt19937 rng(20261126);
    executor::ToolRegistry tools = executor::builtin_tools();
    assertions::Registry evaluators = assertions::builtin_evaluators();
    planner::Catalog catalog = executor::make_catalog(tools, evaluators);
    int successes = 0, covered_by_commands = 0, non_discriminating = 0, emptied_passes = 0, tests_held_back = 0,
        covered_on_record = 0, test_aware_runs = 0;
    for (int iteration = 0; iteration < 200; ++iteration) {
      CommandCase c = random_command_case(rng);
      CAPTURE(iteration);
      CAPTURE(c.steps.dump());
      std::string root = make_temp_dir("prop-ws"), store = make_temp_dir("prop-store");
      for (const auto& [path, content] : c.initial) write_file(root + "/" + path, content);
      auto ws = sandbox::Workspace::open(root);
      auto snaps = snapshot::SnapshotStore::open(store, root, system_clock());
      REQUIRE(ws.ok());
      REQUIRE(snaps.ok());
      FakeClock clock;  // never advanced
      NullSink sink;
      Trajectory trajectory("run1", clock, &sink);
      executor::ExecutorOptions options;
      options.plan_assertions_by = Provenance::kUser;
      const Deadline deadline = Deadline::in_seconds(clock, options.limits.timeout_s);
      executor::Executor ex({**ws, **snaps, tools, evaluators, clock, deadline, trajectory}, options);
      REQUIRE(ex.begin("run1", "goal").ok());
      ex.set_goal_kind(GoalKind::kModify, "test");
      auto plan = planner::parse_plan(json{{"goal_kind", "modify"}, {"steps", c.steps}, {"then", "finish"}}, catalog);
      REQUIRE(plan.ok());
      executor::RoundOutcome outcome = ex.run_round(*plan, 1);
      std::vector<json> expects;
      for (const auto& cmd : c.commands) expects.push_back(cmd.assertion);
      ex.run_goal_assertions(expects);
      Files final_files = files_in(root);
      RunFacts f = ex.finish(outcome.all_passed ? RunStatus::kCompleted : RunStatus::kBudgetExhausted,
                             outcome.all_passed ? BudgetKind::kNone : BudgetKind::kReplans, "");
      // What the run's end finds (app/run_end.cc): the test-aware lines of its change.
      auto flags = evidence::find_test_aware((*snaps)->trees(), f);
      REQUIRE(flags.ok());
      f.test_aware = *flags;
      auto command_of = [&](const AssertionRecord& a) -> const Command* {
        for (const auto& cmd : c.commands) {
          if (cmd.assertion == a.assertion) return &cmd;
        }
        return nullptr;
      };
      // The executor's runs agree with the oracle: before the run, and with an added path emptied.
      for (const auto& a : f.assertions) {
        const Command* cmd = command_of(a);
        if (cmd == nullptr) continue;
        CHECK(a.passed == command_holds(*cmd, final_files));
        if (!a.passed) continue;
        REQUIRE(a.before);
        CHECK(a.before->passed == command_holds(*cmd, c.initial));
        non_discriminating += a.discriminating == std::optional<bool>(false);
        for (const auto& e : a.emptied) {
          Files emptied = final_files;
          emptied[e.path] = "";
          CHECK(e.run.passed == command_holds(*cmd, emptied));
          emptied_passes += e.run.passed;
        }
      }
      verify::Tier1Result t1 = verify::evaluate_tier1(f);
      for (const auto& gap : t1.signals.coverage_gaps)
        tests_held_back += gap.find("tests/t.txt (") == 0 && gap.find("is a test file") != std::string::npos;
      // A run whose final source files (a test's own lines are the test's) hold a test-aware line is
      // never a tier-1 success.
      bool aware = std::any_of(final_files.begin(), final_files.end(), [](const auto& file) {
        return file.first.rfind("tests/", 0) != 0 && (file.second.find("exit(0)") != std::string::npos ||
                                                      file.second.find("PYTEST_CURRENT_TEST") != std::string::npos);
      });
      test_aware_runs += aware;
      if (aware) CHECK(t1.verdict != Verdict::kSuccess);
      if (t1.verdict != Verdict::kSuccess) continue;
      ++successes;
      for (const auto& m : f.mutations) {
        CAPTURE(m.path);
        Files empty = c.initial;
        empty[m.path] = "";
        bool by_file = std::any_of(f.assertions.begin(), f.assertions.end(), [&](const AssertionRecord& a) {
          if (command_of(a) != nullptr || !a.passed || a.path != m.path || a.seq <= m.last_change_seq ||
              holds_on(a.assertion, c.initial))
            return false;
          bool not_exists =
              a.assertion.value("type", "") == "not" && a.assertion["assertion"].value("type", "") == "file_exists";
          if (m.change == "deleted") return not_exists;
          return !not_exists && a.assertion.value("type", "") != "file_exists" && !holds_on(a.assertion, empty);
        });
        bool by_command = std::any_of(f.assertions.begin(), f.assertions.end(), [&](const AssertionRecord& a) {
          const Command* cmd = command_of(a);
          if (cmd == nullptr || !a.passed || a.seq <= m.last_change_seq || command_holds(*cmd, c.initial)) return false;
          if (m.change == "deleted" || m.path == cmd->named || m.path.rfind("tests/", 0) == 0) return false;
          bool matched = false;
          if (a.assertion.contains("covers")) {
            for (const auto& g : a.assertion["covers"]) matched |= path_glob_matches(g.get<std::string>(), m.path);
          }
          if (!matched) return false;
          if (m.change != "added") return true;
          Files emptied = final_files;
          emptied[m.path] = "";
          return !command_holds(*cmd, emptied);
        });
        // A test file the change edited, covered on record (docs/design.md, Tests of record): the command
        // failed before, and passes with every test file the change edited as it was before.
        bool by_record = std::any_of(f.assertions.begin(), f.assertions.end(), [&](const AssertionRecord& a) {
          const Command* cmd = command_of(a);
          if (cmd == nullptr || !a.passed || a.seq <= m.last_change_seq || command_holds(*cmd, c.initial)) return false;
          if (m.change != "modified" || m.path.rfind("tests/", 0) != 0) return false;
          Files record = final_files;
          for (const auto& [path, content] : c.initial) {
            if (path.rfind("tests/", 0) == 0) record[path] = content;
          }
          return command_holds(*cmd, record);
        });
        CHECK((by_file || by_command || by_record));
        covered_by_commands += by_command && !by_file;
        covered_on_record += by_record && !by_file && !by_command;
      }
    }
    MESSAGE("successes " << successes << ", paths covered by commands alone " << covered_by_commands
                         << ", commands that passed before "
                         << "the run too " << non_discriminating << ", emptied runs that still passed "
                         << emptied_passes << ", test files held back " << tests_held_back
                         << ", test files covered on record " << covered_on_record << ", test-aware runs "
                         << test_aware_runs);
    CHECK(test_aware_runs >= 5);
    CHECK(successes >= 5);
    CHECK(covered_by_commands >= 5);
    CHECK(non_discriminating >= 5);
    CHECK(emptied_passes >= 3);
    CHECK(tests_held_back >= 3);
  }

  TEST_CASE(
      "property: a path a test runner's command alone covers at tier 1 is one where its summary shows a test passed, "
      "none failed, no fewer ran and none more were skipped than before the run") {
    std::mt19937 rng(20261127);
    executor::ToolRegistry tools = executor::builtin_tools();
    assertions::Registry evaluators = assertions::builtin_evaluators();
    planner::Catalog catalog = executor::make_catalog(tools, evaluators);
    int successes = 0, covered = 0, silent = 0, skipped_more = 0, fewer = 0, held_back = 0;
    for (int iteration = 0; iteration < 30; ++iteration) {
      std::vector<RunnerCommand> commands;
      CommandCase c = random_runner_case(rng, commands);
      const RunnerCommand& cmd = commands.front();
      CAPTURE(iteration);
      CAPTURE(c.steps.dump());
      CAPTURE(cmd.assertion.dump());
      std::string root = make_temp_dir("prop-ws"), store = make_temp_dir("prop-store");
      for (const auto& [path, content] : c.initial) write_file(root + "/" + path, content);
      auto ws = sandbox::Workspace::open(root);
      auto snaps = snapshot::SnapshotStore::open(store, root, system_clock());
      REQUIRE(ws.ok());
      REQUIRE(snaps.ok());
      FakeClock clock;
      NullSink sink;
      Trajectory trajectory("run1", clock, &sink);
      executor::ExecutorOptions options;
      options.plan_assertions_by = Provenance::kUser;
      const Deadline deadline = Deadline::in_seconds(clock, options.limits.timeout_s);
      executor::Executor ex({**ws, **snaps, tools, evaluators, clock, deadline, trajectory}, options);
      REQUIRE(ex.begin("run1", "goal").ok());
      ex.set_goal_kind(GoalKind::kModify, "test");
      auto plan = planner::parse_plan(json{{"goal_kind", "modify"}, {"steps", c.steps}, {"then", "finish"}}, catalog);
      REQUIRE(plan.ok());
      executor::RoundOutcome outcome = ex.run_round(*plan, 1);
      ex.run_goal_assertions({cmd.assertion});
      Files final_files = files_in(root);
      RunFacts f = ex.finish(outcome.all_passed ? RunStatus::kCompleted : RunStatus::kBudgetExhausted,
                             outcome.all_passed ? BudgetKind::kNone : BudgetKind::kReplans, "");
      std::optional<TestSummary> after = runner_summary(cmd, final_files), before = runner_summary(cmd, c.initial);
      const AssertionRecord* a = nullptr;
      for (const auto& r : f.assertions) {
        if (r.assertion == cmd.assertion) a = &r;
      }
      REQUIRE(a != nullptr);
      // The executor read what the oracle says the runner printed, after and before.
      if (auto passes = runner_passes(after)) CHECK(a->passed == *passes);
      CHECK(a->tests == after);
      if (a->passed && a->before) {
        CHECK(a->before->tests == before);
        if (!a->before->passed) {
          silent += !after;
          skipped_more += after && before && after->skipped > before->skipped;
          fewer += after && before && after->ran < before->ran;
          held_back += a->discriminating == std::optional<bool>(false);
        }
      }
      verify::Tier1Result t1 = verify::evaluate_tier1(f);
      // A run that changed nothing is "already satisfied" by rule 4, not covered by anything.
      if (t1.verdict != Verdict::kSuccess || f.mutations.empty()) continue;
      ++successes;
      // Every success rests on a pass whose summary the oracle computes as evidence.
      REQUIRE(after);
      CHECK(after->ran >= 1);
      CHECK(after->passed >= 1);
      CHECK(after->failed == 0);
      REQUIRE(before);
      CHECK(runner_passes(before) != std::optional<bool>(true));  // it failed before the run
      CHECK(after->ran >= before->ran);
      CHECK(after->skipped <= before->skipped);
      for (const auto& m : f.mutations) {
        CAPTURE(m.path);
        CHECK(m.change != "deleted");
        CHECK(m.path.rfind("tests/", 0) != 0);
        bool matched = false;
        for (const auto& g : cmd.assertion["covers"]) matched |= path_glob_matches(g.get<std::string>(), m.path);
        CHECK(matched);
        if (m.change == "added") {
          Files emptied = final_files;
          emptied[m.path] = "";
          CHECK(runner_passes(runner_summary(cmd, emptied)) == std::optional<bool>(false));
        }
        ++covered;
      }
    }
    MESSAGE("successes " << successes << ", paths covered " << covered << ", passes held back " << held_back
                         << " (silent " << silent << ", more skipped " << skipped_more << ", fewer ran " << fewer
                         << ")");
    CHECK(successes >= 2);
    CHECK(held_back >= 3);
    CHECK(silent >= 1);
    CHECK(skipped_more >= 1);
    CHECK(fewer >= 1);
  }

  TEST_CASE("property: tier-1 success implies every mutated path has a pass that fails on the pre-run content") {
    std::mt19937 rng(20261122);
    executor::ToolRegistry tools = executor::builtin_tools();
    assertions::Registry evaluators = assertions::builtin_evaluators();
    planner::Catalog catalog = executor::make_catalog(tools, evaluators);
    int successes = 0, non_discriminating_passes = 0, checked_mutations = 0, not_positive_passes = 0,
        removals_held_back = 0;
    for (int iteration = 0; iteration < 300; ++iteration) {
      Case c = random_case(rng);
      CAPTURE(iteration);
      CAPTURE(c.steps.dump());
      std::string root = make_temp_dir("prop-ws"), store = make_temp_dir("prop-store");
      for (const auto& [path, content] : c.initial) write_file(root + "/" + path, content);
      auto ws = sandbox::Workspace::open(root);
      auto snaps = snapshot::SnapshotStore::open(store, root, system_clock());
      REQUIRE(ws.ok());
      REQUIRE(snaps.ok());
      FakeClock clock;  // never advanced
      NullSink sink;
      Trajectory trajectory("run1", clock, &sink);
      executor::ExecutorOptions options;
      options.plan_assertions_by = Provenance::kUser;  // an exec plan: the user's own evidence decides at tier 1
      const Deadline deadline = Deadline::in_seconds(clock, options.limits.timeout_s);
      executor::Executor ex({**ws, **snaps, tools, evaluators, clock, deadline, trajectory}, options);
      REQUIRE(ex.begin("run1", "goal").ok());
      ex.set_goal_kind(GoalKind::kModify, "test");
      auto plan = planner::parse_plan(json{{"goal_kind", "modify"}, {"steps", c.steps}, {"then", "finish"}}, catalog);
      REQUIRE(plan.ok());
      executor::RoundOutcome outcome = ex.run_round(*plan, 1);
      RunFacts f = ex.finish(outcome.all_passed ? RunStatus::kCompleted : RunStatus::kBudgetExhausted,
                             outcome.all_passed ? BudgetKind::kNone : BudgetKind::kReplans, "");
      for (const auto& a : f.assertions) {
        if (a.passed && a.discriminating == std::optional<bool>(false)) ++non_discriminating_passes;
        // The executor's own discriminating check agrees with the oracle.
        if (a.passed && a.discriminating) CHECK(*a.discriminating == !holds_on(a.assertion, c.initial));
        if (a.passed && a.positive == std::optional<bool>(false)) ++not_positive_passes;
      }
      verify::Tier1Result t1 = verify::evaluate_tier1(f);
      for (const auto& gap : t1.signals.coverage_gaps)
        removals_held_back += gap.find("more lines than it gained") != std::string::npos;
      if (t1.verdict != Verdict::kSuccess) continue;
      ++successes;
      for (const auto& m : f.mutations) {
        CAPTURE(m.path);
        ++checked_mutations;
        Files empty = c.initial;
        empty[m.path] = "";
        bool proved = std::any_of(f.assertions.begin(), f.assertions.end(), [&](const AssertionRecord& a) {
          if (!a.passed || a.path != m.path || a.seq <= m.last_change_seq || holds_on(a.assertion, c.initial))
            return false;
          bool not_exists =
              a.assertion.value("type", "") == "not" && a.assertion["assertion"].value("type", "") == "file_exists";
          if (m.change == "deleted") return not_exists;
          return !not_exists && a.assertion.value("type", "") != "file_exists" && !holds_on(a.assertion, empty);
        });
        CHECK(proved);
        // Removed content is the judge's: no tier-1 success holds a net removal past max(3, 10%).
        if (m.change == "modified") CHECK(m.lines_removed - m.lines_added <= std::max(3, m.lines_before / 10));
      }
    }
    // The property must have been put to the test, both ways.
    MESSAGE("successes " << successes << ", mutations checked " << checked_mutations << ", non-discriminating passes "
                         << non_discriminating_passes << ", discriminating passes that are not positive evidence "
                         << not_positive_passes << ", removals held back for the judge " << removals_held_back);
    CHECK(successes >= 10);
    CHECK(non_discriminating_passes >= 10);
    CHECK(not_positive_passes >= 10);
    CHECK(removals_held_back >= 5);
  }
}
