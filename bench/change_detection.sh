#!/usr/bin/env bash
# Builds a 100,000-file git workspace, then compares candor's change detection with `git status`
# on it, in the same run. Usage: bench/change_detection.sh [FILES] [ITERATIONS]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
files=${1:-100000}
iterations=${2:-9}
bin=${BENCH_BIN:-$here/build/bench/change_detection}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ws=$work/ws
mkdir -p "$ws"

echo "building a git workspace of $files files in 100 folders ..."
python3 "$here/bench/make_tree.py" "$ws" "$files"
printf 'build/\n' > "$ws/.gitignore"
git -C "$ws" init -q
git -C "$ws" add -A
git -C "$ws" -c user.name=bench -c user.email=bench@localhost commit -qm base
git -C "$ws" status --porcelain >/dev/null   # refresh git's own stat cache first
echo "git $(git --version | cut -d' ' -f3), $(nproc) cores"
"$bin" "$work/store" "$ws" "$iterations"
