#!/usr/bin/env bash
# The cost of the process sandbox per shell step (see sandbox_overhead.cc).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$here/build/bench/sandbox_overhead" "$work" "${1:-50}"
