// What the process sandbox costs a shell step: `/bin/true` started through run_process with and
// without the sandbox, interleaved, median of N each, reported as a ratio (same run, same machine).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "sandbox/process.h"
#include "sandbox/process_sandbox.h"

using namespace candor;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: sandbox_overhead WORKSPACE [ITERATIONS]\n");
    return 64;
  }
  int n = argc > 2 ? std::atoi(argv[2]) : 50;
  sandbox::SandboxPolicy policy;
  policy.workspace = argv[1];
  auto once = [&](bool sandboxed) {
    sandbox::ProcessSpec spec;
    spec.argv = {"/bin/true"};
    spec.cwd = argv[1];
    spec.sandbox = sandboxed ? &policy : nullptr;
    auto start = std::chrono::steady_clock::now();
    auto r = sandbox::run_process(spec);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!r.ok() || r->exit_code != 0) {
      std::fprintf(stderr, "run failed\n");
      std::exit(1);
    }
    return ms;
  };
  std::vector<double> plain, boxed;
  once(false);
  once(true);
  for (int i = 0; i < n; ++i) {
    plain.push_back(once(false));
    boxed.push_back(once(true));
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  double p = median(plain), b = median(boxed);
  auto prot = sandbox::probe_protections();
  std::printf("shell step /bin/true, median of %d: unsandboxed %.2f ms, sandboxed %.2f ms -> %.2fx (%.2f ms added)\n", n, p, b,
              b / p, b - p);
  std::printf("protections: %s\n", prot.to_json().dump().c_str());
  return 0;
}
