// `candor undo RUN`: put back every file the run added, modified or deleted, and every mode it
// changed, from the snapshot taken before it. Files the run never touched are left alone. Names
// are the exact bytes the run recorded (not necessarily UTF-8), modes the exact permission bits.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "core/run_record.h"
#include "sandbox/workspace.h"
#include "snapshot/store.h"

namespace candor::executor {

struct UndoFailure {
  std::string path;
  std::string reason;
};

struct UndoResult {
  std::vector<std::string> restored;  // written back with their content and mode
  std::vector<std::string> removed;   // added by the run, deleted now
  std::vector<std::string> modes;     // only their mode was changed: put back
  std::vector<std::string> drifted;   // changed again after the run (restored only with force)
  std::vector<std::string> already;   // already as before the run (put back by hand): left as they are
  std::vector<std::string> skipped;   // symlinks: not restored, said
  std::vector<UndoFailure> failed;    // could not be put back: the caller says so and exits non-zero
};

// Refuses (kInvalidInput, naming the files) when a file the run changed has changed again since
// the run ended, unless `force`. Every write goes through the path sandbox. A path that cannot be
// restored does not stop the others: it is in `failed`. A credential file whose mode the run did
// not record is restored readable by its owner alone.
Result<UndoResult> undo_run(const RunFacts& facts, const sandbox::Workspace& workspace,
                            const snapshot::SnapshotStore& snapshots, bool force);

}  // namespace candor::executor
