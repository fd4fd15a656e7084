// A run read back from the store, for what works from a recorded run (`report`, `verify RUN`,
// `undo`), and which run a caller's RUN names.
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

// A run as its caller names it (docs/design.md, "The CLI"): an id, a unique prefix or suffix of
// one, wherever the run was made; or "last" (or ""): the latest run of `workspace` ("" = the current
// folder; see store::run_belongs_to), or with `any` the store's latest, whatever its workspace.
struct RunReference {
  std::string run = "last";
  std::string workspace;
  bool any = false;
};

// The id of the run `ref` names in `store` (store::RunStore::resolve); kUsage when `last` is asked
// of a workspace that is not a folder.
Result<std::string> resolve_run(const store::RunStore& store, const RunReference& ref);

// The run `ref` names, read from the store at `store_dir` ("" = default).
Result<RecordedRun> load_recorded_run(const std::string& store_dir, const RunReference& ref);

}  // namespace candor::app
