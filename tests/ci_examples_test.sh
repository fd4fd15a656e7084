#!/usr/bin/env bash
# The CI examples (examples/ci/*.yml) run as written: the commands between their `# >>> candor` and
# `# <<< candor` lines are run by bash, with the variables the CI service would set, on a
# repository built here: an honest change passes the job with a success report, a change that
# does nothing fails it.
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
cp -r "$src/examples/dark-green/site" "$repo"
chmod -R u+w "$repo"
cd "$repo"
git init -q -b main
mkdir -p .candor
# The repository's own expectation, trusted because it is in BASE.
echo '{"expect": [{"type": "file_contains", "path": "css/style.css", "text": "background: #006400"}]}' > .candor/config.json
git add -A && git commit -qm base
base=$(git rev-parse HEAD)
git checkout -qb agent
sed -i 's/background: #ffffff;/background: #006400;/' css/style.css
git commit -qam "dark green"
good=$(git rev-parse HEAD)
git checkout -q main

# run_block FILE BASE HEAD: the CI file's candor commands, as the service would run them.
run_block() {
  local file=$1
  sed -n '/# >>> candor/,/# <<< candor/p' "$file" | sed 's/^ *//' >"$work/block.sh"
  [[ $(wc -l <"$work/block.sh") -ge 4 ]] || { fail "$file has no '# >>> candor' block"; return 99; }
  rm -f candor-report.md
  BASE=$2 HEAD=$3 PR_BODY="Change the background to dark green" GITHUB_STEP_SUMMARY="$work/summary.md" \
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
  # The "change" is nothing at all: the verdict is fail, and the job fails.
  if run_block "$file" "$base" "$base"; then
    fail "$name: the job passed on a change that changes nothing"
  else
    grep -q 'candor: \*\*fail\*\*' candor-report.md || fail "$name: an empty change's report is not a fail: $(head -3 candor-report.md)"
  fi
done
echo "$failures failure(s)"
[[ $failures -eq 0 ]]
