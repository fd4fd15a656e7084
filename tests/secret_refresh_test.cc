// refresh_secret_files_at (sandbox/workspace_policy.h): the credential files a process is kept from,
// found again from what the change events named (SnapshotStore::changes_since_last_call()), must be
// exactly those a walk of the whole workspace finds, whatever a step did to them.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "sandbox/workspace_policy.h"
#include "snapshot/store.h"
#include "tests/test_support.h"

using namespace candor;
using candor::testing::make_temp_dir;
using candor::testing::make_workspace;
using candor::testing::write_file;
namespace fs = std::filesystem;

namespace {

struct SecretRow {
  const char* name;
  std::function<void(const std::string& ws)> change;
  // Credential files after the change; 0: not asserted (the file made may get the inode of the
  // credential file just deleted, and is then one by identity, to the walk as to the events).
  std::size_t found;
};

std::set<std::string> as_set(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

}  // namespace

TEST_SUITE("sandbox") {
  TEST_CASE("credential files found from the change events are those a walk of the workspace finds") {
    const std::vector<SecretRow> rows = {
        {"a credential file renamed", [](const std::string& ws) { fs::rename(ws + "/.env", ws + "/notes.txt"); }, 2},
        {"its folder renamed", [](const std::string& ws) { fs::rename(ws + "/keys", ws + "/other"); }, 2},
        {"a new one made in a new ignored folder",
         [](const std::string& ws) { write_file(ws + "/build/deep/.env.production", "TOKEN=x\n"); }, 3},
        {"one made in a folder snapshot.ignore leaves out",
         [](const std::string& ws) { write_file(ws + "/vendor/lib/id_rsa", "key\n"); }, 3},
        {"one moved into an ignored folder made meanwhile",
         [](const std::string& ws) {
           fs::create_directories(ws + "/build");
           fs::rename(ws + "/keys/server.pem", ws + "/build/cert.txt");
         },
         2},
        {"a hard link to one, in its folder",
         [](const std::string& ws) { REQUIRE(::link((ws + "/.env").c_str(), (ws + "/plain.txt").c_str()) == 0); }, 3},
        {"one deleted", [](const std::string& ws) { fs::remove(ws + "/keys/server.pem"); }, 1},
        {"one made where a folder of them was",
         [](const std::string& ws) {
           fs::remove_all(ws + "/keys");
           write_file(ws + "/keys", "now a file\n");
         },
         0},
        {"nothing", [](const std::string&) {}, 2},
    };
    for (const auto& row : rows) {
      std::string row_name = row.name;
      CAPTURE(row_name);
      std::string root = make_workspace({{".env", "TOKEN=secret\n"},
                                         {"keys/server.pem", "-----BEGIN PRIVATE KEY-----\n"},
                                         {"src/app.py", "print(1)\n"},
                                         {".gitignore", "build/\n"},
                                         {"vendor/lib/x.c", "int x;\n"}});
      auto ws = sandbox::Workspace::open(root);
      REQUIRE(ws.ok());
      sandbox::SandboxPolicy policy = sandbox::make_sandbox_policy(**ws);
      REQUIRE(policy.secret_files.size() == 2);
      auto snap = snapshot::SnapshotStore::open(make_temp_dir("store"), root, system_clock(), {"vendor/"});
      REQUIRE(snap.ok());
      (*snap)->watch_changes();
      REQUIRE((*snap)->scan().ok());
      REQUIRE((*snap)->freeze_ignore_rules({"vendor/"}).ok());
      REQUIRE((*snap)->write_tree().ok());
      CHECK_FALSE((*snap)->changes_since_last_call().has_value());  // the first call marks the start
      row.change(root);
      auto changed = (*snap)->changes_since_last_call();
      REQUIRE(changed.has_value());
      sandbox::SandboxPolicy by_events = policy;
      REQUIRE(sandbox::refresh_secret_files_at(**ws, by_events, *changed).ok());
      sandbox::SandboxPolicy by_walk = policy;
      REQUIRE(sandbox::refresh_secret_files(**ws, by_walk).ok());
      CHECK(as_set(by_events.secret_files) == as_set(by_walk.secret_files));
      if (row.found != 0) CHECK(by_events.secret_files.size() == row.found);
      // The scan after still sees what the call drained.
      auto scanned = (*snap)->scan();
      REQUIRE(scanned.ok());
      CHECK_FALSE((*snap)->last_scan().walked);
    }
  }

  TEST_CASE("changes_since_last_call is nullopt after a scan that walked in full, and without events") {
    std::string root = make_workspace({{"a.txt", "a\n"}});
    auto snap = snapshot::SnapshotStore::open(make_temp_dir("store"), root, system_clock());
    REQUIRE(snap.ok());
    (*snap)->watch_changes();
    REQUIRE((*snap)->scan().ok());
    REQUIRE((*snap)->freeze_ignore_rules({}).ok());
    REQUIRE((*snap)->write_tree().ok());
    CHECK_FALSE((*snap)->changes_since_last_call().has_value());
    write_file(root + "/b.txt", "b\n");
    auto named = (*snap)->changes_since_last_call();
    REQUIRE(named.has_value());
    CHECK(named->count("b.txt") == 1);
    (*snap)->distrust_events("a test");
    REQUIRE((*snap)->scan().ok());
    CHECK((*snap)->last_scan().walked);
    CHECK_FALSE((*snap)->changes_since_last_call().has_value());
    CHECK((*snap)->changes_since_last_call().has_value());

    auto plain = snapshot::SnapshotStore::open(make_temp_dir("store"), root, system_clock());
    REQUIRE(plain.ok());
    REQUIRE((*plain)->scan().ok());
    REQUIRE((*plain)->write_tree().ok());
    CHECK_FALSE((*plain)->changes_since_last_call().has_value());
  }
}
