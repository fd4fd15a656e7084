#!/usr/bin/env bash
# `candor verify --git` on a large repository with a small change: builds a FILES-file git
# repository (default 100,000) and times, interleaved in the same run, against git's own look at
# the same change (the baseline), printing both medians and the ratio (tier 1 only: discriminating
# --expect assertions, no LLM):
# 1. a committed 3-file change: `candor verify --git HEAD~1..HEAD` against `git diff --stat HEAD~1
#    HEAD`. The target (issue 16): under 1 s plus LLM time, i.e. no work proportional to the
#    unchanged tree.
# 2. the same change uncommitted, plus a new file: `candor verify --git HEAD..` against `git status`
#    and `git diff --stat HEAD`, twice: "first read" with a fresh store each time (every file read
#    and hashed: the repository's index is the change's too, and not trusted), and "again" with
#    one store, whose record of the last read vouches for unchanged files (by their stat; with
#    FSMONITOR=1, by Watchman's answer, without a walk).
# 3. and with 20,000 untracked, unignored files, which git lists and candor must read and hash.
# FSMONITOR=1: BASE's config sets snapshot.fsmonitor "watchman" (a daemon of the bench's own), and
# the baseline's `git status` runs with git's own Watchman hook as core.fsmonitor and the untracked
# cache on.
# Usage: bench/verify_git.sh [FILES] [ITERATIONS]
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
git -C "$repo" config gc.auto 0  # no gc left running in the background while timing
fsmonitor=${FSMONITOR:-}
if [ -n "$fsmonitor" ]; then
  . "$here/bench/git_workspace.sh"
  mkdir -p "$repo/.candor"
  echo '{"snapshot": {"fsmonitor": "watchman"}}' >"$repo/.candor/config.json"
  trap 'stop_bench_watchman; rm -rf "$work"' EXIT
  start_bench_watchman "$work" "$repo"
  git -C "$repo" config core.fsmonitor "$work/fsmonitor-watchman"
  git -C "$repo" config core.untrackedCache true
fi
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
# measure TITLE RANGE BASELINE [fresh]: times `candor verify --git RANGE` against `sh -c BASELINE`
# (run in the repository); "fresh": each candor with a store of its own (a first read).
measure() {
  local title=$1 range=$2 baseline=$3 fresh=${4:-}
  : >"$work/candor.t"; : >"$work/git.t"
  "$candor" verify --git "$range" -C "$repo" --goal "append a line" "${expects[@]}" --json >"$work/report.json" || true
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("verdict:", r["verdict"], "by", r["verdict_by"], "-", len(r["mutations"]), "changed files", "- read:", (r.get("git") or {}).get("worktree_read", ""))' "$work/report.json"
  for i in $(seq "$iterations"); do
    t0=$(now); (cd "$repo" && sh -c "$baseline" >/dev/null); t1=$(now)
    awk "BEGIN {print $t1 - $t0}" >>"$work/git.t"
    [ -z "$fresh" ] || export CANDOR_HOME=$work/store-fresh-$i
    t0=$(now); "$candor" verify --git "$range" -C "$repo" --goal "append a line" "${expects[@]}" --json >/dev/null || true; t1=$(now)
    awk "BEGIN {print $t1 - $t0}" >>"$work/candor.t"
    [ -z "$fresh" ] || { rm -rf "$CANDOR_HOME"; export CANDOR_HOME=$work/store; }
  done
  local g c
  g=$(median <"$work/git.t"); c=$(median <"$work/candor.t")
  echo "$title: files: $files, iterations: $iterations, $(nproc) cores"
  printf '  %-48s median %.3f s\n' "$baseline" "$g"
  printf '  %-48s median %.3f s\n' "candor verify --git $range" "$c"
  printf '  %-48s %.1fx\n' "ratio candor / git" "$(awk "BEGIN {print $c / $g}")"
}

measure "a committed 3-file change (target: candor < 1 s)" HEAD~1..HEAD "git diff --stat HEAD~1 HEAD"
# The same change uncommitted: the index back at the base, its stat cache refreshed and past the
# racy window, as in a working copy an agent edited.
git -C "$repo" reset -q HEAD~1
sleep 1.1
git -C "$repo" update-index -q --refresh || true
echo "new" >"$repo/d7/new.txt"
expects+=(--expect '{"type": "file_contains", "path": "d7/new.txt", "text": "new"}')
measure "the change uncommitted, and a new file: first read" HEAD.. "git status --porcelain && git diff --stat HEAD" fresh
measure "the change uncommitted, and a new file: again" HEAD.. "git status --porcelain && git diff --stat HEAD"
python3 - "$repo/untracked" <<'PY'
import os, sys
for d in range(100):
    os.makedirs(f"{sys.argv[1]}/u{d}", exist_ok=True)
    for f in range(200):
        open(f"{sys.argv[1]}/u{d}/f{f}.txt", "w").write(f"untracked {d}/{f}\n")
PY
measure "and 20,000 untracked files: first read" HEAD.. "git status --porcelain && git diff --stat HEAD" fresh
measure "and 20,000 untracked files: again" HEAD.. "git status --porcelain && git diff --stat HEAD"
