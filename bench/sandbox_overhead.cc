// What the process sandbox costs a shell step: `/bin/true` started through run_process with and
// without the sandbox, interleaved, median of N each, reported as a ratio (same run, same machine).
// On a busy machine wall time mostly measures the scheduler: the fastest run of each and the CPU
// time (candor's and its children's) are printed too.
#include <sys/resource.h>

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
  // CANDOR_SANDBOX_DISABLE=namespaces (etc.) measures what one mechanism costs.
  policy.mechanisms = sandbox::mechanisms_from_environment();
  auto cpu_ms = [] {
    double ms = 0;
    for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
      struct rusage u {};
      ::getrusage(who, &u);
      for (const timeval& t : {u.ru_utime, u.ru_stime})
        ms += static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_usec) / 1e3;
    }
    return ms;
  };
  std::vector<double> plain_cpu, boxed_cpu;
  auto once = [&](bool sandboxed) {
    double cpu_before = cpu_ms();
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
    (sandboxed ? boxed_cpu : plain_cpu).push_back(cpu_ms() - cpu_before);
    return ms;
  };
  std::vector<double> plain, boxed;
  once(false);
  once(true);
  plain_cpu.clear();
  boxed_cpu.clear();
  for (int i = 0; i < n; ++i) {
    plain.push_back(once(false));
    boxed.push_back(once(true));
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  double p = median(plain), b = median(boxed);
  double pc = median(plain_cpu), bc = median(boxed_cpu);
  double pmin = *std::min_element(plain.begin(), plain.end()), bmin = *std::min_element(boxed.begin(), boxed.end());
  std::printf(
      "fastest: unsandboxed %.2f ms, sandboxed %.2f ms (%.2f ms added); CPU time, median: %.2f ms, %.2f ms (%.2f ms "
      "added)\n",
      pmin, bmin, bmin - pmin, pc, bc, bc - pc);
  auto prot = sandbox::probe_protections(policy.mechanisms);
  std::printf("shell step /bin/true, median of %d: unsandboxed %.2f ms, sandboxed %.2f ms -> %.2fx (%.2f ms added)\n",
              n, p, b, b / p, b - p);
  std::printf("protections: %s\n", prot.to_json().dump().c_str());
  return 0;
}
