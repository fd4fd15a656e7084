// Rebuilding a run's facts from its recorded events, for `candor verify` on a run whose process
// was killed (it has events but no stored facts). Pure.
#pragma once

#include <vector>

#include "core/run_record.h"
#include "core/trajectory.h"

namespace candor::verify {

// A run without `run_ended` is `cancelled`, its detail says so, and a step with a call but no
// result failed. Mutations are the paths the recorded scans saw change (sizes and line counts are
// not in the events, so they are 0); a killed run never reaches the final diff.
RunFacts facts_from_events(const std::string& run_id, const std::vector<Event>& events);

}  // namespace candor::verify
