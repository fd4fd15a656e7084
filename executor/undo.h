// `candor undo RUN`: put back every file the run added, modified or deleted, from the snapshot
// taken before it. Files the run never touched are left alone.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "core/run_record.h"
#include "sandbox/workspace.h"
#include "verify/snapshot.h"

namespace candor::executor {

struct UndoResult {
  std::vector<std::string> restored;  // written back with their content and mode
  std::vector<std::string> removed;   // added by the run, deleted now
  std::vector<std::string> drifted;   // changed again after the run (restored only with force)
  std::vector<std::string> skipped;   // symlinks: not restored, said
};

// Refuses (kInvalidInput, naming the files) when a file the run changed has changed again since
// the run ended, unless `force`. Every write goes through the path sandbox.
Result<UndoResult> undo_run(const RunFacts& facts, const sandbox::Workspace& workspace, const verify::SnapshotStore& snapshots,
                            bool force);

}  // namespace candor::executor
