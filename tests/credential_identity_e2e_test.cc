// A credential file stays one under any name (a rename or a copy within the run), and the values a
// run knows to be secret are masked wherever text leaves candor: through the built binary, with a
// scripted planner and judge whose every prompt is saved.
#include <doctest/doctest.h>

#include <filesystem>

#include <fmt/format.h>

#include "tests/e2e_support.h"
#include "tests/git_repo_fixture.h"

using namespace candor::testing;
using nlohmann::json;

namespace {

constexpr const char* kMarker = "s3cr3t";  // in every secret below, never in anything else
constexpr const char* kWithheld = "credential file changed (content withheld)";

const std::string kAwsCredentials = fmt::format(
    "[default]\naws_access_key_id = AKIAEXAMPLE{0}7Q\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/{0}/bPxRfiCYKEY\n",
    kMarker);
const std::string kDotEnv = fmt::format("NODE_ENV=production\nDB_PASSWORD=hunter2-{}-db\n", kMarker);

json step(const std::string& id, const std::string& tool, const json& args) {
  return {{"id", id}, {"tool", tool}, {"args", args}};
}
json shell(const std::string& id, const std::string& command) { return step(id, "shell", {{"command", command}}); }
json read(const std::string& id, const std::string& path) { return step(id, "file_read", {{"path", path}}); }

// Round 1 runs `steps`; round 2 looks at index.html and finishes; the judge turns the goal into one
// question (a call that sees only the goal), then says yes to it and to the question candor appends.
// Prompts: 0 and 1 the planner's, 2 the goal-only call, 3 the judge's.
std::vector<json> two_rounds(const std::vector<json>& steps) {
  return {
      {{"goal_kind", "modify"}, {"questions", {"Are the notes in place?"}}, {"steps", json(steps)}, {"then", "replan"}},
      {{"steps", {read("look", "index.html")}}, {"then", "finish"}, {"final_answer", "Done."}},
      {{"questions", {"Are the notes in place?"}}},
      {{"answers",
        {{{"question", 1}, {"answer", "yes"}, {"reason", "the diff"}},
         {{"question", 2}, {"answer", "yes"}, {"reason", "the diff"}}}}}};
}

struct Outcome {
  json report;
  std::string stdout_text;
  std::vector<std::string> prompts;  // every request the provider got, in order
};

Outcome run_scripted(Env& env, const std::vector<json>& replies) {
  std::string dir = make_temp_dir("llm");
  auto r = env.candor({"run", "Keep notes of the deployment", "-C", env.ws, "--llm", replay_provider(dir, replies),
                       "--judge", "always", "--max-replans", "3", "--json"});
  CAPTURE(r.err);
  Outcome out{parse_stdout(r), r.out, {}};
  for (int i = 0; std::filesystem::exists(dir + fmt::format("/req-{}.json", i)); ++i) {
    out.prompts.push_back(read_file(dir + fmt::format("/req-{}.json", i)));
  }
  return out;
}

// Files of the store that hold `text`, the SQLite database and its WAL included; the snapshot
// objects are left out (undo needs the bytes; they are zlib-compressed there anyway).
std::vector<std::string> store_files_mentioning(const std::string& dir, const std::string& text) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().string().find("/snapshots/") != std::string::npos) continue;
    if (read_file(e.path().string()).find(text) != std::string::npos) out.push_back(e.path().string());
  }
  return out;
}

// Every rendering of the last run: Markdown, the step log (-v) and the HTML, whose text is returned.
std::string check_renderings_hide(Env& env, const std::string& text) {
  auto md = env.candor({"report", "last", "--markdown"});
  CHECK(md.exit_code == 0);
  CHECK(md.out.find(text) == std::string::npos);
  std::string html_file = make_temp_dir("html") + "/r.html";
  auto verbose = env.candor({"report", "last", "-v", "--html", html_file});
  CHECK(verbose.exit_code == 0);
  CHECK(verbose.out.find(text) == std::string::npos);
  std::string html = read_file(html_file);
  CHECK(html.find(text) == std::string::npos);
  CHECK(store_files_mentioning(env.store, text).empty());
  return html;
}

// The HTML report's change of `path` says it is withheld.
bool html_withholds(const std::string& html, const std::string& path) {
  std::size_t at = html.find("<h3><code>" + path + "</code>");
  if (at == std::string::npos) return false;
  std::size_t next = html.find("<h3>", at + 1);
  std::size_t withheld = html.find(kWithheld, at);
  return withheld != std::string::npos && withheld < next;
}

const json* mutation(const json& report, const std::string& path) {
  for (const auto& m : report["mutations"])
    if (m["path"] == path) return &m;
  return nullptr;
}

const json* step_result(const json& report, const std::string& id) {
  for (const auto& s : report["step_results"])
    if (s["id"] == id) return &s;
  return nullptr;
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE(
      "a credential folder renamed by a step: file_read of the new name is refused, and the secret reaches nothing") {
    Env env;
    write_file(env.ws + "/.aws/credentials", kAwsCredentials);
    Outcome o =
        run_scripted(env, two_rounds({shell("move", "mv .aws aws-notes"), read("peek", "aws-notes/credentials")}));
    REQUIRE(read_file(env.ws + "/aws-notes/credentials") == kAwsCredentials);  // the rename really happened
    const json* peek = step_result(o.report, "peek");
    REQUIRE(peek != nullptr);
    CHECK((*peek)["ok"] == false);
    CHECK((*peek)["error"].get<std::string>().find("aws-notes/credentials looks like a credential file") !=
          std::string::npos);
    REQUIRE(o.prompts.size() == 4);
    for (const auto& p : o.prompts) {
      CAPTURE(p);
      CHECK(p.find(kMarker) == std::string::npos);
    }
    CHECK(o.stdout_text.find(kMarker) == std::string::npos);
    check_renderings_hide(env, kMarker);
  }

  TEST_CASE("a credential folder renamed by a step: the judge and the HTML report see the new name's change withheld") {
    Env env;
    write_file(env.ws + "/.aws/credentials", kAwsCredentials);
    Outcome o = run_scripted(env, two_rounds({shell("move", "mv .aws aws-notes")}));
    REQUIRE(read_file(env.ws + "/aws-notes/credentials") == kAwsCredentials);
    const json* added = mutation(o.report, "aws-notes/credentials");
    REQUIRE(added != nullptr);
    CHECK((*added)["change"] == "added");
    CHECK(added->value("credential", false));
    REQUIRE(o.prompts.size() == 4);
    const std::string& judge = o.prompts[3];
    CHECK(judge.find("path=\\\"aws-notes/credentials\\\">\\n" + std::string(kWithheld)) != std::string::npos);
    CHECK(judge.find(kMarker) == std::string::npos);
    std::string html = check_renderings_hide(env, kMarker);
    CHECK(html_withholds(html, "aws-notes/credentials"));
    CHECK(html_withholds(html, ".aws/credentials"));
  }

  TEST_CASE("a copy of .env made by a step is a credential by its content: refused, withheld, masked") {
    Env env;
    write_file(env.ws + "/.env", kDotEnv);
    // A kernel without namespaces shows the step the real .env (docs/sandbox.md): the copy holds it.
    env.env.emplace_back("CANDOR_SANDBOX_DISABLE=namespaces");
    Outcome o = run_scripted(env, two_rounds({shell("copy", "cp .env notes.txt"), read("peek", "notes.txt")}));
    REQUIRE(read_file(env.ws + "/notes.txt") == kDotEnv);
    const json* peek = step_result(o.report, "peek");
    REQUIRE(peek != nullptr);
    CHECK((*peek)["ok"] == false);
    CHECK((*peek)["error"].get<std::string>().find("notes.txt looks like a credential file") != std::string::npos);
    const json* copy = mutation(o.report, "notes.txt");
    REQUIRE(copy != nullptr);
    CHECK(copy->value("credential", false));
    REQUIRE(o.prompts.size() == 4);
    CHECK(o.prompts[3].find("path=\\\"notes.txt\\\">\\n" + std::string(kWithheld)) != std::string::npos);
    for (const auto& p : o.prompts) CHECK(p.find(kMarker) == std::string::npos);
    CHECK(o.stdout_text.find(kMarker) == std::string::npos);
    CHECK(html_withholds(check_renderings_hide(env, kMarker), "notes.txt"));
  }

  TEST_CASE("git show of a committed .env prints *** where its values were, in the prompt, the report and the store") {
    Repo repo;
    write_file(repo.ws + "/.env", kDotEnv);
    repo.commit("configuration");
    Outcome o = run_scripted(repo, two_rounds({shell("show", "HOME=\"$TMPDIR\" git show HEAD:.env")}));
    const json* show = step_result(o.report, "show");
    REQUIRE(show != nullptr);
    CHECK((*show)["ok"] == true);
    REQUIRE(o.prompts.size() == 4);
    CHECK(o.prompts[1].find("DB_PASSWORD=***") != std::string::npos);      // the step's output, as the planner saw it
    CHECK(o.prompts[1].find("NODE_ENV=production") != std::string::npos);  // configuration, not a secret: kept
    for (const auto& p : o.prompts) CHECK(p.find(kMarker) == std::string::npos);
    CHECK(o.stdout_text.find(kMarker) == std::string::npos);
    auto log = repo.candor({"report", "last", "-v"});
    CHECK(log.out.find("DB_PASSWORD=***") != std::string::npos);
    check_renderings_hide(repo, kMarker);
  }

  TEST_CASE("the value of a scrubbed credential variable is masked in what a step prints, wherever it came from") {
    Env env;
    env.env.emplace_back(fmt::format("DB_PASSWORD=pw-{}-from-env", kMarker));
    // Not a credential file: the same password hard-coded where a step can read and print it.
    write_file(env.ws + "/config/settings.ini", fmt::format("[db]\npassword = pw-{}-from-env\n", kMarker));
    Outcome o =
        run_scripted(env, two_rounds({shell("print", "cat config/settings.ini"), read("peek", "config/settings.ini")}));
    const json* peek = step_result(o.report, "peek");
    REQUIRE(peek != nullptr);
    CHECK((*peek)["ok"] == true);  // an ordinary file: read, with the value masked
    REQUIRE(o.prompts.size() == 4);
    CHECK(o.prompts[1].find("password = ***") != std::string::npos);
    for (const auto& p : o.prompts) CHECK(p.find(kMarker) == std::string::npos);
    CHECK(o.stdout_text.find(kMarker) == std::string::npos);
    check_renderings_hide(env, kMarker);
  }
}
