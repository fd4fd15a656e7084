# Sourced by the benchmarks. build_git_workspace DIR FILES: DIR becomes a git repository of FILES
# small files (100 folders x 10 x FILES/1000; 100 x 10 x 100 by default), committed and clean,
# with git's stat cache refreshed and no background gc.
build_git_workspace() {
  local ws=$1 files=$2
  mkdir -p "$ws"
  echo "building a git workspace of $files files (100 folders x 10 x $((files / 1000 > 0 ? files / 1000 : 1))) ..."
  python3 "$(dirname "${BASH_SOURCE[0]}")/make_tree.py" "$ws" "$files" 10
  printf 'build/\n' > "$ws/.gitignore"
  git -C "$ws" init -q
  git -C "$ws" config gc.auto 0   # no background gc packing the objects while a benchmark copies them
  git -C "$ws" add -A
  git -C "$ws" -c user.name=bench -c user.email=bench@localhost commit -qm base
}

# start_bench_watchman WORK WS: a Watchman daemon of the bench's own (socket, state and log in
# WORK/watchman; WATCHMAN_SOCK exported) watching WS, and git's own Watchman hook copied to
# WORK/fsmonitor-watchman. The caller's EXIT trap shuts it down (stop_bench_watchman).
start_bench_watchman() {
  local work=$1 ws=$2
  command -v watchman >/dev/null || { echo "FSMONITOR=1 needs watchman (apt-get install watchman)" >&2; exit 1; }
  export WATCHMAN_SOCK=$work/watchman/sock
  mkdir -p "$work/watchman"
  watchman --sockname="$WATCHMAN_SOCK" --statefile="$work/watchman/state" --logfile="$work/watchman/log" \
    --pidfile="$work/watchman/pid" --no-save-state get-pid >/dev/null
  watchman watch-project "$ws" >/dev/null
  cp /usr/share/git-core/templates/hooks/fsmonitor-watchman.sample "$work/fsmonitor-watchman"
  chmod +x "$work/fsmonitor-watchman"
}
stop_bench_watchman() { watchman --no-spawn shutdown-server >/dev/null 2>&1 || true; }
