#!/usr/bin/env bash
# The demo: `candor exec` on the bundled example, twice. A plan that patches the stylesheet and
# asserts the result (success), and a discovery-only plan that reads files and asks to replan
# (partial: it never made the change). Works on a copy; the example stays as it is. The copies and
# the runs' store are kept (in build/demo, made afresh each time) so the runs can be read after.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
candor=${CANDOR:-$here/build/cli/candor}
work=${CANDOR_DEMO_DIR:-$here/build/demo}
rm -rf "$work" && mkdir -p "$work" || exit 1
cp -r "$here/examples/dark-green/site" "$work/site"
export CANDOR_HOME="$work/store"

banner() { printf '\n\033[1m== %s\033[0m\n\n' "$*"; }

banner "1. candor exec plans/patch.json: patch the stylesheet, assert the result"
"$candor" exec "$here/examples/dark-green/plans/patch.json" -C "$work/site" --goal "Change the background to dark green"
patch_rc=$?
banner "2. candor exec plans/discover.json: read four files, then ask to replan"
"$candor" exec "$here/examples/dark-green/plans/discover.json" -C "$work/site" --goal "Change the background to dark green"
discover_rc=$?
banner "3. candor run, LLM replies recorded in replies.jsonl (the script provider: offline). The planner checked its own work, which is not proof: the judge, asked questions fixed from the goal alone, decides (tier 2)"
cp -r "$here/examples/dark-green/site" "$work/site2"
"$candor" run "Change the background to dark green" -C "$work/site2" --llm "script:$here/examples/dark-green/replies.jsonl"
run_rc=$?
banner "candor runs"
"$candor" runs

echo
echo "the runs are kept: try"
echo "  CANDOR_HOME=$work/store $candor report last -C $work/site2 --html $work/report.html"
echo "  CANDOR_HOME=$work/store $candor undo last -C $work/site"
echo "exit codes: patch=$patch_rc (0 = success), discover=$discover_rc (1 = partial), run=$run_rc (0 = success)"
[[ $patch_rc -eq 0 && $discover_rc -eq 1 && $run_rc -eq 0 ]]
