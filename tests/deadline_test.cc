#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "core/deadline.h"
#include "tests/test_support.h"

using namespace candor;
using namespace candor::testing;
using namespace std::chrono_literals;

TEST_SUITE("core") {
  TEST_CASE("a deadline reads the clock it was made with: a fake clock moves every reader at once") {
    FakeClock clock;
    clock.advance(1000s);  // a fake clock's monotonic time is not the real one's
    Deadline d(clock, 60s);
    CHECK(d.bounded());
    CHECK_FALSE(d.passed());
    CHECK(d.left() == 60s);
    CHECK(d.left_or(5s) == 5s);
    clock.advance(45s);
    CHECK(d.left() == 15s);
    CHECK(d.elapsed_s() == doctest::Approx(45.0));
    clock.advance(15s);
    CHECK(d.passed());
    CHECK(d.left() == 0ms);
    clock.advance(1h);
    CHECK(d.left() == 0ms);  // never negative
  }

  TEST_CASE("a part of the run's budget never ends after the run's; the last scan's grace may") {
    struct Row {
      const char* name;
      std::chrono::seconds run, asked, expect_left;
    };
    const Row rows[] = {
        {"a share shorter than what is left", 600s, 120s, 120s},
        {"a share longer than what is left is cut to it", 60s, 120s, 60s},
        {"nothing left: nothing for the part either", 0s, 120s, 0s},
    };
    for (const Row& row : rows) {
      CAPTURE(row.name);
      FakeClock clock;
      Deadline run(clock, row.run);
      Deadline part = run.within(row.asked);
      CHECK(part.left() == row.expect_left);
      CHECK(part.passed() == (row.expect_left == 0s));
    }
    FakeClock clock;
    Deadline run(clock, 10s);
    clock.advance(30s);
    CHECK(run.passed());
    Deadline grace = run.at_least(5s);
    CHECK_FALSE(grace.passed());
    CHECK(grace.left() == 5s);
    CHECK(grace.elapsed_s() == doctest::Approx(30.0));  // the run's start, not the grace's
    CHECK(Deadline(clock, 600s).at_least(5s).left() == 600s);
  }

  TEST_CASE("an unbounded deadline never passes, and a part of it is bounded") {
    Deadline none;
    CHECK_FALSE(none.bounded());
    CHECK_FALSE(none.passed());
    CHECK(none.left() == Deadline::Ms::max());
    CHECK(none.left_or(3s) == 3s);
    CHECK_FALSE(none.at_least(1s).bounded());
    Deadline part = none.within(50s);
    CHECK(part.bounded());
    CHECK(part.left() <= 50s);
    CHECK(part.left() > 40s);
    // A request's budget of "all that is left" of an unbounded deadline saturates, not overflows.
    FakeClock clock;
    Deadline all(clock, none.left());
    CHECK_FALSE(all.passed());
    CHECK(all.left() > std::chrono::hours(24 * 365 * 100));
    CHECK(Deadline(clock, -5s).passed());
  }

  // The run has one time budget: nothing in product code reads the monotonic clock but core's
  // Clock, which Deadline asks. A second clock read is a budget with no owner (issue 38).
  TEST_CASE("no product code reads the steady clock but core/clock.h") {
    namespace fs = std::filesystem;
    const std::vector<std::string> components = {"api",      "app",      "assertions", "cli",   "core",    "evidence",
                                                 "executor", "import",   "llm",        "net",   "planner", "report",
                                                 "sandbox",  "snapshot", "store",      "verify"};
    const std::regex read_clock(
        R"(steady_clock::now|high_resolution_clock|using\s+\w+\s*=\s*std::chrono::steady_clock)");
    std::vector<std::string> offenders;
    int files = 0;
    for (const auto& component : components) {
      fs::path dir = fs::path(source_root()) / component;
      REQUIRE_MESSAGE(fs::is_directory(dir), dir.string());
      for (const auto& entry : fs::recursive_directory_iterator(dir)) {
        std::string ext = entry.path().extension().string();
        if (ext != ".cc" && ext != ".h") continue;
        std::string rel = fs::relative(entry.path(), source_root()).string();
        if (rel == "core/clock.h") continue;
        ++files;
        std::ifstream in(entry.path());
        std::string line;
        for (int n = 1; std::getline(in, line); ++n) {
          if (std::regex_search(line, read_clock)) offenders.push_back(rel + ":" + std::to_string(n) + ": " + line);
        }
      }
    }
    CHECK(files > 200);
    std::string said;
    for (const auto& o : offenders) said += o + "\n";
    CHECK_MESSAGE(offenders.empty(), said);
  }
}
