#!/usr/bin/env bash
# The CI examples (examples/ci/*.yml) run as written: the commands between their `# >>> candor` and
# `# <<< candor` lines are run by bash, with the variables the CI service would set (CANDOR_EXPECT
# as the file sets it), on a repository built here, whose `make test` fails until the stylesheet
# under src/ is dark green: an honest change passes the job with a success report, a change that
# only weakens the test is not a success and says why, a change that does nothing fails the job.
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
git checkout -q main

# run_block FILE BASE HEAD: the CI file's candor commands, as the service would run them.
run_block() {
  local file=$1
  sed -n '/# >>> candor/,/# <<< candor/p' "$file" | sed 's/^ *//' >"$work/block.sh"
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
  # The test weakened to pass: partial (the job passes; the report says the test file is unproven).
  if run_block "$file" "$base" "$weak"; then
    grep -q 'candor: \*\*partial\*\*' candor-report.md || fail "$name: the weakened test's report is not partial: $(head -3 candor-report.md)"
    # (however the Markdown escapes the path)
    grep 'is a test file that' candor-report.md | grep -q 'test.*_style.*sh' ||
      fail "$name: the weakened test's report does not name the test file: $(head -20 candor-report.md)"
  else
    fail "$name: the job failed on a partial verdict: $(cat "$work/out.txt")"
  fi
  # The "change" is nothing at all: the verdict is fail, and the job fails.
  if run_block "$file" "$base" "$base"; then
    fail "$name: the job passed on a change that changes nothing"
  else
    grep -q 'candor: \*\*fail\*\*' candor-report.md || fail "$name: an empty change's report is not a fail: $(head -3 candor-report.md)"
  fi
done
echo "$failures failure(s)"
[[ $failures -eq 0 ]]
