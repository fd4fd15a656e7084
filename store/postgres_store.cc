#include "store/postgres_store.h"

#include <chrono>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <libpq-fe.h>

namespace candor::store {
namespace {

// The schema, one migration per version, as the SQLite store's (store/sqlite_store.cc): the same
// tables, columns and meaning; types as PostgreSQL spells them. JSON stays text, as SQLite keeps it.
constexpr const char* kMigrations[] = {
    // 1: runs, events, the live gate's turns.
    R"sql(
CREATE TABLE runs (
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
CREATE INDEX runs_by_created ON runs(created_at);
CREATE INDEX runs_by_verdict ON runs(verdict, created_at);
CREATE TABLE events (
  run_id TEXT NOT NULL,
  seq BIGINT NOT NULL,
  ts TEXT NOT NULL,
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);
CREATE TABLE gate_turns (
  agent TEXT NOT NULL,
  session TEXT NOT NULL,
  turn_key TEXT NOT NULL,
  turn BIGINT NOT NULL,
  run_id TEXT NOT NULL,
  workspace TEXT NOT NULL,
  started_at TEXT NOT NULL,
  start_json TEXT NOT NULL,
  stops BIGINT NOT NULL DEFAULT 0,
  blocks BIGINT NOT NULL DEFAULT 0,
  transcript_events BIGINT NOT NULL DEFAULT 0,
  decision TEXT NOT NULL DEFAULT '',
  verdict TEXT NOT NULL DEFAULT '',
  updated_at TEXT NOT NULL,
  PRIMARY KEY (agent, session, turn_key)
);
CREATE INDEX gate_turns_by_update ON gate_turns(updated_at);
CREATE INDEX gate_turns_by_run ON gate_turns(run_id);
)sql",
    // 2: each run's source, machine and undo as columns, and the evals.
    R"sql(
ALTER TABLE runs ADD COLUMN source TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN machine TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN undone_at TEXT NOT NULL DEFAULT '';
UPDATE runs SET source = COALESCE(facts_json::jsonb ->> 'source', '') WHERE facts_json IS NOT NULL;
UPDATE runs SET undone_at = COALESCE(report_json::jsonb #>> '{undone,at}', '') WHERE report_json IS NOT NULL;
CREATE INDEX runs_by_source ON runs(source, created_at);
CREATE INDEX runs_by_workspace ON runs(workspace, created_at);
CREATE TABLE evals (
  eval_id TEXT PRIMARY KEY,
  tasks_digest TEXT NOT NULL,
  shards BIGINT NOT NULL,
  created_at TEXT NOT NULL,
  tasks_json TEXT NOT NULL
);
CREATE INDEX evals_by_created ON evals(created_at);
CREATE TABLE eval_attempts (
  eval_id TEXT NOT NULL,
  agent TEXT NOT NULL,
  task_id TEXT NOT NULL,
  attempt BIGINT NOT NULL,
  state TEXT NOT NULL,
  run_id TEXT NOT NULL DEFAULT '',
  claimed TEXT NOT NULL DEFAULT '',
  verdict TEXT NOT NULL DEFAULT '',
  machine TEXT NOT NULL DEFAULT '',
  updated_at TEXT NOT NULL,
  record_json TEXT NOT NULL,
  PRIMARY KEY (eval_id, agent, task_id, attempt)
);
)sql",
};
constexpr int kSchemaVersion = static_cast<int>(std::size(kMigrations));

// Held for the migration's transaction: two processes opening an old store at once migrate it once.
constexpr const char* kMigrationLock = "SELECT pg_advisory_xact_lock(7161567262487734898)";

std::string trimmed(const char* message) {
  std::string m = message != nullptr ? message : "";
  while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
  return m;
}

// One query's result, freed with it. Values are read as text, as the store writes them.
class Rows {
 public:
  explicit Rows(PGresult* r) : r_(r) {}
  ~Rows() { PQclear(r_); }
  Rows(const Rows&) = delete;
  Rows& operator=(const Rows&) = delete;
  Rows(Rows&& o) noexcept : r_(o.r_) { o.r_ = nullptr; }
  bool ok() const {
    auto s = PQresultStatus(r_);
    return s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK;
  }
  int size() const { return PQntuples(r_); }
  std::string text(int row, int col) const {
    return std::string(PQgetvalue(r_, row, col), static_cast<std::size_t>(PQgetlength(r_, row, col)));
  }
  std::int64_t int64(int row, int col) const { return std::strtoll(PQgetvalue(r_, row, col), nullptr, 10); }
  std::int64_t changed() const { return std::strtoll(PQcmdTuples(r_), nullptr, 10); }
  std::string sqlstate() const {
    const char* s = PQresultErrorField(r_, PG_DIAG_SQLSTATE);
    return s != nullptr ? s : "";
  }
  std::string message() const { return trimmed(PQresultErrorMessage(r_)); }

 private:
  PGresult* r_;
};

Result<nlohmann::json> parse_stored(const std::string& text, const std::string& id, const std::string& what) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) {
    return make_error(ErrorCode::kIo,
                      fmt::format("run store: run {}: the stored {} is not JSON (the store is damaged)", id, what));
  }
  return j;
}

constexpr const char* kSummaryColumns =
    "id, created_at, goal, workspace, status, COALESCE(verdict,''), COALESCE(verdict_by,''), undone_at, source, "
    "machine";

RunSummary summary_from(const Rows& r, int i) {
  return {r.text(i, 0), r.text(i, 1), r.text(i, 2), r.text(i, 3), r.text(i, 4),
          r.text(i, 5), r.text(i, 6), r.text(i, 7), r.text(i, 8), r.text(i, 9)};
}

constexpr const char* kGateTurnColumns =
    "agent, session, turn_key, turn, run_id, workspace, started_at, start_json, stops, blocks, transcript_events, "
    "decision, verdict, updated_at";

Result<GateTurn> gate_turn_from(const Rows& r, int i) {
  GateTurn t;
  t.agent = r.text(i, 0);
  t.session = r.text(i, 1);
  t.turn_key = r.text(i, 2);
  t.turn = r.int64(i, 3);
  t.run_id = r.text(i, 4);
  t.workspace = r.text(i, 5);
  t.started_at = r.text(i, 6);
  TRY(t.start, parse_stored(r.text(i, 7), t.run_id, "gate turn start"));
  t.stops = r.int64(i, 8);
  t.blocks = r.int64(i, 9);
  t.transcript_events = r.int64(i, 10);
  t.decision = r.text(i, 11);
  t.verdict = r.text(i, 12);
  t.updated_at = r.text(i, 13);
  return t;
}

Result<std::vector<GateTurn>> gate_turns_from(const Rows& r) {
  std::vector<GateTurn> out;
  for (int i = 0; i < r.size(); ++i) {
    TRY(GateTurn t, gate_turn_from(r, i));
    out.push_back(std::move(t));
  }
  return out;
}

Result<EvalPlan> eval_plan_from(const Rows& r, int i) {
  EvalPlan p;
  p.eval_id = r.text(i, 0);
  p.tasks_digest = r.text(i, 1);
  p.shards = r.int64(i, 2);
  p.created_at = r.text(i, 3);
  TRY(p.tasks, parse_stored(r.text(i, 4), p.eval_id, "eval's tasks"));
  return p;
}

constexpr const char* kEvalAttemptColumns =
    "eval_id, agent, task_id, attempt, state, run_id, claimed, verdict, machine, updated_at, record_json";

Result<EvalAttempt> eval_attempt_from(const Rows& r, int i) {
  EvalAttempt a;
  a.eval_id = r.text(i, 0);
  a.agent = r.text(i, 1);
  a.task_id = r.text(i, 2);
  a.attempt = r.int64(i, 3);
  a.state = r.text(i, 4);
  a.run_id = r.text(i, 5);
  a.claimed = r.text(i, 6);
  a.verdict = r.text(i, 7);
  a.machine = r.text(i, 8);
  a.updated_at = r.text(i, 9);
  TRY(a.record, parse_stored(r.text(i, 10), a.eval_id, "attempt of task " + a.task_id));
  return a;
}

class PostgresRunStore final : public RunStore {
 public:
  PostgresRunStore(std::string dir, std::string url, PGconn* conn)
      : RunStore(std::move(dir)), url_(std::move(url)), conn_(conn) {}
  ~PostgresRunStore() override { PQfinish(conn_); }

  std::string describe() const override { return masked_store_url(url_); }

  // A statement with text parameters; kIo naming `what` (and the store, never its password) when it fails.
  Result<Rows> query(const char* sql, const std::vector<std::string>& params, const std::string& what) const {
    std::vector<const char*> values;
    values.reserve(params.size());
    for (const auto& p : params) values.push_back(p.c_str());
    Rows r(PQexecParams(conn_, sql, static_cast<int>(params.size()), nullptr, values.data(), nullptr, nullptr, 0));
    if (!r.ok()) return error(what, r.message().empty() ? trimmed(PQerrorMessage(conn_)) : r.message());
    return r;
  }
  Error error(const std::string& what, const std::string& why) const {
    return make_error(ErrorCode::kIo, fmt::format("run store {}: {}: {}", describe(), what, why));
  }
  Status exec(const char* sql, const std::string& what) const {
    Rows r(PQexec(conn_, sql));
    if (!r.ok()) return error(what, r.message());
    return ok_status();
  }

  Result<std::int64_t> schema_version() const {
    TRY(Rows exists, query("SELECT to_regclass('candor_schema') IS NOT NULL", {}, "read the schema version"));
    if (exists.text(0, 0) != "t") return std::int64_t{0};
    TRY(Rows v, query("SELECT COALESCE(MAX(version), 0) FROM candor_schema", {}, "read the schema version"));
    return v.int64(0, 0);
  }

  Status migrate() {
    TRY(std::int64_t version, schema_version());
    if (version > kSchemaVersion) {
      return make_error(ErrorCode::kInvalidInput,
                        fmt::format("run store {} was written by a newer candor (schema {}; this candor knows {})",
                                    describe(), version, kSchemaVersion));
    }
    if (version == kSchemaVersion) return ok_status();
    TRY_STATUS(exec("BEGIN", "begin the migration"));
    Status done = [&]() -> Status {
      TRY_STATUS(exec(kMigrationLock, "lock the schema"));
      TRY_STATUS(exec("CREATE TABLE IF NOT EXISTS candor_schema (version BIGINT NOT NULL)", "create candor_schema"));
      TRY(std::int64_t now, schema_version());  // again, under the lock: another process may have migrated
      if (now > kSchemaVersion) {
        return make_error(ErrorCode::kInvalidInput,
                          fmt::format("run store {} was written by a newer candor (schema {})", describe(), now));
      }
      for (std::int64_t next = now + 1; next <= kSchemaVersion; ++next) {
        TRY_STATUS(exec(kMigrations[next - 1], fmt::format("migrate to schema {}", next)));
      }
      TRY_STATUS(exec("DELETE FROM candor_schema", "record the schema version"));
      TRY(Rows set, query("INSERT INTO candor_schema(version) VALUES($1::bigint)", {std::to_string(kSchemaVersion)},
                          "record the schema version"));
      return ok_status();
    }();
    if (!done.ok()) {
      (void)exec("ROLLBACK", "roll back");
      return done;
    }
    return exec("COMMIT", "commit the migration");
  }

  Status insert_run(const std::string& id, const std::string& created_at, const std::string& goal,
                    const std::string& workspace, bool* taken) {
    std::vector<std::string> p{id, created_at, masked(goal), workspace, this_machine()};
    std::vector<const char*> values;
    for (const auto& v : p) values.push_back(v.c_str());
    Rows r(PQexecParams(conn_, "INSERT INTO runs(id, created_at, goal, workspace, machine) VALUES($1,$2,$3,$4,$5)", 5,
                        nullptr, values.data(), nullptr, nullptr, 0));
    if (r.ok()) return ok_status();
    if (taken != nullptr && r.sqlstate() == "23505") {  // unique_violation: the id was drawn twice
      *taken = true;
      return ok_status();
    }
    return error("create run " + id, r.message());
  }

  Status create_run(const std::string& id, const std::string& created_at, const std::string& goal,
                    const std::string& workspace) override {
    return insert_run(id, created_at, goal, workspace, nullptr);
  }

  Result<std::string> create_new_run(std::chrono::system_clock::time_point now, const std::string& created_at,
                                     const std::string& goal, const std::string& workspace) override {
    for (int attempt = 0; attempt <= 16; ++attempt) {
      std::string id = new_run_id(now);
      bool taken = false;
      TRY_STATUS(insert_run(id, created_at, goal, workspace, &taken));
      if (!taken) return id;
    }
    return error("create a run", "no free id after 16 draws");
  }

  Status append(const std::string& run_id, const Event& event) override {
    TRY(Rows r, query("INSERT INTO events(run_id, seq, ts, type, data) VALUES($1,$2::bigint,$3,$4,$5)",
                      {run_id, std::to_string(event.seq), event.ts, event.type, text_of(event.data)},
                      fmt::format("append event {} of {}", event.seq, run_id)));
    return ok_status();
  }

  // A commit on PostgreSQL is durable when it returns (synchronous_commit, the server's setting).
  Status finish_run(const std::string& id, const RunVerdict& v, bool /*sync*/) override {
    TRY(Rows r, query("UPDATE runs SET status=$1, verdict=$2, verdict_by=$3, facts_json=$4, report_json=$5, "
                      "source=$6 WHERE id=$7",
                      {v.status, v.verdict, v.verdict_by, text_of(v.facts), text_of(v.report), run_source(v.facts), id},
                      "finish run " + id));
    if (r.changed() != 1) return make_error(ErrorCode::kNotFound, "run store: no run " + id);
    return ok_status();
  }

  Status remask_events(const std::string& run_id) override {
    if (masker() == nullptr || masker()->empty()) return ok_status();
    TRY(Rows r, query("SELECT seq, data FROM events WHERE run_id = $1", {run_id}, "read the events of " + run_id));
    for (int i = 0; i < r.size(); ++i) {
      std::string data = r.text(i, 1);
      if (!masker()->mask_in_place(data)) continue;
      TRY(Rows u, query("UPDATE events SET data = $1 WHERE run_id = $2 AND seq = $3::bigint",
                        {data, run_id, r.text(i, 0)}, fmt::format("mask event {} of {}", r.text(i, 0), run_id)));
    }
    return ok_status();
  }

  Result<std::vector<RunSummary>> list(int limit, const std::string& verdict, const std::string& since,
                                       const std::string& source) const override {
    std::string sql = fmt::format(
        "SELECT {} FROM runs WHERE ($1 = '' OR verdict = $1) AND ($2 = '' OR created_at >= $2) AND "
        "($4 = '' OR source = $4) ORDER BY created_at DESC, id DESC LIMIT $3::bigint",
        kSummaryColumns);
    TRY(Rows r, query(sql.c_str(), {verdict, since, std::to_string(limit), source}, "list runs"));
    std::vector<RunSummary> out;
    for (int i = 0; i < r.size(); ++i) out.push_back(summary_from(r, i));
    return out;
  }

  Status append_late(const std::string& run_id, const std::string& type, const nlohmann::json& data,
                     const std::string& ts) override {
    TRY(Rows r, query("INSERT INTO events(run_id, seq, ts, type, data) "
                      "SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3, $4 FROM events WHERE run_id = $1",
                      {run_id, ts, type, text_of(data)}, "append event to " + run_id));
    return ok_status();
  }

  Status set_undone(const std::string& id, const nlohmann::json& undone) override {
    TRY(StoredRun run, load(id));
    if (!run.report.is_object())
      return make_error(ErrorCode::kInvalidInput, "run " + id + " has no report to mark undone");
    run.report["undone"] = undone;
    std::string at = undone.contains("at") && undone["at"].is_string() ? undone["at"].get<std::string>() : "";
    TRY(Rows r, query("UPDATE runs SET report_json=$1, undone_at=$2 WHERE id=$3", {text_of(run.report), at, id},
                      "mark run " + id + " undone"));
    return ok_status();
  }

  Result<StoredRun> load(const std::string& id) const override {
    StoredRun run;
    std::string sql = fmt::format(
        "SELECT {}, facts_json, report_json, facts_json IS NULL, report_json IS NULL "
        "FROM runs WHERE id = $1",
        kSummaryColumns);
    TRY(Rows r, query(sql.c_str(), {id}, "load run " + id));
    if (r.size() == 0) return make_error(ErrorCode::kNotFound, "no run " + id);
    run.summary = summary_from(r, 0);
    if (r.text(0, 12) != "t") {
      TRY(run.facts, parse_stored(r.text(0, 10), id, "facts"));
    }
    if (r.text(0, 13) != "t") {
      TRY(run.report, parse_stored(r.text(0, 11), id, "report"));
    }
    TRY(Rows e, query("SELECT seq, ts, type, data FROM events WHERE run_id = $1 ORDER BY seq", {id},
                      fmt::format("load the events of run {}", id)));
    for (int i = 0; i < e.size(); ++i) {
      Event ev;
      ev.seq = e.int64(i, 0);
      ev.ts = e.text(i, 1);
      ev.type = e.text(i, 2);
      TRY(ev.data, parse_stored(e.text(i, 3), id, fmt::format("event {}", ev.seq)));
      run.events.push_back(std::move(ev));
    }
    return run;
  }

  Result<std::vector<std::string>> runs_whose_facts_mention(const std::string& text) const override {
    TRY(Rows r, query("SELECT id FROM runs WHERE facts_json IS NOT NULL AND strpos(facts_json, $1) > 0 "
                      "ORDER BY created_at DESC, id DESC",
                      {text}, "listing the runs that name " + text));
    std::vector<std::string> ids;
    for (int i = 0; i < r.size(); ++i) ids.push_back(r.text(i, 0));
    return ids;
  }

  Result<std::int64_t> count_runs() const override {
    TRY(Rows r, query("SELECT COUNT(*) FROM runs", {}, "count runs"));
    return r.int64(0, 0);
  }

  Result<GateTurn> begin_gate_turn(const GateTurn& t) override {
    TRY(Rows r, query("INSERT INTO gate_turns(agent, session, turn_key, turn, run_id, workspace, started_at, "
                      "start_json, updated_at) VALUES($1,$2,$3,$4::bigint,$5,$6,$7,$8,$9) ON CONFLICT DO NOTHING",
                      {t.agent, t.session, t.turn_key, std::to_string(t.turn), t.run_id, t.workspace, t.started_at,
                       text_of(t.start), t.started_at},
                      "record the gate's turn " + t.turn_key));
    TRY(std::optional<GateTurn> stored, gate_turn(t.agent, t.session, t.turn_key));
    if (!stored) return make_error(ErrorCode::kIo, "run store: the gate's turn " + t.turn_key + " was not recorded");
    return *stored;
  }

  Result<std::optional<GateTurn>> one_turn(const std::string& sql, const std::vector<std::string>& params,
                                           const std::string& what) const {
    TRY(Rows r, query(sql.c_str(), params, what));
    if (r.size() == 0) return std::optional<GateTurn>();
    TRY(GateTurn t, gate_turn_from(r, 0));
    return std::optional<GateTurn>(std::move(t));
  }

  Result<std::optional<GateTurn>> gate_turn(const std::string& agent, const std::string& session,
                                            const std::string& turn_key) const override {
    return one_turn(
        fmt::format("SELECT {} FROM gate_turns WHERE agent = $1 AND session = $2 AND turn_key = $3", kGateTurnColumns),
        {agent, session, turn_key}, "look up the gate's turn " + turn_key);
  }

  Result<std::optional<GateTurn>> latest_gate_turn(const std::string& agent,
                                                   const std::string& session) const override {
    return one_turn(fmt::format("SELECT {} FROM gate_turns WHERE agent = $1 AND session = $2 "
                                "ORDER BY turn DESC, started_at DESC LIMIT 1",
                                kGateTurnColumns),
                    {agent, session}, "look up the gate's last turn of session " + session);
  }

  Result<std::vector<GateTurn>> open_gate_turns(const std::string& agent, const std::string& session) const override {
    std::string sql = fmt::format(
        "SELECT {} FROM gate_turns WHERE agent = $1 AND session = $2 AND decision NOT IN ('allow', 'superseded') AND "
        "(start_json::jsonb -> 'fallback') IS NULL ORDER BY turn ASC, started_at ASC",
        kGateTurnColumns);
    TRY(Rows r, query(sql.c_str(), {agent, session}, "list the gate's open turns of session " + session));
    return gate_turns_from(r);
  }

  Status close_gate_turn(const GateTurn& key, const std::string& decision, const std::string& updated_at) override {
    TRY(Rows r,
        query("UPDATE gate_turns SET decision = $1, updated_at = $2 WHERE agent = $3 AND session = $4 AND "
              "turn_key = $5",
              {decision, updated_at, key.agent, key.session, key.turn_key}, "close the gate's turn " + key.turn_key));
    return ok_status();
  }

  Result<std::int64_t> count_gate_turns(const std::string& agent, const std::string& session) const override {
    TRY(Rows r, query("SELECT COUNT(*) FROM gate_turns WHERE agent = $1 AND session = $2", {agent, session},
                      "count the gate's turns of session " + session));
    return r.int64(0, 0);
  }

  Result<std::optional<GateTurn>> latest_gate_turn_with_config(const std::string& workspace) const override {
    return one_turn(fmt::format("SELECT {} FROM gate_turns WHERE workspace = $1 AND "
                                "jsonb_typeof(start_json::jsonb -> 'config_text') = 'string' AND "
                                "COALESCE(start_json::jsonb ->> 'config_error', '') = '' "
                                "ORDER BY started_at DESC LIMIT 1",
                                kGateTurnColumns),
                    {workspace}, "look up the gate's last config of " + workspace);
  }

  Status record_gate_stop(const GateTurn& key, bool blocked, const std::string& decision, const std::string& verdict,
                          std::int64_t transcript_events, const std::string& run_id,
                          const std::string& updated_at) override {
    TRY(Rows r, query("UPDATE gate_turns SET stops = stops + 1, blocks = blocks + $1::bigint, decision = $2, "
                      "verdict = $3, transcript_events = $4::bigint, run_id = $5, updated_at = $6 "
                      "WHERE agent = $7 AND session = $8 AND turn_key = $9",
                      {blocked ? "1" : "0", decision, verdict, std::to_string(transcript_events), run_id, updated_at,
                       key.agent, key.session, key.turn_key},
                      "record a stop of the gate's turn " + key.turn_key));
    if (r.changed() != 1) return make_error(ErrorCode::kNotFound, "run store: no gate turn " + key.turn_key);
    return ok_status();
  }

  Result<std::vector<GateTurn>> list_gate_turns(int limit) const override {
    std::string sql = fmt::format(
        "SELECT {} FROM gate_turns ORDER BY updated_at DESC, started_at DESC LIMIT $1::bigint", kGateTurnColumns);
    TRY(Rows r, query(sql.c_str(), {std::to_string(limit)}, "list the gate's turns"));
    return gate_turns_from(r);
  }

  Result<std::set<std::string>> gate_runs_to_keep() const override {
    TRY(Rows r, query("SELECT run_id FROM gate_turns WHERE decision NOT IN ('allow', 'superseded') UNION SELECT "
                      "run_id FROM gate_turns g WHERE turn = "
                      "(SELECT MAX(turn) FROM gate_turns h WHERE h.agent = g.agent AND h.session = g.session)",
                      {}, "list the gate's open turns"));
    std::set<std::string> out;
    for (int i = 0; i < r.size(); ++i) out.insert(r.text(i, 0));
    return out;
  }

  Result<EvalPlan> register_eval(const EvalPlan& plan) override {
    TRY(Rows r,
        query("INSERT INTO evals(eval_id, tasks_digest, shards, created_at, tasks_json) "
              "VALUES($1,$2,$3::bigint,$4,$5) ON CONFLICT DO NOTHING",
              {plan.eval_id, plan.tasks_digest, std::to_string(plan.shards), plan.created_at, text_of(plan.tasks)},
              "record eval " + plan.eval_id));
    TRY(std::optional<EvalPlan> stored, eval_plan(plan.eval_id));
    if (!stored) return make_error(ErrorCode::kIo, "run store: eval " + plan.eval_id + " was not recorded");
    return *stored;
  }

  Result<std::optional<EvalPlan>> eval_plan(const std::string& eval_id) const override {
    TRY(Rows r, query("SELECT eval_id, tasks_digest, shards, created_at, tasks_json FROM evals WHERE eval_id = $1",
                      {eval_id}, "look up eval " + eval_id));
    if (r.size() == 0) return std::optional<EvalPlan>();
    TRY(EvalPlan p, eval_plan_from(r, 0));
    return std::optional<EvalPlan>(std::move(p));
  }

  Result<std::vector<EvalPlan>> list_evals(int limit) const override {
    TRY(Rows r, query("SELECT eval_id, tasks_digest, shards, created_at, tasks_json FROM evals "
                      "ORDER BY created_at DESC, eval_id DESC LIMIT $1::bigint",
                      {std::to_string(limit)}, "list evals"));
    std::vector<EvalPlan> out;
    for (int i = 0; i < r.size(); ++i) {
      TRY(EvalPlan p, eval_plan_from(r, i));
      out.push_back(std::move(p));
    }
    return out;
  }

  Status put_eval_attempt(const EvalAttempt& a) override {
    std::string sql = fmt::format(
        "INSERT INTO eval_attempts({}) VALUES($1,$2,$3,$4::bigint,$5,$6,$7,$8,$9,$10,$11) "
        "ON CONFLICT (eval_id, agent, task_id, attempt) DO UPDATE SET state = EXCLUDED.state, run_id = "
        "EXCLUDED.run_id, claimed = EXCLUDED.claimed, verdict = EXCLUDED.verdict, machine = EXCLUDED.machine, "
        "updated_at = EXCLUDED.updated_at, record_json = EXCLUDED.record_json",
        kEvalAttemptColumns);
    TRY(Rows r, query(sql.c_str(),
                      {a.eval_id, a.agent, a.task_id, std::to_string(a.attempt), a.state, a.run_id, a.claimed,
                       a.verdict, a.machine, a.updated_at, text_of(a.record)},
                      fmt::format("record attempt {} of task {} of eval {}", a.attempt, a.task_id, a.eval_id)));
    return ok_status();
  }

  Result<std::vector<EvalAttempt>> eval_attempts(const std::string& eval_id) const override {
    std::string sql = fmt::format("SELECT {} FROM eval_attempts WHERE eval_id = $1 ORDER BY agent, task_id, attempt",
                                  kEvalAttemptColumns);
    TRY(Rows r, query(sql.c_str(), {eval_id}, "list the attempts of eval " + eval_id));
    std::vector<EvalAttempt> out;
    for (int i = 0; i < r.size(); ++i) {
      TRY(EvalAttempt a, eval_attempt_from(r, i));
      out.push_back(std::move(a));
    }
    return out;
  }

  Status remove_runs(const std::vector<std::string>& ids) override {
    constexpr std::size_t kPerTransaction = 50;
    for (std::size_t from = 0; from < ids.size(); from += kPerTransaction) {
      TRY_STATUS(exec("BEGIN", "remove runs"));
      Status done = ok_status();
      for (std::size_t i = from; i < ids.size() && i < from + kPerTransaction && done.ok(); ++i) {
        for (const char* sql : {"DELETE FROM events WHERE run_id = $1", "DELETE FROM gate_turns WHERE run_id = $1",
                                "DELETE FROM runs WHERE id = $1"}) {
          auto r = query(sql, {ids[i]}, "remove run " + ids[i]);
          if (!r.ok()) {
            done = r.error();
            break;
          }
        }
      }
      if (!done.ok()) {
        (void)exec("ROLLBACK", "roll back");
        return done;
      }
      TRY_STATUS(exec("COMMIT", "remove runs"));
    }
    return ok_status();
  }

  // The server's autovacuum gives removed rows' space back; a VACUUM FULL would lock every writer.
  Result<bool> compact() override { return false; }

 private:
  Result<std::vector<Candidate>> runs_at_or_above(const std::string& workspace) const override {
    TRY(Rows r, query("SELECT id, workspace, source FROM runs WHERE workspace = $1 OR strpos($1, workspace) = 1 "
                      "ORDER BY created_at DESC, id DESC",
                      {workspace}, "look up the last run of " + workspace));
    std::vector<Candidate> out;
    for (int i = 0; i < r.size(); ++i) out.push_back({r.text(i, 0), r.text(i, 1), r.text(i, 2)});
    return out;
  }

  Result<std::vector<std::string>> ids_matching(const std::string& ref, int limit) const override {
    TRY(Rows r, query("SELECT id FROM runs WHERE left(id, length($1)) = $1 OR right(id, length($1)) = $1 "
                      "ORDER BY id LIMIT $2::bigint",
                      {ref, std::to_string(limit)}, fmt::format("look up run \"{}\"", ref)));
    std::vector<std::string> ids;
    for (int i = 0; i < r.size(); ++i) ids.push_back(r.text(i, 0));
    return ids;
  }

  std::string url_;
  PGconn* conn_;
};

void ignore_notice(void* /*arg*/, const char* /*message*/) {}

}  // namespace

Result<std::unique_ptr<RunStore>> open_postgres_store(const std::string& url, const std::string& dir) {
  PGconn* conn = PQconnectdb(url.c_str());
  if (conn == nullptr) return make_error(ErrorCode::kUnavailable, "run store: out of memory connecting");
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string why = trimmed(PQerrorMessage(conn));
    PQfinish(conn);
    return make_error(ErrorCode::kUnavailable,
                      fmt::format("run store {}: cannot connect: {} (libpq's settings give what the URL leaves out: "
                                  "PGPASSFILE, PGSSLMODE, ...)",
                                  masked_store_url(url), why));
  }
  // "relation ... already exists, skipping" and the like are the server's business, not the user's.
  PQsetNoticeProcessor(conn, ignore_notice, nullptr);
  auto store = std::make_unique<PostgresRunStore>(dir, url, conn);
  TRY_STATUS(store->migrate());
  return std::unique_ptr<RunStore>(std::move(store));
}

}  // namespace candor::store
