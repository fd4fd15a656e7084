#include <doctest/doctest.h>

#include <unistd.h>

#include <string>

#include <fmt/format.h>

#include "store/run_store.h"
#include "tests/kernel_facts.h"
#include "tests/test_support.h"

using namespace candor;
using candor::testing::needs;
using candor::testing::run_command;

namespace {

// The store's database is damaged from outside candor, as a bad disk or another program would
// leave it, with python3's sqlite3 module (candor's tests include no <sqlite3.h>). The store must
// be closed meanwhile: its last connection's close folded the write-ahead log into the file.
const needs kPython{::access("/usr/bin/python3", X_OK) == 0, "/usr/bin/python3"};

// Overwrites with 0xff the middle leaf page, in b-tree order, of `name` (a table or an index):
// the rows before it read, the step that reaches it fails. Returns how many leaves it has.
int damage_middle_leaf(const std::string& db, const std::string& name) {
  const char* script =
      "import sqlite3, sys\n"
      "db, name = sys.argv[1], sys.argv[2]\n"
      "c = sqlite3.connect(db)\n"
      "pages = [r[0] for r in c.execute(\"SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY "
      "path\", (name,))]\n"
      "size = c.execute('PRAGMA page_size').fetchone()[0]\n"
      "c.close()\n"
      "with open(db, 'r+b') as f:\n"
      "    f.seek((pages[len(pages) // 2] - 1) * size)\n"
      "    f.write(b'\\xff' * size)\n"
      "print(len(pages))\n";
  auto r = run_command({"/usr/bin/python3", "-c", script, db, name});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return std::stoi(r.out);
}

// Runs `sql` (one statement, `?` bound to `arg`) on the database and commits.
void run_sql(const std::string& db, const std::string& sql, const std::string& arg) {
  const char* script =
      "import sqlite3, sys\n"
      "c = sqlite3.connect(sys.argv[1])\n"
      "c.execute(sys.argv[2], (sys.argv[3],))\n"
      "c.commit()\n"
      "c.close()\n";
  auto r = run_command({"/usr/bin/python3", "-c", script, db, sql, arg});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
}

Event event(std::int64_t seq, nlohmann::json data) {
  Event e;
  e.seq = seq;
  e.ts = "2026-01-01T00:00:01.000Z";
  e.type = "step_finished";
  e.data = std::move(data);
  return e;
}

}  // namespace

TEST_SUITE("store") {
  TEST_CASE("runs and events are stored as they happen and listed newest first") {
    std::string dir = candor::testing::make_temp_dir("store");
    auto store = store::RunStore::open(dir);
    REQUIRE(store.ok());
    auto& s = **store;
    REQUIRE(s.create_run("20260101T000000-aaaaaa", "2026-01-01T00:00:00.000Z", "first", "/ws").ok());
    REQUIRE(s.create_run("20260102T000000-bbbbbb", "2026-01-02T00:00:00.000Z", "second", "/ws").ok());
    Event e;
    e.seq = 1;
    e.ts = "2026-01-02T00:00:00.001Z";
    e.type = "run_started";
    e.data = {{"goal", "second"}};
    REQUIRE(s.append("20260102T000000-bbbbbb", e).ok());
    e.seq = 1;
    CHECK_FALSE(s.append("20260102T000000-bbbbbb", e).ok());  // seq is unique per run

    // A second process sees the event before the run ends: that is what survives a kill.
    auto other = store::RunStore::open(dir);
    REQUIRE(other.ok());
    auto loaded = (*other)->load("20260102T000000-bbbbbb");
    REQUIRE(loaded.ok());
    CHECK(loaded->summary.status == "running");
    CHECK(loaded->report.is_null());
    REQUIRE(loaded->events.size() == 1);
    CHECK(loaded->events[0].data["goal"] == "second");

    REQUIRE(
        s.finish_run("20260102T000000-bbbbbb", {"completed", "success", "tier1", {{"k", 1}}, {{"verdict", "success"}}})
            .ok());
    auto runs = s.list(10);
    REQUIRE(runs.ok());
    REQUIRE(runs->size() == 2);
    CHECK((*runs)[0].id == "20260102T000000-bbbbbb");
    CHECK((*runs)[0].verdict == "success");
    CHECK((*runs)[1].verdict == "");
    CHECK(s.load("20260102T000000-bbbbbb")->report["verdict"] == "success");
    CHECK_FALSE(s.finish_run("nope", {"completed", "fail", "tier1", {}, {}}).ok());
  }

  TEST_CASE("run references: full id, unique prefix, last; ambiguity and absence are errors") {
    auto store = store::RunStore::open(candor::testing::make_temp_dir("store"));
    REQUIRE(store.ok());
    auto& s = **store;
    CHECK(s.resolve("last").error().code == ErrorCode::kNotFound);
    REQUIRE(s.create_run("20260101T000000-aaaaaa", "2026-01-01T00:00:00Z", "a", "/ws").ok());
    REQUIRE(s.create_run("20260101T000000-abbbbb", "2026-01-01T00:00:01Z", "b", "/ws").ok());
    CHECK(s.resolve("last").value() == "20260101T000000-abbbbb");
    CHECK(s.resolve("20260101T000000-aa").value() == "20260101T000000-aaaaaa");
    auto ambiguous = s.resolve("20260101T000000-a");
    REQUIRE_FALSE(ambiguous.ok());
    CHECK(ambiguous.error().message.find("matches several runs") != std::string::npos);
    CHECK(s.resolve("2027").error().code == ErrorCode::kNotFound);
  }

  TEST_CASE("a run belongs to its own workspace, and a verify --git run to every folder of its repository") {
    struct Row {
      const char* run_workspace;
      const char* source;
      const char* folder;
      bool belongs;
    };
    const Row rows[] = {
        {"/w/a", "exec", "/w/a", true},
        {"/w/a", "git", "/w/a", true},
        {"/w/a", "exec", "/w/a/sub", false},
        {"/w/a", "run", "/w/a/sub", false},
        {"/w/a", "gate", "/w/a/sub", false},
        {"/w/a", "git", "/w/a/sub", true},
        {"/w/a", "git", "/w/a/sub/deep", true},
        {"/w/a", "git", "/w/ab", false},
        {"/w/a", "git", "/w", false},
        {"/w/a/sub", "exec", "/w/a", false},
        {"/", "git", "/w", true},
        {"/", "exec", "/w", false},
        {"", "git", "/w", false},
        {"/w/a", "", "/w/b", false},
    };
    for (const Row& row : rows) {
      CAPTURE(row.run_workspace);
      CAPTURE(row.source);
      CAPTURE(row.folder);
      CHECK(store::run_belongs_to(row.run_workspace, row.source, row.folder) == row.belongs);
    }
  }

  TEST_CASE("last of a workspace: its newest run (a git run of the repository around it too); ids name any run") {
    std::string dir = candor::testing::make_temp_dir("store");
    auto store = store::RunStore::open(dir);
    REQUIRE(store.ok());
    auto& s = **store;
    auto none = s.resolve("last", "/w/a");
    REQUIRE_FALSE(none.ok());
    CHECK(none.error().code == ErrorCode::kNotFound);
    CHECK(none.error().message == "no runs recorded in " + dir);

    REQUIRE(s.create_run("20260101T000001-aaaaaa", "2026-01-01T00:00:01Z", "a", "/w/a").ok());
    REQUIRE(s.create_run("20260101T000002-bbbbbb", "2026-01-01T00:00:02Z", "b", "/w/b").ok());
    REQUIRE(s.create_run("20260101T000003-cccccc", "2026-01-01T00:00:03Z", "a/sub", "/w/a/sub").ok());
    REQUIRE(s.create_run("20260101T000004-dddddd", "2026-01-01T00:00:04Z", "w exec", "/w").ok());
    REQUIRE(s.finish_run("20260101T000004-dddddd", {"completed", "success", "tier1", {{"source", "exec"}}, {}}).ok());
    CHECK(s.resolve("last", "/w/a").value() == "20260101T000001-aaaaaa");
    CHECK(s.resolve("", "/w/a").value() == "20260101T000001-aaaaaa");
    CHECK(s.resolve("last", "/w/b").value() == "20260101T000002-bbbbbb");
    CHECK(s.resolve("last", "/w/a/sub").value() == "20260101T000003-cccccc");
    CHECK(s.resolve("last").value() == "20260101T000004-dddddd");  // the store's latest, whatever its workspace
    // An id, a prefix or a suffix names its run from any workspace.
    CHECK(s.resolve("20260101T000002-bbbbbb", "/w/a").value() == "20260101T000002-bbbbbb");
    CHECK(s.resolve("bbbbbb", "/w/a").value() == "20260101T000002-bbbbbb");

    auto elsewhere = s.resolve("last", "/w/c");
    REQUIRE_FALSE(elsewhere.ok());
    CHECK(elsewhere.error().code == ErrorCode::kNotFound);
    CHECK(elsewhere.error().message == "no run recorded for this workspace (/w/c) in " + dir +
                                           ": --any takes the store's latest run (`candor runs` lists them all)");

    // A verify --git run of the repository /w is the latest run of every folder in it.
    REQUIRE(s.create_run("20260101T000005-eeeeee", "2026-01-01T00:00:05Z", "git", "/w").ok());
    REQUIRE(s.finish_run("20260101T000005-eeeeee", {"completed", "success", "tier1", {{"source", "git"}}, {}}).ok());
    CHECK(s.resolve("last", "/w/a").value() == "20260101T000005-eeeeee");
    CHECK(s.resolve("last", "/w/c").value() == "20260101T000005-eeeeee");
    CHECK(s.resolve("last", "/w").value() == "20260101T000005-eeeeee");
    CHECK(s.resolve("last", "/wx").error().code == ErrorCode::kNotFound);
    // ... until a later run of the folder itself.
    REQUIRE(s.create_run("20260101T000006-ffffff", "2026-01-01T00:00:06Z", "a again", "/w/a").ok());
    CHECK(s.resolve("last", "/w/a").value() == "20260101T000006-ffffff");
    CHECK(s.resolve("last", "/w/b").value() == "20260101T000005-eeeeee");
  }

  TEST_CASE("run ids sort by time and differ") {
    auto t = std::chrono::system_clock::from_time_t(1795000000);
    std::string a = store::new_run_id(t), b = store::new_run_id(t);
    CHECK(a.size() == 22);
    CHECK(a.substr(0, 16) == "20261118T110640-");
    CHECK(a != b);
  }

  TEST_CASE("the default store is outside the workspace, overridable by CANDOR_HOME") {
    using testing::ScopedEnv;
    {
      ScopedEnv home("CANDOR_HOME", "/tmp/candor-home-test");
      CHECK(store::default_store_dir() == "/tmp/candor-home-test");
    }
    ScopedEnv no_home("CANDOR_HOME", std::nullopt);
    {
      ScopedEnv state("XDG_STATE_HOME", "/tmp/xdg");
      CHECK(store::default_store_dir() == "/tmp/xdg/candor");
    }
    ScopedEnv no_state("XDG_STATE_HOME", std::nullopt);
    ScopedEnv home("HOME", "/home/someone");
    CHECK(store::default_store_dir() == "/home/someone/.local/state/candor");
  }

  TEST_CASE(
      "load fails, naming the run, when a page of its events cannot be read: a run cut short is not shown as whole" *
      kPython) {
    std::string dir = candor::testing::make_temp_dir("store");
    const std::string id = "20260101T000000-aaaaaa";
    {
      auto store = store::RunStore::open(dir);
      REQUIRE(store.ok());
      REQUIRE((*store)->create_run(id, "2026-01-01T00:00:00.000Z", "many events", "/ws").ok());
      for (int seq = 1; seq <= 400; ++seq)
        REQUIRE((*store)->append(id, event(seq, {{"output", std::string(200, 'x')}})).ok());
      REQUIRE((*store)->load(id)->events.size() == 400);
    }
    REQUIRE(damage_middle_leaf(dir + "/candor.db", "events") >= 3);
    auto store = store::RunStore::open(dir);
    REQUIRE(store.ok());
    auto run = (*store)->load(id);
    REQUIRE_FALSE(run.ok());
    CHECK(run.error().code == ErrorCode::kIo);
    CHECK(run.error().message.find(id) != std::string::npos);
  }

  TEST_CASE(
      "list and resolve fail when a page of the runs cannot be read: never a shorter list, never \"no such run\"" *
      kPython) {
    std::string dir = candor::testing::make_temp_dir("store");
    {
      auto store = store::RunStore::open(dir);
      REQUIRE(store.ok());
      for (int i = 0; i < 300; ++i) {
        std::string id = fmt::format("20260101T{:06}-{:06x}", i, i);
        REQUIRE((*store)->create_run(id, fmt::format("2026-01-01T00:00:{:03}Z", i), std::string(200, 'g'), "/ws").ok());
      }
      REQUIRE((*store)->list(1000)->size() == 300);
    }
    // The rows and both ways of reaching them by id or time: whichever the queries walk.
    for (const char* name : {"runs", "sqlite_autoindex_runs_1", "runs_by_created"}) {
      CAPTURE(name);
      REQUIRE(damage_middle_leaf(dir + "/candor.db", name) >= 3);
    }
    auto store = store::RunStore::open(dir);
    REQUIRE(store.ok());
    auto listed = (*store)->list(1000);
    REQUIRE_FALSE(listed.ok());
    CHECK(listed.error().code == ErrorCode::kIo);
    auto resolved = (*store)->resolve("2099");  // matches none: every row must be looked at
    REQUIRE_FALSE(resolved.ok());
    CHECK(resolved.error().code == ErrorCode::kIo);
  }

  TEST_CASE("load fails, naming the run and what, when a stored event, facts or report is not JSON" * kPython) {
    std::string dir = candor::testing::make_temp_dir("store");
    const std::string bad_event = "20260101T000000-aaaaaa", bad_facts = "20260101T000000-bbbbbb",
                      bad_report = "20260101T000000-cccccc";
    {
      auto store = store::RunStore::open(dir);
      REQUIRE(store.ok());
      for (const auto& id : {bad_event, bad_facts, bad_report}) {
        REQUIRE((*store)->create_run(id, "2026-01-01T00:00:00.000Z", "goal", "/ws").ok());
        for (int seq = 1; seq <= 3; ++seq) REQUIRE((*store)->append(id, event(seq, {{"n", seq}})).ok());
        REQUIRE((*store)->finish_run(id, {"completed", "success", "tier1", {{"k", 1}}, {{"verdict", "success"}}}).ok());
      }
    }
    std::string db = dir + "/candor.db";
    run_sql(db, "UPDATE events SET data = '{\"n\": 2, \"cut' WHERE run_id = ? AND seq = 2", bad_event);
    run_sql(db, "UPDATE runs SET facts_json = 'not json' WHERE id = ?", bad_facts);
    run_sql(db, "UPDATE runs SET report_json = '{' WHERE id = ?", bad_report);
    auto store = store::RunStore::open(dir);
    REQUIRE(store.ok());
    for (const auto& [id, what] : std::vector<std::pair<std::string, std::string>>{
             {bad_event, "event 2"}, {bad_facts, "facts"}, {bad_report, "the stored report is not JSON"}}) {
      CAPTURE(id);
      auto run = (*store)->load(id);
      REQUIRE_FALSE(run.ok());
      CHECK(run.error().code == ErrorCode::kIo);
      CHECK(run.error().message.find(id) != std::string::npos);
      CHECK(run.error().message.find(what) != std::string::npos);
    }
    // The list reads columns only (when a run was undone is one, since schema 2): a damaged report
    // keeps its run listed, and `report` names the damage.
    auto listed = (*store)->list(10);
    REQUIRE(listed.ok());
    CHECK(listed->size() == 3);
  }
}

TEST_SUITE("store") {
  TEST_CASE("a store of schema 1 is migrated once: each run's source and undo become columns, evals appear" * kPython) {
    std::string dir = candor::testing::make_temp_dir("store");
    // The tables as candor wrote them before schema 2, with a run from `verify --git` undone.
    const char* script =
        "import sqlite3, sys\n"
        "c = sqlite3.connect(sys.argv[1] + '/candor.db')\n"
        "c.executescript('''\n"
        "CREATE TABLE runs (id TEXT PRIMARY KEY, created_at TEXT NOT NULL, goal TEXT NOT NULL, workspace TEXT NOT "
        "NULL, status TEXT NOT NULL DEFAULT 'running', verdict TEXT, verdict_by TEXT, facts_json TEXT, report_json "
        "TEXT);\n"
        "CREATE TABLE events (run_id TEXT NOT NULL, seq INTEGER NOT NULL, ts TEXT NOT NULL, type TEXT NOT NULL, data "
        "TEXT NOT NULL, PRIMARY KEY (run_id, seq)) WITHOUT ROWID;\n"
        "CREATE TABLE gate_turns (agent TEXT NOT NULL, session TEXT NOT NULL, turn_key TEXT NOT NULL, turn INTEGER "
        "NOT NULL, run_id TEXT NOT NULL, workspace TEXT NOT NULL, started_at TEXT NOT NULL, start_json TEXT NOT NULL, "
        "stops INTEGER NOT NULL DEFAULT 0, blocks INTEGER NOT NULL DEFAULT 0, transcript_events INTEGER NOT NULL "
        "DEFAULT 0, decision TEXT NOT NULL DEFAULT '', verdict TEXT NOT NULL DEFAULT '', updated_at TEXT NOT NULL, "
        "PRIMARY KEY (agent, session, turn_key)) WITHOUT ROWID;\n"
        "INSERT INTO runs VALUES('20260101T000000-aaaaaa', '2026-01-01T00:00:00.000Z', 'g', '/repo', 'completed', "
        "'partial', 'tier1', '{\"source\": \"git\"}', '{\"undone\": {\"at\": \"2026-01-02T00:00:00.000Z\"}}');\n"
        "INSERT INTO runs(id, created_at, goal, workspace) VALUES('20260101T000001-bbbbbb', "
        "'2026-01-01T00:00:01.000Z', 'killed', '/ws');\n"
        "PRAGMA user_version = 1;\n"
        "''')\n"
        "c.commit()\n";
    auto made = run_command({"/usr/bin/python3", "-c", script, dir});
    REQUIRE_MESSAGE(made.exit_code == 0, made.err);

    auto store = store::RunStore::open(dir);
    REQUIRE_MESSAGE(store.ok(), (store.ok() ? "" : store.error().message));
    auto git = (*store)->list(10, "", "", "git");
    REQUIRE(git.ok());
    REQUIRE(git->size() == 1);
    CHECK(git->front().id == "20260101T000000-aaaaaa");
    CHECK(git->front().undone_at == "2026-01-02T00:00:00.000Z");
    CHECK(git->front().machine.empty());  // not known for runs made before schema 2
    CHECK((*store)->list(10)->size() == 2);
    CHECK((*store)->eval_attempts("none")->empty());
    // The resolve of `last` for a folder in the repository finds the git run by its source column.
    CHECK(*(*store)->resolve("last", "/repo/src") == "20260101T000000-aaaaaa");
    store->reset();
    auto version = run_command({"/usr/bin/python3", "-c",
                                "import sqlite3, sys; print(sqlite3.connect(sys.argv[1] + '/candor.db')"
                                ".execute('PRAGMA user_version').fetchone()[0])",
                                dir});
    CHECK(version.out == "2\n");
    CHECK(store::RunStore::open(dir).ok());  // opened again: nothing left to migrate
  }
}
