// One caller's use of candor: `run` (the planner loop), `exec` (a given plan), `verify` (a recorded
// run, again), `verify_git` (a change made elsewhere) and `undo`. A call opens what it needs, runs,
// and closes it; calls are not made concurrently on one Session. Nothing here prints or exits.
#pragma once

#include <memory>

#include <candor/observer.h>
#include <candor/requests.h>
#include <candor/results.h>
#include <candor/types.h>

namespace candor::api {

class Session {
 public:
  // `observer` is borrowed, may be null, and must outlive every call.
  explicit Session(Observer* observer = nullptr);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // An Error: nothing was recorded (a request's value out of range, a workspace that cannot be
  // opened, a malformed plan, ...).
  Result<RunResult> run(const RunRequest& request);
  Result<RunResult> exec(const ExecRequest& request);
  Result<VerifyResult> verify(const VerifyRequest& request);
  Result<RunResult> verify_git(const VerifyGitRequest& request);
  Result<UndoResult> undo(const UndoRequest& request);

  // Winds the run in progress down: its step is stopped, no other starts, and it is still
  // verified, recorded and reported (exit kCancelled). Stays set. Thread-safe and
  // async-signal-safe (a SIGINT handler may call it).
  void cancel();
  bool cancelled() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace candor::api
