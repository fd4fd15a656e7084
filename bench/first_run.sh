#!/usr/bin/env bash
# A run's fixed costs on a large workspace, against git on the same files in the same run (issue 15).
# Usage: bench/first_run.sh [FILES]   (default 100000: 100 folders x 10 x 100 small files)
# ROUNDS=N (default 3) rounds, each figure their median; NOREPO=0 leaves out the workspace without a
# repository (at 1,000,000 files its copy alone takes minutes): `ROUNDS=1 NOREPO=0 bench/first_run.sh 1000000`.
# Measures `candor exec` of a one-step plan: the first run (a store that has never seen the
# workspace), a warm run (same store), the same first run on a copy without a repository; and
# `git status --porcelain`, `git add -A` into a fresh index, the store's size and file count, the
# repository's packed size, and the first run's peak memory. Prints the ratios against the targets.
# FSMONITOR=1 also times the warm run with config snapshot.fsmonitor "watchman" (a Watchman daemon
# of the bench's own; its start looks where Watchman says changed since the last run) against
# `git status` with git's own Watchman hook as core.fsmonitor (and the untracked cache), in the
# same rounds.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
files=${1:-100000}
rounds=${ROUNDS:-3}
with_norepo=${NOREPO:-1}
candor=${CANDOR_BIN:-$here/build/cli/candor}
[ -x "$candor" ] || { echo "no candor binary at $candor (build first, or set CANDOR_BIN)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian package time; make bench installs it)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ws=$work/ws
bare=$work/ws-norepo
export HOME=$work/home GIT_CONFIG_NOSYSTEM=1  # no user settings in either tool's way
mkdir -p "$HOME"
. "$here/bench/git_workspace.sh"

build_git_workspace "$ws" "$files"
fsmonitor=${FSMONITOR:-}
git_fsmonitor=()
if [ -n "$fsmonitor" ]; then
  trap 'stop_bench_watchman; rm -rf "$work"' EXIT
  start_bench_watchman "$work" "$ws"
  git_fsmonitor=(-c core.fsmonitor="$work/fsmonitor-watchman" -c core.untrackedCache=true)
  git "${git_fsmonitor[@]}" -C "$ws" status --porcelain >/dev/null  # its first answer is a full crawl
fi
if [ "$with_norepo" = 1 ]; then
  cp -a "$ws" "$bare"
  rm -rf "$bare/.git"
fi
sleep 2                                      # past git's racy window: the index can vouch for every file
git -C "$ws" status --porcelain >/dev/null   # refreshes git's own stat cache, as any user's repository has
echo "git $(git --version | cut -d' ' -f3), $(nproc) cores, $(find "$ws" -path "$ws/.git" -prune -o -type f -print | wc -l) files"

# time_of OUT CMD...: runs CMD, writes "seconds peak_kib" to OUT.
time_of() {
  local out=$1
  shift
  /usr/bin/time -f '%e %M' -o "$out" "$@" >/dev/null 2>"$out.err" || {
    local rc=$?
    # candor exits 0 (success), 1 (fail) or 2 (partial): each is a finished run
    if [ "$1" != "$candor" ] || [ "$rc" -gt 2 ]; then echo "failed ($rc): $*" >&2; cat "$out.err" >&2; exit 1; fi
  }
}
# The last line: /usr/bin/time puts "Command exited with non-zero status N" before it.
seconds() { tail -1 "$1" | cut -d' ' -f1; }
median3() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }


plan() {
  printf '{"goal_kind": "modify", "steps": [{"id": "s1", "tool": "file_write", "args": {"path": "bench.txt", "content": "%s\\n"}}], "then": "finish"}' "$1" > "$work/plan-$1.json"
  echo "$work/plan-$1.json"
}
exec_in() {  # exec_in WORKSPACE STORE NAME
  time_of "$work/t-$3" "$candor" exec "$(plan "$3")" -C "$1" --store "$2" --judge never
}

shell_plan() {  # shell_plan STEPS: a plan of STEPS shell steps, each appending a line to bench.txt
  local steps="" k
  for k in $(seq 1 "$1"); do
    steps+="${steps:+, }{\"id\": \"s$k\", \"tool\": \"shell\", \"args\": {\"command\": \"echo $k >> bench.txt\"}}"
  done
  printf '{"goal_kind": "modify", "steps": [%s], "then": "finish"}' "$steps" > "$work/shell-$1.json"
  echo "$work/shell-$1.json"
}
events() {  # events on|off|watchman: the workspace's config with change events (the default), without, or with Watchman
  # The file is rewritten, never its folder removed: Watchman crawls the whole root again after a
  # folder there is removed or moved (a second of its CPU at 100,000 files, beside the next run).
  mkdir -p "$ws/.candor"
  case "$1" in
    on) echo '{}' > "$ws/.candor/config.json" ;;
    off) echo '{"snapshot": {"change_events": false}}' > "$ws/.candor/config.json" ;;
    watchman) echo '{"snapshot": {"fsmonitor": "watchman"}}' > "$ws/.candor/config.json" ;;
  esac
}
shell_in() {  # shell_in STEPS NAME: the plan of STEPS shell steps on the git workspace, warm store
  time_of "$work/t-$2" "$candor" exec "$(shell_plan "$1")" -C "$ws" --store "$work/store-1" --judge never
  # A plan whose steps did not all run is no figure (a refused step is fast): say so and stop.
  "$candor" report last --any --store "$work/store-1" --json | python3 -c '
import json, sys
j = json.load(sys.stdin)
s = j["steps"]
if s["failed"] or s["executed"] != s["planned"]:
    print("shell steps did not all run:", j.get("status_detail", ""), file=sys.stderr)
    sys.exit(1)' || { shell_failed=1; }
}
shell_failed=0

# Each figure is the median of three, the rounds interleaved so that a noisy minute hits all alike:
# git status; git add -A into a fresh index; a first run on a fresh store; a warm run on the first
# round's store; a first run without a repository on a fresh store.
gs=() adds=() firsts=() warms=() norepos=(0)
for i in $(seq 1 "$rounds"); do
  time_of "$work/t-status" git -C "$ws" status --porcelain
  gs+=("$(seconds "$work/t-status")")
  time_of "$work/t-add" env GIT_INDEX_FILE="$work/fresh-index" git -C "$ws" add -A
  adds+=("$(seconds "$work/t-add")")
  rm -f "$work/fresh-index"
  exec_in "$ws" "$work/store-$i" "first$i"
  firsts+=("$(seconds "$work/t-first$i")")
  if [ "$i" = 1 ]; then
    peak_kib=$(tail -1 "$work/t-first1" | cut -d' ' -f2)
    store_kib=$(du -sk "$work/store-1" | cut -f1)
    store_files=$(find "$work/store-1" -type f | wc -l)
  fi
  exec_in "$ws" "$work/store-1" "warm$i"
  warms+=("$(seconds "$work/t-warm$i")")
  [ "$with_norepo" = 1 ] || continue
  [ "$i" = 1 ] && norepos=()
  exec_in "$bare" "$work/store-norepo-$i" "norepo$i"
  norepos+=("$(seconds "$work/t-norepo$i")")
  if [ "$i" = 1 ]; then
    norepo_kib=$(du -sk "$work/store-norepo-1" | cut -f1)
    norepo_files=$(find "$work/store-norepo-1" -type f | wc -l)
  fi
  [ "$i" = 1 ] || rm -rf "$work/store-$i" "$work/store-norepo-$i"
done
# Change detection in O(changes) (issue 40), before and after in the same rounds: a warm run and
# the scans of shell steps (a plan of 11 against a plan of 1, over 10) with change events (after)
# and with config snapshot.change_events false (before: every scan walks).
wev=() wwalk=() s1ev=() s11ev=() s1walk=() s11walk=() wwm=() gsfm=()
for i in $(seq 1 "$rounds"); do
  if [ -n "$fsmonitor" ]; then
    # Twice: the run between two rounds' runs without it saved the index with no Watchman base; the
    # second is the warm run of a user who keeps it on.
    events watchman
    exec_in "$ws" "$work/store-1" "wm-a$i"
    exec_in "$ws" "$work/store-1" "wm$i"
    wwm+=("$(seconds "$work/t-wm$i")")
    time_of "$work/t-gsfm$i" git "${git_fsmonitor[@]}" -C "$ws" status --porcelain
    gsfm+=("$(seconds "$work/t-gsfm$i")")
  fi
  for mode in on off; do
    events "$mode"
    exec_in "$ws" "$work/store-1" "warm-$mode$i"
    shell_in 1 "s1-$mode$i"
    shell_in 11 "s11-$mode$i"
  done
  wev+=("$(seconds "$work/t-warm-on$i")") wwalk+=("$(seconds "$work/t-warm-off$i")")
  s1ev+=("$(seconds "$work/t-s1-on$i")") s11ev+=("$(seconds "$work/t-s11-on$i")")
  s1walk+=("$(seconds "$work/t-s1-off$i")") s11walk+=("$(seconds "$work/t-s11-off$i")")
done
events on
git -C "$ws" checkout -q -- . && git -C "$ws" clean -qfd
warm_events=$(median3 "${wev[@]}")
warm_walks=$(median3 "${wwalk[@]}")
step_events=$(python3 -c "import sys; print(f'{max(0.0, (float(sys.argv[2]) - float(sys.argv[1])) / 10):.3f}')" "$(median3 "${s1ev[@]}")" "$(median3 "${s11ev[@]}")")
step_walks=$(python3 -c "import sys; print(f'{max(0.0, (float(sys.argv[2]) - float(sys.argv[1])) / 10):.3f}')" "$(median3 "${s1walk[@]}")" "$(median3 "${s11walk[@]}")")
git_status=$(median3 "${gs[@]}")
git_add=$(median3 "${adds[@]}")
first=$(median3 "${firsts[@]}")
warm=$(median3 "${warms[@]}")
norepo=$(median3 "${norepos[@]}")
git_dir_copy=$work/packed.git
cp -a "$ws/.git" "$git_dir_copy"
git --git-dir="$git_dir_copy" gc -q
pack_kib=$(git --git-dir="$git_dir_copy" count-objects -v | sed -n 's/^size-pack: //p')

ratio() { python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print(f'{a / b:.2f}' if b > 0 else 'inf')" "$1" "$2"; }
check() { python3 -c "import sys; print('ok' if float(sys.argv[1]) <= float(sys.argv[2]) else 'OVER')" "$1" "$2"; }
row() { printf '%-50s %10s  %s\n' "$1" "$2" "$3"; }

echo
row "figure" "value" "ratio (target)"
row "git status --porcelain (median of $rounds)" "${git_status} s" ""
row "git add -A into a fresh index (median of $rounds)" "${git_add} s" ""
# Every run ends with a scan of the whole workspace (docs/design.md: the final scan always runs),
# by its change events since issue 40: a warm run walks once, at its start, as git status does.
r=$(ratio "$first" "$git_status"); row "candor first run, git workspace (median of $rounds)" "${first} s" "${r}x git status (<= 3.0: $(check "$r" 3.0))"
r=$(ratio "$warm" "$git_status"); row "candor warm run, same store (median of $rounds)" "${warm} s" "${r}x git status (<= 1.0: $(check "$r" 1.0))"
r=$(ratio "$warm_walks" "$git_status"); row "warm run, every scan walks (before issue 40)" "${warm_walks} s" "${r}x git status"
r=$(ratio "$warm_events" "$git_status"); row "warm run, change events (after)" "${warm_events} s" "${r}x git status (<= 1.0: $(check "$r" 1.0))"
if [ -n "$fsmonitor" ]; then
  warm_wm=$(median3 "${wwm[@]}") git_fm=$(median3 "${gsfm[@]}")
  row "git status with Watchman as core.fsmonitor" "${git_fm} s" ""
  r=$(ratio "$warm_wm" "$git_fm"); row "warm run, snapshot.fsmonitor watchman" "${warm_wm} s" "${r}x git status with fsmonitor (<= 1.0: $(check "$r" 1.0))"
  r=$(ratio "$warm_wm" "$git_status"); row "  against git status without fsmonitor" "" "${r}x"
fi
if [ "$shell_failed" = 0 ]; then
  r=$(ratio "$step_walks" "$git_status"); row "a shell step, every scan walks (before)" "${step_walks} s" "${r}x git status"
  r=$(ratio "$step_events" "$git_status"); row "a shell step, change events (after)" "${step_events} s" "${r}x git status (<= 0.1: $(check "$r" 0.1))"
else
  row "a shell step" "n/a" "its steps were refused (above): no figure"
fi
if [ "$with_norepo" = 1 ]; then
  r=$(ratio "$norepo" "$git_add"); row "candor first run, no repository (median of $rounds)" "${norepo} s" "${r}x git add -A (<= 1.0: $(check "$r" 1.0))"
fi
row "repository packed (git gc)" "${pack_kib} KiB" ""
r=$(ratio "$store_kib" "$pack_kib"); row "store after the first run" "${store_kib} KiB" "${r}x the pack (<= 2.0: $(check "$r" 2.0)); ${store_files} files"
[ "$with_norepo" = 1 ] && row "store after the first run, no repository" "${norepo_kib} KiB" "${norepo_files} files"
peak_mb=$((peak_kib / 1024))
if [ "$files" -ge 1000000 ]; then
  row "peak memory, first run" "${peak_mb} MB" "(<= 300 MB at 1,000,000 files: $(check "$peak_mb" 300))"
else
  row "peak memory, first run" "${peak_mb} MB" "(<= 200 MB at 100,000 files: $(check "$peak_mb" 200))"
fi
