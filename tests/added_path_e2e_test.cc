// The added-path rule for `verify --git` (docs/design.md, Discriminating, positive evidence): a new file fails every
// assertion before the change, so only evidence that also fails on an empty file covers it.
#include <doctest/doctest.h>

#include "tests/e2e_support.h"
#include "tests/git_repo_fixture.h"

using namespace candor;
using namespace candor::testing;
using nlohmann::json;

TEST_SUITE("e2e") {
  TEST_CASE(
      "verify --git: an added file 'covered' by file_exists or file_size_gt passes, yet is not success; a content "
      "check is") {
    Repo repo;
    std::string base = repo.head();
    write_file(repo.ws + "/NOTES.md", "TODO\n");  // not the notes asked for
    repo.commit("add release notes");
    struct Row {
      const char* expect;
      const char* verdict;
    };
    const Row rows[] = {
        {R"({"type": "file_exists", "path": "NOTES.md"})", "partial"},
        {R"({"type": "file_size_gt", "path": "NOTES.md", "bytes": 0})", "partial"},
    };
    for (const auto& row : rows) {
      CAPTURE(row.expect);
      auto r = repo.verify(base + "..HEAD", {"--expect", row.expect, "--judge", "never", "--json"});
      json j = parse_stdout(r);
      CHECK(j["verdict"] == row.verdict);
      CHECK(any_reason_has(j, "NOTES.md (added)"));
    }
    write_file(repo.ws + "/NOTES.md", "# 1.2.0\n- dark green background\n");
    repo.commit("fill the notes");
    json filled = parse_stdout(repo.verify(
        base + "..HEAD", {"--expect", R"({"type": "file_contains", "path": "NOTES.md", "text": "dark green"})",
                          "--judge", "never", "--json"}));
    CHECK(filled["verdict"] == "success");
  }
}
