#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) in build-fuzz/ and runs each for a bounded
# time, starting from the seed corpora in fuzz/seeds/ (the tests' own inputs). New inputs go to a
# scratch corpus, not into the repository; a crash leaves its input in fuzz/findings/.
#   fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]   (FUZZ_JOBS=N: build jobs, default the core count)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(plan_parser reply_extractor path_resolver config_parser acceptance_spec report_renderers stat_index json_limits transcript_import)
cxx=${CXX:-$(command -v clang++ || command -v clang++-14)}
build="$here/build-fuzz"
if [ ! -f "$build/build.ninja" ]; then
  CXX="$cxx" meson setup "$build" "$here" -Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false \
    -Dbuildtype=debugoptimized >/dev/null
fi
ninja -C "$build" -j "${FUZZ_JOBS:-$(nproc)}" $(printf 'fuzz/fuzz_%s ' "${targets[@]}") >/dev/null
mkdir -p "$here/fuzz/findings"
status=0
for t in "${targets[@]}"; do
  corpus=$(mktemp -d)
  cp -r "$here/fuzz/seeds/$t/." "$corpus/" 2>/dev/null || true
  traversal="$here/tests/data/traversal/linux_traversal.txt"
  if [ "$t" = path_resolver ]; then
    # The traversal payloads the tests use (PayloadsAllTheThings, MIT), one seed each.
    i=0
    while IFS= read -r line; do printf '%s' "$line" >"$corpus/traversal-$((i++))"; done <"$traversal"
  fi
  log=$(mktemp)
  dict=()
  [ -f "$here/fuzz/seeds/$t.dict" ] && dict=(-dict="$here/fuzz/seeds/$t.dict")
  if UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "$build/fuzz/fuzz_$t" "$corpus" "${dict[@]}" \
      -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$here/fuzz/findings/$t-" >"$log" 2>&1; then
    result=ok
  else
    result="FOUND A CRASH (see fuzz/findings/ and $log)"
    status=1
  fi
  runs=$(grep -Eo 'Done [0-9]+ runs' "$log" | grep -Eo '[0-9]+' || echo "?")
  cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || echo "?")
  printf '%-16s %10s runs in %ss, coverage %s edges, corpus %s files: %s\n' "$t" "$runs" "$seconds" "$cov" \
    "$(ls "$corpus" | wc -l)" "$result"
  rm -rf "$corpus"
  [ "$result" = ok ] && rm -f "$log"
done
exit $status
