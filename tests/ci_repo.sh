# What the CI tests (ci_examples_test.sh, ci_action_test.sh) share, sourced first: $candor and $src
# from the environment, a scratch $work removed on exit, fail() counting $failures, git's identity,
# no LLM provider from the environment, a store in $work, and `candor` first on PATH ($work/bin);
# then the repository they verify:
#   ci_repo DIR   (leaves the shell in DIR, on main)
# `make test` fails on `base` and passes once src/style.css is dark green. It sets base; good (the
# honest change); weak (only the test weakened: it passes through its own test edits); unproven
# (the honest change and a file nothing proves).
candor=${CANDOR_BIN:?} src=${CANDOR_SOURCE_ROOT:?}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
export HOME=/nonexistent GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=agent GIT_AUTHOR_EMAIL=agent@example.com \
  GIT_COMMITTER_NAME=agent GIT_COMMITTER_EMAIL=agent@example.com
unset CANDOR_LLM ANTHROPIC_API_KEY ANTHROPIC_BASE_URL OPENAI_API_KEY OPENAI_BASE_URL GITHUB_OUTPUT GITHUB_STEP_SUMMARY
export CANDOR_HOME="$work/store" NO_COLOR=1
mkdir -p "$work/bin" && ln -s "$candor" "$work/bin/candor"
export PATH="$work/bin:$PATH"

ci_repo() {
  local repo=$1
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
}
