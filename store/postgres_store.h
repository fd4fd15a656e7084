// The PostgreSQL run store (libpq), the team store: many writers on many machines, one schema with
// the SQLite store's, migrated by version. The only place that includes <libpq-fe.h>.
#pragma once

#include <memory>
#include <string>

#include "core/result.h"
#include "store/run_store.h"

namespace candor::store {

// Connects to `url` (libpq's own variables and files give what it leaves out: PGPASSFILE, PGSSLMODE,
// ...) and migrates its schema when needed. `dir` is this machine's store folder, for the snapshots.
// Errors name the URL with its password masked, never the password.
Result<std::unique_ptr<RunStore>> open_postgres_store(const std::string& url, const std::string& dir);

}  // namespace candor::store
