#!/bin/sh
# A throwaway PostgreSQL for the team store's tests: a cluster in a temporary folder, reached on a
# Unix socket only (no TCP port), run as an unprivileged user, stopped and removed after.
#
#   pg_server.sh start [--durable]   prints DIR, then the URL of its `postgres` database; exit 77
#                             without Debian's PostgreSQL server (package postgresql). Without
#                             --durable, commits are not synced (a test's cluster is thrown away);
#                             the benchmarks measure with the server's defaults.
#   pg_server.sh createdb DIR NAME   a fresh database; prints its URL
#   pg_server.sh stop DIR     stops the server and removes DIR
set -eu

bindir() {
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; return 0; fi
  done
  return 1
}

# The server refuses to run as root: as root, it runs as `postgres` (made by Debian's package) or nobody.
as_owner() {
  if [ "$(id -u)" = 0 ]; then
    user=postgres
    id -u postgres >/dev/null 2>&1 || user=nobody
    setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups -- "$@"
  else
    "$@"
  fi
}

url_of() { echo "postgresql:///$2?host=$1/sock&user=candor"; }

case "${1:-}" in
  start)
    bin=$(bindir) || { echo "pg_server.sh: no PostgreSQL server here (Debian package postgresql)" >&2; exit 77; }
    dir=$(mktemp -d /tmp/candor-pg-XXXXXX)
    mkdir -p "$dir/sock"
    if [ "$(id -u)" = 0 ]; then
      user=postgres
      id -u postgres >/dev/null 2>&1 || user=nobody
      chown -R "$user" "$dir"
    fi
    chmod 0755 "$dir"
    as_owner "$bin/initdb" -D "$dir/data" -A trust -U candor -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1 || {
      echo "pg_server.sh: initdb failed:" >&2; cat "$dir/initdb.log" >&2; exit 1; }
    # No TCP port, room for the shards' connections.
    options="-k $dir/sock -c listen_addresses= -c max_connections=100"
    [ "${2:-}" = --durable ] || options="$options -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -o "$options" \
      start >/dev/null 2>&1 || { echo "pg_server.sh: the server did not start:" >&2; cat "$dir/server.log" >&2; exit 1; }
    echo "$dir"
    url_of "$dir" postgres
    ;;
  createdb)
    dir=$2
    bin=$(bindir)
    "$bin/createdb" -h "$dir/sock" -U candor "$3"
    url_of "$dir" "$3"
    ;;
  stop)
    dir=$2
    bin=$(bindir) || exit 0
    [ -d "$dir/data" ] && as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$dir"
    ;;
  *)
    echo "usage: pg_server.sh start | createdb DIR NAME | stop DIR" >&2
    exit 64
    ;;
esac
