// End-to-end tests of the command line itself: mistakes get a hint, help is for a person.
#include <doctest/doctest.h>

#include "tests/e2e_support.h"

using namespace candor::testing;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("an unknown command or option gets a did-you-mean, not 'a subcommand is required'") {
    Env env;
    auto rn = env.candor({"rn"});
    CHECK(rn.exit_code == 64);
    CHECK(has(rn.err, "unknown command \"rn\" (did you mean \"run\"?)"));
    CHECK_FALSE(has(rn.err, "A subcommand is required"));

    auto version = env.candor({"version"});
    CHECK(version.exit_code == 64);
    CHECK(has(version.err, "did you mean candor --version?"));

    auto bogus = env.candor({"--bogus"});
    CHECK(bogus.exit_code == 64);
    CHECK(has(bogus.err, "unknown option --bogus"));
    CHECK(has(bogus.err, "run, exec, runs"));

    auto verfy = env.candor({"verfy", "last"});
    CHECK(has(verfy.err, "did you mean \"verify\"?"));

    auto option = env.candor({"runs", "--limt", "3"});
    CHECK(option.exit_code == 64);
    CHECK(has(option.err, "unknown option --limt (did you mean --limit?)"));
  }

  TEST_CASE("an unquoted goal gets a hint to quote it, in the order it was typed") {
    Env env;
    auto r = env.candor({"run", "Change", "the", "background", "-C", env.ws, "--llm", "script:/nonexistent"});
    CHECK(r.exit_code == 64);
    CHECK(has(r.err, "quote it"));
    CHECK(has(r.err, "candor run \"Change the background\""));
    CHECK_FALSE(has(r.err, "not expected"));
  }

  TEST_CASE("a typed value's error says what was expected") {
    Env env;
    auto r = env.candor({"run", "x", "--timeout", "abc"});
    CHECK(r.exit_code == 64);
    CHECK(has(r.err, "--timeout: expected a whole number of seconds"));
    CHECK_FALSE(has(r.err, "not in range"));
    auto steps = env.candor({"exec", "p.json", "--max-steps", "-3"});
    CHECK(steps.exit_code == 64);
    CHECK(has(steps.err, "--max-steps: expected a whole number of steps"));
  }

  TEST_CASE("help names the program candor and every command's help ends with two examples") {
    Env env;
    auto top = env.candor({"--help"});
    CHECK(top.exit_code == 0);
    CHECK(has(top.out, "Usage: candor "));
    CHECK_FALSE(has(top.out, "/candor "));
    for (const char* cmd : {"run", "exec", "runs", "report", "verify", "check", "undo", "evaluators", "assert", "doctor"}) {
      CAPTURE(cmd);
      auto h = env.candor({cmd, "--help"});
      CHECK(h.exit_code == 0);
      CHECK(has(h.out, std::string("Usage: candor ") + cmd));
      auto at = h.out.rfind("Examples:\n");
      REQUIRE(at != std::string::npos);
      std::string tail = h.out.substr(at);
      int lines = 0;
      for (std::size_t p = tail.find("\n  candor "); p != std::string::npos; p = tail.find("\n  candor ", p + 1)) ++lines;
      CHECK(lines == 2);
    }
  }
}
