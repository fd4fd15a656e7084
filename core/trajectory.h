// The typed event stream of a run. Events go to the sink (the store) as they happen, so a killed
// run keeps everything up to its last event.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "core/result.h"
#include "core/secret_masker.h"

namespace candor {

struct Event {
  std::int64_t seq = 0;
  std::string ts;
  std::string type;
  nlohmann::json data = nlohmann::json::object();  // type-specific fields

  // {seq, ts, type, ...data}
  nlohmann::json to_json() const;
  static Result<Event> from_json(const nlohmann::json& j);
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual Status append(const std::string& run_id, const Event& event) = 0;
};

// Not thread-safe: one run loop owns it.
class Trajectory {
 public:
  // `clock` and `sink` are borrowed and must outlive the trajectory; `sink` may be null. `masker`
  // (may be null) masks every event's strings as it is recorded: the run's events are what the
  // store keeps, what acceptance specs and the step log read, and what `candor report -v` prints,
  // so a secret value a producer missed stops here, before any of them sees it.
  Trajectory(std::string run_id, Clock& clock, EventSink* sink, std::shared_ptr<const SecretMasker> masker = nullptr);

  // Appends an event and forwards it to the sink. A sink failure is remembered (sink_error()) and
  // does not stop the run: losing the record must not change what the run does.
  const Event& record(const std::string& type, nlohmann::json data = nlohmann::json::object());

  // A run recorded by an earlier process goes on here (the live gate ends a turn its start began):
  // the next event is `seq` + 1. events() holds only what this trajectory recorded.
  // REQUIRES: nothing recorded yet.
  void continue_after(std::int64_t seq) { continued_after_ = seq; }

  const std::vector<Event>& events() const { return events_; }
  std::int64_t last_seq() const { return events_.empty() ? continued_after_ : events_.back().seq; }
  const std::string& sink_error() const { return sink_error_; }

 private:
  std::string run_id_;
  Clock& clock_;
  EventSink* sink_;
  std::shared_ptr<const SecretMasker> masker_;
  std::vector<Event> events_;
  std::int64_t continued_after_ = 0;
  std::string sink_error_;
};

// One event of the common stream (candor's own events, or an imported agent's).
struct TrajectoryEvent {
  enum class Kind { kToolCalled, kToolResult, kFinalAnswer };
  std::int64_t seq = 0;
  Kind kind = Kind::kToolCalled;
  std::string tool;
  nlohmann::json input = nlohmann::json::object();  // the call's input (also on its result, when known)
  nlohmann::json result;                            // ToolResult: {ok, output, exit_code, error, ...}
  std::string text;                                 // FinalAnswer
};

// candor's stored events (tool_called, tool_result, final_answer) as the common stream.
std::vector<TrajectoryEvent> stream_from_events(const std::vector<Event>& events);

}  // namespace candor
