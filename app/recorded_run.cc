#include "app/recorded_run.h"

#include "app/inputs.h"
#include "verify/replay.h"

namespace candor::app {

Result<std::string> resolve_run(const store::RunStore& store, const RunReference& ref) {
  if (ref.any || (ref.run != "last" && !ref.run.empty())) return store.resolve(ref.run);
  TRY(std::string workspace, caller_workspace(ref.workspace));
  return store.resolve(ref.run, workspace);
}

Result<RecordedRun> load_recorded_run(const std::string& store_dir, const RunReference& ref) {
  RecordedRun l;
  TRY(l.opening, RunOpening::open(store_dir, nullptr));
  l.store = &l.opening->store();
  TRY(std::string id, resolve_run(*l.store, ref));
  TRY(l.run, l.store->load(id));
  if (l.run.facts.is_object()) {
    TRY(l.facts, run_facts_from_json(l.run.facts));
    l.finished = true;
  } else {
    l.facts = verify::facts_from_events(id, l.run.events);
  }
  return l;
}

}  // namespace candor::app
