#include "store/sqlite_store.h"

#include <iterator>

#include <sys/stat.h>

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <random>
#include <thread>

#include <fmt/format.h>
#include <sqlite3.h>

namespace candor::store {
namespace {

// The schema, one migration per version; a store at version N gets N+1.. at its next open, in one
// transaction. Version 2 is the same as the PostgreSQL store's version 2 (store/postgres_store.cc).
constexpr const char* kMigrations[] = {
    // 1: runs, events, the live gate's turns.
    R"sql(
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
  goal TEXT NOT NULL,
  workspace TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'running',
  verdict TEXT,
  verdict_by TEXT,
  facts_json TEXT,
  report_json TEXT
);
CREATE INDEX IF NOT EXISTS runs_by_created ON runs(created_at);
CREATE INDEX IF NOT EXISTS runs_by_verdict ON runs(verdict, created_at);
CREATE TABLE IF NOT EXISTS events (
  run_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  ts TEXT NOT NULL,
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS gate_turns (
  agent TEXT NOT NULL,
  session TEXT NOT NULL,
  turn_key TEXT NOT NULL,
  turn INTEGER NOT NULL,
  run_id TEXT NOT NULL,
  workspace TEXT NOT NULL,
  started_at TEXT NOT NULL,
  start_json TEXT NOT NULL,
  stops INTEGER NOT NULL DEFAULT 0,
  blocks INTEGER NOT NULL DEFAULT 0,
  transcript_events INTEGER NOT NULL DEFAULT 0,
  decision TEXT NOT NULL DEFAULT '',
  verdict TEXT NOT NULL DEFAULT '',
  updated_at TEXT NOT NULL,
  PRIMARY KEY (agent, session, turn_key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS gate_turns_by_update ON gate_turns(updated_at);
CREATE INDEX IF NOT EXISTS gate_turns_by_run ON gate_turns(run_id);
)sql",
    // 2: each run's source, machine and undo as columns (`runs --source`, `undo` on another
    // machine), and the evals.
    R"sql(
ALTER TABLE runs ADD COLUMN source TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN machine TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN undone_at TEXT NOT NULL DEFAULT '';
UPDATE runs SET source = COALESCE(json_extract(facts_json, '$.source'), '') WHERE json_valid(facts_json);
UPDATE runs SET undone_at = COALESCE(json_extract(report_json, '$.undone.at'), '') WHERE json_valid(report_json);
CREATE INDEX runs_by_source ON runs(source, created_at);
CREATE INDEX runs_by_workspace ON runs(workspace, created_at);
CREATE TABLE evals (
  eval_id TEXT PRIMARY KEY,
  tasks_digest TEXT NOT NULL,
  shards INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  tasks_json TEXT NOT NULL
);
CREATE INDEX evals_by_created ON evals(created_at);
CREATE TABLE eval_attempts (
  eval_id TEXT NOT NULL,
  agent TEXT NOT NULL,
  task_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  state TEXT NOT NULL,
  run_id TEXT NOT NULL DEFAULT '',
  claimed TEXT NOT NULL DEFAULT '',
  verdict TEXT NOT NULL DEFAULT '',
  machine TEXT NOT NULL DEFAULT '',
  updated_at TEXT NOT NULL,
  record_json TEXT NOT NULL,
  PRIMARY KEY (eval_id, agent, task_id, attempt)
) WITHOUT ROWID;
)sql",
};
constexpr int kSchemaVersion = static_cast<int>(std::size(kMigrations));

class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &s_, nullptr); }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  bool ok() const { return rc_ == SQLITE_OK; }
  Stmt& bind(int i, const std::string& v) {
    sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& bind(int i, std::int64_t v) {
    sqlite3_bind_int64(s_, i, v);
    return *this;
  }
  int step() { return sqlite3_step(s_); }
  std::string text(int col) const {
    const unsigned char* t = sqlite3_column_text(s_, col);
    return t ? std::string(reinterpret_cast<const char*>(t), static_cast<std::size_t>(sqlite3_column_bytes(s_, col)))
             : "";
  }
  std::int64_t int64(int col) const { return sqlite3_column_int64(s_, col); }

 private:
  sqlite3_stmt* s_ = nullptr;
  int rc_;
};

Error db_error(sqlite3* db, const std::string& what) {
  return make_error(ErrorCode::kIo, fmt::format("run store: {}: {}", what, sqlite3_errmsg(db)));
}

// The columns summary_from reads, in its order.
constexpr const char* kSummaryColumns =
    "id, created_at, goal, workspace, status, COALESCE(verdict,''), COALESCE(verdict_by,''), undone_at, source, "
    "machine";

RunSummary summary_from(const Stmt& s) {
  return {s.text(0), s.text(1), s.text(2), s.text(3), s.text(4), s.text(5), s.text(6), s.text(7), s.text(8), s.text(9)};
}

// JSON text as the store keeps it, parsed. Text that does not parse means a damaged store: an
// error naming the run and `what`, never a value standing in for what was recorded.
Result<nlohmann::json> parse_stored(const std::string& text, const std::string& run_id, const std::string& what) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) {
    return make_error(ErrorCode::kIo,
                      fmt::format("run store: run {}: the stored {} is not JSON (the store is damaged)", run_id, what));
  }
  return j;
}

constexpr const char* kGateTurnColumns =
    "agent, session, turn_key, turn, run_id, workspace, started_at, start_json, stops, blocks, transcript_events, "
    "decision, verdict, updated_at";

Result<GateTurn> gate_turn_from(const Stmt& s) {
  GateTurn t;
  t.agent = s.text(0);
  t.session = s.text(1);
  t.turn_key = s.text(2);
  t.turn = s.int64(3);
  t.run_id = s.text(4);
  t.workspace = s.text(5);
  t.started_at = s.text(6);
  TRY(t.start, parse_stored(s.text(7), t.run_id, "gate turn start"));
  t.stops = s.int64(8);
  t.blocks = s.int64(9);
  t.transcript_events = s.int64(10);
  t.decision = s.text(11);
  t.verdict = s.text(12);
  t.updated_at = s.text(13);
  return t;
}

class SqliteRunStore final : public RunStore {
 public:
  SqliteRunStore(std::string dir, sqlite3* db);
  ~SqliteRunStore() override;
  Status exec(const char* sql) const;
  // Brings the schema from `version` to kSchemaVersion, in one transaction that re-reads the version
  // first: two processes opening an old store at once migrate it once.
  Status migrate(const std::string& path);

  Status create_run(const std::string& id, const std::string& created_at, const std::string& goal,
                    const std::string& workspace) override;
  Result<std::string> create_new_run(std::chrono::system_clock::time_point now, const std::string& created_at,
                                     const std::string& goal, const std::string& workspace) override;
  Status append(const std::string& run_id, const Event& event) override;
  Status finish_run(const std::string& id, const RunVerdict& verdict, bool sync) override;
  Status remask_events(const std::string& run_id) override;
  Result<std::vector<RunSummary>> list(int limit, const std::string& verdict, const std::string& since,
                                       const std::string& source) const override;
  Status append_late(const std::string& run_id, const std::string& type, const nlohmann::json& data,
                     const std::string& ts) override;
  Status set_undone(const std::string& id, const nlohmann::json& undone) override;
  Result<StoredRun> load(const std::string& id) const override;
  Result<std::vector<std::string>> runs_whose_facts_mention(const std::string& text) const override;
  Result<std::int64_t> count_runs() const override;
  Result<GateTurn> begin_gate_turn(const GateTurn& turn) override;
  Result<std::optional<GateTurn>> gate_turn(const std::string& agent, const std::string& session,
                                            const std::string& turn_key) const override;
  Result<std::optional<GateTurn>> latest_gate_turn(const std::string& agent, const std::string& session) const override;
  Result<std::vector<GateTurn>> open_gate_turns(const std::string& agent, const std::string& session) const override;
  Status close_gate_turn(const GateTurn& key, const std::string& decision, const std::string& updated_at) override;
  Result<std::int64_t> count_gate_turns(const std::string& agent, const std::string& session) const override;
  Result<std::optional<GateTurn>> latest_gate_turn_with_config(const std::string& workspace) const override;
  Status record_gate_stop(const GateTurn& key, bool blocked, const std::string& decision, const std::string& verdict,
                          std::int64_t transcript_events, const std::string& run_id,
                          const std::string& updated_at) override;
  Result<std::vector<GateTurn>> list_gate_turns(int limit) const override;
  Result<std::set<std::string>> gate_runs_to_keep() const override;
  Result<EvalPlan> register_eval(const EvalPlan& plan) override;
  Result<std::optional<EvalPlan>> eval_plan(const std::string& eval_id) const override;
  Status put_eval_attempt(const EvalAttempt& attempt) override;
  Result<std::vector<EvalAttempt>> eval_attempts(const std::string& eval_id) const override;
  Result<std::vector<EvalPlan>> list_evals(int limit) const override;
  Status remove_runs(const std::vector<std::string>& ids) override;
  Result<bool> compact() override;

 private:
  Result<std::vector<Candidate>> runs_at_or_above(const std::string& workspace) const override;
  Result<std::vector<std::string>> ids_matching(const std::string& ref, int limit) const override;
  sqlite3* db_;
};

}  // namespace

SqliteRunStore::SqliteRunStore(std::string dir, sqlite3* db) : RunStore(std::move(dir)), db_(db) {}
SqliteRunStore::~SqliteRunStore() { sqlite3_close_v2(db_); }

Status SqliteRunStore::exec(const char* sql) const {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    return make_error(ErrorCode::kIo, "run store: " + msg);
  }
  return ok_status();
}

Result<std::unique_ptr<RunStore>> open_sqlite_store(const std::string& dir) {
  std::string path = dir + "/candor.db";
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr) !=
      SQLITE_OK) {
    Error e = db_error(db, "open " + path);
    sqlite3_close_v2(db);
    return e;
  }
  auto store = std::make_unique<SqliteRunStore>(dir, db);
  sqlite3_busy_timeout(db, 5000);
  // The write-ahead log stays when the store is closed, folded into the database by SQLite's
  // automatic checkpoints (every ~1,000 pages) and by `candor gc`, not by every process at its
  // exit: a checkpoint on close syncs the database, and the next process then makes the log anew
  // and syncs it and the folder, four syncs for every `candor gate` hook and even `candor runs`.
  // What the log holds is as durable as the database (its commits are synced as ever).
  sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
  // auto_vacuum takes effect only on a database with no table yet, and only before WAL is on; it is
  // set on a store with no schema yet alone, since setting it writes the database's first page
  // (a transaction, a sync) even when it is set already.
  // Runs started at once on a new store race to switch it to WAL, and SQLite answers the losers
  // "database is locked" at once, without waiting (the busy timeout does not cover it): wait here.
  std::int64_t version = 0;
  for (auto waited = std::chrono::milliseconds(0);; waited += std::chrono::milliseconds(20)) {
    bool read = false;
    {
      Stmt s(db, "PRAGMA user_version");  // finalized before the pragmas: it holds a read
      read = s.ok() && s.step() == SQLITE_ROW;
      if (read) version = s.int64(0);
    }
    Status pragmas =
        !read ? db_error(db, "read the schema version of " + path)
        : version == 0
            ? store->exec("PRAGMA auto_vacuum=INCREMENTAL; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
            : store->exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;");
    if (pragmas.ok()) break;
    if ((sqlite3_errcode(db) & 0xff) != SQLITE_BUSY || waited >= std::chrono::seconds(5)) return pragmas.error();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (version > kSchemaVersion) {
    return make_error(ErrorCode::kInvalidInput,
                      fmt::format("run store {} was written by a newer candor (schema {})", path, version));
  }
  // Only a store older than this candor is written: a write at every open is a transaction (and a
  // sync) for nothing.
  if (version < kSchemaVersion) TRY_STATUS(store->migrate(path));
  return std::unique_ptr<RunStore>(std::move(store));
}

Status SqliteRunStore::migrate(const std::string& path) {
  TRY_STATUS(exec("BEGIN IMMEDIATE"));
  Status done = [&]() -> Status {
    std::int64_t version = 0;
    {
      Stmt s(db_, "PRAGMA user_version");
      if (!s.ok() || s.step() != SQLITE_ROW) return db_error(db_, "read the schema version of " + path);
      version = s.int64(0);
    }
    if (version > kSchemaVersion) {
      return make_error(ErrorCode::kInvalidInput,
                        fmt::format("run store {} was written by a newer candor (schema {})", path, version));
    }
    for (std::int64_t next = version + 1; next <= kSchemaVersion; ++next) {
      if (Status applied = exec(kMigrations[next - 1]); !applied.ok()) {
        return make_error(ErrorCode::kIo,
                          fmt::format("run store {}: migrating to schema {}: {}", path, next, applied.error().message));
      }
    }
    return exec(fmt::format("PRAGMA user_version={}", kSchemaVersion).c_str());
  }();
  if (!done.ok()) {
    (void)exec("ROLLBACK");
    return done;
  }
  return exec("COMMIT");
}

Status SqliteRunStore::create_run(const std::string& id, const std::string& created_at, const std::string& goal,
                                  const std::string& workspace) {
  Stmt s(db_, "INSERT INTO runs(id, created_at, goal, workspace, machine) VALUES(?,?,?,?,?)");
  if (!s.ok()) return db_error(db_, "prepare");
  s.bind(1, id).bind(2, created_at).bind(3, masked(goal)).bind(4, workspace).bind(5, this_machine());
  if (s.step() != SQLITE_DONE) return db_error(db_, "create run " + id);
  return ok_status();
}

Result<std::string> SqliteRunStore::create_new_run(std::chrono::system_clock::time_point now,
                                                   const std::string& created_at, const std::string& goal,
                                                   const std::string& workspace) {
  for (int attempt = 0;; ++attempt) {
    std::string id = new_run_id(now);
    Stmt s(db_, "INSERT INTO runs(id, created_at, goal, workspace, machine) VALUES(?,?,?,?,?)");
    if (!s.ok()) return db_error(db_, "prepare");
    s.bind(1, id).bind(2, created_at).bind(3, masked(goal)).bind(4, workspace).bind(5, this_machine());
    int rc = s.step();
    if (rc == SQLITE_DONE) return id;
    if ((rc & 0xff) != SQLITE_CONSTRAINT || attempt >= 16) return db_error(db_, "create run " + id);
  }
}

Status SqliteRunStore::append(const std::string& run_id, const Event& event) {
  Stmt s(db_, "INSERT INTO events(run_id, seq, ts, type, data) VALUES(?,?,?,?,?)");
  if (!s.ok()) return db_error(db_, "prepare");
  s.bind(1, run_id).bind(2, event.seq).bind(3, event.ts).bind(4, event.type);
  s.bind(5, text_of(event.data));
  if (s.step() != SQLITE_DONE) return db_error(db_, fmt::format("append event {} of {}", event.seq, run_id));
  return ok_status();
}

Status SqliteRunStore::remask_events(const std::string& run_id) {
  if (masker() == nullptr || masker()->empty()) return ok_status();
  std::vector<std::pair<std::int64_t, std::string>> changed;
  {
    Stmt s(db_, "SELECT seq, data FROM events WHERE run_id = ?");
    if (!s.ok()) return db_error(db_, "prepare");
    s.bind(1, run_id);
    int rc;
    while ((rc = s.step()) == SQLITE_ROW) {
      std::string data = s.text(1);
      if (masker()->mask_in_place(data)) changed.emplace_back(s.int64(0), std::move(data));
    }
    if (rc != SQLITE_DONE) return db_error(db_, "read the events of " + run_id);
  }
  for (const auto& [seq, data] : changed) {
    Stmt u(db_, "UPDATE events SET data = ? WHERE run_id = ? AND seq = ?");
    if (!u.ok()) return db_error(db_, "prepare");
    u.bind(1, data).bind(2, run_id).bind(3, seq);
    if (u.step() != SQLITE_DONE) return db_error(db_, fmt::format("mask event {} of {}", seq, run_id));
  }
  return ok_status();
}

Status SqliteRunStore::finish_run(const std::string& id, const RunVerdict& v, bool sync) {
  // Events are written with synchronous=NORMAL (a power loss may take the run in progress); the
  // run's end is synced to disk before candor reports it, and with it every event before it in
  // the write-ahead log: an earlier, reported run is never lost.
  if (sync) TRY_STATUS(exec("PRAGMA synchronous=FULL"));
  Status finished = [&]() -> Status {
    Stmt s(db_, "UPDATE runs SET status=?, verdict=?, verdict_by=?, facts_json=?, report_json=?, source=? WHERE id=?");
    if (!s.ok()) return db_error(db_, "prepare");
    s.bind(1, v.status)
        .bind(2, v.verdict)
        .bind(3, v.verdict_by)
        .bind(4, text_of(v.facts))
        .bind(5, text_of(v.report))
        .bind(6, run_source(v.facts))
        .bind(7, id);
    if (s.step() != SQLITE_DONE) return db_error(db_, "finish run " + id);
    if (sqlite3_changes(db_) != 1) return make_error(ErrorCode::kNotFound, "run store: no run " + id);
    return ok_status();
  }();
  if (sync) (void)exec("PRAGMA synchronous=NORMAL");
  return finished;
}

Result<std::vector<RunSummary>> SqliteRunStore::list(int limit, const std::string& verdict, const std::string& since,
                                                     const std::string& source) const {
  // Every filter is on an indexed column (runs_by_verdict, runs_by_created, runs_by_source).
  std::string sql = fmt::format(
      "SELECT {} FROM runs WHERE (?1 = '' OR verdict = ?1) AND (?2 = '' OR created_at >= ?2) AND "
      "(?4 = '' OR source = ?4) ORDER BY created_at DESC, id DESC LIMIT ?3",
      kSummaryColumns);
  Stmt s(db_, sql.c_str());
  if (!s.ok()) return db_error(db_, "prepare");
  s.bind(1, verdict).bind(2, since).bind(3, static_cast<std::int64_t>(limit)).bind(4, source);
  std::vector<RunSummary> out;
  int rc;
  while ((rc = s.step()) == SQLITE_ROW) out.push_back(summary_from(s));
  if (rc != SQLITE_DONE) return db_error(db_, "list runs");  // the runs listed so far are not all of them
  return out;
}

Status SqliteRunStore::append_late(const std::string& run_id, const std::string& type, const nlohmann::json& data,
                                   const std::string& ts) {
  Stmt s(db_,
         "INSERT INTO events(run_id, seq, ts, type, data) "
         "SELECT ?1, COALESCE(MAX(seq), 0) + 1, ?2, ?3, ?4 FROM events WHERE run_id = ?1");
  if (!s.ok()) return db_error(db_, "prepare");
  s.bind(1, run_id).bind(2, ts).bind(3, type).bind(4, text_of(data));
  if (s.step() != SQLITE_DONE) return db_error(db_, "append event to " + run_id);
  return ok_status();
}

Status SqliteRunStore::set_undone(const std::string& id, const nlohmann::json& undone) {
  TRY(StoredRun run, load(id));
  if (!run.report.is_object())
    return make_error(ErrorCode::kInvalidInput, "run " + id + " has no report to mark undone");
  run.report["undone"] = undone;
  Stmt s(db_, "UPDATE runs SET report_json=?, undone_at=? WHERE id=?");
  if (!s.ok()) return db_error(db_, "prepare");
  std::string at = undone.contains("at") && undone["at"].is_string() ? undone["at"].get<std::string>() : "";
  s.bind(1, text_of(run.report)).bind(2, at).bind(3, id);
  if (s.step() != SQLITE_DONE) return db_error(db_, "mark run " + id + " undone");
  return ok_status();
}

Result<std::vector<std::string>> SqliteRunStore::runs_whose_facts_mention(const std::string& text) const {
  Stmt s(db_,
         "SELECT id FROM runs WHERE facts_json IS NOT NULL AND instr(facts_json, ?1) > 0 ORDER BY created_at DESC, id "
         "DESC");
  if (!s.ok()) return db_error(db_, "prepare");
  s.bind(1, text);
  std::vector<std::string> ids;
  int rc;
  while ((rc = s.step()) == SQLITE_ROW) ids.push_back(s.text(0));
  if (rc != SQLITE_DONE) return db_error(db_, "listing the runs that name " + text);
  return ids;
}

Result<StoredRun> SqliteRunStore::load(const std::string& id) const {
  StoredRun run;
  {
    std::string sql = fmt::format("SELECT {}, facts_json, report_json FROM runs WHERE id = ?", kSummaryColumns);
    Stmt s(db_, sql.c_str());
    if (!s.ok()) return db_error(db_, "prepare");
    s.bind(1, id);
    int rc = s.step();
    if (rc == SQLITE_DONE) return make_error(ErrorCode::kNotFound, "no run " + id);
    if (rc != SQLITE_ROW) return db_error(db_, "load run " + id);
    run.summary = summary_from(s);
    std::string facts = s.text(10), report = s.text(11);
    // NULL (read as "") until the run ends.
    if (!facts.empty()) {
      TRY(run.facts, parse_stored(facts, id, "facts"));
    }
    if (!report.empty()) {
      TRY(run.report, parse_stored(report, id, "report"));
    }
  }
  Stmt s(db_, "SELECT seq, ts, type, data FROM events WHERE run_id = ? ORDER BY seq");
  if (!s.ok()) return db_error(db_, "prepare");
  s.bind(1, id);
  int rc;
  while ((rc = s.step()) == SQLITE_ROW) {
    Event e;
    e.seq = s.int64(0);
    e.ts = s.text(1);
    e.type = s.text(2);
    TRY(e.data, parse_stored(s.text(3), id, fmt::format("event {}", e.seq)));
    run.events.push_back(std::move(e));
  }
  // A run with its later events missing would read as a run that stopped there.
  if (rc != SQLITE_DONE) return db_error(db_, fmt::format("load the events of run {}", id));
  return run;
}

Result<std::int64_t> SqliteRunStore::count_runs() const {
  Stmt s(db_, "SELECT COUNT(*) FROM runs");
  if (!s.ok() || s.step() != SQLITE_ROW) return db_error(db_, "count runs");
  return s.int64(0);
}

Result<GateTurn> SqliteRunStore::begin_gate_turn(const GateTurn& t) {
  {
    Stmt s(db_,
           "INSERT OR IGNORE INTO gate_turns(agent, session, turn_key, turn, run_id, workspace, started_at, "
           "start_json, updated_at) VALUES(?,?,?,?,?,?,?,?,?)");
    if (!s.ok()) return db_error(db_, "prepare");
    s.bind(1, t.agent).bind(2, t.session).bind(3, t.turn_key).bind(4, t.turn).bind(5, t.run_id).bind(6, t.workspace);
    s.bind(7, t.started_at).bind(8, text_of(t.start)).bind(9, t.started_at);
    if (s.step() != SQLITE_DONE) return db_error(db_, "record the gate's turn " + t.turn_key);
  }
  TRY(std::optional<GateTurn> stored, gate_turn(t.agent, t.session, t.turn_key));
  if (!stored) return make_error(ErrorCode::kIo, "run store: the gate's turn " + t.turn_key + " was not recorded");
  return *stored;
}

Result<std::optional<GateTurn>> SqliteRunStore::gate_turn(const std::string& agent, const std::string& session,
                                                          const std::string& turn_key) const {
  std::string sql =
      fmt::format("SELECT {} FROM gate_turns WHERE agent = ? AND session = ? AND turn_key = ?", kGateTurnColumns);
  Stmt s(db_, sql.c_str());
  if (!s.ok()) return db_error(db_, "prepare");
  s.bind(1, agent).bind(2, session).bind(3, turn_key);
  int rc = s.step();
  if (rc == SQLITE_DONE) return std::optional<GateTurn>();
  if (rc != SQLITE_ROW) return db_error(db_, "look up the gate's turn " + turn_key);
  TRY(GateTurn t, gate_turn_from(s));
  return std::optional<GateTurn>(std::move(t));
}

Result<std::optional<GateTurn>> SqliteRunStore::latest_gate_turn(const std::string& agent,
                                                                 const std::string& session) const {
  std::string sql = fmt::format(
      "SELECT {} FROM gate_turns WHERE agent = ? AND session = ? ORDER BY turn DESC, started_at DESC LIMIT 1",
      kGateTurnColumns);
  Stmt s(db_, sql.c_str());
  if (!s.ok()) return db_error(db_, "prepare");
  s.bind(1, agent).bind(2, session);
  int rc = s.step();
  if (rc == SQLITE_DONE) return std::optional<GateTurn>();
  if (rc != SQLITE_ROW) return db_error(db_, "look up the gate's last turn of session " + session);
  TRY(GateTurn t, gate_turn_from(s));
  return std::optional<GateTurn>(std::move(t));
}

Result<std::vector<GateTurn>> SqliteRunStore::open_gate_turns(const std::string& agent,
                                                              const std::string& session) const {
  std::string sql = fmt::format(
      "SELECT {} FROM gate_turns WHERE agent = ? AND session = ? AND decision NOT IN ('allow', 'superseded') AND "
      "json_type(start_json, '$.fallback') IS NULL ORDER BY turn ASC, started_at ASC",
      kGateTurnColumns);
  Stmt s(db_, sql.c_str());
  if (!s.ok()) return db_error(db_, "prepare");
  s.bind(1, agent).bind(2, session);
  std::vector<GateTurn> out;
  int rc;
  while ((rc = s.step()) == SQLITE_ROW) {
    TRY(GateTurn t, gate_turn_from(s));
    out.push_back(std::move(t));
  }
  if (rc != SQLITE_DONE) return db_error(db_, "list the gate's open turns of session " + session);
  return out;
}

Status SqliteRunStore::close_gate_turn(const GateTurn& key, const std::string& decision,
                                       const std::string& updated_at) {
  Stmt s(db_,
         "UPDATE gate_turns SET decision = ?1, updated_at = ?2 WHERE agent = ?3 AND session = ?4 AND turn_key = ?5");
  if (!s.ok()) return db_error(db_, "prepare");
  s.bind(1, decision).bind(2, updated_at).bind(3, key.agent).bind(4, key.session).bind(5, key.turn_key);
  if (s.step() != SQLITE_DONE) return db_error(db_, "close the gate's turn " + key.turn_key);
  return ok_status();
}

Result<std::optional<GateTurn>> SqliteRunStore::latest_gate_turn_with_config(const std::string& workspace) const {
  std::string sql = fmt::format(
      "SELECT {} FROM gate_turns WHERE workspace = ? AND json_type(start_json, '$.config_text') = 'text' AND "
      "COALESCE(json_extract(start_json, '$.config_error'), '') = '' ORDER BY started_at DESC LIMIT 1",
      kGateTurnColumns);
  Stmt s(db_, sql.c_str());
  if (!s.ok()) return db_error(db_, "prepare");
  s.bind(1, workspace);
  int rc = s.step();
  if (rc == SQLITE_DONE) return std::optional<GateTurn>();
  if (rc != SQLITE_ROW) return db_error(db_, "look up the gate's last config of " + workspace);
  TRY(GateTurn t, gate_turn_from(s));
  return std::optional<GateTurn>(std::move(t));
}

Result<std::int64_t> SqliteRunStore::count_gate_turns(const std::string& agent, const std::string& session) const {
  Stmt s(db_, "SELECT COUNT(*) FROM gate_turns WHERE agent = ? AND session = ?");
  if (!s.ok()) return db_error(db_, "prepare");
  s.bind(1, agent).bind(2, session);
  if (s.step() != SQLITE_ROW) return db_error(db_, "count the gate's turns of session " + session);
  return s.int64(0);
}

Status SqliteRunStore::record_gate_stop(const GateTurn& key, bool blocked, const std::string& decision,
                                        const std::string& verdict, std::int64_t transcript_events,
                                        const std::string& run_id, const std::string& updated_at) {
  Stmt s(db_,
         "UPDATE gate_turns SET stops = stops + 1, blocks = blocks + ?1, decision = ?2, verdict = ?3, "
         "transcript_events = ?4, run_id = ?5, updated_at = ?6 WHERE agent = ?7 AND session = ?8 AND turn_key = ?9");
  if (!s.ok()) return db_error(db_, "prepare");
  s.bind(1, std::int64_t{blocked ? 1 : 0}).bind(2, decision).bind(3, verdict).bind(4, transcript_events);
  s.bind(5, run_id).bind(6, updated_at).bind(7, key.agent).bind(8, key.session).bind(9, key.turn_key);
  if (s.step() != SQLITE_DONE) return db_error(db_, "record a stop of the gate's turn " + key.turn_key);
  if (sqlite3_changes(db_) != 1) return make_error(ErrorCode::kNotFound, "run store: no gate turn " + key.turn_key);
  return ok_status();
}

Result<std::set<std::string>> SqliteRunStore::gate_runs_to_keep() const {
  Stmt s(db_,
         "SELECT run_id FROM gate_turns WHERE decision NOT IN ('allow', 'superseded') UNION SELECT run_id FROM "
         "gate_turns g WHERE turn = "
         "(SELECT MAX(turn) FROM gate_turns h WHERE h.agent = g.agent AND h.session = g.session)");
  if (!s.ok()) return db_error(db_, "prepare");
  std::set<std::string> out;
  int rc;
  while ((rc = s.step()) == SQLITE_ROW) out.insert(s.text(0));
  if (rc != SQLITE_DONE) return db_error(db_, "list the gate's open turns");
  return out;
}

Result<std::vector<GateTurn>> SqliteRunStore::list_gate_turns(int limit) const {
  std::string sql =
      fmt::format("SELECT {} FROM gate_turns ORDER BY updated_at DESC, started_at DESC LIMIT ?", kGateTurnColumns);
  Stmt s(db_, sql.c_str());
  if (!s.ok()) return db_error(db_, "prepare");
  s.bind(1, static_cast<std::int64_t>(limit));
  std::vector<GateTurn> out;
  int rc;
  while ((rc = s.step()) == SQLITE_ROW) {
    TRY(GateTurn t, gate_turn_from(s));
    out.push_back(std::move(t));
  }
  if (rc != SQLITE_DONE) return db_error(db_, "list the gate's turns");
  return out;
}

Status SqliteRunStore::remove_runs(const std::vector<std::string>& ids) {
  constexpr std::size_t kPerTransaction = 50;
  for (std::size_t from = 0; from < ids.size(); from += kPerTransaction) {
    TRY_STATUS(exec("BEGIN IMMEDIATE"));
    Status done = ok_status();
    for (std::size_t i = from; i < ids.size() && i < from + kPerTransaction && done.ok(); ++i) {
      for (const char* sql : {"DELETE FROM events WHERE run_id = ?", "DELETE FROM gate_turns WHERE run_id = ?",
                              "DELETE FROM runs WHERE id = ?"}) {
        Stmt s(db_, sql);
        if (!s.ok() || s.bind(1, ids[i]).step() != SQLITE_DONE) {
          done = db_error(db_, "remove run " + ids[i]);
          break;
        }
      }
    }
    if (!done.ok()) {
      (void)exec("ROLLBACK");
      return done;
    }
    TRY_STATUS(exec("COMMIT"));
  }
  return ok_status();
}

Result<bool> SqliteRunStore::compact() {
  bool incremental = false;
  {
    Stmt mode(db_, "PRAGMA auto_vacuum");  // finalized before the writes below: it holds a read
    if (!mode.ok() || mode.step() != SQLITE_ROW) return db_error(db_, "read auto_vacuum");
    incremental = mode.int64(0) == 2;
  }
  if (incremental) TRY_STATUS(exec("PRAGMA incremental_vacuum"));
  // The write-ahead log holds the removal until a checkpoint: fold it in and truncate it. A
  // reader in another process may keep part of it; that part goes at a later checkpoint.
  (void)exec("PRAGMA wal_checkpoint(TRUNCATE)");
  return incremental;
}

Result<std::vector<RunStore::Candidate>> SqliteRunStore::runs_at_or_above(const std::string& workspace) const {
  Stmt s(db_,
         "SELECT id, workspace, source FROM runs WHERE workspace = ?1 OR instr(?1, workspace) = 1 "
         "ORDER BY created_at DESC, id DESC");
  if (!s.ok()) return db_error(db_, "prepare");
  s.bind(1, workspace);
  std::vector<Candidate> out;
  int rc;
  while ((rc = s.step()) == SQLITE_ROW) out.push_back({s.text(0), s.text(1), s.text(2)});
  if (rc != SQLITE_DONE) return db_error(db_, "look up the last run of " + workspace);
  return out;
}

Result<std::vector<std::string>> SqliteRunStore::ids_matching(const std::string& ref, int limit) const {
  Stmt s(db_,
         "SELECT id FROM runs WHERE substr(id, 1, length(?1)) = ?1 OR substr(id, -length(?1)) = ?1 "
         "ORDER BY id LIMIT ?2");
  if (!s.ok()) return db_error(db_, "prepare");
  s.bind(1, ref).bind(2, static_cast<std::int64_t>(limit));
  std::vector<std::string> ids;
  int rc;
  while ((rc = s.step()) == SQLITE_ROW) ids.push_back(s.text(0));
  if (rc != SQLITE_DONE) return db_error(db_, fmt::format("look up run \"{}\"", ref));
  return ids;
}

namespace {

Result<EvalPlan> eval_plan_from(const Stmt& s) {
  EvalPlan p;
  p.eval_id = s.text(0);
  p.tasks_digest = s.text(1);
  p.shards = s.int64(2);
  p.created_at = s.text(3);
  TRY(p.tasks, parse_stored(s.text(4), p.eval_id, "eval's tasks"));
  return p;
}

constexpr const char* kEvalAttemptColumns =
    "eval_id, agent, task_id, attempt, state, run_id, claimed, verdict, machine, updated_at, record_json";

Result<EvalAttempt> eval_attempt_from(const Stmt& s) {
  EvalAttempt a;
  a.eval_id = s.text(0);
  a.agent = s.text(1);
  a.task_id = s.text(2);
  a.attempt = s.int64(3);
  a.state = s.text(4);
  a.run_id = s.text(5);
  a.claimed = s.text(6);
  a.verdict = s.text(7);
  a.machine = s.text(8);
  a.updated_at = s.text(9);
  TRY(a.record, parse_stored(s.text(10), a.eval_id, "attempt of task " + a.task_id));
  return a;
}

}  // namespace

Result<EvalPlan> SqliteRunStore::register_eval(const EvalPlan& plan) {
  {
    Stmt s(db_, "INSERT OR IGNORE INTO evals(eval_id, tasks_digest, shards, created_at, tasks_json) VALUES(?,?,?,?,?)");
    if (!s.ok()) return db_error(db_, "prepare");
    s.bind(1, plan.eval_id).bind(2, plan.tasks_digest).bind(3, plan.shards).bind(4, plan.created_at);
    s.bind(5, text_of(plan.tasks));
    if (s.step() != SQLITE_DONE) return db_error(db_, "record eval " + plan.eval_id);
  }
  TRY(std::optional<EvalPlan> stored, eval_plan(plan.eval_id));
  if (!stored) return make_error(ErrorCode::kIo, "run store: eval " + plan.eval_id + " was not recorded");
  return *stored;
}

Result<std::optional<EvalPlan>> SqliteRunStore::eval_plan(const std::string& eval_id) const {
  Stmt s(db_, "SELECT eval_id, tasks_digest, shards, created_at, tasks_json FROM evals WHERE eval_id = ?");
  if (!s.ok()) return db_error(db_, "prepare");
  s.bind(1, eval_id);
  int rc = s.step();
  if (rc == SQLITE_DONE) return std::optional<EvalPlan>();
  if (rc != SQLITE_ROW) return db_error(db_, "look up eval " + eval_id);
  TRY(EvalPlan p, eval_plan_from(s));
  return std::optional<EvalPlan>(std::move(p));
}

Result<std::vector<EvalPlan>> SqliteRunStore::list_evals(int limit) const {
  Stmt s(db_,
         "SELECT eval_id, tasks_digest, shards, created_at, tasks_json FROM evals ORDER BY created_at DESC, eval_id "
         "DESC LIMIT ?");
  if (!s.ok()) return db_error(db_, "prepare");
  s.bind(1, static_cast<std::int64_t>(limit));
  std::vector<EvalPlan> out;
  int rc;
  while ((rc = s.step()) == SQLITE_ROW) {
    TRY(EvalPlan p, eval_plan_from(s));
    out.push_back(std::move(p));
  }
  if (rc != SQLITE_DONE) return db_error(db_, "list evals");
  return out;
}

Status SqliteRunStore::put_eval_attempt(const EvalAttempt& a) {
  std::string sql =
      fmt::format("INSERT OR REPLACE INTO eval_attempts({}) VALUES(?,?,?,?,?,?,?,?,?,?,?)", kEvalAttemptColumns);
  Stmt s(db_, sql.c_str());
  if (!s.ok()) return db_error(db_, "prepare");
  s.bind(1, a.eval_id).bind(2, a.agent).bind(3, a.task_id).bind(4, a.attempt).bind(5, a.state).bind(6, a.run_id);
  s.bind(7, a.claimed).bind(8, a.verdict).bind(9, a.machine).bind(10, a.updated_at).bind(11, text_of(a.record));
  if (s.step() != SQLITE_DONE) {
    return db_error(db_, fmt::format("record attempt {} of task {} of eval {}", a.attempt, a.task_id, a.eval_id));
  }
  return ok_status();
}

Result<std::vector<EvalAttempt>> SqliteRunStore::eval_attempts(const std::string& eval_id) const {
  std::string sql = fmt::format("SELECT {} FROM eval_attempts WHERE eval_id = ? ORDER BY agent, task_id, attempt",
                                kEvalAttemptColumns);
  Stmt s(db_, sql.c_str());
  if (!s.ok()) return db_error(db_, "prepare");
  s.bind(1, eval_id);
  std::vector<EvalAttempt> out;
  int rc;
  while ((rc = s.step()) == SQLITE_ROW) {
    TRY(EvalAttempt a, eval_attempt_from(s));
    out.push_back(std::move(a));
  }
  if (rc != SQLITE_DONE) return db_error(db_, "list the attempts of eval " + eval_id);
  return out;
}

}  // namespace candor::store
