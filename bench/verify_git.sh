#!/usr/bin/env bash
# `candor verify --git` on a large repository with a small change: builds a FILES-file git
# repository (default 100,000), commits a 3-file change on top, then times, interleaved in the same
# run, `candor verify --git HEAD~1..HEAD` (tier 1 only: a discriminating --expect, no LLM) against
# `git diff --stat HEAD~1 HEAD` (the baseline: git's own tree diff with line counts), and prints
# both medians and the ratio. The target (issue 16): under 1 s plus LLM time, i.e. no work
# proportional to the unchanged tree. Usage: bench/verify_git.sh [FILES] [ITERATIONS]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
files=${1:-100000}
iterations=${2:-7}
candor=${CANDOR:-$here/build/cli/candor}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo=$work/repo
mkdir -p "$repo"
export HOME=$work GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@localhost GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@localhost
export CANDOR_HOME=$work/store CANDOR_LLM= ANTHROPIC_API_KEY= OPENAI_API_KEY= OPENAI_BASE_URL=

echo "building a git repository of $files files in 100 folders ..."
python3 "$here/bench/make_tree.py" "$repo" "$files"
git -C "$repo" init -q
git -C "$repo" add -A
git -C "$repo" commit -qm base
for f in d1/f1.txt d50/f2.txt d99/f3.txt; do echo "changed by the agent" >>"$repo/$f"; done
git -C "$repo" commit -qam "a 3-file change"
expects=()
for f in d1/f1.txt d50/f2.txt d99/f3.txt; do
  expects+=(--expect "{\"type\": \"file_contains\", \"path\": \"$f\", \"text\": \"changed by the agent\"}")
done

now() { date +%s.%N; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
: >"$work/candor.t"; : >"$work/git.t"
"$candor" verify --git HEAD~1..HEAD -C "$repo" --goal "append a line" "${expects[@]}" --json >"$work/report.json" || true
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("verdict:", r["verdict"], "by", r["verdict_by"], "-", len(r["mutations"]), "changed files")' "$work/report.json"
for _ in $(seq "$iterations"); do
  t0=$(now); git -C "$repo" diff --stat HEAD~1 HEAD >/dev/null; t1=$(now)
  awk "BEGIN {print $t1 - $t0}" >>"$work/git.t"
  t0=$(now); "$candor" verify --git HEAD~1..HEAD -C "$repo" --goal "append a line" "${expects[@]}" --json >/dev/null || true; t1=$(now)
  awk "BEGIN {print $t1 - $t0}" >>"$work/candor.t"
done
g=$(median <"$work/git.t"); c=$(median <"$work/candor.t")
echo "files: $files, iterations: $iterations, $(nproc) cores"
printf 'git diff --stat HEAD~1 HEAD   median %.3f s\n' "$g"
printf 'candor verify --git           median %.3f s   (target: < 1 s)\n' "$c"
printf 'ratio candor / git diff       %.1fx\n' "$(awk "BEGIN {print $c / $g}")"
