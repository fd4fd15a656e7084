// What a Session call returns: the verdict and its reasons, how the loop ended, the report (the
// JSON `candor --json` prints, masked), and what a caller should say besides. Reports stay
// nlohmann::json: their fields are docs/design.md's "The report JSON".
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <candor/types.h>

namespace candor::api {

struct JudgeSummary {
  bool asked = false;
  bool answered = false;  // false when asked: the judge failed (`error` says why)
  std::string error;
  std::string provider;  // the judge's LLM, when asked
};

// How a run ended. A caller shows `report` (or `verdict` and `reasons`), then what `store_error`,
// `judge`, `provider_failed`, `input_refused` and `not_started` tell, and exits with `exit`.
struct RunResult {
  std::string run_id;
  Verdict verdict = Verdict::kPartial;
  std::string verdict_by;  // tier1, tier2 or reviewer
  std::vector<std::string> reasons;
  RunStatus status = RunStatus::kError;
  std::string status_detail;
  nlohmann::json report;                   // as stored, masked
  std::optional<std::string> store_error;  // the verdict could not be stored (the report still stands)
  JudgeSummary judge;
  bool provider_failed = false;  // the planner's LLM could not be reached
  bool input_refused = false;    // the planner's reply was over the JSON limits
  // The run was recorded, then could not begin (its workspace could not be snapshotted).
  std::optional<Error> not_started;
  ExitCategory exit = ExitCategory::kInternal;
};

struct VerifyResult : RunResult {
  bool ended = true;       // false: the run never ended, and was verified from its events
  std::size_t events = 0;  // the events recorded for it
};

struct UndoResult {
  std::string run_id;
  std::string workspace;  // the run's: where the files were (or would have been) written
  // The run was undone before and `force` was not given: its record; nothing was done. Null
  // otherwise.
  nlohmann::json already_undone;
  std::vector<std::string> restored;        // written back with their content and mode
  std::vector<std::string> removed;         // added by the run, deleted now
  std::vector<std::string> modes;           // only their mode was changed: put back
  std::vector<std::string> drifted;         // changed again after the run (restored only with force)
  std::vector<std::string> already;         // already as before the run (put back by hand): left alone
  std::vector<std::string> failed;          // "PATH: why": could not be put back
  std::optional<std::string> record_error;  // the undo was done, but not recorded in the store
  ExitCategory exit = ExitCategory::kSuccess;
};

}  // namespace candor::api
