#include "core/trajectory.h"

#include <map>

#include "core/arg_schema.h"
#include "core/events.h"

namespace candor {

nlohmann::json Event::to_json() const {
  nlohmann::json j = {{"seq", seq}, {"ts", ts}, {"type", type}};
  for (const auto& [k, v] : data.items()) j[k] = v;
  return j;
}

Result<Event> Event::from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("seq") || !j["seq"].is_number_integer() || !j.contains("type") ||
      !j["type"].is_string()) {
    return make_error(ErrorCode::kInvalidInput, "event: needs integer seq and string type");
  }
  Event e;
  e.seq = j["seq"].get<std::int64_t>();
  e.type = j["type"].get<std::string>();
  if (j.contains("ts") && j["ts"].is_string()) e.ts = j["ts"].get<std::string>();
  for (const auto& [k, v] : j.items()) {
    if (k != "seq" && k != "type" && k != "ts") e.data[k] = v;
  }
  return e;
}

Trajectory::Trajectory(std::string run_id, Clock& clock, EventSink* sink, std::shared_ptr<const SecretMasker> masker)
    : run_id_(std::move(run_id)), clock_(clock), sink_(sink), masker_(std::move(masker)) {}

const Event& Trajectory::record(const std::string& type, nlohmann::json data) {
  Event e;
  e.seq = last_seq() + 1;
  e.ts = format_timestamp(clock_.wall());
  e.type = type;
  e.data = std::move(data);
  if (masker_ != nullptr) masker_->mask_json(e.data);
  events_.push_back(std::move(e));
  if (sink_ != nullptr) {
    Status s = sink_->append(run_id_, events_.back());
    if (!s.ok() && sink_error_.empty()) sink_error_ = s.error().message;
  }
  return events_.back();
}

std::vector<TrajectoryEvent> stream_from_events(const std::vector<Event>& events) {
  std::vector<TrajectoryEvent> out;
  std::map<std::string, nlohmann::json> input_of_step;
  for (const auto& e : events) {
    const auto& d = e.data;
    if (e.type == event::kToolCalled) {
      TrajectoryEvent t{e.seq,
                        TrajectoryEvent::Kind::kToolCalled,
                        json_str(d, "tool"),
                        d.contains("input") ? d["input"] : nlohmann::json::object(),
                        nullptr,
                        ""};
      input_of_step[json_str(d, "step")] = t.input;
      out.push_back(std::move(t));
    } else if (e.type == event::kToolResult) {
      nlohmann::json result = d;
      result.erase("step");
      result.erase("tool");
      auto it = input_of_step.find(json_str(d, "step"));
      out.push_back({e.seq, TrajectoryEvent::Kind::kToolResult, json_str(d, "tool"),
                     it != input_of_step.end() ? it->second : nlohmann::json::object(), result, ""});
    } else if (e.type == event::kFinalAnswer) {
      out.push_back(
          {e.seq, TrajectoryEvent::Kind::kFinalAnswer, "", nlohmann::json::object(), nullptr, json_str(d, "text")});
    }
  }
  return out;
}

}  // namespace candor
