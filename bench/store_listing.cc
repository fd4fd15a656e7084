// `candor runs` on a store of 10,000 runs: the listing query, filtered and not, against the same
// queries on a store of 100 runs, measured in the same run. With the indexes the ratio stays near
// 1; without them it would grow with the store.
// Usage: store_listing DIR [RUNS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/clock.h"
#include "store/run_store.h"

namespace {

using Clock = std::chrono::steady_clock;

void fill(candor::store::RunStore& s, int n) {
  nlohmann::json report = {
      {"reasons", {std::string(300, 'r')}}, {"steps", {{"planned", 6}}}, {"mutations", nlohmann::json::array()}};
  nlohmann::json facts = {{"steps", std::vector<int>(50, 1)}, {"pad", std::string(2000, 'f')}};
  const char* verdicts[] = {"success", "partial", "fail"};
  for (int i = 0; i < n; ++i) {
    std::string id = fmt::format("20260101T{:06}-{:06x}", i, i);
    std::string created = fmt::format("2026-01-01T00:00:00.000Z+{:08}", i);  // sortable, increasing
    (void)s.create_run(id, created, "goal " + std::to_string(i), "/ws");
    (void)s.finish_run(id, {"completed", verdicts[i % 3], "tier1", facts, report});
  }
}

double median_ms(const std::function<void()>& f) {
  std::vector<double> t;
  for (int i = 0; i < 21; ++i) {
    auto a = Clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [RUNS]\n", argv[0]);
    return 64;
  }
  int runs = argc > 2 ? std::atoi(argv[2]) : 10000;
  std::string dir = argv[1];
  auto small = candor::store::RunStore::open(dir + "/small");
  auto large = candor::store::RunStore::open(dir + "/large");
  if (!small.ok() || !large.ok()) return 70;
  auto t0 = Clock::now();
  fill(**small, 100);
  fill(**large, runs);
  std::printf("filled stores of 100 and %d runs in %.1f s\n", runs,
              std::chrono::duration<double>(Clock::now() - t0).count());
  struct Query {
    const char* name;
    std::string verdict, since;
  } queries[] = {{"newest 20", "", ""},
                 {"--verdict partial", "partial", ""},
                 {"--since (last 10%)", "", fmt::format("2026-01-01T00:00:00.000Z+{:08}", runs * 9 / 10)}};
  for (const auto& q : queries) {
    double s = median_ms([&] { (void)(*small)->list(20, q.verdict, q.since); });
    double l = median_ms([&] { (void)(*large)->list(20, q.verdict, q.since); });
    std::printf("%-20s 100 runs %.3f ms, %d runs %.3f ms, ratio %.2fx\n", q.name, s, runs, l, l / s);
  }
  return 0;
}
