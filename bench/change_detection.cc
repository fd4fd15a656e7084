// Change detection after a step, against `git status` on the same tree in the same run.
// Usage: change_detection STORE_DIR WORKSPACE ITERATIONS
// Each iteration edits one file, then times `git status --porcelain` and candor's scan (the call
// the executor makes after every effect step) on that same state, alternating which goes first. Prints both medians and
// their ratio. Run it through bench/change_detection.sh, which builds the workspace.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "sandbox/process.h"
#include "snapshot/store.h"

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void touch(const std::string& path, int i) { std::ofstream(path, std::ios::app) << "edit " << i << "\n"; }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s STORE_DIR WORKSPACE ITERATIONS\n", argv[0]);
    return 64;
  }
  std::string store = argv[1], ws = argv[2];
  int iterations = std::max(1, std::atoi(argv[3]));
  using clock = std::chrono::steady_clock;

  auto t0 = clock::now();
  auto snap = candor::snapshot::SnapshotStore::open(store, ws, candor::system_clock());
  if (!snap.ok()) {
    std::fprintf(stderr, "%s\n", snap.error().message.c_str());
    return 70;
  }
  auto first = (*snap)->scan();  // a first scan: seeded from the workspace's index, the rest hashed
  if (!first.ok()) {
    std::fprintf(stderr, "%s\n", first.error().message.c_str());
    return 70;
  }
  double initial = std::chrono::duration<double>(clock::now() - t0).count();
  std::printf("first snapshot (a store that never saw the workspace): %.2f s, %zu paths\n", initial, first->size());
  auto f0 = clock::now();
  if (auto frozen = (*snap)->freeze_ignore_rules({}); !frozen.ok()) {  // as the executor does next
    std::fprintf(stderr, "%s\n", frozen.error().message.c_str());
    return 70;
  }
  std::printf("freezing the ignore rules: %.2f s\n", std::chrono::duration<double>(clock::now() - f0).count());

  std::vector<double> git, candor;
  for (int i = 0; i < iterations; ++i) {
    touch(ws + "/d" + std::to_string(i % 100) + "/f1.txt", i);
    auto time_candor = [&]() -> bool {
      auto c0 = clock::now();
      auto scan = (*snap)->scan();
      candor.push_back(std::chrono::duration<double>(clock::now() - c0).count());
      if (!scan.ok() || scan->size() != 1) {
        std::fprintf(stderr, "scan did not see exactly the one edited file\n");
        return false;
      }
      return true;
    };
    if (i % 2 == 1 && !time_candor()) return 70;
    candor::sandbox::ProcessSpec spec;
    spec.argv = {"git", "status", "--porcelain"};
    spec.cwd = ws;
    spec.timeout = std::chrono::seconds(300);
    auto g0 = clock::now();
    auto r = candor::sandbox::run_process(spec);
    git.push_back(std::chrono::duration<double>(clock::now() - g0).count());
    if (!r.ok() || r->exit_code != 0) {
      std::fprintf(stderr, "git status failed\n");
      return 70;
    }

    if (i % 2 == 0 && !time_candor()) return 70;
    std::printf("iteration %d: git status %.1f ms, candor scan %.1f ms\n", i + 1, git.back() * 1000,
                candor.back() * 1000);
  }
  double g = median(git), c = median(candor);
  std::printf("median: git status %.1f ms, candor scan %.1f ms\n", g * 1000, c * 1000);
  std::printf("ratio candor/git status: %.2fx (target <= 1.0x)\n", c / g);
  return 0;
}
