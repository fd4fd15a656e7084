// The judge sees the whole change or says less (docs/design.md, tier 2): a change larger than one
// prompt is judged in batches, every path's diff reaches some batch, one batch's "no" is a no, and a
// judge whose time ran out before the last batch leaves the run `partial`, "judged on partial
// evidence". The judge is a real program (`--llm command:...`) that logs every prompt it is shown.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include "tests/e2e_support.h"
#include "tests/git_repo_fixture.h"

using namespace candor;
using namespace candor::testing;
using nlohmann::json;

namespace {

// Answers every question of every prompt: "no" to question 1 when the prompt shows `no_when`,
// else "yes" where the prompt shows a renamed function and "not_shown" elsewhere; sleeps `delay_s`
// first. Each user message is appended to `log` (one JSON string per line).
constexpr const char* kJudge = R"PY(
import json, re, sys, time
log, no_when, delay = sys.argv[1], sys.argv[2], float(sys.argv[3])
req = json.load(sys.stdin)
user = req["messages"][-1]["content"]
with open(log, "a") as f:
    f.write(json.dumps(user) + "\n")
time.sleep(delay)
questions = re.findall(r"^(\d+)\. ", user.split("Questions:\n", 1)[1].split("\nEvidence", 1)[0], re.M)
batch = "(part " in user and " of the change)" in user
answers = []
for q in questions:
    if q == "1" and no_when and no_when in user:
        a = "no"
    elif q == "1" and batch and "renamed_" not in user:
        a = "not_shown"
    else:
        a = "yes"
    answers.append({"question": int(q), "answer": a, "reason": "seen"})
print(json.dumps({"answers": answers}))
)PY";

struct BigChange : Repo {
  std::string base, judge, log;
  BigChange() {
    for (int i = 0; i < 60; ++i) write_file(ws + fmt::format("/src/f{:02}.py", i), body(i, "old_"));
    base = commit("sixty modules");
    for (int i = 0; i < 60; ++i) write_file(ws + fmt::format("/src/f{:02}.py", i), body(i, "renamed_"));
    commit("rename every function");
    std::string dir = make_temp_dir("judge");
    judge = dir + "/judge.py";
    log = dir + "/prompts.jsonl";
    write_file(judge, kJudge);
  }
  static std::string body(int i, const std::string& prefix) {
    std::string text;
    for (int f = 0; f < 12; ++f)
      text += fmt::format("def {}{}_{}(x):\n    return x + {}  # module {}\n\n", prefix, i, f, f, i);
    return text;
  }
  CommandResult verify_with(const std::string& no_when, double delay_s, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"verify",
                                     "--git",
                                     base + "..HEAD",
                                     "-C",
                                     ws,
                                     "--goal",
                                     "Rename every function with the renamed_ prefix",
                                     "--question",
                                     "Is every function renamed with the renamed_ prefix?",
                                     "--judge",
                                     "always",
                                     "--json",
                                     "--llm",
                                     fmt::format("command:python3 {} {} '{}' {}", judge, log, no_when, delay_s)};
    args.insert(args.end(), extra.begin(), extra.end());
    return candor(args);
  }
  std::vector<std::string> prompts() {
    std::vector<std::string> out;
    std::string text = read_file(log);
    std::size_t at = 0;
    while (at < text.size()) {
      std::size_t end = text.find('\n', at);
      out.push_back(json::parse(text.substr(at, end - at)).get<std::string>());
      at = end + 1;
    }
    return out;
  }
};

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("verify --git: a 60-file change is judged in batches and every path's diff is seen") {
    BigChange repo;
    json report = parse_stdout(repo.verify_with("", 0));
    CAPTURE(report.dump(2));
    auto prompts = repo.prompts();
    REQUIRE(prompts.size() >= 3);  // 60 diffs of ~1.4 KB do not fit one 24 KiB prompt
    for (int i = 0; i < 60; ++i) {
      std::string path = fmt::format("path=\"src/f{:02}.py\"", i);
      bool seen = std::any_of(prompts.begin(), prompts.end(),
                              [&](const std::string& p) { return p.find(path) != std::string::npos; });
      CHECK_MESSAGE(seen, "no prompt showed src/f" << i << ".py");
    }
    CHECK(prompts[0].find(fmt::format("(part 1 of {} of the change)", prompts.size())) != std::string::npos);
    CHECK(report["verdict"] == "success");
    CHECK(report["tier2"]["batches"] == prompts.size());
    CHECK(report["tier2"]["unseen_paths"].empty());
    // Every judge call is in the run's usage, and stays there when the stored run is read again.
    CHECK(report["usage"]["llm_calls"] == prompts.size());
    CHECK(report["judge_policy"] == "always");
    json again = parse_stdout(repo.candor({"verify", report["run_id"], "--json", "--judge", "never"}));
    CHECK(again["usage"] == report["usage"]);
  }

  TEST_CASE("verify --git: one batch's no makes the run not success") {
    BigChange repo;
    json report = parse_stdout(repo.verify_with("src/f37.py", 0));
    CAPTURE(report.dump(2));
    CHECK(report["verdict"] != "success");
    CHECK(any_reason_has(report, "the judge answered no to \"Is every function renamed"));
  }

  TEST_CASE("verify --git: the judge's time runs out before the last batch: partial, judged on partial evidence") {
    BigChange repo;
    // Each answer takes 1.5 s and the whole verification may take 4: the later batches are never asked.
    json report = parse_stdout(repo.verify_with("", 1.5, {"--timeout", "4"}));
    CAPTURE(report.dump(2));
    auto prompts = repo.prompts();
    CHECK(prompts.size() < report["tier2"]["batches"].get<std::size_t>());
    CHECK(report["verdict"] == "partial");
    CHECK(any_reason_has(report, "judged on partial evidence"));
    CHECK_FALSE(report["tier2"]["unseen_paths"].empty());
    // The paths named unseen are the ones no prompt showed.
    for (const auto& path : report["tier2"]["unseen_paths"]) {
      std::string needle = "path=\"" + path.get<std::string>() + "\"";
      CHECK(std::none_of(prompts.begin(), prompts.end(),
                         [&](const std::string& p) { return p.find(needle) != std::string::npos; }));
    }
  }
}
