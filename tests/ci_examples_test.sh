#!/usr/bin/env bash
# The CI examples (examples/ci/*.yml) run as written: the commands between their `# >>> candor` and
# `# <<< candor` lines are run by bash, with the variables the CI service would set (CANDOR_EXPECT
# as the file sets it), on a repository built here, whose `make test` fails until the stylesheet
# under src/ is dark green: an honest change passes the job with a success report; a change that
# only weakens the test fails it (it passes only through its own test edits: the tests of record);
# an honest change that also touches a file nothing proves is partial, which fails the job as
# written and passes it with the documented allow-partial line; a change that does nothing fails.
set -euo pipefail
candor=${CANDOR_BIN:?} src=${CANDOR_SOURCE_ROOT:?}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
export HOME=/nonexistent GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=agent GIT_AUTHOR_EMAIL=agent@example.com \
  GIT_COMMITTER_NAME=agent GIT_COMMITTER_EMAIL=agent@example.com
unset CANDOR_LLM ANTHROPIC_API_KEY ANTHROPIC_BASE_URL OPENAI_API_KEY OPENAI_BASE_URL
export CANDOR_HOME="$work/store" NO_COLOR=1
mkdir -p "$work/bin" && ln -s "$candor" "$work/bin/candor"
export PATH="$work/bin:$PATH"

repo="$work/repo"
mkdir -p "$repo/src" "$repo/tests"
cp "$src/examples/dark-green/site/css/style.css" "$repo/src/style.css"
chmod -R u+w "$repo"
cd "$repo"
# The test the issue names: it fails on BASE, and passes once the background is dark green.
printf '#!/bin/sh\ngrep -q "background: #006400" src/style.css\n' > tests/test_style.sh
printf 'test:\n\tsh tests/test_style.sh\n' > Makefile
git init -q -b main
git add -A && git commit -qm base
base=$(git rev-parse HEAD)
git checkout -qb agent
sed -i 's/background: #ffffff;/background: #006400;/' src/style.css
git commit -qam "dark green"
good=$(git rev-parse HEAD)
git checkout -q -b weak main
printf '#!/bin/sh\ntrue\n' > tests/test_style.sh
git commit -qam "make the test pass"
weak=$(git rev-parse HEAD)
git checkout -q -b unproven agent
printf 'notes\n' > NOTES.txt
git add NOTES.txt && git commit -qm "and notes"
unproven=$(git rev-parse HEAD)
git checkout -q main

# run_block FILE BASE HEAD [allow-partial]: the CI file's candor commands, as the service would
# run them; with a fourth argument, with its documented allow-partial line in place of its last test.
run_block() {
  local file=$1
  sed -n '/# >>> candor/,/# <<< candor/p' "$file" | sed 's/^ *//' >"$work/block.sh"
  if [[ -n ${4:-} ]]; then
    local allow
    allow=$(sed -n 's/^ *# *\(\[ .*\)# allow partial$/\1/p' "$file")
    [[ -n $allow ]] || { fail "$file documents no allow-partial line"; return 99; }
    sed -i 's/^\[ "\$status" -eq 0 \]$/'"$allow"'/' "$work/block.sh"
    grep -qF "$allow" "$work/block.sh" || { fail "$file: its allow-partial line did not replace the test"; return 99; }
  fi
  [[ $(wc -l <"$work/block.sh") -ge 4 ]] || { fail "$file has no '# >>> candor' block"; return 99; }
  rm -f candor-report.md
  local expect
  expect=$(sed -n "s/^ *CANDOR_EXPECT: '\(.*\)'$/\1/p" "$file")
  [[ -n $expect ]] || { fail "$file sets no CANDOR_EXPECT"; return 99; }
  CANDOR_EXPECT=$expect BASE=$2 HEAD=$3 PR_BODY="Change the background to dark green" GITHUB_STEP_SUMMARY="$work/summary.md" \
    CI_MERGE_REQUEST_DIFF_BASE_SHA=$2 CI_COMMIT_SHA=$3 CI_MERGE_REQUEST_DESCRIPTION="Change the background to dark green" \
    bash -e "$work/block.sh" >"$work/out.txt" 2>&1
}

for file in "$src/examples/ci/github-actions.yml" "$src/examples/ci/gitlab-ci.yml"; do
  name=$(basename "$file")
  : >"$work/summary.md"
  if run_block "$file" "$base" "$good"; then
    grep -q 'candor: \*\*success\*\*' candor-report.md || fail "$name: the honest change's report is not a success: $(head -3 candor-report.md)"
  else
    fail "$name: the job failed on an honest change: $(cat "$work/out.txt")"
  fi
  if [[ $name == github-actions.yml ]]; then
    grep -q 'candor: \*\*success\*\*' "$work/summary.md" || fail "$name: the report is not in the job summary"
  fi
  # The test weakened to pass: fail (the tests of record fail), and the job fails.
  if run_block "$file" "$base" "$weak"; then
    fail "$name: the job passed on a change that only weakened its test"
  else
    grep -q 'candor: \*\*fail\*\*' candor-report.md || fail "$name: the weakened test's report is not a fail: $(head -3 candor-report.md)"
    # (however the Markdown escapes the path)
    grep 'passes only through its own test edits' candor-report.md | grep -q 'test.*_style.*sh' ||
      fail "$name: the weakened test's report does not say it passes only through its own test edits: $(head -20 candor-report.md)"
  fi
  # An honest change and a file nothing proves: partial. The job fails as written, and passes with
  # the documented allow-partial line.
  if run_block "$file" "$base" "$unproven"; then
    fail "$name: the job passed on a partial verdict as written"
  else
    grep -q 'candor: \*\*partial\*\*' candor-report.md || fail "$name: the unproven change's report is not partial: $(head -3 candor-report.md)"
  fi
  run_block "$file" "$base" "$unproven" allow-partial || fail "$name: the allow-partial line failed the job on partial: $(cat "$work/out.txt")"
  # The "change" is nothing at all: the verdict is fail, and the job fails.
  if run_block "$file" "$base" "$base"; then
    fail "$name: the job passed on a change that changes nothing"
  else
    grep -q 'candor: \*\*fail\*\*' candor-report.md || fail "$name: an empty change's report is not a fail: $(head -3 candor-report.md)"
  fi
done
echo "$failures failure(s)"
[[ $failures -eq 0 ]]
