// What a caller hears while a Session call runs: each event as it is recorded, the steps as they
// start and end, and the warnings a person should read. Every call comes from the thread running
// the Session call; an observer that draws from a thread of its own synchronises itself. Every
// method has a default that does nothing.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace candor::api {

class Observer {
 public:
  virtual ~Observer() = default;
  // An event of the run, as stored (masked): its sequence number, its type (run_started,
  // tool_called, assertion, ...) and its fields.
  virtual void event(std::int64_t /*seq*/, const std::string& /*type*/, const nlohmann::json& /*data*/) {}
  // A step starts running (`tool`: file_patch, shell, ...), and ends (`ok`: it ran and its
  // assertions passed).
  virtual void step_started(const std::string& /*step*/, const std::string& /*tool*/) {}
  virtual void step_finished(const std::string& /*step*/, bool /*ok*/) {}
  // A sentence for the person running candor. Nothing is decided by it.
  virtual void warning(const std::string& /*message*/) {}
  // `run` and `exec`: the run is about to be recorded; from here until steps_ended(),
  // Session::cancel() winds it down (it is still verified, recorded and reported).
  virtual void run_starting() {}
  virtual void steps_ended() {}
};

}  // namespace candor::api
