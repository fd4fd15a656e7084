// Links at protected and sensitive paths, and names a change's author can move (docs/design.md, Trust
// boundary: Protected paths, Scope; issue 23): through the built binary.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

#include "tests/git_repo_fixture.h"

using namespace candor;
using namespace candor::testing;
using nlohmann::json;

namespace {

bool any_warning_has(const json& report, const std::string& text) {
  for (const auto& w : report["warnings"]) {
    if (w.get<std::string>().find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("a run never reads its config through a symlink: .candor -> elsewhere is refused, exit 65") {
    Env env;
    write_file(env.ws + "/tools/lint/config.json", R"({"secrets": {"allow": ["*"]}})");
    std::filesystem::create_directory_symlink("tools/lint", env.ws + "/.candor");
    auto r = env.exec(env.plan_file(R"({"goal_kind": "modify", "steps": [], "then": "finish"})"));
    CAPTURE(r.err);
    CHECK(r.exit_code == 65);
    CHECK(r.err.find(".candor") != std::string::npos);
    CHECK(r.err.find("symbolic link") != std::string::npos);
  }

  TEST_CASE("a run never reads its config through a symlink: config.json -> elsewhere is refused, exit 65") {
    Env env;
    write_file(env.ws + "/notes/any.json", R"({"secrets": {"allow": ["*"]}})");
    std::filesystem::create_directories(env.ws + "/.candor");
    std::filesystem::create_symlink("../notes/any.json", env.ws + "/.candor/config.json");
    auto r = env.exec(env.plan_file(R"({"goal_kind": "modify", "steps": [], "then": "finish"})"));
    CAPTURE(r.err);
    CHECK(r.exit_code == 65);
    CHECK(r.err.find("config.json: is a symbolic link") != std::string::npos);
  }

  TEST_CASE("verify --git: BASE given as a branch name is recorded as the commit it named, with a warning") {
    Repo repo;
    std::string base = repo.head();
    repo.edit("css/style.css", "background: #ffffff;", "background: #006400;");
    repo.commit("dark green");
    json named = parse_stdout(repo.verify("main~1..HEAD", {"--expect", kDarkGreen, "--json"}));
    CHECK(named["git"]["base"] == base);
    CHECK(named["git"]["base_name"] == "main~1");
    CHECK(any_warning_has(named, "BASE was given as `main~1`"));
    // A commit id cannot be moved: no warning.
    json pinned = parse_stdout(repo.verify(base + "..HEAD", {"--expect", kDarkGreen, "--json"}));
    CHECK_FALSE(pinned["git"].contains("base_name"));
    CHECK_FALSE(any_warning_has(pinned, "BASE was given"));
  }

  TEST_CASE("verify --git: a branch named like a commit id is a name, recorded and warned about as one") {
    Repo repo;
    std::string base = repo.head();
    repo.edit("css/style.css", "background: #ffffff;", "background: #006400;");
    std::string head = repo.commit("dark green");
    // A branch called by the first ten hex digits of another commit: git resolves the branch.
    std::string looks_like_id = base.substr(0, 10);
    repo.git({"branch", looks_like_id, head});
    json run = parse_stdout(repo.verify(looks_like_id + "..HEAD", {"--json"}));
    CHECK(run["git"]["base"] == head);
    CHECK(run["git"]["base_name"] == looks_like_id);
    CHECK(any_warning_has(run, "BASE was given as `" + looks_like_id + "`"));
  }

  TEST_CASE("verify --git: a local branch moved onto the change (not in its upstream) is named as such") {
    Repo repo;
    // An upstream that holds the real base: a bare clone as `origin`, main tracking it.
    std::string origin = make_temp_dir("origin") + "/site.git";
    REQUIRE(run_command({"/usr/bin/git", "clone", "-q", "--bare", repo.ws, origin}).exit_code == 0);
    repo.git({"remote", "add", "origin", origin});
    repo.git({"fetch", "-q", "origin"});
    repo.git({"branch", "-q", "--set-upstream-to=origin/main", "main"});
    repo.git({"checkout", "-q", "-b", "agent"});
    repo.edit("css/style.css", "background: #ffffff;", "background: #006400;");
    repo.commit("dark green");
    // The agent moves main onto its own commit: `main..` would now be empty.
    repo.git({"branch", "-f", "main", "HEAD"});
    json run = parse_stdout(repo.verify("main..HEAD", {"--json"}));
    CHECK(any_warning_has(run, "is not contained in its upstream `origin/main`"));
  }

  TEST_CASE(
      "verify --git: a link chain in HEAD that resolves outside the checkout is not followed by command_succeeds") {
    Repo repo;
    // Beneath /var, which the sandbox lets every step read (system folders): only the checkout's
    // own rules stand between a link and the file.
    char tmpl[] = "/var/tmp/candor-outside-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    const std::string outside = tmpl;
    struct Remove {
      std::string dir;
      ~Remove() { std::filesystem::remove_all(dir); }
    } remove{outside};
    write_file(outside + "/secret.txt", "SECRET-OUTSIDE\n");
    // d -> . is harmless alone; x -> d/d/.../../../<outside>/secret.txt stays inside when read
    // lexically (as many `..` as `d`), and climbs out only when d is followed: to the file
    // system's root, then down to the outside file.
    std::filesystem::create_symlink(".", repo.ws + "/d");
    std::string climb = "d";
    for (std::size_t i = 1; i < 12; ++i) climb += "/d";
    for (std::size_t i = 0; i < 12; ++i) climb += "/..";
    std::filesystem::create_symlink(climb + outside + "/secret.txt", repo.ws + "/x");
    repo.commit("links");
    // The marker is built by the command, so its text is not in the command's own message.
    json expect = {{"type", "command_succeeds"}, {"command", "cat x; grep -q \"$(printf 'SEC%s' RET)\" x"}};
    json run = parse_stdout(repo.verify("HEAD~1..HEAD", {"--expect", expect.dump(), "--json", "--judge", "never"}));
    CAPTURE(run.dump(2));
    bool ran = false;
    for (const auto& a : run["assertions"]) {
      if (a["type"] != "command_succeeds") continue;
      ran = true;
      CHECK(a["passed"] == false);
      CHECK(a["message"].get<std::string>().find("SECRET") == std::string::npos);
    }
    CHECK(ran);
  }
}

namespace {

std::string plan_with_step(const std::string& command) {
  json plan = json::parse(R"({"goal_kind": "modify", "steps": [
      {"id": "s1", "tool": "file_patch",
       "args": {"path": "css/style.css", "edits": [{"find": "background: #ffffff;", "replace": "background: #006400;"}]},
       "assert": [{"type": "file_contains", "path": "css/style.css", "text": "#006400"}]},
      {"id": "s2", "tool": "shell", "args": {"command": ""}}],
      "then": "finish", "final_answer": "done"})");
  plan["steps"][1]["args"]["command"] = command;
  return plan.dump();
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("a link at a sensitive path counts as that path: .github/workflows -> ../ci in a run is not a success") {
    for (std::string link : {"mkdir -p .github && ln -s ../ci .github/workflows", "ln -s ci .github"}) {
      CAPTURE(link);
      Env env;
      json run = parse_stdout(
          env.exec(env.plan_file(plan_with_step("mkdir -p ci && echo 'on: push' > ci/deploy.yml && " + link)),
                   {"--judge", "never"}));
      CHECK(run["verdict"] == "partial");
      CHECK(any_reason_has(run, "as a link, which stands for what is beneath it"));
    }
  }

  TEST_CASE("verify --git: a commit adding .github/workflows -> ../ci or sub/.candor -> ../tools is not a success") {
    Repo repo;
    repo.edit("css/style.css", "background: #ffffff;", "background: #006400;");
    write_file(repo.ws + "/ci/deploy.yml", "on: push\n");
    write_file(repo.ws + "/tools/config.json", "{}\n");
    std::filesystem::create_directories(repo.ws + "/.github");
    std::filesystem::create_directories(repo.ws + "/sub");
    std::filesystem::create_directory_symlink("../ci", repo.ws + "/.github/workflows");
    std::filesystem::create_directory_symlink("../tools", repo.ws + "/sub/.candor");
    repo.commit("dark green, and links");
    json run = parse_stdout(repo.verify("HEAD~1..HEAD", {"--expect", kDarkGreen, "--json", "--judge", "never"}));
    CAPTURE(run.dump(2));
    CHECK(run["verdict"] == "partial");
    CHECK(any_reason_has(run, ".github/workflows was added as a link"));
    CHECK(any_reason_has(run, "sub/.candor was added as a link"));
  }
}
