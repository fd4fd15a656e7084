// A git repository holding the example site, built by the tests with real commits, for
// `candor verify --git` end-to-end tests: the change made in it is what they verify.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/e2e_support.h"

namespace candor::testing {

inline constexpr const char* kDarkGreen =
    R"({"type": "file_contains", "path": "css/style.css", "text": "background: #006400"})";

// A repository holding the example site (or `from`), one commit on `main`; `git()` runs git in it.
struct Repo : Env {
  // `from`: the folder the first commit holds (the example site unless given).
  explicit Repo(const std::string& from = source_root() + "/examples/dark-green/site") : Env(from) {
    git({"init", "-q", "-b", "main"});
    commit("the site");
  }
  // git in the repository, REQUIREd to succeed (test_support.h's fixed identity): its stdout.
  std::string git(std::vector<std::string> args) { return testing::git(ws, std::move(args)); }
  std::string commit(const std::string& message) {
    git({"add", "-A"});
    git({"commit", "-q", "--allow-empty", "-m", message});
    return head();
  }
  std::string head() {
    std::string id = git({"rev-parse", "HEAD"});
    return id.substr(0, id.find('\n'));
  }
  void edit(const std::string& path, const std::string& find, const std::string& replace) {
    std::string text = read_file(ws + "/" + path);
    auto at = text.find(find);
    REQUIRE(at != std::string::npos);
    write_file(ws + "/" + path, text.replace(at, find.size(), replace));
  }
  CommandResult verify(const std::string& range, std::vector<std::string> extra) {
    std::vector<std::string> args = {
        "verify", "--git", range, "-C", ws, "--goal", "Change the background to dark green"};
    args.insert(args.end(), extra.begin(), extra.end());
    return candor(args);
  }
};

inline bool any_reason_has(const nlohmann::json& report, const std::string& text) {
  for (const auto& r : report["reasons"]) {
    if (r.get<std::string>().find(text) != std::string::npos) return true;
  }
  return false;
}

// The first command_succeeds of a report (the user's command a test is about); FAIL without one.
inline const nlohmann::json& command_record(const nlohmann::json& report) {
  for (const auto& a : report["assertions"]) {
    if (a["type"] == "command_succeeds") return a;
  }
  FAIL("no command_succeeds in the report");
  static const nlohmann::json none;
  return none;
}

// A Python function with the bug the tests' fixes remove (subtraction for addition).
inline constexpr const char* kBuggyAddPy = "def add(a, b):\n    return a - b\n";

}  // namespace candor::testing
