#!/usr/bin/env bash
# The CI examples (examples/ci/*.yml) run as written: GitLab's commands between its `# >>> candor`
# and `# <<< candor` lines are run by bash, with the variables the CI service would set (CANDOR_EXPECT
# as the file sets it); the GitHub workflow uses the repository's action (action.yml), whose script
# (scripts/ci/verify-pr.sh) is run with the inputs the workflow gives it; both on a repository built here, whose `make test` fails until the stylesheet
# under src/ is dark green: an honest change passes the job with a success report; a change that
# only weakens the test fails it (it passes only through its own test edits: the tests of record);
# an honest change that also touches a file nothing proves is partial, which fails the job as
# written and passes it with the documented allow-partial line (GitHub: `fail-on: fail`); a change
# that does nothing fails.
set -euo pipefail
# shellcheck source=tests/ci_repo.sh
source "${CANDOR_SOURCE_ROOT:?}/tests/ci_repo.sh"

ci_repo "$work/repo"

# run_action FILE BASE HEAD [allow-partial]: the action the workflow uses, with the workflow's
# inputs, as GitHub would run it (action.yml's env, no comment: that is ci_action_test.sh's); with a
# fourth argument, `fail-on: fail`, the alternative the workflow documents.
with_input() { sed -n "s/^ *$1: \(.*\)$/\1/p" "$2" | head -1 | sed "s/^'\(.*\)'$/\1/; s/ *#.*//"; }
run_action() {
  local file=$1 fail_on
  grep -Eq '^ *- uses: (\./|OWNER/candor@v1)$' "$file" || { fail "$file does not use candor's action"; return 99; }
  local expect
  expect=$(sed -n "s/^ *expect: '\(.*\)'$/\1/p" "$file")
  [[ -n $expect ]] || { fail "$file gives the action no expect"; return 99; }
  fail_on=$(with_input fail-on "$file")
  [[ $fail_on == partial ]] || { fail "$file: fail-on is '$fail_on', expected partial (only success passes)"; return 99; }
  if [[ -n ${4:-} ]]; then
    grep -q 'use `fail`' "$file" || { fail "$file does not document fail-on: fail"; return 99; }
    fail_on=fail
  fi
  rm -f candor-report.md
  BASE=$2 HEAD=$3 GOAL="Change the background to dark green" EXPECT=$expect FAIL_ON=$fail_on \
    ON_PROVIDER_ERROR=$(with_input on-provider-error "$file") COMMENT=false GITHUB_STEP_SUMMARY="$work/summary.md" \
    bash "$src/scripts/ci/verify-pr.sh" >"$work/out.txt" 2>&1
}

# The action hands each of its inputs to the script.
for input in base head goal expect args llm fail-on on-provider-error comment github-token comment-author; do
  grep -q "^  $input:" "$src/action.yml" || fail "action.yml has no input $input"
  grep -q '\${{ inputs\.'"$input"' }}' "$src/action.yml" || fail "action.yml does not pass the input $input on"
done

# run_block FILE BASE HEAD [allow-partial]: the CI file's candor commands, as the service would
# run them; with a fourth argument, with its documented allow-partial line in place of its last test.
run_block() {
  local file=$1
  [[ $(basename "$file") == github-actions.yml ]] && { run_action "$@"; return; }
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
