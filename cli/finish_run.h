// The end of every run, whatever command started it: tier 1, the verdict, the report, the
// store, the printed report, the exit code.
#pragma once

#include <string>

#include "core/run_record.h"
#include "store/run_store.h"

namespace candor::cli {

// Returns the exit code for the verdict (0 success, 1 partial, 2 fail).
int finish_run(store::RunStore& store, const RunFacts& facts, const std::string& created_at, bool json);

int exit_code_for(Verdict verdict);

}  // namespace candor::cli
