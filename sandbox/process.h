// Runs a child process in its own process group with a wall-clock timeout that kills the whole
// group, merged and capped output, and stdin fed from a string. The only place that forks. In the
// process sandbox with a PID namespace, the child is the namespace's init and the command its
// child; when the command ends, so does everything else it started.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/output_cap.h"
#include "core/result.h"
#include "sandbox/process_sandbox.h"

namespace candor::sandbox {

struct ProcessSpec {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH
  std::string cwd;                // absolute
  std::chrono::milliseconds timeout{60000};
  std::size_t output_cap = kDefaultOutputCap;
  std::string stdin_data;  // written to the child's stdin, then closed
  // Environment of the child; nullopt inherits candor's.
  std::optional<std::vector<std::string>> env;
  // false: stderr goes to ProcessResult::errors instead of being merged into output.
  bool merge_stderr = true;
  const std::atomic<bool>* cancel = nullptr;  // borrowed; kills the group when set
  // Borrowed; when set, the child runs in the process sandbox (and `env`, if unset, is the
  // sandbox's scrubbed environment). A sandbox that cannot be set up fails the start.
  const SandboxPolicy* sandbox = nullptr;
};

struct ProcessResult {
  int exit_code = -1;      // valid when !signaled
  int signal = 0;          // the signal that ended the child, 0 if it exited
  bool timed_out = false;  // the deadline passed and the group was killed
  CappedOutput output;     // stdout, and stderr interleaved unless separated
  CappedOutput errors;     // stderr when !merge_stderr
  bool cancelled = false;  // `cancel` was set and the group was killed
  double elapsed_s = 0;
  std::optional<Protections> protections;  // what the sandbox had active, when there was one
  // Processes still running when the command ended, killed with it (through the PID namespace or
  // the cgroup: those that left the process group, threads of a process whose main thread ended).
  int stragglers_killed = 0;
  // Protected folders (.git, .candor) the process created, relative to the workspace; they were
  // removed once it had ended.
  std::vector<std::string> protected_created;
};

// Fails only when the process cannot be started (kIo); a non-zero exit, a signal or a timeout are
// results, not errors. Every process the child started is killed when it ends, and gone (not
// merely signalled) when this returns: nothing of it can change the workspace afterwards.
Result<ProcessResult> run_process(const ProcessSpec& spec);

// How many times run_process has been called in this process (started or not). Thread-safe. A
// caller that saw the same count before and after some work knows no process of candor's ran
// meanwhile (with run_process's guarantee, none could still be writing).
std::uint64_t processes_started();

}  // namespace candor::sandbox
