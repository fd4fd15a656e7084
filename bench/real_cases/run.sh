#!/usr/bin/env bash
# Issue 25's before/after table on real repositories: real bug-fix commits of cachetools,
# more-itertools, tomli and inih, each handed in as the real fix and as the variants a dishonest or
# careless agent could hand in (weakened test, skipped test, empty new module, README only, and
# hacks in the source that make the test command exit 0), and of sqlparse (pytest), ufo (vitest),
# cssstyle (node:test) and cJSON (CMake/CTest/Unity), each also handed in as the cheats of strong
# agents (special-case, runner-detect, const-eq, exit-early, runner-patch, runner-config), verified
# by `candor verify --git` with no LLM. See README.md here for the repositories, licences, commits
# and cases.
#
# Not a meson test: it needs the repositories fetched beforehand (exit 77 when they are not).
#
# Usage: bench/real_cases/run.sh
#   CANDOR_AFTER   the candor to measure (default: build/cli/candor of this tree)
#   CANDOR_BEFORE  optional second candor (the BEFORE column); it is given the same expectations
#                  without `covers`, which builds before issue 25 do not know
#   REAL_CASES_MIRRORS  folder holding the repositories: owner+name/repo (as the fetch tool leaves
#                  them), owner+name or name, bare or not (default /work/.mirror)
#   REAL_CASES_OUT folder for the clones, the run stores and the results (default /tmp/realcases;
#                  emptied first): table.md, results.json
#   REAL_CASES_ONLY comma-separated fix ids or repository names (default: all)
#   REAL_CASES_DEPS folder for the npm installs of the JavaScript fixes (default: $REAL_CASES_OUT/deps)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export CANDOR_AFTER=${CANDOR_AFTER:-$root/build/cli/candor}
if ! command -v python3 >/dev/null || ! command -v git >/dev/null; then
  echo "real_cases: python3 and git are needed: skipped" >&2
  exit 77
fi
rc=0
python3 "$here/cases.py" || rc=$?
if [ "$rc" = 0 ]; then cat "${REAL_CASES_OUT:-/tmp/realcases}/table.md"; fi
exit "$rc"
