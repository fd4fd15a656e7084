// What a caller of app::Session is told while a call runs: the progress of the run (steps, rounds,
// the waits on the planner, the judge and the reviewer), each event as it is recorded, and the
// warnings a person should read. Nothing in the libraries prints; the `candor` command's observer
// writes these on stderr (cli/observer.h).
#pragma once

#include <memory>
#include <string>

#include "core/progress.h"
#include "core/secret_masker.h"
#include "core/trajectory.h"

namespace candor::app {

// Every call comes from the thread running the Session call (ProgressObserver's rules hold); an
// observer that draws from a thread of its own synchronises itself. Every method has a default
// that does nothing.
class RunObserver : public ProgressObserver {
 public:
  // The run's secret values, known once its workspace is open and before any step: whatever the
  // observer shows of the run's text (a step's target or error, an assertion's message) is masked
  // with it. Events are masked already.
  virtual void set_masker(std::shared_ptr<const SecretMasker> /*masker*/) {}
  // An event of the run, as recorded (masked), after the store was given it.
  virtual void event(const Event& /*event*/) {}
  // A sentence for the person running candor, without the program's name, e.g. "warning:
  // credential file .env: its values are not masked". Nothing is decided by it.
  virtual void warning(const std::string& /*message*/) {}
  // `run` and `exec`: the run is about to be recorded; from here until steps_ended(),
  // Session::cancel() winds it down (it is still verified, recorded and reported).
  virtual void run_starting() {}
  // `run` and `exec`: the run's rounds are over; what follows is its verification and report.
  virtual void steps_ended() {}
};

}  // namespace candor::app
