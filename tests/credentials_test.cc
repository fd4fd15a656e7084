// Credential files against a hostile agent (docs/design.md, Trust boundary, Secrets): no byte of one
// reaches a tool result, an assertion message, judge evidence, a diff or .git, by any path. Each
// case is an attack that worked once; the secret is a marker that must appear in nothing the agent
// or a report sees.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "assertions/builtins.h"
#include "executor/snapshot_files.h"
#include "executor/tool.h"
#include "report/formats.h"
#include "sandbox/secret_files.h"
#include "snapshot/store.h"
#include "tests/test_support.h"
#include "verify/judge.h"

using namespace candor;
using candor::testing::git;
using candor::testing::make_temp_dir;
using candor::testing::make_workspace;
using candor::testing::read_file;
using candor::testing::run_git;
using candor::testing::write_file;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr const char* kSecret = "hunter2-s3cr3t";
const std::string kEnv = std::string("DB_PASSWORD=") + kSecret + "\nAPI_HOST=api.example.com\n";

struct Leaky {
  std::string root = make_temp_dir("ws");
  std::unique_ptr<sandbox::Workspace> ws;
  executor::ToolRegistry tools = executor::builtin_tools();
  assertions::Registry evaluators = assertions::builtin_evaluators();
  net::NetworkPolicy network;

  Leaky() {
    write_file(root + "/.env", kEnv);
    write_file(root + "/service.key", std::string(R"({"token": ")") + kSecret + "\", \"n\": 1}\n");
    write_file(root + "/app.txt", "hello\n");
    fs::create_symlink(".env", root + "/notes.txt");  // an innocent name for the credential
    open();
  }
  void open() { ws = std::move(sandbox::Workspace::open(root).value()); }
  executor::ToolResult run(const std::string& tool, const json& args) {
    executor::ToolContext ctx{*ws, network, kDefaultOutputCap, std::chrono::milliseconds(60000)};
    return tools.find(tool)->run(args, ctx);
  }
  assertions::Outcome eval(const json& a, const assertions::FileSource* files = nullptr) {
    assertions::Context ctx{*ws, network, nullptr, [](const std::string&) -> Result<std::optional<std::string>> {
                              return std::optional<std::string>(kEnv);
                            }};
    ctx.files = files;
    return evaluators.evaluate(a, ctx);
  }
};

bool leaks(const std::string& text) {
  return text.find(kSecret) != std::string::npos || text.find("s3cr3t") != std::string::npos;
}

}  // namespace

TEST_SUITE("sandbox") {
  TEST_CASE("a symlink swapped between the credential check and the read never wins") {
    // The check and the read use one descriptor: whichever file the link names when it is
    // opened, that file is checked and read. 3% of reads leaked when they opened twice.
    Leaky f;
    write_file(f.root + "/innocent.txt", "nothing to see\n");
    fs::remove(f.root + "/notes.txt");
    fs::create_symlink("innocent.txt", f.root + "/link");
    std::atomic<bool> stop{false};
    std::thread swapper([&] {
      std::string tmp = f.root + "/link.tmp";
      for (bool to_env = true; !stop.load(); to_env = !to_env) {
        ::unlink(tmp.c_str());
        if (::symlink(to_env ? ".env" : "innocent.txt", tmp.c_str()) == 0)
          std::rename(tmp.c_str(), (f.root + "/link").c_str());
      }
    });
    int leaked = 0, innocent = 0, refused = 0;
    for (int i = 0; i < 3000; ++i) {
      auto r = f.run("file_read", {{"path", "link"}});
      if (leaks(r.output) || leaks(r.error)) ++leaked;
      if (r.ok && r.output == "nothing to see\n") ++innocent;
      if (!r.ok && r.error.find("credential file") != std::string::npos) ++refused;
      auto s = f.run("file_search", {{"pattern", "s3cr3t|nothing"}, {"path", "link"}});
      if (leaks(s.output) || leaks(s.error)) ++leaked;
    }
    stop = true;
    swapper.join();
    CHECK(leaked == 0);
    MESSAGE(fmt::format("{} innocent reads, {} refused", innocent, refused));
    CHECK(innocent + refused > 0);
  }
}

TEST_SUITE("executor") {
  TEST_CASE("file_read, file_search and file_patch refuse a credential file and say nothing of its content") {
    Leaky f;
    for (const char* path : {".env", "notes.txt", "./.ENV"}) {
      CAPTURE(path);
      if (std::string(path) == "./.ENV") write_file(f.root + "/.ENV", kEnv);
      auto read = f.run("file_read", {{"path", path}});
      CHECK_FALSE(read.ok);
      CHECK(read.error.find("looks like a credential file") != std::string::npos);
      auto search = f.run("file_search", {{"pattern", "s3cr3t"}, {"path", path}});
      CHECK_FALSE(search.ok);
      CHECK_FALSE(leaks(search.output));
      // An occurrence count would be an oracle: "find occurs 1 time" says the guess was right.
      for (const char* guess : {"hunter2", "nope"}) {
        auto patch = f.run("file_patch", {{"path", path}, {"edits", {{{"find", guess}, {"replace", "x"}}}}});
        CHECK_FALSE(patch.ok);
        CHECK(patch.error.find("occurs") == std::string::npos);
        CHECK(patch.error.find("looks like a credential file") != std::string::npos);
      }
    }
    CHECK(read_file(f.root + "/.env") == kEnv);
    auto all = f.run("file_search", {{"pattern", "s3cr3t"}});
    REQUIRE(all.ok);
    CHECK_FALSE(leaks(all.output));
    CHECK(all.output.find("credential file") != std::string::npos);
    // Replacing a credential file whole reveals nothing of it: allowed (its diff is withheld).
    auto write = f.run("file_write", {{"path", ".env"}, {"content", "DB_PASSWORD=changed\n"}});
    CHECK(write.ok);
    CHECK(read_file(f.root + "/.env") == "DB_PASSWORD=changed\n");
  }

  TEST_CASE("git tools never print a credential file: diff withheld, commit leaves it unstaged") {
    std::string parent = make_temp_dir("repo");
    std::string root = parent + "/app";
    write_file(root + "/app.txt", "one\n");
    write_file(root + "/config/.env", "OLD=committed-by-the-user\n");
    git(root, {"init", "-q"});  // the workspace's own repository: git tools search no higher
    git(root, {"add", "-A"});
    git(root, {"commit", "-q", "-m", "init"});
    write_file(root + "/config/.env", std::string("NEW=") + kSecret + "\n");  // tracked, modified
    write_file(root + "/.env", kEnv);                                         // untracked
    write_file(root + "/deploy/PROD.ENV", kEnv);                              // untracked, in a new folder
    write_file(parent + "/.env", kEnv);                                       // above the workspace
    write_file(root + "/app.txt", "two\n");
    auto ws = sandbox::Workspace::open(root);
    REQUIRE(ws.ok());
    executor::ToolRegistry tools = executor::builtin_tools();
    net::NetworkPolicy network;
    executor::ToolContext ctx{**ws, network, kDefaultOutputCap, std::chrono::milliseconds(60000)};
    auto diff = tools.find("git_diff")->run(json::object(), ctx);
    REQUIRE(diff.ok);
    CAPTURE(diff.output);
    CHECK_FALSE(leaks(diff.output));
    CHECK(diff.output.find("+two") != std::string::npos);
    CHECK(diff.output.find("credential file changed (content withheld)") != std::string::npos);
    auto scoped = tools.find("git_diff")->run({{"path", "config"}}, ctx);
    CHECK_FALSE(leaks(scoped.output));
    auto status = tools.find("git_status")->run(json::object(), ctx);
    CHECK_FALSE(leaks(status.output));
    auto commit = tools.find("git_commit")->run({{"message", "work"}}, ctx);
    REQUIRE(commit.ok);
    CHECK_FALSE(leaks(commit.output));
    auto log = tools.find("git_log")->run(json::object(), ctx);
    CHECK_FALSE(leaks(log.output));
    // Nothing the agent can read back from .git (a shell step can) holds the credential.
    auto grep = run_git(root, {"grep", "-I", "s3cr3t", "HEAD"});
    CAPTURE(grep.out);
    CHECK(grep.out.empty());
  }

  TEST_CASE("the pre-run snapshot as a file source flags credential files and materialises them empty") {
    Leaky f;
    auto snaps = snapshot::SnapshotStore::open(make_temp_dir("store"), f.ws->root(), system_clock());
    REQUIRE(snaps.ok());
    REQUIRE((*snaps)->scan().ok());
    std::string tree = (*snaps)->write_tree().value();
    executor::SnapshotFiles before((*snaps)->trees(), tree, sandbox::SecretFilter());
    auto made = before.materialize(".env");
    REQUIRE(made.ok());
    CHECK(read_file((*made)->root() + "/.env").empty());  // as a shell step sees it: empty
    auto info = before.stat(".env");
    REQUIRE(info.ok());
    CHECK(info->credential);
    auto o = f.eval({{"type", "file_matches"}, {"path", ".env"}, {"pattern", "DB_PASSWORD=.*"}}, &before);
    CHECK(o.passed);
    CHECK_FALSE(leaks(o.message));
    CHECK(o.message == ".env is a credential file: content withheld (the check passed)");
  }
}

TEST_SUITE("assertions") {
  TEST_CASE("an assertion on a credential file is evaluated, and its message is withheld") {
    Leaky f;
    struct Row {
      json assertion;
      bool passed;
      std::string path;
    };
    const std::vector<Row> rows = {
        {{{"type", "not"}, {"assertion", {{"type", "file_matches"}, {"path", ".env"}, {"pattern", "DB_PASSWORD=.*"}}}},
         false,
         ".env"},
        {{{"type", "file_matches"}, {"path", ".env"}, {"pattern", "DB_PASSWORD=(.*)"}}, true, ".env"},
        {{{"type", "file_matches"}, {"path", ".env"}, {"pattern", "nope"}}, false, ".env"},
        {{{"type", "file_contains"}, {"path", ".env"}, {"text", "hunter2"}}, true, ".env"},
        {{{"type", "file_not_contains"}, {"path", ".env"}, {"text", "hunter2"}}, false, ".env"},
        {{{"type", "file_contains"}, {"path", "notes.txt"}, {"text", "hunter2"}}, true, "notes.txt"},
        {{{"type", "file_matches"}, {"path", "notes.txt"}, {"pattern", "PASS.*"}}, true, "notes.txt"},
        {{{"type", "json_valid"}, {"path", ".env"}}, false, ".env"},
        {{{"type", "json_path_eq"}, {"path", "service.key"}, {"json_path", "token"}, {"value", "guess"}},
         false,
         "service.key"},
        {{{"type", "json_path_eq"}, {"path", "service.key"}, {"json_path", "nokey"}, {"value", 1}},
         false,
         "service.key"},
        {{{"type", "file_exists"}, {"path", ".env"}}, true, ".env"},
        {{{"type", "file_unchanged"}, {"path", ".env"}}, true, ".env"},
        {{{"type", "content_changed"}, {"path", ".env"}}, false, ".env"},
    };
    for (const auto& row : rows) {
      CAPTURE(row.assertion.dump());
      auto o = f.eval(row.assertion);
      CAPTURE(o.message);
      CHECK(o.passed == row.passed);
      CHECK_FALSE(o.error);
      CHECK_FALSE(leaks(o.message));
      CHECK(o.message.find(row.path + " is a credential file: content withheld") != std::string::npos);
      CHECK(o.message.find(row.passed ? "passed" : "failed") != std::string::npos);
    }
    auto plain = f.eval({{"type", "file_contains"}, {"path", "app.txt"}, {"text", "hello"}});
    CHECK(plain.message == "app.txt contains \"hello\" (1 time, first at line 1)");
  }
}

TEST_SUITE("verify") {
  TEST_CASE("judge evidence withholds a credential file's diff and content, before and after") {
    std::string root = make_workspace({{".env", kEnv}, {"app.txt", "one\n"}});
    auto snaps = snapshot::SnapshotStore::open(make_temp_dir("store"), root, system_clock());
    REQUIRE(snaps.ok());
    REQUIRE((*snaps)->scan().ok());
    RunFacts facts;
    facts.goal = "Point .env at the new host and update app.txt";
    facts.snapshot_before = (*snaps)->write_tree().value();
    write_file(root + "/.env", "DB_PASSWORD=agent-wrote-this\n");
    write_file(root + "/app.txt", "two\n");
    REQUIRE((*snaps)->scan().ok());
    facts.snapshot_after = (*snaps)->write_tree().value();
    facts.mutations = (*snaps)->diff(facts.snapshot_before, facts.snapshot_after).value();
    REQUIRE(facts.mutations.size() == 2);
    auto evidence = verify::gather_evidence((*snaps)->trees(), facts, {"Is .env updated?"}, verify::EvidenceCaps{});
    bool withheld = false;
    for (const auto& piece : evidence) {
      CAPTURE(piece.text);
      CHECK_FALSE(leaks(piece.text));
      CHECK(piece.text.find("agent-wrote-this") == std::string::npos);
      if (piece.path == ".env") withheld = withheld || piece.text == "credential file changed (content withheld)";
    }
    CHECK(withheld);
  }
}

TEST_SUITE("report") {
  TEST_CASE("the HTML report shows a credential file's change without its diff") {
    json report = {{"verdict", "success"},
                   {"goal", "g"},
                   {"steps", json::object()},
                   {"mutations", json::array({{{"path", "config/.ENV"}, {"change", "modified"}},
                                              {{"path", "app.txt"}, {"change", "modified"}}})}};
    std::map<std::string, std::string> diffs = {{"config/.ENV", std::string("-DB_PASSWORD=") + kSecret + "\n+X=1\n"},
                                                {"app.txt", "-one\n+two\n"}};
    std::string html = report::render_html(report, {}, diffs);
    CHECK_FALSE(leaks(html));
    CHECK(html.find("credential file changed (content withheld)") != std::string::npos);
    CHECK(html.find("+two") != std::string::npos);
  }
}
