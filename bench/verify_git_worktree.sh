#!/usr/bin/env bash
# `candor verify --git BASE..` (the working tree) on a large repository with a small uncommitted
# change: builds a FILES-file git repository (default 100,000), edits 3 files and adds one, then
# times, interleaved in the same run, `candor verify --git HEAD..` (tier 1 only: a discriminating
# --expect, no LLM) against `git status --porcelain` followed by `git diff --stat HEAD` (the
# baseline: git's own look at the working tree, stat cache and all), and prints both medians and
# the ratio. Unchanged files must cost a stat, not a read: the index's stat cache vouches for them.
# A second pass with 20,000 untracked, unignored files shows the cost of hashing what git does
# not know. Usage: bench/verify_git_worktree.sh [FILES] [ITERATIONS]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
files=${1:-100000}
iterations=${2:-7}
candor=${CANDOR:-$here/build/cli/candor}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo=$work/repo
export HOME=$work CANDOR_HOME=$work/store CANDOR_LLM= ANTHROPIC_API_KEY= OPENAI_API_KEY= OPENAI_BASE_URL=
. "$here/bench/git_workspace.sh"
build_git_workspace "$repo" "$files"
sleep 1.1  # past the index's racy window, as a working copy that was not just checked out is
git -C "$repo" update-index --refresh >/dev/null
changed=(d1/s0/f1.txt d50/s5/f2.txt d99/s9/f3.txt)
for f in "${changed[@]}"; do echo "changed by the agent" >>"$repo/$f"; done
echo "new" >"$repo/d7/new.txt"
expects=(--expect '{"type": "file_contains", "path": "d7/new.txt", "text": "new"}')
for f in "${changed[@]}"; do
  expects+=(--expect "{\"type\": \"file_contains\", \"path\": \"$f\", \"text\": \"changed by the agent\"}")
done

now() { date +%s.%N; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
measure() {  # LABEL: times both, interleaved
  : >"$work/candor.t"; : >"$work/git.t"
  "$candor" verify --git HEAD.. -C "$repo" --goal "append a line" "${expects[@]}" --json >"$work/report.json" || true
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("verdict:", r["verdict"], "by", r["verdict_by"], "-", len(r["mutations"]), "changed files")' "$work/report.json"
  for _ in $(seq "$iterations"); do
    t0=$(now); git -C "$repo" status --porcelain >/dev/null; git -C "$repo" diff --stat HEAD >/dev/null; t1=$(now)
    awk "BEGIN {print $t1 - $t0}" >>"$work/git.t"
    t0=$(now); "$candor" verify --git HEAD.. -C "$repo" --goal "append a line" "${expects[@]}" --json >/dev/null || true; t1=$(now)
    awk "BEGIN {print $t1 - $t0}" >>"$work/candor.t"
  done
  g=$(median <"$work/git.t"); c=$(median <"$work/candor.t")
  echo "$1: files: $files, iterations: $iterations, $(nproc) cores"
  printf '  git status + git diff --stat HEAD   median %.3f s\n' "$g"
  printf '  candor verify --git HEAD..          median %.3f s\n' "$c"
  printf '  ratio candor / git                  %.1fx\n' "$(awk "BEGIN {print $c / $g}")"
}
measure "a 4-file change"
python3 - "$repo/untracked" <<'PY'
import os, sys
for d in range(100):
    os.makedirs(f"{sys.argv[1]}/u{d}", exist_ok=True)
    for f in range(200):
        open(f"{sys.argv[1]}/u{d}/f{f}.txt", "w").write(f"untracked {d}/{f}\n")
PY
measure "and 20,000 untracked files"
