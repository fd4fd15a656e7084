// The run store on both backends (SQLite in a folder, PostgreSQL over its Unix socket), measured in
// the same run: one run's write (create, 30 events, finish), the listing `candor runs` makes over a
// store of 100 runs and of RUNS, and the eval attempts `candor eval report` reads (10,000).
// Usage: team_store SQLITE_DIR POSTGRES_URL [RUNS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "store/run_store.h"

namespace {

using Clock = std::chrono::steady_clock;
using candor::store::RunStore;

const nlohmann::json kReport = {{"reasons", {std::string(300, 'r')}},
                                {"steps", {{"planned", 6}}},
                                {"mutations", nlohmann::json::array()},
                                {"pad", std::string(8000, 'p')}};
const nlohmann::json kFacts = {{"source", "eval"}, {"steps", std::vector<int>(50, 1)}, {"pad", std::string(4000, 'f')}};

double median(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

double median_ms(int times, const std::function<void()>& f) {
  std::vector<double> t;
  for (int i = 0; i < times; ++i) {
    auto a = Clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - a).count());
  }
  return median(t);
}

// One run as candor writes it: created, its events one by one, finished (synced).
void write_run(RunStore& s) {
  auto id = s.create_new_run(std::chrono::system_clock::now(), "2026-06-01T00:00:00.000Z", "goal", "/ws");
  if (!id.ok()) throw std::runtime_error(id.error().message);
  for (int e = 1; e <= 30; ++e) {
    candor::Event ev;
    ev.seq = e;
    ev.ts = "2026-06-01T00:00:00.000Z";
    ev.type = "step_finished";
    ev.data = {{"step", e}, {"out", std::string(300, 'o')}};
    if (auto st = s.append(*id, ev); !st.ok()) throw std::runtime_error(st.error().message);
  }
  if (auto st = s.finish_run(*id, {"completed", "success", "tier1", kFacts, kReport}); !st.ok())
    throw std::runtime_error(st.error().message);
}

void fill(RunStore& s, int n, int from) {
  const char* verdicts[] = {"success", "partial", "fail"};
  const char* sources[] = {"run", "gate", "git", "eval"};
  nlohmann::json facts = kFacts;
  for (int i = from; i < from + n; ++i) {
    std::string id = fmt::format("20260101T{:06}-{:06x}", i, i);
    std::string created = fmt::format("2026-01-01T00:00:00.000Z+{:08}", i);  // sortable, increasing
    (void)s.create_run(id, created, "goal " + std::to_string(i), "/ws");
    facts["source"] = sources[i % 4];
    (void)s.finish_run(id, {"completed", verdicts[i % 3], "tier1", facts, kReport}, /*sync=*/false);
  }
}

void fill_attempts(RunStore& s, const std::string& eval, int n) {
  (void)s.register_eval({.eval_id = eval, .tasks_digest = "d", .shards = 10, .created_at = "2026-06-01"});
  for (int i = 0; i < n; ++i) {
    candor::store::EvalAttempt a{.eval_id = eval,
                                 .task_id = fmt::format("task-{:05}", i / 2),
                                 .attempt = i % 2 + 1,
                                 .agent = i % 3 == 0 ? "codex" : "claude-code",
                                 .state = "done",
                                 .run_id = fmt::format("20260101T{:06}-{:06x}", i, i),
                                 .claimed = "success",
                                 .verdict = i % 3 == 0 ? "partial" : "success"};
    a.record = {{"answer", std::string(200, 'a')}, {"first_finding", std::string(150, 'f')}, {"wall_s", 30.5}};
    (void)s.put_eval_attempt(a);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s SQLITE_DIR POSTGRES_URL [RUNS]\n", argv[0]);
    return 64;
  }
  const int runs = argc > 3 ? std::atoi(argv[3]) : 100000;
  struct Backend {
    const char* name;
    std::string small, large;
  } backends[] = {{"sqlite", std::string(argv[1]) + "/small", std::string(argv[1]) + "/large"},
                  {"postgres", argv[2], argv[2]}};
  for (const auto& b : backends) {
    auto large = RunStore::open(b.large);
    if (!large.ok()) {
      std::fprintf(stderr, "%s\n", large.error().message.c_str());
      return 70;
    }
    double write = median_ms(41, [&] { write_run(**large); });
    std::printf("%-8s one run's write (create, 30 events, finish): %.2f ms (median of 41)\n", b.name, write);
    auto t0 = Clock::now();
    fill(**large, runs, 0);
    fill_attempts(**large, "bench-eval", 10000);
    std::printf("%-8s filled %d runs and 10,000 eval attempts in %.1f s\n", b.name, runs,
                std::chrono::duration<double>(Clock::now() - t0).count());
    double attempts = median_ms(11, [&] { (void)(*large)->eval_attempts("bench-eval"); });
    std::printf("%-8s the 10,000 attempts `eval report` reads: %.1f ms (median of 11)\n", b.name, attempts);
    double newest = median_ms(21, [&] { (void)(*large)->list(20); });
    double gate = median_ms(21, [&] { (void)(*large)->list(20, "", "", "gate"); });
    std::printf("%-8s the newest 20 of %d runs: %.3f ms; --source gate: %.3f ms (medians of 21)\n", b.name, runs,
                newest, gate);
  }
  return 0;
}
