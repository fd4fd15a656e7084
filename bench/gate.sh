#!/usr/bin/env bash
# `candor gate`'s two hooks on a large git workspace, against `git status` on the same files in the
# same run (issue 26, item 5). Builds a FILES-file git workspace (default 100,000: 100 x 10 x 100),
# warms it (git's stat cache refreshed, one gated turn recorded, so the store has seen the
# workspace), then, for each of ITERATIONS turns, times, interleaved:
#   git status                    the workspace as the turn begins (the baseline)
#   candor gate claude-code       UserPromptSubmit: the turn's start (snapshot, config fixed)
#   (3 files changed, as the agent would)
#   git status                    the workspace as the turn stops
#   candor gate claude-code       Stop: the turn verified (snapshot, diff, the transcript's turn,
#                                 3 discriminating file_contains expectations), no judge
# The hook inputs are Claude Code 2.1.332's real ones (tests/agents/samples), each turn with a
# session of its own whose real transcript lies where the hook reads it. Prints the medians of the
# elapsed time and of the CPU time (user + system, every thread: steadier than the elapsed time on
# a busy machine) and the ratios against the targets: turn start <= 1.0x git status, Stop <= 1.5x.
# Usage: bench/gate.sh [FILES] [ITERATIONS]     (CANDOR_BIN: the binary, default build/cli/candor;
# OTHER_BIN: another candor, say the one before a change, timed too, interleaved in the same run with
# a store of its own; KEEP=DIR keeps the workspace, the stores and the inputs there; FSMONITOR=1: a
# Watchman daemon of the bench's own watches the workspace, the config says snapshot.fsmonitor
# "watchman", and the repository has git's own Watchman hook as core.fsmonitor (with the untracked
# cache): the baseline is then `git status` with its fsmonitor, and plain `git status` is timed too)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
files=${1:-100000}
iterations=${2:-9}
candor=${CANDOR_BIN:-$here/build/cli/candor}
other=${OTHER_BIN:-}
[ -x "$candor" ] || { echo "no candor binary at $candor (build first, or set CANDOR_BIN)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ws=$work/ws
export HOME=$work/home GIT_CONFIG_NOSYSTEM=1
unset CLAUDE_CONFIG_DIR CANDOR_LLM ANTHROPIC_API_KEY ANTHROPIC_BASE_URL OPENAI_API_KEY OPENAI_BASE_URL
mkdir -p "$HOME"
. "$here/bench/git_workspace.sh"

build_git_workspace "$ws" "$files"
changed=(d1/s1/f1.txt d50/s5/f2.txt d99/s9/f3.txt)
mkdir -p "$ws/.candor"
fsmonitor=${FSMONITOR:-}
python3 - "$ws/.candor/config.json" "$fsmonitor" "${changed[@]}" <<'PY'
import json, sys
config = {"expect": [{"type": "file_contains", "path": p, "text": "changed by the agent"} for p in sys.argv[3:]]}
if sys.argv[2]:
    config["snapshot"] = {"fsmonitor": "watchman"}
json.dump(config, open(sys.argv[1], "w"))
PY
if [ -n "$fsmonitor" ]; then
  trap 'stop_bench_watchman; rm -rf "$work"' EXIT
  start_bench_watchman "$work" "$ws"
  git -C "$ws" config core.fsmonitor "$work/fsmonitor-watchman"
  git -C "$ws" config core.untrackedCache true
fi
git -C "$ws" add .candor
git -C "$ws" -c user.name=bench -c user.email=bench@localhost commit -qm config
sleep 2                                      # past git's racy window: the index can vouch for every file
git -C "$ws" status --porcelain >/dev/null   # git's own stat cache refreshed, as any user's repository has
echo "git $(git --version | cut -d' ' -f3), $(nproc) cores, $(git -C "$ws" ls-files | wc -l) files"

# timed.py OUT STDIN STDOUT CMD...: runs CMD in the workspace, appends "elapsed cpu" (seconds; cpu:
# user + system of CMD and all its threads, from the kernel's accounting) to OUT.
cat >"$work/timed.py" <<'PY'
import os, resource, subprocess, sys, time
out, stdin, stdout, cmd = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
with open(stdin) as i, open(stdout, "w") as o:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    subprocess.run(cmd, stdin=i, stdout=o, cwd=os.environ["BENCH_WS"], check=False)
    t1 = time.monotonic()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
with open(out, "a") as f:
    f.write(f"{t1 - t0:.4f} {cpu:.4f}\n")
PY
export BENCH_WS=$ws
timed() { python3 "$work/timed.py" "$@"; }

# inputs N: turn N's UserPromptSubmit and Stop inputs ($work/ups-N.json, $work/stop-N.json), the real
# ones of Claude Code 2.1.332 with a session of the turn's own, whose transcript (the real one, its
# ids replaced) lies in ~/.claude/projects where the hook reads it.
inputs() {
  python3 - "$here/tests/agents/samples" "$ws" "$HOME/.claude/projects/-ws" "$work" "$1" <<'PY'
import json, os, sys, uuid
samples, ws, projects, work, n = sys.argv[1:]
ups = json.load(open(f"{samples}/ups_input_claude.json"))
stop = json.load(open(f"{samples}/stop_input_claude.json"))
session, prompt = str(uuid.uuid4()), str(uuid.uuid4())
text = open(f"{samples}/transcript_claude.jsonl").read()
text = text.replace(ups["session_id"], session).replace(ups["prompt_id"], prompt)
os.makedirs(projects, exist_ok=True)
path = f"{projects}/{session}.jsonl"
open(path, "w").write(text)
for j, name in ((ups, "ups"), (stop, "stop")):
    j.update(session_id=session, prompt_id=prompt, cwd=ws, transcript_path=path)
    json.dump(j, open(f"{work}/{name}-{n}.json", "w"))
PY
}
# hook WHICH N [other]: turn N's WHICH (ups, stop) hook as Claude Code runs it (in the workspace, its
# input on stdin), timed into WHICH[-other].t; its answer kept in WHICH-N[-other].out.
hook() {
  local bin=$candor store=$work/store suffix=""
  if [ "${3:-}" = other ]; then bin=$other store=$work/store-other suffix=-other; fi
  timed "$work/$1$suffix.t" "$work/$1-$2.json" "$work/$1-$2$suffix.out" "$bin" gate claude-code --store "$store"
}
git_status() {
  timed "$work/$1.t" /dev/null /dev/null git status
  [ -z "$fsmonitor" ] || timed "$work/$1-plain.t" /dev/null /dev/null git -c core.fsmonitor=false status
}
# change N: the agent's 3-file change of turn N; undo: the files as committed again, after the Stop
# (so that each turn's expectations discriminate: they fail on the turn's start).
change() { for f in "${changed[@]}"; do echo "changed by the agent, turn $1" >>"$ws/$f"; done; }
undo() { git -C "$ws" checkout -q -- "${changed[@]}"; }

# Warm-up: one whole turn, so the store has seen the workspace (its index is the next start's stat
# cache); its times are not kept.
turn() {  # turn N
  inputs "$1"
  git_status gs-start
  hook ups "$1"
  [ -z "$other" ] || hook ups "$1" other
  change "$1"
  git_status gs-stop
  hook stop "$1"
  [ -z "$other" ] || hook stop "$1" other
}
turn 0
undo
rm -f "$work"/*.t
for i in $(seq "$iterations"); do
  turn "$i"
  [ "$i" = "$iterations" ] || undo
done
for suffix in "" ${other:+-other}; do
  out=$work/stop-$iterations$suffix.out
  python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); print("last Stop:", a.get("decision", "allow"), "-", a.get("systemMessage", "")[:150])' "$out"
  grep -q 'verdict success' "$out" || { echo "the Stop's verdict is not success: the benchmark's change should pass" >&2; exit 1; }
done

# median FILE COLUMN
median() { cut -d' ' -f"$2" "$1" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
ratio() { awk "BEGIN {printf \"%.2f\", $1 / $2}"; }
check() { awk "BEGIN {print ($1 <= $2) ? \"ok\" : \"OVER\"}"; }
# row TITLE FILE BASELINE TARGET
row() {
  local e c r rc
  e=$(median "$work/$2.t" 1); c=$(median "$work/$2.t" 2)
  if [ -z "$3" ]; then
    printf '  %-40s %6.3f s  %6.3f s\n' "$1" "$e" "$c"
    return
  fi
  r=$(ratio "$e" "$(median "$work/$3.t" 1)"); rc=$(ratio "$c" "$(median "$work/$3.t" 2)")
  printf '  %-40s %6.3f s  %6.3f s   %5sx %5sx git status%s\n' "$1" "$e" "$c" "$r" "$rc" \
    "${4:+ (<= $4: $(check "$r" "$4"))}"
}
echo
echo "candor gate on $files files, $iterations turns, medians; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)${fsmonitor:+; Watchman: candor's snapshot.fsmonitor and git's core.fsmonitor}"
printf '  %-40s %8s  %8s   %6s %6s\n' "" "elapsed" "cpu" "elapsed" "cpu"
if [ -n "$fsmonitor" ]; then
  row "git status without fsmonitor, turn begins" gs-start-plain "" ""
  row "git status with fsmonitor, turn begins" gs-start "" ""
  row "turn start (UserPromptSubmit)" ups gs-start 1.0
  row "  against git status without fsmonitor" ups gs-start-plain ""
  row "git status without fsmonitor, 3 changed" gs-stop-plain "" ""
  row "git status with fsmonitor, 3 changed" gs-stop "" ""
  row "Stop, 3 files changed, no judge" stop gs-stop 1.0
  row "  against git status without fsmonitor" stop gs-stop-plain ""
else
  row "git status, as the turn begins" gs-start "" ""
  row "turn start (UserPromptSubmit)" ups gs-start 1.0
  row "git status, 3 files changed" gs-stop "" ""
  row "Stop, 3 files changed, no judge" stop gs-stop 1.5
fi
if [ -n "$other" ]; then
  echo "  $other, the same turns, a store of its own:"
  row "turn start (UserPromptSubmit)" ups-other gs-start 1.0
  row "Stop, 3 files changed, no judge" stop-other gs-stop 1.5
fi
for t in gs-start ups ${other:+ups-other} gs-stop stop ${other:+stop-other}; do
  printf '  %-10s %s\n' "$t" "$(cut -d' ' -f1 "$work/$t.t" | tr '\n' ' ')"
done
if [ -n "${KEEP:-}" ]; then
  mkdir -p "$KEEP"
  cp -a "$ws" "$work/store" "$HOME" "$KEEP"/
  [ -z "$other" ] || cp -a "$work/store-other" "$KEEP"/
  cp "$work"/*.json "$KEEP"/
  echo "kept in $KEEP"
fi
