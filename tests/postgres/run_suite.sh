#!/bin/sh
# The meson test `postgres`: the doctest suite of the team store on a real PostgreSQL, or exit 77
# (skipped, with the reason as its first line) on a machine without Debian's server.
set -eu
tests=$1
for d in /usr/lib/postgresql/*/bin; do
  if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then exec "$tests" --test-suite=postgres; fi
done
echo "no PostgreSQL server here (Debian package postgresql; make test installs it)"
exit 77
