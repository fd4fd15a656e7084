// A run read back from the store, for what works from a recorded run (`verify RUN`, `undo`).
// Private to app/.
#pragma once

#include <memory>
#include <string>

#include "app/run_opening.h"
#include "core/run_record.h"
#include "store/run_store.h"

namespace candor::app {

struct RecordedRun {
  // Its store (app/run_opening.h); `store` points into it. The snapshots, once opened, are there.
  std::unique_ptr<RunOpening> opening;
  store::RunStore* store = nullptr;
  store::StoredRun run;
  RunFacts facts;         // stored, or rebuilt from the events of a run that never ended
  bool finished = false;  // the run has stored facts (it reached run_ended)
};

// `ref`: an id, a unique prefix or suffix, or "last", in the store at `store_dir` ("" = default).
Result<RecordedRun> load_recorded_run(const std::string& store_dir, const std::string& ref);

}  // namespace candor::app
