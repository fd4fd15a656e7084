// The suite's PostgreSQL server (tests/postgres/pg_server.sh): started at its first use, in a
// temporary folder on a Unix socket, and stopped when the test program exits.
#pragma once

#include <string>

namespace candor::testing {

// Whether this machine has Debian's PostgreSQL server (initdb and pg_ctl): the `postgres` suite is
// reported skipped without it (tests/postgres/run_suite.sh).
bool postgres_installed();

// A fresh, empty database on the suite's server: its URL. The server is started by the first call.
// REQUIRES: postgres_installed(). A server that cannot start fails the calling test.
std::string new_postgres_database();

// The suite server's folder (its socket is DIR/sock), or "" before the first new_postgres_database().
std::string postgres_server_dir();

}  // namespace candor::testing
