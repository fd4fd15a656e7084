#!/usr/bin/env bash
# A run's fixed costs on a large workspace, against git on the same files in the same run (issue 15).
# Usage: bench/first_run.sh [FILES]   (default 100000: 100 folders x 10 x 100 small files)
# Measures `candor exec` of a one-step plan: the first run (a store that has never seen the
# workspace), a warm run (same store), the same first run on a copy without a repository; and
# `git status --porcelain`, `git add -A` into a fresh index, the store's size and file count, the
# repository's packed size, and the first run's peak memory. Prints the ratios against the targets.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
files=${1:-100000}
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
cp -a "$ws" "$bare"
rm -rf "$bare/.git"
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
median3() { printf '%s\n' "$@" | sort -g | sed -n 2p; }

plan() {
  printf '{"goal_kind": "modify", "steps": [{"id": "s1", "tool": "file_write", "args": {"path": "bench.txt", "content": "%s\\n"}}], "then": "finish"}' "$1" > "$work/plan-$1.json"
  echo "$work/plan-$1.json"
}
exec_in() {  # exec_in WORKSPACE STORE NAME
  time_of "$work/t-$3" "$candor" exec "$(plan "$3")" -C "$1" --store "$2" --judge never
}

# Each figure is the median of three, the rounds interleaved so that a noisy minute hits all alike:
# git status; git add -A into a fresh index; a first run on a fresh store; a warm run on the first
# round's store; a first run without a repository on a fresh store.
gs=() adds=() firsts=() warms=() norepos=()
for i in 1 2 3; do
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
  exec_in "$bare" "$work/store-norepo-$i" "norepo$i"
  norepos+=("$(seconds "$work/t-norepo$i")")
  if [ "$i" = 1 ]; then
    norepo_kib=$(du -sk "$work/store-norepo-1" | cut -f1)
    norepo_files=$(find "$work/store-norepo-1" -type f | wc -l)
  fi
  [ "$i" = 1 ] || rm -rf "$work/store-$i" "$work/store-norepo-$i"
done
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
row "git status --porcelain (median of 3)" "${git_status} s" ""
row "git add -A into a fresh index (median of 3)" "${git_add} s" ""
# Every run ends with a full walk of the workspace (docs/design.md: the final scan always runs; a
# read-only step can have had a process outside candor's sight write), so a warm run walks twice
# where git status looks once: the targets allow that second walk (issue 15's were 3.0x and 1.5x,
# set when a run after file tools alone ended without it).
r=$(ratio "$first" "$git_status"); row "candor first run, git workspace (median of 3)" "${first} s" "${r}x git status (<= 3.5: $(check "$r" 3.5))"
r=$(ratio "$warm" "$git_status"); row "candor warm run, same store (median of 3)" "${warm} s" "${r}x git status (<= 2.5: $(check "$r" 2.5))"
r=$(ratio "$norepo" "$git_add"); row "candor first run, no repository (median of 3)" "${norepo} s" "${r}x git add -A (<= 1.0: $(check "$r" 1.0))"
row "repository packed (git gc)" "${pack_kib} KiB" ""
r=$(ratio "$store_kib" "$pack_kib"); row "store after the first run" "${store_kib} KiB" "${r}x the pack (<= 2.0: $(check "$r" 2.0)); ${store_files} files"
row "store after the first run, no repository" "${norepo_kib} KiB" "${norepo_files} files"
peak_mb=$((peak_kib / 1024))
row "peak memory, first run" "${peak_mb} MB" "(<= 200 MB at 100,000 files: $(check "$peak_mb" 200))"
