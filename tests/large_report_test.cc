// A report of a large change stays readable (docs/design.md, "Every finding is reported"): every finding
// is in the JSON, and the terminal, Markdown and HTML renderings show the first of each kind whole
// and count the rest per folder; the Markdown fits one pull-request comment.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include "report/folding.h"
#include "report/formats.h"
#include "report/report.h"
#include "verify/tier1.h"
#include "verify/verdict.h"

using namespace candor;
using nlohmann::json;

namespace {

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// A verify --git of 5,000 changed paths over three folders, with a protected change, a failed
// expectation and nothing that proves the changes; a goal of several lines, an issue's text.
RunFacts large_change() {
  RunFacts f;
  f.run_id = "20261126T000000-abcdef";
  f.source = "git";
  f.goal = "Fix the parser's handling of empty sections\n\nSteps to reproduce:\n# not a heading\n| not | a table |";
  f.goal_kind = GoalKind::kModify;
  f.status = RunStatus::kCompleted;
  f.steps_planned = 1;
  StepRecord change;
  change.id = "change";
  change.tool = "git";
  change.target = "main..agent";
  change.effect_tool = change.ok = true;
  f.steps = {change};
  for (int i = 0; i < 5000; ++i) {
    Mutation m;
    m.path = fmt::format("{}/file_{:04}.py", i % 5 == 0 ? "tests" : i % 2 == 0 ? "src" : "docs", i);
    m.change = i % 7 == 0 ? "added" : "modified";
    m.lines_added = 3;
    f.mutations.push_back(m);
    f.steps[0].changed_paths.push_back(m.path);
  }
  Mutation mode;
  mode.path = "bin/run.sh";
  mode.change = "mode";
  mode.mode_before = 0100644;
  mode.mode_after = 0100755;
  f.mutations.push_back(mode);
  f.protected_changes = {".candor/config.json was modified"};
  AssertionRecord failed;
  failed.type = "file_contains";
  failed.path = "README.md";
  failed.message = "README.md does not contain \"empty sections\"";
  failed.by = Provenance::kUser;
  failed.seq = 10;
  f.assertions = {failed};
  return f;
}

}  // namespace

TEST_SUITE("report") {
  TEST_CASE("a large change: every finding in the JSON, folded per folder in every rendering") {
    RunFacts f = large_change();
    auto t1 = verify::evaluate_tier1(f);
    auto d = verify::decide_without_judge(t1);
    json r = report::build_report(f, t1, d, "2026-11-26T00:00:00.000Z");
    REQUIRE(r["verdict"] == "partial");
    // The JSON keeps every finding: the protected change, the failure, and each of 5,001 paths.
    REQUIRE(r["findings"].size() == 5003);
    CHECK(r["findings"][0]["severity"] == "blocked");
    CHECK(r["findings"][1]["severity"] == "failed");
    CHECK(r["findings"][2]["severity"] == "unproven");
    CHECK(r["reasons"].size() == 5003);
    bool mode_said = false;
    for (const auto& reason : r["reasons"])
      mode_said |= reason.get<std::string>().find("bin/run.sh (mode 0644 → 0755)") != std::string::npos;
    CHECK(mode_said);

    std::string md = report::render_markdown(r);
    CAPTURE(md.substr(0, 3000));
    CHECK(md.size() <= 60000);
    CHECK(md.rfind("### ⚠️ candor: **partial** — Fix the parser's handling of empty sections\n", 0) == 0);
    CHECK(md.find("<details><summary>Goal</summary>") != std::string::npos);
    CHECK(md.find("\n# not a heading") == std::string::npos);
    CHECK(md.find("*blocked* — protected path: .candor/config.json was modified") != std::string::npos);
    CHECK(md.find("*failed* — an assertion failed") != std::string::npos);
    // 15 unproven paths whole, then one line counting the other 4,986 per folder, largest first.
    CHECK(count_of(md, "*unproven* — ") == 16);
    CHECK(md.find("  - *unproven* — and 4,986 more like these: docs/ 1,994, src/ 1,994, tests/ 997, bin/ 1\n") !=
          std::string::npos);
    // The changed-files table: 150 rows, then the rest per folder.
    CHECK(md.find("and 4,851 more changed paths: ") != std::string::npos);
    CHECK(md.find("| `bin/run.sh` | mode 0644 → 0755 |") == std::string::npos);  // past the cap: counted

    std::string terminal = report::render_terminal(r, {false, 100});
    CHECK(count_of(terminal, "[unproven] ") == 13);
    CHECK(terminal.find("and 4,989 more like these:") != std::string::npos);
    CHECK(terminal.find("and 4,941 more changed paths: ") != std::string::npos);
    CHECK(terminal.size() < 40000);

    std::string html = report::render_html(r, {}, {});
    CHECK(html.find("id=\"changes-folded\"") != std::string::npos);
    CHECK(html.find("and 4,701 more changed paths: ") != std::string::npos);
    CHECK(count_of(html, "<span class=\"severity\">unproven</span>") == 26);
  }

  TEST_CASE("a Markdown report too large for one comment leaves out whole sections and says which") {
    RunFacts f = large_change();
    f.mutations.resize(40);
    f.steps[0].changed_paths.resize(40);
    AssertionRecord a = f.assertions[0];
    a.message = std::string(3000, 'x');
    f.assertions.clear();
    for (int i = 0; i < 60; ++i) {  // 60 × 3 KB of messages: the assertions table alone is past the limit
      a.path = fmt::format("docs/page_{}.md", i);
      a.assertion = {{"type", "file_contains"}, {"path", a.path}, {"text", "x"}};
      a.seq = 10 + i;
      f.assertions.push_back(a);
    }
    auto t1 = verify::evaluate_tier1(f);
    json r = report::build_report(f, t1, verify::decide_without_judge(t1), "2026-11-26T00:00:00.000Z");
    std::string md = report::render_markdown(r);
    CHECK(md.size() <= 60000);
    CHECK(md.find("*Left out to fit one comment (60000 characters): assertions, judge and reviews.") !=
          std::string::npos);
    CHECK(md.find("\n**Changes**\n") != std::string::npos);  // it fit
    CHECK(count_of(md, "*failed* — ") == 16);  // 15 failures whole, each cut to 600 characters, and a count
    CHECK(md.find(std::string(500, 'x') + "...\n") != std::string::npos);
    CHECK(count_of(md, "<details>") == count_of(md, "</details>"));
  }

  TEST_CASE("fold_paths counts what it leaves out per top-level folder, largest first, a cap on folders") {
    std::vector<std::string> paths{"a.txt", "src/x", "src/y", "lib/z", "src/w", "top"};
    report::Folded f = report::fold_paths(paths, 1, 2);
    CHECK(f.shown == 1);
    CHECK(f.left_out == 5);
    REQUIRE(f.rest.size() == 2);
    CHECK(f.rest[0].folder == "src/");
    CHECK(f.rest[0].count == 3);
    CHECK(f.rest[1].folder == "(top level)");
    CHECK(f.other_paths == 1);  // lib/z, past the two folders named
    CHECK(report::folded_phrase(f, "paths") == "and 5 more paths: src/ 3, (top level) 1, and 1 in other folders");
    CHECK(report::folded_phrase(report::fold_paths(paths, 10), "paths").empty());
  }
}
