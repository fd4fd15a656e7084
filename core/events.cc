#include "core/events.h"

#include "core/arg_schema.h"

namespace candor {

nlohmann::json to_json(const LlmCall& call) {
  nlohmann::json data = {{"role", call.role},
                         {"input_tokens", call.input_tokens},
                         {"output_tokens", call.output_tokens},
                         {"usage_estimated", call.usage_estimated},
                         {"budgeted", call.budgeted},
                         {"ok", call.ok}};
  if (!call.ok) data["error"] = call.error;
  return data;
}

namespace {

// Stored events are read back by `candor verify`: a field of the wrong type reads as its default
// rather than throwing (nlohmann's value() throws on a wrong type).
std::int64_t int_or_zero(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_number_integer() ? j[key].get<std::int64_t>() : 0;
}

bool bool_or(const nlohmann::json& j, const char* key, bool fallback) {
  return j.contains(key) && j[key].is_boolean() ? j[key].get<bool>() : fallback;
}

}  // namespace

LlmCall llm_call_from_json(const nlohmann::json& data) {
  LlmCall call;
  if (!data.is_object()) return call;
  call.role = json_str(data, "role");
  call.ok = bool_or(data, "ok", false);
  call.input_tokens = int_or_zero(data, "input_tokens");
  call.output_tokens = int_or_zero(data, "output_tokens");
  call.usage_estimated = bool_or(data, "usage_estimated", false);
  call.budgeted = bool_or(data, "budgeted", true);
  call.error = json_str(data, "error");
  return call;
}

void count_llm_call(RunFacts& facts, const LlmCall& call) {
  facts.usage.llm_calls++;
  facts.usage.input_tokens += call.input_tokens;
  facts.usage.output_tokens += call.output_tokens;
  if (call.usage_estimated) facts.usage.estimated_calls++;
  if (call.budgeted) facts.budget.used.tokens += call.input_tokens + call.output_tokens;
}

void record_llm_call(Trajectory& trajectory, RunFacts& facts, const LlmCall& call) {
  trajectory.record(event::kLlmCall, to_json(call));
  count_llm_call(facts, call);
}

}  // namespace candor
