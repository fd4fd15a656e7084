// A hostile planner tries every path from a credential file (and credential variables) to a
// prompt, a report or the store, through the built binary; the marker must show up nowhere.
#include <doctest/doctest.h>

#include <filesystem>

#include <fmt/format.h>

#include "tests/e2e_support.h"

using namespace candor::testing;
using nlohmann::json;

namespace {

constexpr const char* kMarker = "s3cr3t";  // in every secret below, never in anything else

json step(const std::string& id, const std::string& tool, const json& args, const json& asserts = json::array()) {
  json s = {{"id", id}, {"tool", tool}, {"args", args}};
  if (!asserts.empty()) s["assert"] = asserts;
  return s;
}

json look(const std::string& id, const json& asserts) {
  return step(id, "file_read", {{"path", "index.html"}}, asserts);
}

std::vector<std::string> files_mentioning(const std::string& dir, const std::string& text) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().string().find("/snapshots/") != std::string::npos)
      continue;  // undo keeps the bytes
    if (read_file(e.path().string()).find(text) != std::string::npos) out.push_back(e.path().string());
  }
  return out;
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("run: no path from .env or a credential variable reaches a prompt, the report, the store or the HTML") {
    Env env;
    write_file(env.ws + "/.env", fmt::format("DB_PASSWORD=hunter2-{}\n", kMarker));
    write_file(env.ws + "/deploy/PROD.ENV", fmt::format("TOKEN=prod-{}\n", kMarker));
    for (const char* v : {"DATABASE_URL=postgres://app:pw-s3cr3t@db.internal/app",
                          "SENTRY_DSN=https://s3cr3t@o1.sentry.io/1", "SMTP_PASS=smtp-s3cr3t", "MYSQL_PWD=my-s3cr3t",
                          "CI_JOB_JWT=jwt-s3cr3t", "SESSION_BLOB=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOjF9.s3cr3t"}) {
      env.env.emplace_back(v);
    }
    env.env.emplace_back("DEPLOY_TOKEN=passed-on-purpose");
    std::string dir = make_temp_dir("llm");
    std::vector<json> replies = {
        // Round 1: a negated match, so the failure message would quote the match.
        {{"goal_kind", "modify"},
         {"questions", {"Is .env rotated?"}},
         {"steps",
          {look("s1", {{{"type", "not"},
                        {"assertion", {{"type", "file_matches"}, {"path", ".env"}, {"pattern", "DB_.*"}}}}})}},
         {"then", "replan"}},
        // Round 2: a step's environment and masked files, then a right and a wrong guess, and an error
        // that would quote the content.
        {{"steps",
          {step("env", "shell", {{"command", "env; cat .env deploy/PROD.ENV"}}),
           look("s2", {{{"type", "file_contains"}, {"path", ".env"}, {"text", "hunter2"}},
                       {{"type", "file_contains"}, {"path", ".env"}, {"text", "wrong-guess"}},
                       {{"type", "json_valid"}, {"path", "deploy/PROD.ENV"}}})}},
         {"then", "replan"}},
        // Round 3: file_patch's occurrence count as an oracle.
        {{"steps",
          {step("s4", "file_patch", {{"path", ".env"}, {"edits", {{{"find", "hunter2"}, {"replace", "x"}}}}})}},
         {"then", "replan"}},
        // Round 4: a search, and a rewrite whose diff holds the old content.
        {{"steps",
          {step("s5", "file_search", {{"pattern", "hunter2"}}),
           step("s7", "file_write", {{"path", ".env"}, {"content", "DB_PASSWORD=rotated\n"}})}},
         {"then", "finish"},
         {"final_answer", "Rotated."}},
        // The judge: a goal-only call fixes its questions, then it answers them and the one candor appends.
        {{"questions", {"Is the database password in .env rotated?"}}},
        {{"answers",
          {{{"question", 1}, {"answer", "yes"}, {"reason", "the diff"}},
           {{"question", 2}, {"answer", "yes"}, {"reason", "the diff"}}}}},
    };
    auto r =
        env.candor({"run", "Rotate the database password in .env", "-C", env.ws, "--llm", replay_provider(dir, replies),
                    "--judge", "always", "--max-replans", "5", "--pass-env", "DEPLOY_TOKEN", "--json"});
    CAPTURE(r.err);
    json report = parse_stdout(r);
    CHECK(report["status"] == "completed");
    CHECK(read_file(env.ws + "/.env") == "DB_PASSWORD=rotated\n");
    std::vector<std::string> prompts;
    for (int i = 0; std::filesystem::exists(dir + fmt::format("/req-{}.json", i)); ++i)
      prompts.push_back(read_file(dir + fmt::format("/req-{}.json", i)));
    REQUIRE(prompts.size() == 6);
    for (const auto& p : prompts) {
      CAPTURE(p);
      CHECK(p.find(kMarker) == std::string::npos);
    }
    // What the agent saw instead: refusals and withheld messages, never a count or a quote.
    // Not even the pass/fail bit: the agent's checks of a credential file are not made, so a right
    // guess (hunter2) and a wrong one read the same.
    const std::string not_made =
        ".env is a credential file: content withheld: the agent's own check of a credential file is not made";
    CHECK(prompts[1].find(not_made) != std::string::npos);
    CHECK(prompts[2].find(not_made) != std::string::npos);
    std::vector<json> env_checks;
    for (const auto& a : report["assertions"])
      if (a["path"] == ".env" && a["type"] == "file_contains") env_checks.push_back(a);
    // The two guesses of round 2, then each made once more at the end of the run (final_check: its
    // last evaluation failed): four records that all read the same.
    REQUIRE(env_checks.size() == 4);
    CHECK(env_checks[2].value("final_check", false));
    CHECK(env_checks[3].value("final_check", false));
    CHECK(env_checks[0]["passed"] == false);
    for (const auto& c : env_checks) {
      CHECK(c["passed"] == env_checks[0]["passed"]);
      CHECK(c["message"] == env_checks[0]["message"]);
    }
    bool prod_not_made = false;  // json_valid's parse error would quote the file
    for (const auto& a : report["assertions"])
      prod_not_made |= a["path"] == "deploy/PROD.ENV" && a["passed"] == false &&
                       a["message"].get<std::string>().find("the agent's own check of a credential file is not made") !=
                           std::string::npos;
    CHECK(prod_not_made);
    CHECK(prompts[2].find("DEPLOY_TOKEN=passed-on-purpose") != std::string::npos);  // --pass-env still passes one
    CHECK(prompts[2].find("PATH=") != std::string::npos);
    CHECK(prompts[3].find("looks like a credential file") != std::string::npos);
    CHECK(prompts[3].find("occurs") == std::string::npos);
    CHECK(prompts[4].find("credential file changed") == std::string::npos);  // the goal-only call sees no change
    CHECK(prompts[5].find("credential file changed (content withheld)") != std::string::npos);  // the judge's diff
    CHECK(r.out.find(kMarker) == std::string::npos);

    auto md = env.candor({"report", "last", "--markdown"});
    CHECK(md.exit_code == 0);
    CHECK(md.out.find(kMarker) == std::string::npos);
    std::string html = make_temp_dir("html") + "/r.html";
    auto verbose = env.candor({"report", "last", "-v", "--html", html});
    CHECK(verbose.exit_code == 0);
    CHECK(verbose.out.find(kMarker) == std::string::npos);
    CHECK(read_file(html).find(kMarker) == std::string::npos);
    CHECK(read_file(html).find("credential file changed (content withheld)") != std::string::npos);
    CHECK(files_mentioning(env.store, kMarker).empty());
  }
}
