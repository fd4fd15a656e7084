// `candor verify --git`: changes made elsewhere, in repositories these tests build with real commits,
// verified by the built binary. The change is the untrusted side: its own .candor/config.json,
// CI definitions and paths outside --scope must never make it a success.
#include <doctest/doctest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/git_repo_fixture.h"

namespace candor::testing {
namespace {

using nlohmann::json;

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("verify --git: a rename, a deletion and a mode change are said as such in every finding and rendering") {
    Repo repo;
    std::string base = repo.head();
    std::filesystem::create_directories(repo.ws + "/moved");
    repo.git({"mv", "index.html", "moved/index.html"});
    write_file(repo.ws + "/run.sh", "#!/bin/sh\necho hi\n");
    repo.git({"add", "run.sh"});
    repo.commit("add run.sh");
    base = repo.head();
    std::filesystem::permissions(repo.ws + "/run.sh", std::filesystem::perms::owner_exec,
                                 std::filesystem::perm_options::add);
    std::filesystem::create_directories(repo.ws + "/page");
    repo.git({"mv", "moved/index.html", "page/index.html"});
    std::string head = repo.commit("move the page, make run.sh executable");
    auto r = repo.verify(base + ".." + head, {"--json"});
    json j = parse_stdout(r);
    CHECK(j["verdict"] == "partial");
    CHECK(any_reason_has(j, "page/index.html (added, renamed from moved/index.html)"));
    CHECK(any_reason_has(j, "run.sh (mode 0644 → 0755)"));
    auto terminal = repo.candor({"report", "last"});
    CHECK(terminal.out.find("  R page/index.html  +0 -0 (renamed from moved/index.html)") != std::string::npos);
    CHECK(terminal.out.find("  P run.sh  mode 0644 → 0755") != std::string::npos);
    auto md = repo.candor({"report", "last", "--markdown"});
    CHECK(md.out.find("| `page/index.html` | added, renamed from moved/index.html |") != std::string::npos);
    CHECK(md.out.find("| `run.sh` | mode 0644 → 0755 |") != std::string::npos);
  }

  TEST_CASE("verify --git: an honest change with a discriminating --expect is a success without any LLM") {
    Repo repo;
    std::string base = repo.head();
    repo.edit("css/style.css", "background: #ffffff;", "background: #006400;");
    std::string head = repo.commit("dark green");
    // The working copy and the index are not the range: attributes there cannot make the change
    // a binary blob without a diff.
    write_file(repo.ws + "/.gitattributes", "* binary\n");
    repo.git({"add", ".gitattributes"});
    auto r = repo.verify(base + ".." + head, {"--expect", kDarkGreen, "--json"});
    CHECK(r.exit_code == 0);
    json j = parse_stdout(r);
    CHECK(j["verdict"] == "success");
    CHECK(j["verdict_by"] == "tier1");
    CHECK(j["source"] == "git");
    CHECK(j["provider"].is_null());
    CHECK(j["git"]["base"] == base);
    CHECK(j["git"]["head"] == head);
    REQUIRE(j["mutations"].size() == 1);
    CHECK(j["mutations"][0]["path"] == "css/style.css");
    CHECK(j["mutations"][0]["lines_added"] == 1);
    CHECK(j["mutations"][0]["binary"] == false);
    CHECK(j["assertions"][0]["by"] == "user");
    CHECK(j["assertions"][0]["discriminating"] == true);

    // Stored as a run: listed, reported in every format, verified again.
    auto runs = repo.candor({"runs", "--json"});
    CHECK(runs.out.find(j["run_id"].get<std::string>()) != std::string::npos);
    auto md = repo.candor({"report", "last", "--markdown"});
    CHECK(md.exit_code == 0);
    CHECK(md.out.find("candor: **success**") != std::string::npos);
    auto again = repo.candor({"verify", "last", "--json"});
    CHECK(again.exit_code == 0);
    CHECK(parse_stdout(again)["verdict"] == "success");
    // The pull-request comment: verdict first, the range, the changed files folded away.
    std::string issue = repo.plan_file("Change the background to dark green\n");
    auto pr = repo.candor({"verify", "--git", base + "..." + head, "-C", repo.ws, "--goal-file", issue, "--expect",
                           kDarkGreen, "--markdown"});
    CHECK(pr.exit_code == 0);
    CHECK(pr.out.rfind("### ✅ candor: **success**", 0) == 0);
    CHECK(pr.out.find("<details><summary>Changed files (1)</summary>") != std::string::npos);
    CHECK(pr.out.find(base.substr(0, 12)) != std::string::npos);
    // One commit: its first parent to it, the same change.
    auto one = repo.verify(head, {"--expect", kDarkGreen, "--json"});
    CHECK(one.exit_code == 0);
    CHECK(parse_stdout(one)["git"]["base"] == base);
  }

  TEST_CASE("verify --git: an assertion that already held before the change proves nothing") {
    Repo repo;
    std::string base = repo.head();
    repo.edit("css/style.css", "background: #ffffff;", "background: #006400;");
    std::string head = repo.commit("dark green");
    // index.html says "html" before and after: it passes, it does not discriminate, nothing covers the css.
    auto r = repo.verify(base + ".." + head, {"--expect", R"({"type": "file_exists", "path": "css/style.css"})",
                                              "--json", "--judge", "never"});
    json j = parse_stdout(r);
    CHECK(j["verdict"] == "partial");
    CHECK(j["assertions"][0]["discriminating"] == false);
    CHECK(any_reason_has(j,
                         "css/style.css (modified): your check `file_exists css/style.css` passed on its content "
                         "from before the run too (it was already true), so it shows nothing about the change; to "
                         "prove it:"));
  }

  TEST_CASE("verify --git: a change that does not do the job is partial, naming the failed expectation") {
    Repo repo;
    std::string base = repo.head();
    repo.edit("index.html", "<title>", "<title>Green: ");
    std::string head = repo.commit("says green, changes the title");
    auto r = repo.verify(base + ".." + head, {"--expect", kDarkGreen, "--json"});
    CHECK(r.exit_code == 1);
    json j = parse_stdout(r);
    CHECK(j["verdict"] == "partial");
    CHECK(any_reason_has(j, "file_contains"));
  }

  TEST_CASE("verify --git: an empty range is a fail, even when the expectation already holds") {
    Repo repo;
    std::string base = repo.head();
    auto r =
        repo.verify(base + ".." + base, {"--expect", R"({"type": "file_exists", "path": "index.html"})", "--json"});
    CHECK(r.exit_code == 2);
    json j = parse_stdout(r);
    CHECK(j["verdict"] == "fail");
    CHECK(any_reason_has(j, "the range changes no file"));
    for (const auto& s : j["suspicious"]) CHECK(s["path"] != base + ".." + base);  // a range is not a path
  }

  TEST_CASE("verify --git: the configuration comes from BASE; a change to .candor/ is never a success") {
    Repo repo;
    std::string base = repo.head();
    repo.edit("css/style.css", "background: #ffffff;", "background: #006400;");
    // The change brings its own evaluator that passes everything, and allows reading .env.
    write_file(repo.ws + "/.candor/config.json",
               R"({"evaluators": {"trust_me": {"command": ["/bin/true"]}}, "secrets": {"allow": [".env"]}})");
    std::string head = repo.commit("dark green, and a config");
    auto own = repo.verify(base + ".." + head, {"--expect", R"({"type": "trust_me"})", "--json"});
    CHECK(own.exit_code == 65);  // unknown type: BASE never had it
    CHECK(own.err.find("trust_me") != std::string::npos);
    auto r = repo.verify(base + ".." + head, {"--expect", kDarkGreen, "--json"});
    CHECK(r.exit_code == 1);
    json j = parse_stdout(r);
    CHECK(j["verdict"] == "partial");
    CHECK(any_reason_has(j, ".candor/config.json was added: a sensitive path"));
  }

  TEST_CASE("verify --git: a change outside --scope, or to a CI workflow, is named and blocks success") {
    Repo repo;
    std::string base = repo.head();
    repo.edit("css/style.css", "background: #ffffff;", "background: #006400;");
    write_file(repo.ws + "/.github/workflows/ci.yml", "permissions: write-all\n");
    std::string head = repo.commit("dark green, and more permissions");
    auto r = repo.verify(base + ".." + head, {"--expect", kDarkGreen, "--json"});
    json j = parse_stdout(r);
    CHECK(j["verdict"] == "partial");
    CHECK(any_reason_has(j, ".github/workflows/ci.yml was added: a sensitive path"));
    // A scope that names the workflow explicitly lets it through; one that only says ** does not.
    auto broad = repo.verify(base + ".." + head, {"--expect", kDarkGreen, "--scope", "**", "--json"});
    CHECK(parse_stdout(broad)["verdict"] == "partial");
    auto named = repo.verify(base + ".." + head,
                             {"--expect", kDarkGreen, "--expect",
                              R"({"type": "file_contains", "path": ".github/workflows/ci.yml", "text": "write-all"})",
                              "--scope", "css/**", "--scope", ".github/workflows/ci.yml", "--json"});
    CHECK(named.exit_code == 0);
    CHECK(parse_stdout(named)["verdict"] == "success");
    // Outside the scope.
    auto narrow = repo.verify(base + ".." + head, {"--expect", kDarkGreen, "--scope", "css/*.css", "--json"});
    json n = parse_stdout(narrow);
    CHECK(n["verdict"] == "partial");
    CHECK(any_reason_has(n, ".github/workflows/ci.yml was added outside the scope (css/*.css)"));
  }

  TEST_CASE("verify --git: A...B verifies the branch's change from the merge base, not what main did since") {
    Repo repo;
    repo.git({"checkout", "-q", "-b", "agent"});
    repo.edit("css/style.css", "background: #ffffff;", "background: #006400;");
    repo.commit("dark green");
    repo.git({"checkout", "-q", "main"});
    repo.edit("index.html", "<title>", "<title>Main moved on: ");
    repo.commit("main's own change");
    auto r = repo.verify("main...agent", {"--expect", kDarkGreen, "--json"});
    CHECK(r.exit_code == 0);
    json j = parse_stdout(r);
    REQUIRE(j["mutations"].size() == 1);
    CHECK(j["mutations"][0]["path"] == "css/style.css");
    auto two_dots = repo.verify("main..agent", {"--expect", kDarkGreen, "--json"});
    CHECK(parse_stdout(two_dots)["mutations"].size() == 2);  // main's title change shows as undone
    auto bad = repo.verify("main...nosuchbranch", {"--json"});
    CHECK(bad.exit_code == 64);
    CHECK(bad.err.find("\"nosuchbranch\" names no commit") != std::string::npos);
    auto bad_base = repo.verify("nosuchbase..", {"--json"});
    CHECK(bad_base.exit_code == 64);
    CHECK(bad_base.err.find("\"nosuchbase\" names no commit") != std::string::npos);
  }

  TEST_CASE("verify --git: a .gitattributes the change commits cannot hide its diff from the judge") {
    Repo repo;
    std::string base = repo.head();
    repo.edit("css/style.css", "background: #ffffff;", "background: #006400;");
    write_file(repo.ws + "/.gitattributes", "* binary -diff\n");
    std::string head = repo.commit("dark green, and every file binary");
    json j = parse_stdout(repo.verify(base + ".." + head, {"--json", "--judge", "never"}));
    bool seen = false;
    for (const auto& m : j["mutations"]) {
      if (m["path"] != "css/style.css") continue;
      seen = true;
      CHECK(m["binary"] == false);
      CHECK(m["lines_added"] == 1);
    }
    CHECK(seen);
  }

  TEST_CASE("verify --git: a rename is one mutation naming the old path, and the old path is deleted") {
    Repo repo;
    std::string base = repo.head();
    repo.git({"mv", "css/style.css", "css/main.css"});
    std::string head = repo.commit("rename");
    json j = parse_stdout(repo.verify(base + ".." + head, {"--json", "--judge", "never"}));
    REQUIRE(j["mutations"].size() == 2);
    CHECK(j["mutations"][0]["path"] == "css/main.css");
    CHECK(j["mutations"][0]["renamed_from"] == "css/style.css");
    CHECK(j["mutations"][1]["path"] == "css/style.css");
    CHECK(j["mutations"][1]["change"] == "deleted");
  }

  TEST_CASE("verify --git: a credential file the change writes never reaches the report") {
    Repo repo;
    write_file(repo.ws + "/.env", "API_TOKEN=old-secret-1111\n");
    std::string base = repo.commit("with .env");
    repo.edit("css/style.css", "background: #ffffff;", "background: #006400;");
    write_file(repo.ws + "/.env", "API_TOKEN=new-secret-2222\n");
    std::string head = repo.commit("dark green, new token");
    auto r = repo.verify(base + ".." + head,
                         {"--expect", kDarkGreen, "--expect",
                          R"({"type": "file_contains", "path": ".env", "text": "new-secret-2222"})", "--json"});
    CHECK(r.out.find("secret-1111") == std::string::npos);
    CHECK(r.out.find("secret-2222") == std::string::npos);
    json j = parse_stdout(r);
    CHECK(j["assertions"][1]["passed"] == true);
    auto md = repo.candor({"report", "last", "--markdown", "--verbose"});
    CHECK(md.out.find("secret-2222") == std::string::npos);
  }

  TEST_CASE(
      "verify --git: no secret value, of BASE's or the change's credential files or of the environment, is kept") {
    std::mt19937_64 random{std::random_device{}()};
    auto random_text = [&](std::size_t n) {
      static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
      std::string s;
      for (std::size_t i = 0; i < n; ++i) s += kAlphabet[random() % (sizeof(kAlphabet) - 1)];
      return s;
    };
    const std::string token = random_text(40);            // in the .env the change adds
    const std::string password = "pw" + random_text(22);  // in the environment, and committed by the change
    const std::string old_token = random_text(40);        // in BASE's deploy.pem (the change rotates it)
    Repo repo;
    repo.env.push_back("DB_PASS=" + password);
    write_file(repo.ws + "/deploy.pem", "KEY=" + old_token + "\n");
    std::string base = repo.commit("with a key");
    write_file(repo.ws + "/.env", "API_TOKEN=" + token + "\n");
    // The change copies both keys into a file that is no credential file by its name.
    write_file(repo.ws + "/settings.py",
               "DB_PASS = \"" + password + "\"\nKEY = \"" + old_token + "\"\nTOKEN = \"" + token + "\"\n");
    write_file(repo.ws + "/deploy.pem", "KEY=rotated\n");
    repo.commit("settings");
    auto r = repo.verify("HEAD~1..HEAD",
                         {"--json", "--expect",
                          R"({"type": "command_succeeds", "command": "cat .env settings.py; echo $DB_PASS; false"})"});
    CAPTURE(r.out);
    CAPTURE(r.err);
    REQUIRE(parse_stdout(r)["assertions"][0]["passed"] == false);
    auto leaked = [&](const std::string& where, const std::string& text) {
      CAPTURE(where);
      CHECK(longest_piece(text, token) <= 8);
      CHECK(longest_piece(text, password) <= 8);
      CHECK(longest_piece(text, old_token) <= 8);
    };
    leaked("stdout", r.out);
    leaked("stderr", r.err);
    auto j = repo.candor({"report", "last", "--json", "-v"});
    REQUIRE(j.exit_code == 0);
    leaked("report --json -v", j.out + j.err);
    auto md = repo.candor({"report", "last", "--markdown"});
    REQUIRE(md.exit_code == 0);
    leaked("report --markdown", md.out + md.err);
    for (const auto& [path, content] : tree_contents(repo.store)) leaked("store: " + path, content);
  }

  TEST_CASE("verify --git: command_succeeds runs on a checkout of HEAD in the sandbox, removed afterwards") {
    Repo repo;
    std::string base = repo.head();
    repo.edit("css/style.css", "background: #ffffff;", "background: #006400;");
    std::string head = repo.commit("dark green");
    // A later change's links: two out of the checkout (written as files naming their targets), one inside it.
    std::string outside = make_temp_dir("outside") + "/secret.txt";
    write_file(outside, "OUTSIDE-7731\n");
    std::filesystem::create_symlink(outside, repo.ws + "/leak");
    std::filesystem::create_symlink("../../../../../../../../../../.." + outside, repo.ws + "/climb");
    std::filesystem::create_symlink("css/style.css", repo.ws + "/inside");
    std::string with_links = repo.commit("links");
    std::string links =
        R"({"type": "command_succeeds", "command": "test ! -L leak && test ! -L climb && test \"$(cat leak)\" = )" +
        outside + R"( && ! grep -q OUTSIDE-7731 leak climb && test -L inside && grep -q 006400 inside"})";
    auto checked = repo.verify(base + ".." + with_links, {"--expect", links, "--json", "--judge", "never"});
    CAPTURE(checked.out);
    CHECK(parse_stdout(checked)["assertions"][0]["passed"] == true);
    auto r = repo.verify(
        base + ".." + head,
        {"--expect", kDarkGreen, "--expect",
         R"({"type": "command_succeeds", "command": "grep -q 006400 css/style.css && ! test -e .git"})", "--json"});
    json j = parse_stdout(r);
    CHECK(j["assertions"][1]["passed"] == true);
    CHECK(j["verdict"] == "success");
  }

  TEST_CASE("verify --git: an agent's transcript against an acceptance spec; success without it is exit 3") {
    Repo repo;
    std::string base = repo.head();
    repo.edit("css/style.css", "background: #ffffff;", "background: #006400;");
    std::string head = repo.commit("dark green");
    std::string spec =
        repo.plan_file(R"({"checkpoints": [{"id": "tested", "when": {"type": "ToolCalled", "tool": "Bash",
         "input": {"left": "{{tool.input.command}}", "op": "contains", "right": "no-such-test-command"}}}]})");
    std::string transcript = data_dir() + "/trajectories/claude-code/sample_session.synthetic.jsonl";
    auto r = repo.verify(base + ".." + head, {"--expect", kDarkGreen, "--acceptance", spec, "--trajectory", transcript,
                                              "--format", "claude-code", "--json"});
    CHECK(r.exit_code == 3);
    json j = parse_stdout(r);
    CHECK(j["verdict"] == "success");
    CHECK(j["acceptance"]["passed"] == false);
  }

  TEST_CASE("verify --git: with no questions the judge first turns the goal into questions, before it sees the diff") {
    Repo repo;
    std::string base = repo.head();
    repo.edit("css/style.css", "background: #ffffff;", "background: #006400;");
    std::string head = repo.commit("dark green");
    std::string script = make_temp_dir("script") + "/replies.jsonl";
    write_file(
        script,
        R"({"reply_json": {"questions": ["Is the page background dark green?", "Is the text still readable?"]}})"
        "\n"
        R"({"expect": "background: #006400", "reply_json": {"answers": [{"question": 1, "answer": "yes", "reason": "the diff sets #006400"}, {"question": 2, "answer": "yes", "reason": "text colour unchanged"}, {"question": 3, "answer": "yes", "reason": "nothing else changed"}]}})"
        "\n");
    auto r = repo.verify(base + ".." + head, {"--llm", "script:" + script, "--json"});
    CAPTURE(r.err);
    CHECK(r.exit_code == 0);
    json j = parse_stdout(r);
    CHECK(j["verdict"] == "success");
    CHECK(j["verdict_by"] == "tier2");
    auto store = store::RunStore::open(repo.store);
    REQUIRE(store.ok());
    auto run = (*store)->load(j["run_id"].get<std::string>());
    REQUIRE(run.ok());
    int decomposed = 0;
    for (const auto& e : run->events) {
      if (e.type != "judge_questions") continue;
      ++decomposed;
      CHECK(e.data["decomposed"] == true);
      CHECK(e.data["questions"].size() == 2);
      std::string prompt = e.data["prompt"].get<std::string>();
      CHECK(prompt.find("Change the background to dark green") != std::string::npos);
      CHECK(prompt.find("006400") == std::string::npos);  // no diff, no file content
      CHECK(prompt.find("style.css") == std::string::npos);
    }
    CHECK(decomposed == 1);
  }
}

}  // namespace candor::testing

namespace candor::testing {

TEST_SUITE("e2e") {
  TEST_CASE("run --scope: a step that writes outside the scope blocks success, named; inside it nothing changes") {
    Env env;
    std::string script = make_temp_dir("script") + "/replies.jsonl";
    nlohmann::json plan = {
        {"goal_kind", "modify"},
        {"steps",
         {{{"id", "s1"},
           {"tool", "file_patch"},
           {"args",
            {{"path", "css/style.css"},
             {"edits", {{{"find", "background: #ffffff;"}, {"replace", "background: #006400;"}}}}}},
           {"assert", {{{"type", "file_contains"}, {"path", "css/style.css"}, {"text", "#006400"}}}}},
          {{"id", "s2"},
           {"tool", "file_write"},
           {"args", {{"path", "notes.txt"}, {"content", "done\n"}}},
           {"assert", {{{"type", "file_contains"}, {"path", "notes.txt"}, {"text", "done"}}}}}}},
        {"then", "finish"}};
    write_file(script, nlohmann::json({{"reply_json", plan}}).dump() + "\n");
    auto r = env.candor({"run", "Change the background to dark green", "-C", env.ws, "--llm", "script:" + script,
                         "--scope", "css/**", "--expect", kDarkGreen, "--expect",
                         R"({"type": "file_contains", "path": "notes.txt", "text": "done"})", "--json"});
    CHECK(r.exit_code == 1);
    nlohmann::json j = parse_stdout(r);
    CHECK(j["verdict"] == "partial");
    CHECK(j["scope"] == nlohmann::json({"css/**"}));
    CHECK(any_reason_has(j, "notes.txt was added outside the scope (css/**)"));
    bool suspicious = false;
    for (const auto& s : j["suspicious"]) suspicious |= s["path"] == "notes.txt";
    CHECK(suspicious);
  }
}

}  // namespace candor::testing

namespace candor::testing {

TEST_SUITE("e2e") {
  TEST_CASE("verify --git --criterion: an independent reviewer reads HEAD's files, and its fail is never overruled") {
    Repo repo;
    std::string base = repo.head();
    repo.edit("css/style.css", "background: #ffffff;", "background: #006400;");
    std::string head = repo.commit("dark green");
    auto replies = [&](const std::string& verdict) {
      std::string script = make_temp_dir("script") + "/replies.jsonl";
      write_file(
          script,
          nlohmann::json({{"reply_json", {{"tool", "file_read"}, {"args", {{"path", "css/style.css"}}}}}}).dump() +
              "\n" +
              nlohmann::json({{"expect", "background: #006400"},
                              {"reply_json", {{"verdict", verdict}, {"reason", "checked css/style.css"}}}})
                  .dump() +
              "\n");
      return script;
    };
    std::string criterion = "the footer stays readable";
    auto pass = repo.verify(base + ".." + head, {"--expect", kDarkGreen, "--criterion", criterion, "--llm",
                                                 "script:" + replies("pass"), "--json"});
    CAPTURE(pass.err);
    CHECK(pass.exit_code == 0);
    nlohmann::json p = parse_stdout(pass);
    CHECK(p["verdict"] == "success");
    REQUIRE(p["goal_validations"].size() == 1);
    CHECK(p["goal_validations"][0]["verdict"] == "pass");

    auto fail = repo.verify(base + ".." + head, {"--expect", kDarkGreen, "--criterion", criterion, "--llm",
                                                 "script:" + replies("fail"), "--json"});
    nlohmann::json f = parse_stdout(fail);
    CHECK(f["verdict"] != "success");
    CHECK(f["verdict_by"] == "reviewer");
    CHECK(f["goal_validations"][0]["verdict"] == "fail");

    auto no_llm = repo.verify(base + ".." + head, {"--criterion", criterion, "--json"});
    CHECK(no_llm.exit_code == 64);
  }
}

}  // namespace candor::testing
