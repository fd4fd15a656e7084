#!/usr/bin/env bash
# The run store on SQLite and on PostgreSQL (a server started here, with its default durability, on
# a Unix socket: tests/postgres/pg_server.sh --durable), in the same run: a run's write, the listing
# over RUNS (default 100,000) runs, the 10,000 eval attempts, and the whole `candor runs` command on
# each. Targets (docs/eval.md): write <= 20 ms, `runs` <= 0.2 s, `eval report` <= 1 s.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-100000}
work=$(mktemp -d)
out=$("$here/tests/postgres/pg_server.sh" start --durable) || { echo "team_store: no PostgreSQL server here (Debian package postgresql)"; exit 77; }
pg=$(echo "$out" | head -1)
url=$("$here/tests/postgres/pg_server.sh" createdb "$pg" bench | tail -1)
trap '"$here/tests/postgres/pg_server.sh" stop "$pg"; rm -rf "$work"' EXIT
"$here/build/bench/team_store" "$work" "$url" "$runs"
for store in "$work/large" "$url"; do
  for args in "" "--source gate"; do
    start=$(date +%s%N)
    for _ in 1 2 3 4 5; do CANDOR_HOME="$work/home" "$here/build/cli/candor" runs --store "$store" $args >/dev/null; done
    end=$(date +%s%N)
    name=$([[ $store == postgres* ]] && echo postgres || echo sqlite)
    awk -v n="$name" -v a="$args" -v ns="$((end - start))" \
      'BEGIN { printf "%-8s candor runs %-14s %.1f ms per command (whole process, mean of 5)\n", n, a, ns / 5e6 }'
  done
done
# `candor eval report` over the 10,000 attempts the bench recorded (terminal and --json).
for store in "$work/large" "$url"; do
  name=$([[ $store == postgres* ]] && echo postgres || echo sqlite)
  for args in "" "--json"; do
    start=$(date +%s%N)
    for _ in 1 2 3; do CANDOR_HOME="$work/home" "$here/build/cli/candor" eval report bench-eval --store "$store" $args >/dev/null; done
    end=$(date +%s%N)
    awk -v n="$name" -v a="$args" -v ns="$((end - start))" \
      'BEGIN { printf "%-8s candor eval report (10,000 attempts) %-7s %.1f ms per command (whole process, mean of 3)\n", n, a, ns / 3e6 }'
  done
done
