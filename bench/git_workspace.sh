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
