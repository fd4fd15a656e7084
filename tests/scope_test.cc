// Scope globs and sensitive paths (verify/scope.h), table-driven; and tier 1 treating a finding as
// a blocker no judge can lift.
#include <doctest/doctest.h>

#include "verify/scope.h"
#include "verify/tier1.h"

namespace candor::verify {
namespace {

struct GlobCase {
  const char* pattern;
  const char* path;
  bool matches;
  bool explicitly;
};

Mutation modified(const std::string& path) {
  Mutation m;
  m.path = path;
  m.change = "modified";
  return m;
}

}  // namespace

TEST_SUITE("verify") {
  TEST_CASE("scope globs: anchored or at any depth, * within a component, ** across, folders cover their files") {
    const GlobCase cases[] = {
        {"css/**", "css/style.css", true, true},
        {"css/**", "css/a/b.css", true, true},
        {"css/**", "index.html", false, false},
        {"css/*.css", "css/style.css", true, true},
        {"css/*.css", "css/a/b.css", false, false},
        {"*.css", "css/style.css", true, false},  // a bare name matches at any depth, names nothing explicitly there
        {"*.css", "style.css", true, false},
        {"**", ".github/workflows/ci.yml", true, false},
        {".github/**", ".github/workflows/ci.yml", true, true},
        {".github/workflows/ci.yml", ".github/workflows/ci.yml", true, true},
        {"/README.md", "README.md", true, true},
        {"README.md", "docs/README.md", true, false},
        {"docs/", "docs/a/b.md", true, true},
        {"docs", "docs/a/b.md", true, true},
        {"doc?/x.md", "docs/x.md", true, false},
        {"src/[ab].c", "src/a.c", true, true},
        {"src/[!ab].c", "src/a.c", false, false},
        {"a.b", "aXb", false, false},  // '.' is literal
        {"", "anything", false, false},
        // git's wildmatch: classes and escapes, which an RE2 translation once dropped in silence
        {"[[:alpha:]].txt", "a.txt", true, false},
        {"[[:alpha:]].txt", "docs/b.txt", true, false},
        {"[[:alpha:]].txt", "1.txt", false, false},
        {"a[\\]]b", "a]b", true, false},  // a bracket is no literal name: never explicit
        {"src/[[:digit:]]*/x", "src/2024/x", true, true},
        {"**/gen/", "a/gen/b.c", true, false},
        {"a[b", "a[b", false, false},  // invalid: refused where it is read; here it names nothing
    };
    for (const auto& c : cases) {
      std::string pattern = c.pattern, path = c.path;
      CAPTURE(pattern);
      CAPTURE(path);
      CHECK(glob_matches(c.pattern, c.path) == c.matches);
      CHECK(names_explicitly(c.pattern, c.path) == c.explicitly);
    }
  }

  TEST_CASE("scope findings: outside the scope, and sensitive paths no scope names explicitly") {
    RunFacts f;
    f.mutations = {modified("css/style.css"), modified(".github/workflows/ci.yml"), modified(".gitlab-ci.yml"),
                   modified("deploy/prod.yaml")};
    f.sensitive = {"deploy/**"};
    auto findings = scope_findings(f);
    REQUIRE(findings.size() == 3);
    CHECK(findings[0].path == ".github/workflows/ci.yml");
    CHECK(findings[1].path == ".gitlab-ci.yml");
    CHECK(findings[2].path == "deploy/prod.yaml");

    f.scope = {"css/**", ".gitlab-ci.yml", "**"};  // `**` admits everything but names no sensitive path
    findings = scope_findings(f);
    REQUIRE(findings.size() == 2);
    CHECK(findings[0].path == ".github/workflows/ci.yml");
    CHECK(findings[1].path == "deploy/prod.yaml");

    f.scope = {"css/**"};
    findings = scope_findings(f);
    REQUIRE(findings.size() == 3);
    CHECK(findings[0].reason == ".github/workflows/ci.yml was modified outside the scope (css/**)");
  }

  TEST_CASE("scope findings: a glob no check refused fails closed (sensitive names everything, scope nothing)") {
    RunFacts f;
    f.mutations = {modified("css/style.css")};
    f.sensitive = {"[[:alpha:]].cfg", "x[[:nope:]]"};
    auto findings = scope_findings(f);
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].reason.find("a sensitive path") != std::string::npos);
    f.sensitive = {};
    f.scope = {"css/[a"};
    findings = scope_findings(f);
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].reason == "css/style.css was modified outside the scope (css/[a)");
  }

  TEST_CASE("tier 1: a scope finding is rule 5 partial even when every change is covered") {
    RunFacts f;
    f.status = RunStatus::kCompleted;
    f.steps_planned = 1;
    StepRecord s;
    s.id = "s1";
    s.tool = "file_write";
    s.effect_tool = true;
    s.ok = true;
    s.changed_paths = {".circleci/config.yml"};
    f.steps = {s};
    Mutation m = modified(".circleci/config.yml");
    m.last_change_seq = 1;
    f.mutations = {m};
    AssertionRecord a;
    a.type = "file_contains";
    a.path = ".circleci/config.yml";
    a.passed = true;
    a.discriminating = true;
    a.positive = true;
    a.by = Provenance::kUser;
    a.seq = 2;
    f.assertions = {a};
    Tier1Result r = evaluate_tier1(f);
    CHECK(r.rule == 5);
    CHECK(r.verdict == Verdict::kPartial);
    REQUIRE(!r.reasons.empty());
    CHECK(r.reasons[0].find("scope: .circleci/config.yml was modified: a sensitive path") == 0);
    f.scope = {".circleci/config.yml"};
    r = evaluate_tier1(f);
    CHECK(r.rule == 6);
    CHECK(r.verdict == Verdict::kSuccess);
  }
}

}  // namespace candor::verify
