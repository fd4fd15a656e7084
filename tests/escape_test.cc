// Hostile text (the agent names files and writes messages) through the report escapes and the
// renderers that use them.
#include <doctest/doctest.h>

#include <cstdio>

#include "report/escape.h"
#include "report/formats.h"
#include "report/progress.h"
#include "report/report.h"
#include "tests/render_check.h"

using namespace candor;
using candor::testing::gfm_cells;
using candor::testing::has_raw_control;
using candor::testing::lines_of;
using candor::testing::skeletons;
using nlohmann::json;

namespace {

struct Row {
  const char* in;
  const char* out;
};

// A report as build_report makes it, with every agent-chosen string set to `hostile`.
json hostile_report(const std::string& hostile) {
  json r = {{"run_id", "20261122T000000-abcdef"},
            {"goal", hostile},
            {"verdict", "fail"},
            {"verdict_by", "tier1"},
            {"status", "completed"},
            {"goal_actions_executed", true}};
  r["reasons"] = {hostile};
  r["steps"] = {{"planned", 1}, {"executed", 1}, {"failed", 1}};
  r["budget"] = {
      {"exhausted", nullptr}, {"replans", {0, 3}}, {"steps", {1, 50}}, {"tokens", {0, 100}}, {"time_s", {1.5, 600}}};
  r["mutations"] = json::array({{{"path", hostile},
                                 {"change", "added"},
                                 {"lines_added", 1},
                                 {"lines_removed", 0},
                                 {"bytes_before", 0},
                                 {"bytes_after", 3},
                                 {"renamed_from", hostile},
                                 {"steps", {hostile}}}});
  r["suspicious"] = json::array({{{"reason", hostile}}});
  r["assertions"] =
      json::array({{{"step", hostile}, {"type", hostile}, {"passed", false}, {"message", hostile}, {"by", "planner"}}});
  r["tier2"]["answers"] = json::array({{{"question", 1}, {"text", hostile}, {"answer", "no"}, {"reason", hostile}}});
  r["goal_validations"] = json::array({{{"attempt", 1}, {"verdict", "fail"}, {"reason", hostile}}});
  r["acceptance"]["passed"] = false;
  r["acceptance"]["checkpoints"] = json::array({{{"id", hostile}, {"matched", false}, {"why", hostile}}});
  r["step_results"] =
      json::array({{{"id", hostile}, {"tool", "shell"}, {"target", hostile}, {"ok", false}, {"error", hostile}}});
  r["final_answer"] = hostile;
  return r;
}

const char* const kHostile[] = {
    "a|b",
    "a\\|b|c\\\\|d",
    "# Forged heading",
    "![x](http://evil/x.png)",
    "[click](javascript:alert(1)) <img src=x onerror=alert(1)> &lt;",
    "\x1b]0;title\x07\x1b[2J\x1b[1;32mSUCCESS\x1b[0m",
    "line one\n# line two\n| a | b |\n|---|---|",
    "```\ncode\n```",
    "`tick` ``two`` ",
    "\xc2\x9b"
    "31m C1 CSI \x9b raw \xe2\x80\xae RLO",
    "$\\color{red}{\\text{SUCCESS}}$ www.evil.example http://evil.example/",
};

}  // namespace

TEST_SUITE("report") {
  TEST_CASE("terminal_safe shows control characters instead of sending them") {
    const Row rows[] = {
        {"plain text · é ✓", "plain text · é ✓"},
        {"\x1b]0;title\x07", "␛]0;title␇"},
        {"\x1b[2J", "␛[2J"},
        {"a\nb\rc", "a␊b␍c"},
        {"tab\there", "tab here"},
        {"del\x7f", "del␡"},
        {"\xc2\x9b"
         "31m",
         "\xEF\xBF\xBD"
         "31m"},  // C1 CSI, UTF-8
        {"\x9b"
         "31m",
         "\xEF\xBF\xBD"
         "31m"},                                                   // a lone byte: CSI to an 8-bit terminal
        {"abc\xe2\x80\xaetxt.exe", "abc\xEF\xBF\xBDtxt.exe"},      // right-to-left override
        {"\xed\xa0\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"},  // a surrogate is not UTF-8
        {"\xe2\x82", "\xEF\xBF\xBD\xEF\xBF\xBD"},                  // cut short
    };
    for (const auto& row : rows) {
      CAPTURE(row.in);
      CHECK(report::terminal_safe(row.in) == row.out);
    }
    CHECK(report::terminal_safe("a\nb\x1b", true) == "a\nb␛");
  }

  TEST_CASE("markdown_text escapes what could open markup, and only that, and keeps the text on its line") {
    const Row rows[] = {
        {"plain words", "plain words"},
        {"Fix #387: the parser's crash (again), 1.2.0", "Fix #387: the parser's crash (again), 1.2.0"},
        {"# Forged heading", "\\# Forged heading"},
        {"  - forged item", "  \\- forged item"},
        {"= rule", "\\= rule"},
        {"12. forged", "12\\. forged"},
        {"3) forged", "3\\) forged"},
        {"![x](http://evil/x.png)", "!\\[x\\](http\\://evil/x.png)"},
        {"see www.evil.example", "see www\\.evil.example"},
        {"mail ops@evil.example", "mail ops\\@evil.example"},
        {"**bold** _em_ ~~gone~~ `code` $x$", "\\*\\*bold\\*\\* \\_em\\_ \\~\\~gone\\~\\~ \\`code\\` \\$x\\$"},
        {"a|b", "a\\|b"},
        {"a\\|b", "a\\\\\\|b"},
        {"<b>&amp;", "\\<b\\>\\&amp;"},
        {"one\ntwo", "one two"},
        {"one\n# two", "one # two"},
        {"\x1b[2J", "␛\\[2J"},
    };
    for (const auto& row : rows) {
      CAPTURE(row.in);
      CHECK(report::markdown_text(row.in) == row.out);
    }
  }

  TEST_CASE("markdown_code: a fence the text cannot close, pipes escaped in table cells") {
    const Row prose[] = {
        {"css/style.css", "`css/style.css`"},
        {"a`b", "``a`b``"},
        {"``", "``` `` ```"},
        {"`a", "`` `a ``"},
        {"a|b", "`a|b`"},
        {"", "` `"},
        {" ", "` `"},
        {"x\n# y", "`x # y`"},
        {"\x1b[2J", "`␛[2J`"},
    };
    for (const auto& row : prose) {
      CAPTURE(row.in);
      CHECK(report::markdown_code(row.in) == row.out);
    }
    const Row cells[] = {
        {"a|b", "`a\\|b`"},
        {"a\\|b", "`a\\\\\\|b`"},    // a pipe after one backslash: two more
        {"a\\\\|b", "`a\\\\\\|b`"},  // after two: one
        {"|`|", "``\\|`\\|``"},
    };
    for (const auto& row : cells) {
      CAPTURE(row.in);
      CHECK(report::markdown_code(row.in, report::SpanIn::kTableCell) == row.out);
    }
  }

  TEST_CASE("markdown report of hostile names and messages: it ends, no forged block, no broken table row") {
    for (const char* hostile : kHostile) {
      CAPTURE(hostile);
      std::string md = report::render_markdown(hostile_report(hostile));
      CHECK_FALSE(has_raw_control(md));
      std::string stranger;
      CHECK_MESSAGE(candor::testing::lines_are_ours(md, &stranger), stranger);
      std::size_t header_cells = 0;
      for (const auto& line : lines_of(md)) {
        CAPTURE(line);
        if (line.rfind("| ", 0) == 0 && line.find("---") == std::string::npos && line.find("| file |") == 0)
          header_cells = gfm_cells(line);
        if (line.rfind("| ", 0) == 0) CHECK(gfm_cells(line) == 5);
        if (line.rfind("### ", 0) == 0) CHECK(md.find("### ") == 0);
      }
      CHECK(header_cells == 5);
      // The agent's text adds no Markdown that acts: the same skeleton as a report of plain words.
      // (A goal of several lines is quoted under the heading line by line, whatever its words: the
      // plain report has as many lines, blank where the hostile one is blank.)
      std::string plain;
      for (const auto& line : lines_of(hostile))
        plain += (plain.empty() ? "" : "\n") +
                 std::string(line.find_first_not_of(" \t\r") == std::string::npos ? "" : "plain words");
      CHECK(skeletons(md) == skeletons(report::render_markdown(hostile_report(plain))));
    }
  }

  TEST_CASE("terminal report of hostile text: no escape sequence without colour, only candor's own with it") {
    for (const char* hostile : kHostile) {
      CAPTURE(hostile);
      json r = hostile_report(hostile);
      std::string plain = report::render_terminal(r, {false, 80});
      CHECK_FALSE(has_raw_control(plain));
      std::string stranger;
      CHECK_MESSAGE(candor::testing::terminal_lines_are_ours(plain, &stranger), stranger);
      CHECK(plain.rfind("FAIL  ", 0) == 0);
      std::string colored = report::render_terminal(r, {true, 80});
      // Remove candor's own SGR sequences; nothing may be left.
      std::string stripped;
      for (std::size_t i = 0; i < colored.size(); ++i) {
        if (colored[i] == '\x1b' && colored.compare(i, 2, "\x1b[") == 0) {
          std::size_t m = colored.find('m', i);
          REQUIRE(m != std::string::npos);
          std::string params = colored.substr(i + 2, m - i - 2);
          CHECK(params.find_first_not_of("0123456789;") == std::string::npos);
          i = m;
          continue;
        }
        stripped += colored[i];
      }
      CHECK_FALSE(has_raw_control(stripped));
    }
  }

  TEST_CASE("the step log and the progress lines show a step's escape sequences as text") {
    std::vector<Event> events = {
        {1,
         "",
         "tool_called",
         {{"step", "s1\x1b[2J"}, {"tool", "shell"}, {"input", {{"command", "printf '\\033]0;x\\007'"}}}}},
        {2,
         "",
         "tool_result",
         {{"step", "s1"}, {"ok", false}, {"error", "exit 1\x1b[1A"}, {"output", "\x1b]0;owned\x07\nnext\x9b line"}}},
        {3, "", "assertion", {{"type", "output_contains"}, {"passed", false}, {"message", "\x1b[2Kgone"}}},
    };
    std::string log = report::render_step_log(events, 2000, false);
    CHECK_FALSE(has_raw_control(log));
    CHECK(log.find("    | ␛]0;owned␇\n    | next\xEF\xBF\xBD line\n") != std::string::npos);

    StepRecord step;
    step.id = "s1\x1b[2J";
    step.tool = "shell";
    step.target = "echo \x1b]0;t\x07";
    step.ok = false;
    step.error = "\x1b[1A\x1b[2Kexit 1";
    AssertionRecord a;
    a.type = "output_contains";
    a.passed = false;
    a.message = "\x1b[31mred";
    char* buf = nullptr;
    std::size_t len = 0;
    std::FILE* f = ::open_memstream(&buf, &len);
    report::TerminalProgress p(f, true, false);
    p.step_finished(step, {a});
    p.note("replan: \x1b[2J");
    std::fclose(f);
    std::string out(buf, len);
    std::free(buf);
    CHECK_FALSE(has_raw_control(out));
    CHECK(out.find("␛[1A␛[2Kexit 1") != std::string::npos);
  }

  TEST_CASE("a report of the wrong shape renders with gaps instead of throwing") {
    for (const char* text :
         {"{}", "[]", "\"x\"", "{\"steps\": 3, \"budget\": [1], \"mutations\": {\"a\": 1}}",
          "{\"reasons\": [1, null], \"mutations\": [{\"path\": 1, \"lines_added\": \"x\", \"steps\": \"s\"}]}",
          "{\"assertions\": [1, {\"passed\": \"yes\"}], \"tier2\": {\"answers\": 3}, \"final_answer\": 5}"}) {
      CAPTURE(text);
      json r = json::parse(text);
      CHECK_NOTHROW(report::render_markdown(r));
      CHECK_NOTHROW(report::render_terminal(r, {false, 80}));
      CHECK_NOTHROW(report::render_terminal(r, {true, 80}));
    }
  }
}
