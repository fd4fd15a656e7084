// The live status line (report/status_line.h) and how TerminalProgress draws it around the log.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>

#include "report/escape.h"
#include "report/progress.h"
#include "report/status_line.h"
#include "tests/render_check.h"
#include "tests/test_support.h"

using namespace candor;
using candor::testing::FakeClock;
using report::Activity;
using std::chrono::seconds;

namespace {

// What `draw` wrote through a TerminalProgress on a terminal (`tty`) with the live status line,
// drawn only when the test calls tick().
template <typename Draw>
std::string drawn(bool tty, FakeClock& clock, std::size_t width, Draw draw) {
  char* buf = nullptr;
  std::size_t len = 0;
  std::FILE* f = ::open_memstream(&buf, &len);
  {
    report::TerminalProgress p(f, tty, false, report::LiveStatus{&clock, [width] { return width; }, false});
    draw(p);
  }
  std::fclose(f);
  std::string out(buf, len);
  std::free(buf);
  return out;
}

StepRecord step(const std::string& id, const std::string& tool, const std::string& target) {
  StepRecord s;
  s.id = id;
  s.tool = tool;
  s.target = target;
  s.ok = true;
  return s;
}

}  // namespace

TEST_SUITE("report") {
  TEST_CASE("status line: the running step or the wait, with its elapsed seconds") {
    struct Row {
      Activity activity;
      int elapsed;
      std::size_t width;
      std::string line;
    };
    const std::string long_path = "css/a-very-long-path/style.css";
    for (const auto& row : std::vector<Row>{
             {{std::nullopt, "s1", "shell", "sleep 3"}, 2, 80, "  s1 shell sleep 3 … 2 s"},
             {{std::nullopt, "s2", "file_list", ""}, 0, 80, "  s2 file_list … 0 s"},
             {{WaitKind::kPlanner, "", "", ""}, 12, 80, "  planning… 12 s"},
             {{WaitKind::kJudge, "", "", ""}, 4, 80, "  judge… 4 s"},
             {{WaitKind::kReviewer, "", "", ""}, 7, 80, "  reviewer… 7 s"},
             // The target is cut first; the elapsed time stays.
             {{std::nullopt, "s1", "file_patch", long_path}, 2, 32, "  s1 file_patch css/a... … 2 s"},
             {{std::nullopt, "s1", "file_patch", long_path}, 125, 80, "  s1 file_patch " + long_path + " … 125 s"},
             // A long id leaves room for the tool and the target.
             {{std::nullopt, std::string(100, 'i'), "shell", "make"},
              1,
              80,
              "  " + std::string(13, 'i') + "... shell make … 1 s"},
             // Too narrow for any of the step's text: the whole line is cut.
             {{std::nullopt, "s1", "shell", "sleep 3"}, 2, 12, "  s1 she..."},
             {{WaitKind::kPlanner, "", "", ""}, 12, 10, "  plan..."},
             {{WaitKind::kPlanner, "", "", ""}, 12, 1, ""},
         }) {
      CAPTURE(row.line);
      std::string line = report::status_line(row.activity, seconds(row.elapsed), row.width);
      CHECK(line == row.line);
      CHECK(report::column_bound(line) <= (row.width > 0 ? row.width - 1 : 0));
    }
  }

  TEST_CASE("status line: the agent's id and target cannot break the line, at any width") {
    // Escape sequences that would move the cursor, clear the screen or retitle the window, a
    // newline (a second line cannot be redrawn in place), bidi controls, invalid UTF-8, wide
    // characters, and far more text than any terminal is wide.
    Activity hostile{std::nullopt, "s1\x1b[2J\n\x1b[1A", "shell",
                     "echo \x1b]0;owned\x07\nrm -rf / \xE2\x80\xAE\x9b 背景を濃い緑に " + std::string(5000, 'x')};
    for (std::size_t width = 1; width <= 300; ++width) {
      CAPTURE(width);
      for (bool color : {false, true}) {
        std::string line = report::status_line(hostile, seconds(3), width, color);
        std::string plain = line;
        if (color && line.find("\033[36m") != std::string::npos) {
          plain.erase(plain.find("\033[36m"), 5);
          plain.erase(plain.rfind("\033[0m"), 4);
        }
        CHECK_FALSE(testing::has_raw_control(plain));
        CHECK(plain.find('\n') == std::string::npos);
        CHECK(report::column_bound(plain) <= width - 1);
      }
    }
    std::string line = report::status_line(hostile, seconds(3), 80);
    CHECK(line.rfind("  s1␛[2J␊␛[1A shell echo ␛]0;owned␇␊rm -rf / ", 0) == 0);
    CHECK(line.ends_with("... … 3 s"));
  }

  TEST_CASE("status line: colour paints the elapsed time only, outside the columns counted") {
    std::string line = report::status_line({std::nullopt, "s1", "shell", "sleep 3"}, seconds(2), 80, true);
    CHECK(line == "  s1 shell sleep 3\033[36m … 2 s\033[0m");
  }

  TEST_CASE("columns: counted high, cut between characters") {
    CHECK(report::column_bound("abc") == 3);
    CHECK(report::column_bound("␛a") == 3);
    CHECK(report::column_bound("背景") == 4);
    CHECK(report::fit_columns("abcdef", 6) == "abcdef");
    CHECK(report::fit_columns("abcdefg", 6) == "abc...");
    CHECK(report::fit_columns("背景背景", 6) == "背...");
    CHECK(report::fit_columns("背景背景", 7) == "背景...");
    CHECK(report::fit_columns("abcdef", 2) == "..");
    CHECK(report::fit_columns("abcdef", 0) == "");
  }

  TEST_CASE("progress on a terminal: the status line is redrawn in place and erased before every log line") {
    FakeClock clock;
    std::string out = drawn(true, clock, 80, [&](report::TerminalProgress& p) {
      p.round_started(1, 2);
      p.step_started(step("s1", "shell", "sleep 3"));
      p.tick();  // the same second: nothing drawn
      clock.advance(std::chrono::milliseconds(1000));
      p.tick();
      clock.advance(std::chrono::milliseconds(999));
      p.tick();
      clock.advance(std::chrono::milliseconds(1));
      p.tick();
      p.note("replan: \x1b[2Jsomething");
      p.step_finished(step("s1", "shell", "sleep 3"), {});
      p.tick();  // nothing runs: nothing drawn
      p.wait_started(WaitKind::kPlanner);
      clock.advance(std::chrono::seconds(12));
      p.tick();
      p.wait_finished(WaitKind::kPlanner);
      p.wait_started(WaitKind::kJudge);
    });
    CHECK(out ==
          "round 1 (2 steps)\n"
          "\r\033[K  s1 shell sleep 3 … 0 s"
          "\r\033[K  s1 shell sleep 3 … 1 s"
          "\r\033[K  s1 shell sleep 3 … 2 s"
          "\r\033[K  replan: ␛[2Jsomething\n"
          "\r\033[K  s1 shell sleep 3 … 2 s"
          "\r\033[K  ok     s1   shell       sleep 3\n"
          "\r\033[K  planning… 0 s"
          "\r\033[K  planning… 12 s"
          "\r\033[K"
          "\r\033[K  judge… 0 s"
          "\r\033[K");  // the status line does not outlive the progress
  }

  TEST_CASE("progress on a narrow terminal: the finished lines are cut to its width too") {
    FakeClock clock;
    StepRecord failed = step("s1", "file_patch", "css/a-very-long-path/to/the/style.css");
    failed.ok = false;
    failed.error = "edits[0].find occurs 0 times in css/a-very-long-path/to/the/style.css (expected 1)";
    AssertionRecord a;
    a.type = "file_contains";
    a.message = "css/a-very-long-path/to/the/style.css does not contain \"#006400\"";
    std::string out = drawn(true, clock, 50, [&](report::TerminalProgress& p) {
      p.step_finished(failed, {a});
      p.note("replan: step s1 (file_patch css/a-very-long-path/to/the/style.css) failed");
    });
    CHECK(out ==
          "  FAILED s1   file_patch  css/a-very-long-path...\n"
          "         edits[0].find occurs 0 times in css/a...\n"
          "         FAIL file_contains: css/a-very-long-p...\n"
          "  replan: step s1 (file_patch css/a-very-long-...\n");
    for (const auto& line : testing::lines_of(out)) CHECK(report::column_bound(line) <= 49);
  }

  TEST_CASE("progress not on a terminal: the quiet log, without carriage returns or escape codes") {
    FakeClock clock;
    StepRecord failed = step("s2", "shell", "false");
    failed.ok = false;
    failed.error = "exit 1";
    std::string out = drawn(false, clock, 80, [&](report::TerminalProgress& p) {
      p.round_started(1, 2);
      p.step_started(step("s1", "shell", "sleep 3"));
      clock.advance(std::chrono::seconds(2));
      p.tick();
      p.step_finished(step("s1", "shell", "sleep 3"), {});
      p.step_started(failed);
      p.step_finished(failed, {});
      p.wait_started(WaitKind::kPlanner);
      p.tick();
      p.wait_finished(WaitKind::kPlanner);
      p.note("replan: step s2 failed");
    });
    CHECK(out ==
          "round 1 (2 steps)\n"
          "  FAILED s2   shell       false\n"
          "         exit 1\n"
          "  replan: step s2 failed\n");
  }

  TEST_CASE("progress: the ticker thread stops, and the status line is erased, when the progress goes") {
    SystemClock clock;
    char* buf = nullptr;
    std::size_t len = 0;
    std::FILE* f = ::open_memstream(&buf, &len);
    {
      report::TerminalProgress p(f, true, false, report::LiveStatus{&clock, [] { return std::size_t{80}; }, true});
      p.wait_started(WaitKind::kReviewer);
    }
    std::fclose(f);
    std::string out(buf, len);
    std::free(buf);
    CHECK(out.rfind("\r\033[K  reviewer… 0 s", 0) == 0);
    CHECK(out.ends_with("\r\033[K"));
  }
}
