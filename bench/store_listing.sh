#!/usr/bin/env bash
# Listing a store of 10,000 runs vs 100, and the whole `candor runs` command on the large one.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$here/build/bench/store_listing" "$work" "${1:-10000}"
for args in "" "--verdict partial" "--since 2d"; do
  start=$(date +%s%N)
  for _ in 1 2 3 4 5; do "$here/build/cli/candor" runs --store "$work/large" $args >/dev/null; done
  end=$(date +%s%N)
  awk -v a="$args" -v ns="$((end - start))" 'BEGIN { printf "candor runs %-18s %.1f ms per command (whole process, mean of 5)\n", a, ns / 5e6 }'
done
