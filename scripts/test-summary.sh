#!/usr/bin/env bash
# Sums doctest's per-suite counts from meson's test log into one closing line:
# "tests: N passed, M failed", then the real agents' cases (agents-gate: tests/agents/gate_e2e.py;
# agents-eval: tests/agents/eval_e2e.py),
# the skipped ones named, then each meson test that skipped itself (exit 77) with the first line it
# printed, its reason (html-chromium without Chromium, schemas without python3-jsonschema, ...).
# Exits non-zero when no test case ran.
set -euo pipefail
log=${1:-build/meson-logs/testlog.txt}
read -r passed failed < <(grep -a '^\[doctest\] test cases:' "$log" |
  sed -E 's/.*\| *([0-9]+) passed \| *([0-9]+) failed.*/\1 \2/' |
  awk '{p += $1; f += $2} END {print p + 0, f + 0}')
echo "tests: ${passed} passed, ${failed} failed"
for suite in agents-gate agents-eval; do
  agents=$(grep -a "^$suite: cases:" "$log" | tail -1 || true)
  if [[ -n "$agents" ]]; then
    echo "real agents ($suite): ${agents#"$suite: cases: "}"
    grep -a "^$suite: skipped " "$log" | sed "s/^$suite: /  /" || true
  fi
done
# meson's log: a "test: NAME" line, a "result: skipped" line, then the test's stdout.
awk '/^test: / {name = $2; skipped = 0; said = 0}
     /^result: / {skipped = ($0 ~ /skip/)}
     skipped && !said && /^-+ stdout -+$/ {getline reason; print "skipped: " name " (" reason ")"; said = 1}' "$log" || true
[[ $passed -gt 0 ]]
