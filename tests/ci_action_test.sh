#!/usr/bin/env bash
# The GitHub Action's script (scripts/ci/verify-pr.sh, what action.yml runs) with the built candor,
# a real repository built here and a fake `gh` on PATH that logs its calls and keeps the pull
# request's comments in a folder: the comment is created the first time and PATCHed the next (one
# comment, never two; another user's comment with the same marker is left alone); fail-on partial
# fails a partial verdict and fail-on fail lets it pass with a warning; a fail fails either way;
# on-provider-error neutral turns exit 69 into a pass with a notice, fail keeps it; a bad input is
# exit 64 before candor runs; a comment that cannot be posted is a warning, not the job's failure.
set -euo pipefail
# shellcheck source=tests/ci_repo.sh
source "${CANDOR_SOURCE_ROOT:?}/tests/ci_repo.sh"
mkdir -p "$work/gh/comments"

# The fake gh: `gh api` as verify-pr.sh calls it, against comments kept as files (ID.body, ID.author).
cat >"$work/bin/gh" <<'GH'
#!/usr/bin/env bash
state=${GH_STATE:?}
printf '%s\n' "$*" >>"$state/log"
[[ $1 == api ]] || { echo "fake gh: only api" >&2; exit 2; }
shift
method=GET body= jq= url=
while [[ $# -gt 0 ]]; do
  case $1 in
    -X) method=$2; shift 2 ;;
    -F) body=${2#body=@}; shift 2 ;;
    --jq) jq=$2; shift 2 ;;
    --paginate) shift ;;
    *) url=$1; shift ;;
  esac
done
[[ -n ${GH_FAIL:-} && $method != GET ]] && { echo "HTTP 403: Resource not accessible by integration" >&2; exit 1; }
case $method:$url in
  GET:repos/*/issues/*/comments)
    # What the script's --jq keeps: the comments by the author it names that start with the marker.
    author=$(sed -n 's/.*\.user\.login == "\([^"]*\)".*/\1/p' <<<"$jq")
    marker=$(sed -n 's/.*startswith("\([^"]*\)").*/\1/p' <<<"$jq")
    [[ -n $author && -n $marker ]] || { echo "fake gh: unexpected --jq: $jq" >&2; exit 2; }
    for f in $(ls "$state/comments" | grep '\.body$' | sort -n); do
      id=${f%.body}
      [[ $(cat "$state/comments/$id.author") == "$author" ]] && head -1 "$state/comments/$f" | grep -qF "$marker" && echo "$id"
    done
    exit 0 ;;
  POST:repos/*/issues/*/comments)
    id=1001
    while [[ -f $state/comments/$id.body ]]; do id=$((id + 1)); done
    cp "$body" "$state/comments/$id.body"; echo 'github-actions[bot]' >"$state/comments/$id.author"
    echo "{\"id\": $id}" ;;
  PATCH:repos/*/issues/comments/*)
    id=${url##*/}
    [[ -f $state/comments/$id.body ]] || { echo "HTTP 404" >&2; exit 1; }
    cp "$body" "$state/comments/$id.body"; echo "{\"id\": $id}" ;;
  *) echo "fake gh: unexpected $method $url" >&2; exit 2 ;;
esac
GH
chmod +x "$work/bin/gh"
export GH_STATE="$work/gh"
# Another user's comment that carries the marker: never candor's to edit.
printf '<!-- candor-verify -->\nlooks good to me\n' >"$work/gh/comments/500.body"
echo mallory >"$work/gh/comments/500.author"

ci_repo "$work/repo"
: >"$work/empty.jsonl"   # a provider with no answer: the judge's first call fails (exit 69)

expect='{"type": "command_succeeds", "command": "make test", "covers": ["src/**"]}'
# action HEAD [NAME=VALUE...]: the script as action.yml runs it, for pull request 7; sets $status.
action() {
  local head=$1
  shift
  : >"$work/gh/log"
  : >"$work/summary.md"
  : >"$work/output.txt"
  status=0
  env BASE="$base" HEAD="$head" GOAL="Change the background to dark green" EXPECT="$expect" FAIL_ON=partial \
    ON_PROVIDER_ERROR=fail COMMENT=true PR_NUMBER=7 GITHUB_REPOSITORY=acme/site GITHUB_STEP_SUMMARY="$work/summary.md" \
    GITHUB_OUTPUT="$work/output.txt" "$@" bash "$src/scripts/ci/verify-pr.sh" >"$work/out.txt" 2>&1 || status=$?
}
calls() { grep -c -- "$1" "$work/gh/log" || true; }
bot_comments() { grep -lx 'github-actions\[bot\]' "$work"/gh/comments/*.author 2>/dev/null | wc -l; }

# 1. The first run: success, one comment created.
action "$good"
[[ $status -eq 0 ]] || fail "an honest change failed the job ($status): $(cat "$work/out.txt")"
[[ $(calls '^api repos/acme/site/issues/7/comments --paginate') -eq 1 ]] || fail "no lookup of the comments: $(cat "$work/gh/log")"
[[ $(calls '^api -X POST repos/acme/site/issues/7/comments -F body=@') -eq 1 ]] || fail "the comment was not created: $(cat "$work/gh/log")"
[[ $(calls PATCH) -eq 0 ]] || fail "the first run patched a comment: $(cat "$work/gh/log")"
[[ $(bot_comments) -eq 1 ]] || fail "$(bot_comments) comments of candor's after the first run, expected 1"
[[ $(head -1 "$work/gh/comments/1001.body" 2>/dev/null) == '<!-- candor-verify -->' ]] || fail "the comment does not start with the marker"
grep -q 'candor: \*\*success\*\*' "$work/gh/comments/1001.body" || fail "the comment is not the success report"
grep -q 'candor: \*\*success\*\*' "$work/summary.md" || fail "the report is not in the job summary"
grep -qx 'verdict=success' "$work/output.txt" && grep -qx 'status=0' "$work/output.txt" ||
  fail "the outputs are not verdict=success, status=0: $(cat "$work/output.txt")"

# 2. The next push: partial; with fail-on fail the job passes, warned; the same comment is PATCHed.
action "$unproven" FAIL_ON=fail
[[ $status -eq 0 ]] || fail "fail-on fail failed the job on partial ($status): $(cat "$work/out.txt")"
grep -q '^::warning::candor could not prove all of the change (exit 1)' "$work/out.txt" || fail "no warning for a partial let through: $(cat "$work/out.txt")"
[[ $(calls '^api -X PATCH repos/acme/site/issues/comments/1001 -F body=@') -eq 1 ]] || fail "the comment was not PATCHed: $(cat "$work/gh/log")"
[[ $(calls POST) -eq 0 ]] || fail "the second run created another comment: $(cat "$work/gh/log")"
[[ $(bot_comments) -eq 1 ]] || fail "$(bot_comments) comments of candor's after the second run, expected 1"
grep -q 'candor: \*\*partial\*\*' "$work/gh/comments/1001.body" || fail "the comment was not updated to the partial report"
grep -q 'fail-on: fail lets it pass' "$work/gh/comments/1001.body" || fail "the comment does not say why a partial passed"
[[ $(cat "$work/gh/comments/500.body") == $'<!-- candor-verify -->\nlooks good to me' ]] || fail "another user's comment was changed"

# 3. fail-on partial (the default): the same partial fails the job.
action "$unproven"
[[ $status -eq 1 ]] || fail "fail-on partial let a partial verdict pass (exit $status)"
grep -q 'the job fails' "$work/out.txt" || fail "the log does not say the job fails: $(tail -3 "$work/out.txt")"
# 4. A fail fails under both.
for f in partial fail; do
  action "$weak" FAIL_ON=$f
  [[ $status -eq 2 ]] || fail "fail-on $f: a weakened test gave exit $status, expected 2"
done

# 5. The provider unavailable (exit 69): neutral passes with a notice, fail fails.
action "$good" EXPECT= LLM="script:$work/empty.jsonl" ON_PROVIDER_ERROR=neutral
[[ $status -eq 0 ]] || fail "on-provider-error neutral did not pass exit 69 (exit $status): $(cat "$work/out.txt")"
grep -q '^::notice::The LLM provider was unavailable (exit 69)' "$work/out.txt" || fail "no notice for the provider error: $(cat "$work/out.txt")"
grep -qx 'status=69' "$work/output.txt" || fail "the status output is not 69: $(cat "$work/output.txt")"
grep -q 'on-provider-error: neutral' "$work/summary.md" || fail "the summary does not say the job passed unverified"
action "$good" EXPECT= LLM="script:$work/empty.jsonl"
[[ $status -eq 69 ]] || fail "on-provider-error fail: exit $status, expected 69"

# 6. A bad input: 64, before candor runs or anything is posted.
action "$good" FAIL_ON=sometimes
[[ $status -eq 64 ]] || fail "fail-on sometimes: exit $status, expected 64"
grep -q "fail-on is partial or fail, not 'sometimes'" "$work/out.txt" || fail "no message for a bad fail-on: $(cat "$work/out.txt")"
[[ ! -s "$work/gh/log" ]] || fail "a bad input still called gh: $(cat "$work/gh/log")"
action "$good" ON_PROVIDER_ERROR=ignore
[[ $status -eq 64 ]] || fail "on-provider-error ignore: exit $status, expected 64"

# 7. comment false: no gh at all; a comment that cannot be posted: a warning, the job still passes.
action "$good" COMMENT=false
[[ $status -eq 0 && ! -s "$work/gh/log" ]] || fail "comment false: exit $status, gh calls: $(cat "$work/gh/log")"
rm -f "$work"/gh/comments/100*
action "$good" GH_FAIL=1
[[ $status -eq 0 ]] || fail "a comment that could not be posted failed the job ($status)"
grep -q '^::warning::could not comment on the pull request' "$work/out.txt" || fail "no warning when the comment failed: $(cat "$work/out.txt")"

echo "$failures failure(s)"
[[ $failures -eq 0 ]]
