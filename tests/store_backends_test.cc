// The run store's contract, checked on both backends: SQLite (suite `store`) and PostgreSQL on a
// real server started for the suite (suite `postgres`, tests/postgres_fixture.h). Each check takes a
// function that gives a fresh, empty store's location (a folder or a URL).
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "core/secret_masker.h"
#include "store/run_store.h"
#include "tests/postgres_fixture.h"
#include "tests/test_support.h"

using namespace candor;
using candor::testing::make_temp_dir;

namespace {

using NewStore = std::function<std::string()>;

std::unique_ptr<store::RunStore> open(const std::string& where) {
  auto s = store::RunStore::open(where);
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
  return std::move(s.value());
}

Event event(std::int64_t seq, const std::string& type, nlohmann::json data) {
  Event e;
  e.seq = seq;
  e.ts = fmt::format("2026-01-01T00:00:{:02}.000Z", seq);
  e.type = type;
  e.data = std::move(data);
  return e;
}

// The time a run is created at, ordered by `n`.
std::string at(int n) { return fmt::format("2026-01-01T00:{:02}:{:02}.000Z", n / 60, n % 60); }

std::string finished_run(store::RunStore& s, int n, const std::string& source, const std::string& verdict,
                         const std::string& workspace = "/ws") {
  std::string id = fmt::format("20260101T0000{:02}-{:06x}", n % 60, 0xa00000 + n);
  REQUIRE(s.create_run(id, at(n), fmt::format("goal {}", n), workspace).ok());
  REQUIRE(s.append(id, event(1, "run_started", {{"n", n}})).ok());
  REQUIRE(s.append(id, event(2, "step_finished", {{"ok", true}})).ok());
  nlohmann::json facts = {{"source", source}, {"workspace", workspace}};
  REQUIRE(s.finish_run(id, {"completed", verdict, "tier1", facts, {{"verdict", verdict}}}).ok());
  return id;
}

void check_runs(const NewStore& new_store) {
  auto s = open(new_store());
  const std::string a = finished_run(*s, 1, "exec", "success");
  const std::string b = finished_run(*s, 2, "gate", "partial");
  const std::string c = finished_run(*s, 3, "eval", "fail", "/repo");
  auto running = s->create_new_run(std::chrono::system_clock::now(), at(4), "still going", "/ws");
  REQUIRE(running.ok());

  auto all = s->list(10);
  REQUIRE(all.ok());
  REQUIRE(all->size() == 4);
  CHECK(all->front().id == *running);  // newest first
  CHECK(all->front().source.empty());  // known when the run ends
  CHECK(all->back().id == a);
  CHECK(all->back().machine == store::this_machine());

  auto gate = s->list(10, "", "", "gate");
  REQUIRE(gate.ok());
  REQUIRE(gate->size() == 1);
  CHECK(gate->front().id == b);
  CHECK(gate->front().verdict == "partial");
  auto failed_evals = s->list(10, "fail", at(3), "eval");
  REQUIRE(failed_evals.ok());
  REQUIRE(failed_evals->size() == 1);
  CHECK(failed_evals->front().id == c);
  CHECK(s->list(10, "success", "", "eval")->empty());
  CHECK(s->list(1)->size() == 1);

  CHECK(*s->count_runs() == 4);
  CHECK(*s->resolve("last") == *running);
  CHECK(*s->resolve(a.substr(0, 15)) == a);         // a unique prefix
  CHECK(*s->resolve(b.substr(b.size() - 6)) == b);  // a unique suffix (the random part)
  auto several = s->resolve("2026");
  REQUIRE_FALSE(several.ok());
  CHECK(several.error().code == ErrorCode::kInvalidInput);
  auto none = s->resolve("2099");
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().code == ErrorCode::kNotFound);
  CHECK(*s->resolve("last", "/repo") == c);
  CHECK(*s->resolve("last", "/ws") == *running);

  auto loaded = s->load(c);
  REQUIRE(loaded.ok());
  CHECK(loaded->summary.source == "eval");
  CHECK(loaded->summary.goal == "goal 3");
  CHECK(loaded->facts["workspace"] == "/repo");
  CHECK(loaded->report["verdict"] == "fail");
  REQUIRE(loaded->events.size() == 2);
  CHECK(loaded->events[1].type == "step_finished");
  CHECK(loaded->events[1].data["ok"] == true);
  auto never_ended = s->load(*running);
  REQUIRE(never_ended.ok());
  CHECK(never_ended->facts.is_null());
  CHECK(never_ended->report.is_null());
  CHECK(s->load("20990101T000000-000000").error().code == ErrorCode::kNotFound);

  REQUIRE(s->append_late(c, "verified", {{"again", true}}, at(9)).ok());
  REQUIRE(s->set_undone(a, {{"at", at(10)}, {"restored", 1}}).ok());
  CHECK(s->load(c)->events.back().seq == 3);
  CHECK(s->list(10, "success")->front().undone_at == at(10));
  CHECK(s->load(a)->report["undone"]["restored"] == 1);
  auto mention = s->runs_whose_facts_mention("/repo");
  REQUIRE(mention.ok());
  CHECK(*mention == std::vector<std::string>{c});

  // A value learned late is masked in the events already written.
  REQUIRE(s->append(*running, event(1, "tool_called", {{"out", "token=hunter2-secret-value"}})).ok());
  auto masker = std::make_shared<SecretMasker>();
  masker->add("hunter2-secret-value");
  s->set_masker(masker);
  REQUIRE(s->remask_events(*running).ok());
  CHECK(s->load(*running)->events[0].data["out"] == "token=***");

  REQUIRE(s->remove_runs({a, b, "20990101T000000-000000"}).ok());
  CHECK(*s->count_runs() == 2);
  CHECK(s->load(a).error().code == ErrorCode::kNotFound);
}

void check_gate_turns(const NewStore& new_store) {
  auto s = open(new_store());
  store::GateTurn t{.agent = "codex",
                    .session = "s1",
                    .turn_key = "k1",
                    .turn = 1,
                    .run_id = "20260101T000001-aaaaaa",
                    .workspace = "/ws",
                    .started_at = at(1),
                    .start = {{"config_text", "{}"}}};
  auto first = s->begin_gate_turn(t);
  REQUIRE(first.ok());
  store::GateTurn forged = t;
  forged.start = {{"config_text", "{\"forged\": true}"}};
  auto second = s->begin_gate_turn(forged);  // the first start of a turn stands
  REQUIRE(second.ok());
  CHECK(second->start == t.start);
  store::GateTurn t2 = t;
  t2.turn_key = "k2";
  t2.turn = 2;
  t2.run_id = "20260101T000002-bbbbbb";
  t2.started_at = at(2);
  t2.start = {{"fallback", true}};
  REQUIRE(s->begin_gate_turn(t2).ok());

  auto open_turns = s->open_gate_turns("codex", "s1");
  REQUIRE(open_turns.ok());
  REQUIRE(open_turns->size() == 1);  // a fallback's start is no open turn
  CHECK(open_turns->front().turn_key == "k1");
  CHECK(s->latest_gate_turn("codex", "s1")->value().turn_key == "k2");
  CHECK(s->latest_gate_turn_with_config("/ws")->value().turn_key == "k1");
  CHECK(*s->count_gate_turns("codex", "s1") == 2);
  CHECK_FALSE(s->gate_turn("codex", "s1", "nope")->has_value());

  REQUIRE(s->record_gate_stop(t, true, "block", "partial", 7, t.run_id, at(3)).ok());
  REQUIRE(s->record_gate_stop(t, false, "allow", "success", 9, t.run_id, at(4)).ok());
  auto stopped = s->gate_turn("codex", "s1", "k1");
  REQUIRE(stopped.ok());
  CHECK(stopped->value().stops == 2);
  CHECK(stopped->value().blocks == 1);
  CHECK(stopped->value().transcript_events == 9);
  CHECK(stopped->value().decision == "allow");
  CHECK(s->open_gate_turns("codex", "s1")->empty());
  CHECK(s->record_gate_stop({.agent = "codex", .session = "s1", .turn_key = "nope"}, false, "allow", "", 0, "", at(5))
            .error()
            .code == ErrorCode::kNotFound);
  auto keep = s->gate_runs_to_keep();
  REQUIRE(keep.ok());
  CHECK(*keep == std::set<std::string>{t2.run_id});  // the session's latest turn
  REQUIRE(s->close_gate_turn(t2, "superseded", at(6)).ok());
  CHECK(s->list_gate_turns(10)->front().turn_key == "k2");
}

void check_evals(const NewStore& new_store) {
  auto s = open(new_store());
  store::EvalPlan plan{.eval_id = "ci-42",
                       .tasks_digest = "d1",
                       .shards = 3,
                       .created_at = at(1),
                       .tasks = {{{"id", "a"}, {"shard", 0}}, {{"id", "b"}, {"shard", 2}}}};
  auto first = s->register_eval(plan);
  REQUIRE(first.ok());
  store::EvalPlan other = plan;
  other.tasks_digest = "d2";
  auto stored = s->register_eval(other);  // the first shard's task list stands
  REQUIRE(stored.ok());
  CHECK(stored->tasks_digest == "d1");
  CHECK(stored->tasks == plan.tasks);
  CHECK(stored->shards == 3);
  CHECK_FALSE(s->eval_plan("nope")->has_value());

  store::EvalAttempt attempt{.eval_id = "ci-42", .task_id = "b", .attempt = 1, .agent = "codex", .state = "running"};
  attempt.machine = "host-a";
  attempt.updated_at = at(2);
  REQUIRE(s->put_eval_attempt(attempt).ok());
  attempt.state = "done";
  attempt.run_id = "20260101T000003-cccccc";
  attempt.claimed = "success";
  attempt.verdict = "fail";
  attempt.record = {{"cheats", {"weakened test"}}, {"wall_s", 12.5}};
  REQUIRE(s->put_eval_attempt(attempt).ok());  // the same key: written again, never twice
  store::EvalAttempt second = attempt;
  second.attempt = 2;
  REQUIRE(s->put_eval_attempt(second).ok());
  store::EvalAttempt claude = attempt;
  claude.agent = "claude-code";
  claude.task_id = "a";
  REQUIRE(s->put_eval_attempt(claude).ok());

  auto attempts = s->eval_attempts("ci-42");
  REQUIRE(attempts.ok());
  REQUIRE(attempts->size() == 3);
  CHECK((*attempts)[0].agent == "claude-code");
  CHECK((*attempts)[1].agent == "codex");
  CHECK((*attempts)[1].attempt == 1);
  CHECK((*attempts)[1].state == "done");
  CHECK((*attempts)[1].verdict == "fail");
  CHECK((*attempts)[1].claimed == "success");
  CHECK((*attempts)[1].machine == "host-a");
  CHECK((*attempts)[1].record["cheats"][0] == "weakened test");
  CHECK((*attempts)[2].attempt == 2);
  CHECK(s->eval_attempts("other")->empty());
  REQUIRE(s->register_eval({.eval_id = "ci-43", .tasks_digest = "d", .shards = 1, .created_at = at(5)}).ok());
  auto evals = s->list_evals(10);
  REQUIRE(evals.ok());
  REQUIRE(evals->size() == 2);
  CHECK(evals->front().eval_id == "ci-43");
}

// Writers in several threads, each with its own connection, as shards and gate hooks write at once.
void check_concurrent_writers(const NewStore& new_store) {
  const std::string where = new_store();
  (void)open(where);  // made and migrated once, as the first process would
  constexpr int kWriters = 4, kRuns = 25;
  std::vector<std::string> errors(kWriters);
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      auto s = store::RunStore::open(where);
      if (!s.ok()) {
        errors[w] = s.error().message;
        return;
      }
      for (int i = 0; i < kRuns && errors[w].empty(); ++i) {
        auto id = (*s)->create_new_run(std::chrono::system_clock::now(), at(i), "goal", "/ws");
        Status done = id.ok() ? (*s)->append(*id, event(1, "run_started", {})) : Status(id.error());
        if (done.ok()) done = (*s)->finish_run(*id, {"completed", "success", "tier1", {{"source", "run"}}, {}});
        if (done.ok()) {
          done = (*s)->put_eval_attempt({.eval_id = "e",
                                         .task_id = fmt::format("t{}", i),
                                         .attempt = 1,
                                         .agent = fmt::format("a{}", w),
                                         .state = "done",
                                         .run_id = *id});
        }
        if (!done.ok()) errors[w] = done.error().message;
      }
    });
  }
  for (auto& t : writers) t.join();
  for (const auto& e : errors) CHECK_MESSAGE(e.empty(), e);
  auto s = open(where);
  CHECK(*s->count_runs() == kWriters * kRuns);
  CHECK(s->eval_attempts("e")->size() == static_cast<std::size_t>(kWriters * kRuns));
}

NewStore sqlite_stores() {
  return [] { return make_temp_dir("store"); };
}

NewStore postgres_stores() {
  return [] { return candor::testing::new_postgres_database(); };
}

}  // namespace

TEST_SUITE("store") {
  TEST_CASE("the SQLite store keeps runs, their source, gate turns and evals as the store's contract says") {
    check_runs(sqlite_stores());
    check_gate_turns(sqlite_stores());
    check_evals(sqlite_stores());
  }
  TEST_CASE("the SQLite store takes writers in several threads at once") { check_concurrent_writers(sqlite_stores()); }

  TEST_CASE("a store URL's password never reaches a message") {
    const std::vector<std::pair<std::string, std::string>> rows = {
        {"postgres://u:pw@h/db", "postgres://u:***@h/db"},
        {"postgresql://u:p%40ss@h:5432/db?sslmode=verify-full", "postgresql://u:***@h:5432/db?sslmode=verify-full"},
        {"postgresql://u@h/db", "postgresql://u@h/db"},
        {"postgresql:///db?host=/run/pg&password=hunter2&user=x", "postgresql:///db?host=/run/pg&password=***&user=x"},
        {"postgresql:///db?sslpassword=k&notpassword=keep", "postgresql:///db?sslpassword=***&notpassword=keep"},
        {"postgresql://h/db?password=a@b", "postgresql://h/db?password=***"},
    };
    for (const auto& [url, masked] : rows) {
      CAPTURE(url);
      CHECK(store::masked_store_url(url) == masked);
    }
  }

  TEST_CASE("where runs are stored: --store, else CANDOR_STORE_URL, else the folder; snapshots stay local") {
    auto env = [](const char* name) -> std::string {
      std::string n = name;
      if (n == "CANDOR_STORE_URL") return "postgresql:///team";
      if (n == "CANDOR_HOME") return "/home/u/.candor";
      return "";
    };
    auto given_url = store::store_location("postgres://h/db", env);
    CHECK(given_url.url == "postgres://h/db");
    CHECK(given_url.dir == "/home/u/.candor");
    auto given_dir = store::store_location("/tmp/s", env);
    CHECK(given_dir.url.empty());
    CHECK(given_dir.dir == "/tmp/s");
    auto from_env = store::store_location("", env);
    CHECK(from_env.url == "postgresql:///team");
    CHECK(from_env.dir == "/home/u/.candor");
    auto none = store::store_location("", [](const char* n) { return std::string(n) == "HOME" ? "/h" : ""; });
    CHECK(none.url.empty());
    CHECK(none.dir == "/h/.local/state/candor");
  }

  TEST_CASE("a PostgreSQL store that cannot be reached is an error naming it, never its password") {
    // A socket folder with no server: libpq fails at once, with nothing sent anywhere.
    std::string dir = make_temp_dir("nopg");
    auto s = store::RunStore::open("postgresql://candor:s3cret-pw@/db?host=" + dir + "&connect_timeout=2");
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().code == ErrorCode::kUnavailable);
    CHECK(s.error().message.find("s3cret-pw") == std::string::npos);
    CHECK(s.error().message.find("candor:***@") != std::string::npos);
    CHECK(s.error().message.find("cannot connect") != std::string::npos);
  }
}

TEST_SUITE("postgres") {
  TEST_CASE("the PostgreSQL store keeps runs, their source, gate turns and evals as the store's contract says") {
    check_runs(postgres_stores());
    check_gate_turns(postgres_stores());
    check_evals(postgres_stores());
  }
  TEST_CASE("the PostgreSQL store takes writers in several threads at once") {
    check_concurrent_writers(postgres_stores());
  }
  TEST_CASE("a PostgreSQL store written by a newer candor is refused, naming its schema") {
    std::string url = candor::testing::new_postgres_database();
    (void)open(url);
    auto psql = candor::testing::run_command({"/usr/bin/psql", url, "-qc", "UPDATE candor_schema SET version = 99"});
    REQUIRE_MESSAGE(psql.exit_code == 0, psql.err);
    auto s = store::RunStore::open(url);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().code == ErrorCode::kInvalidInput);
    CHECK(s.error().message.find("newer candor (schema 99") != std::string::npos);
  }
}
