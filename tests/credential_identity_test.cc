// A credential file of the run's start stays one under any name (sandbox/credential_registry.h):
// renamed, its folder moved, hard-linked, copied. Every content path asks on the descriptor it
// reads: the workspace's reads, the pre-run snapshot's file source, the git tools, judge evidence,
// the HTML report.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>

#include "executor/snapshot_files.h"
#include "executor/tool.h"
#include "report/formats.h"
#include "sandbox/credential_registry.h"
#include "sandbox/workspace_policy.h"
#include "snapshot/store.h"
#include "tests/test_support.h"
#include "verify/judge.h"

using namespace candor;
using candor::testing::git;
using candor::testing::make_temp_dir;
using candor::testing::read_file;
using candor::testing::run_command;
using candor::testing::write_file;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr const char* kAws =
    "[default]\naws_access_key_id = AKIAEXAMPLEs3cr3t7Q\naws_secret_access_key = "
    "wJalrXUtnFEMI/K7MDENG/s3cr3t/bPxRfiCYKEY\n";
constexpr const char* kEnv = "NODE_ENV=production\nDB_PASSWORD=hunter2-s3cr3t-db\n";

bool leaks(const std::string& text) { return text.find("s3cr3t") != std::string::npos; }

// A workspace opened as a run opens it: the walk, then the registry of its start.
struct Started {
  std::string root = make_temp_dir("ws");
  std::unique_ptr<sandbox::Workspace> ws;
  std::shared_ptr<const sandbox::CredentialRegistry> credentials;

  Started() {
    write_file(root + "/.aws/credentials", kAws);
    write_file(root + "/.env", kEnv);
    write_file(root + "/app.txt", "hello\n");
  }
  void start(std::vector<std::string> environ_entries = {}, std::vector<std::string> pass_env = {}) {
    ws = std::move(sandbox::Workspace::open(root).value());
    sandbox::SandboxPolicy policy = sandbox::make_sandbox_policy(*ws);
    policy.pass_env = std::move(pass_env);
    std::vector<char*> env;
    for (auto& e : environ_entries) env.push_back(e.data());
    env.push_back(nullptr);
    credentials = sandbox::read_credentials(*ws, policy, env.data());
    ws->set_credentials(credentials);
  }
};

}  // namespace

TEST_SUITE("sandbox") {
  TEST_CASE("a credential file renamed, moved with its folder or hard-linked is refused under its new name") {
    Started s;
    s.start();
    fs::rename(s.root + "/.aws", s.root + "/aws-notes");
    fs::rename(s.root + "/.env", s.root + "/env-backup.txt");
    fs::create_hard_link(s.root + "/env-backup.txt", s.root + "/link.txt");
    for (const char* path : {"aws-notes/credentials", "env-backup.txt", "link.txt"}) {
      CAPTURE(path);
      auto read = s.ws->read_file(path, 1 << 20);
      REQUIRE_FALSE(read.ok());
      CHECK(read.error().code == ErrorCode::kRefused);
      CHECK(read.error().message.find("looks like a credential file") != std::string::npos);
      CHECK(s.ws->stat(path)->credential);
      CHECK(s.ws->read_file_flagged(path, 1 << 20)->credential);
    }
    CHECK(s.ws->read_file("app.txt", 100).value() == "hello\n");
    // Without the registry (a workspace that never started a run) the name alone decides: the
    // control that shows the identity is what refuses.
    auto fresh = sandbox::Workspace::open(s.root);
    REQUIRE(fresh.ok());
    CHECK((*fresh)->read_file("env-backup.txt", 100).ok());
  }

  TEST_CASE("a copy of a credential file is one by its content, checked on the descriptor that is read") {
    Started s;
    s.start();
    write_file(s.root + "/notes.txt", kEnv);  // the same bytes: a new inode
    std::string other(std::string(kEnv).size(), 'x');
    write_file(s.root + "/same-size.txt", other);  // a credential's size, other bytes
    write_file(s.root + "/empty.txt", "");
    auto copy = s.ws->read_file("notes.txt", 1 << 20);
    REQUIRE_FALSE(copy.ok());
    CHECK(copy.error().message.find("notes.txt looks like a credential file") != std::string::npos);
    CHECK(s.ws->read_file_flagged("notes.txt", 4)->credential);  // a short read still checks the whole file
    CHECK(s.ws->read_file("same-size.txt", 1 << 20).value() == other);
    CHECK(s.ws->read_file("empty.txt", 10).value().empty());
    // The tools that read: file_read refuses, file_search does not search it.
    net::NetworkPolicy network;
    executor::ToolRegistry tools = executor::builtin_tools();
    executor::ToolContext ctx{*s.ws, network, kDefaultOutputCap, std::chrono::milliseconds(60000)};
    auto read = tools.find("file_read")->run({{"path", "notes.txt"}}, ctx);
    CHECK_FALSE(read.ok);
    CHECK_FALSE(leaks(read.error + read.output));
    auto search = tools.find("file_search")->run({{"pattern", "hunter2"}}, ctx);
    CHECK(search.ok);
    CHECK_FALSE(leaks(search.output));
    CHECK(search.output.find("0 matches") != std::string::npos);
    auto patch = tools.find("file_patch")
                     ->run({{"path", "notes.txt"}, {"edits", {{{"find", "hunter2"}, {"replace", "x"}}}}}, ctx);
    CHECK_FALSE(patch.ok);
    CHECK(patch.error.find("occurs") == std::string::npos);
  }

  TEST_CASE("the values masked: the credential files', and the variables scrubbed for what they hold") {
    Started s;
    s.start({"DB_PASSWORD=env-s3cr3t-pw", "AWS_REGION=eu-central-1", "DEPLOY_TOKEN=passed-on-purpose",
             "PATH=/usr/bin:/bin", "CACHE=redis://:r3dis-s3cr3t@cache:6379"},
            {"DEPLOY_TOKEN"});
    const SecretMasker& m = *s.credentials->masker();
    CHECK(m.mask("AKIAEXAMPLEs3cr3t7Q") == "***");
    CHECK(m.mask("wJalrXUtnFEMI/K7MDENG/s3cr3t/bPxRfiCYKEY") == "***");
    CHECK(m.mask("hunter2-s3cr3t-db") == "***");
    CHECK(m.mask("env-s3cr3t-pw") == "***");
    CHECK(m.mask("r3dis-s3cr3t") == "***");
    // Configuration, a namespace-only variable, a variable the user passes on, ordinary ones: kept.
    CHECK(m.mask("production eu-central-1 passed-on-purpose /usr/bin:/bin") ==
          "production eu-central-1 passed-on-purpose /usr/bin:/bin");
    CHECK(s.credentials->paths() == std::set<std::string>{".aws/credentials", ".env"});
    CHECK(s.credentials->unread().empty());
  }
}

TEST_SUITE("executor") {
  TEST_CASE("the pre-run snapshot as a file source: a copy of a credential file is flagged and materialised empty") {
    Started s;
    write_file(s.root + "/notes.txt", kEnv);  // a copy that existed before the run
    s.start();
    auto snaps = snapshot::SnapshotStore::open(make_temp_dir("store"), s.ws->root(), system_clock());
    REQUIRE(snaps.ok());
    REQUIRE((*snaps)->scan().ok());
    std::string tree = (*snaps)->write_tree().value();
    executor::SnapshotFiles before((*snaps)->trees(), tree, s.ws->secrets(), "before the run", s.credentials.get());
    CHECK(before.stat("notes.txt")->credential);
    CHECK(before.read_file("notes.txt", 4)->credential);
    CHECK_FALSE(before.read_file("app.txt", 100)->credential);
    auto made = before.materialize("notes.txt");
    REQUIRE(made.ok());
    CHECK(read_file((*made)->root() + "/notes.txt").empty());
    executor::SnapshotFiles by_name((*snaps)->trees(), tree, s.ws->secrets());
    CHECK_FALSE(by_name.stat("notes.txt")->credential);  // the control: by name alone it is not one
  }

  TEST_CASE("git_diff and git_commit treat a renamed credential file as one: withheld, left unstaged") {
    Started s;
    git(s.root, {"init", "-q"});
    git(s.root, {"add", "app.txt"});
    git(s.root, {"commit", "-qm", "app"});
    s.start();
    fs::rename(s.root + "/.env", s.root + "/env.txt");
    write_file(s.root + "/notes.md", "notes\n");
    net::NetworkPolicy network;
    executor::ToolRegistry tools = executor::builtin_tools();
    executor::ToolContext ctx{*s.ws, network, kDefaultOutputCap, std::chrono::milliseconds(60000)};
    auto diff = tools.find("git_diff")->run(json::object(), ctx);
    REQUIRE(diff.ok);
    CHECK_FALSE(leaks(diff.output));
    CHECK(diff.output.find("env.txt\ncredential file changed (content withheld)") != std::string::npos);
    auto commit = tools.find("git_commit")->run({{"message", "notes"}}, ctx);
    CAPTURE(commit.error);
    REQUIRE(commit.ok);
    CHECK(commit.output.find("credential files left unstaged: ") != std::string::npos);
    CHECK(commit.output.find("env.txt") != std::string::npos);
    CHECK(git(s.root, {"ls-tree", "-r", "--name-only", "HEAD"}).find("env.txt") == std::string::npos);
  }
}

TEST_SUITE("verify") {
  TEST_CASE("judge evidence: a mutation flagged credential is withheld, and other pieces are masked") {
    Started s;
    s.start();
    auto snaps = snapshot::SnapshotStore::open(make_temp_dir("store"), s.ws->root(), system_clock());
    REQUIRE(snaps.ok());
    REQUIRE((*snaps)->scan().ok());
    RunFacts facts;
    facts.goal = "Keep notes";
    facts.snapshot_before = (*snaps)->write_tree().value();
    fs::rename(s.root + "/.aws", s.root + "/aws-notes");
    write_file(s.root + "/app.txt", "hello\npassword is hunter2-s3cr3t-db\n");  // the value, hard-coded
    REQUIRE((*snaps)->scan().ok());
    facts.snapshot_after = (*snaps)->write_tree().value();
    facts.mutations = (*snaps)->diff(facts.snapshot_before, facts.snapshot_after).value();
    for (auto& m : facts.mutations) m.credential = m.path == "aws-notes/credentials";  // as Executor::finish decides
    auto evidence = verify::gather_evidence((*snaps)->trees(), facts, {}, {}, s.credentials.get());
    bool withheld = false, masked = false;
    for (const auto& piece : evidence) {
      CAPTURE(piece.text);
      CHECK_FALSE(leaks(piece.text));
      withheld |= piece.path == "aws-notes/credentials" && piece.text == "credential file changed (content withheld)";
      masked |= piece.path == "app.txt" && piece.text.find("password is ***") != std::string::npos;
    }
    CHECK(withheld);
    CHECK(masked);
    // A later process knows the run by its facts: the values come back from the pre-run snapshot.
    facts.credential_files = {".aws/credentials", ".env"};
    auto later = snapshot::run_credentials((*snaps)->trees(), facts, nullptr);
    CHECK(later->masker()->mask("hunter2-s3cr3t-db AKIAEXAMPLEs3cr3t7Q") == "*** ***");
    CHECK(later->unread().empty());
  }
}

TEST_SUITE("report") {
  TEST_CASE("the HTML report withholds a change flagged credential whatever its name") {
    json report = {
        {"verdict", "success"},
        {"goal", "g"},
        {"steps", json::object()},
        {"mutations", json::array({{{"path", "aws-notes/credentials"}, {"change", "added"}, {"credential", true}},
                                   {{"path", "app.txt"}, {"change", "modified"}}})}};
    std::map<std::string, std::string> diffs = {{"aws-notes/credentials", "+aws_secret_access_key = s3cr3t\n"},
                                                {"app.txt", "-one\n+two\n"}};
    std::string html = report::render_html(report, {}, diffs);
    CHECK_FALSE(leaks(html));
    CHECK(html.find("credential file changed (content withheld)") != std::string::npos);
    CHECK(html.find("+two") != std::string::npos);
    std::string md = report::render_markdown(report);
    CHECK(md.find("added · credential file changed (content withheld)") != std::string::npos);
  }
}
