// The SQLite run store (WAL), the embedded default: one file in the store folder. The only place
// that includes <sqlite3.h>.
#pragma once

#include <memory>
#include <string>

#include "core/result.h"
#include "store/run_store.h"

namespace candor::store {

// Opens (creating and migrating it when needed) the store in `dir`, a folder prepare_store_dir made.
Result<std::unique_ptr<RunStore>> open_sqlite_store(const std::string& dir);

}  // namespace candor::store
