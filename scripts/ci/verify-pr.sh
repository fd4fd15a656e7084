#!/usr/bin/env bash
# What the GitHub Action (action.yml) runs, and what can be run anywhere to try it: verifies a pull
# request's commits with `candor verify --git BASE...HEAD`, writes the Markdown report to the job
# summary, keeps one comment on the pull request up to date, and decides the job's outcome.
#
# Inputs, from the environment (the action's inputs of the same names):
#   BASE, HEAD            the commits (required)
#   GOAL                  the goal text (the pull request's description); GOAL_FILE instead, a file
#   EXPECT                assertions that prove the change, one JSON object a line (--expect each)
#   ARGS                  more arguments for candor verify, one a line (no shell quoting needed)
#   LLM                   the judge's provider (--llm), e.g. anthropic or openai:MODEL; "" for none
#   FAIL_ON               partial (default: only success passes) | fail (partial passes, warned)
#   ON_PROVIDER_ERROR     fail (default) | neutral: exit 69, the provider unavailable, passes with
#                         a notice, and the report says so
#   COMMENT               true (default) | false: the sticky comment
#   PR_NUMBER, GITHUB_REPOSITORY   where the comment goes (no PR_NUMBER: no comment)
#   COMMENT_AUTHOR        whose comment is candor's (default github-actions[bot], GITHUB_TOKEN's)
#   CANDOR                the candor binary (default: candor on PATH)
#   REPORT                the report's file (default candor-report.md)
#   GITHUB_STEP_SUMMARY, GITHUB_OUTPUT   set by GitHub Actions (outputs: status, verdict, report)
# The comment is found by the hidden marker on its first line, `<!-- candor-verify -->`, among the
# author's comments (gh api ... /issues/N/comments), and PATCHed; created when there is none. A
# comment that cannot be posted (a fork's read-only token) is a warning, never the job's failure.
# Exit: 0 when the job passes; candor's status when it fails it (64 for a bad input here).
set -uo pipefail
marker='<!-- candor-verify -->'
candor=${CANDOR:-candor}
report=${REPORT:-candor-report.md}
fail_on=${FAIL_ON:-partial}
on_provider_error=${ON_PROVIDER_ERROR:-fail}

usage() { echo "::error::verify-pr: $*" >&2; exit 64; }
[[ $fail_on == partial || $fail_on == fail ]] || usage "fail-on is partial or fail, not '$fail_on'"
[[ $on_provider_error == fail || $on_provider_error == neutral ]] ||
  usage "on-provider-error is fail or neutral, not '$on_provider_error'"
[[ -n ${BASE:-} && -n ${HEAD:-} ]] || usage "base and head are required (the pull request's commits)"

# The command, one argument per line of EXPECT and ARGS: JSON with spaces needs no quoting.
goal_file=${GOAL_FILE:-}
if [[ -z $goal_file ]]; then
  goal_file=$(mktemp)
  trap 'rm -f "$goal_file"' EXIT
  printf '%s\n' "${GOAL:-}" >"$goal_file"
fi
cmd=("$candor" verify --git "$BASE...$HEAD" --goal-file "$goal_file" --markdown)
while IFS= read -r line; do [[ -n ${line//[[:space:]]/} ]] && cmd+=(--expect "$line"); done <<<"${EXPECT:-}"
[[ -n ${LLM:-} ]] && cmd+=(--llm "$LLM")
while IFS= read -r line; do [[ -n ${line//[[:space:]]/} ]] && cmd+=("$line"); done <<<"${ARGS:-}"

status=0
"${cmd[@]}" >"$report" 2>"$report.err" || status=$?
cat "$report.err" >&2
case $status in
  0) verdict=success ;;
  1) verdict=partial ;;
  2) verdict=fail ;;
  3) verdict=success-acceptance-missed ;;
  69) verdict=provider-unavailable ;;
  *) verdict=error ;;
esac

# What the job does with it, said in the report and the log.
note=
pass=false
case $status in
  0) pass=true ;;
  1 | 3)
    if [[ $fail_on == fail ]]; then
      pass=true
      note="candor could not prove all of the change (exit $status); fail-on: fail lets it pass: read the report."
      echo "::warning::$note"
    fi
    ;;
  69)
    if [[ $on_provider_error == neutral ]]; then
      pass=true
      note="The LLM provider was unavailable (exit 69), so the judge could not answer; on-provider-error: neutral lets the job pass unverified."
      echo "::notice::$note"
    fi
    ;;
esac
if [[ ! -s $report ]]; then
  # candor printed no report (bad input, an internal error): its message is the report.
  { echo "candor exited $status without a report:"; echo; echo '```'; tail -c 4000 "$report.err"; echo '```'; } >"$report"
fi
[[ -n $note ]] && printf '\n> **Note:** %s\n' "$note" >>"$report"
rm -f "$report.err"

[[ -n ${GITHUB_STEP_SUMMARY:-} ]] && cat "$report" >>"$GITHUB_STEP_SUMMARY"
if [[ -n ${GITHUB_OUTPUT:-} ]]; then
  { echo "status=$status"; echo "verdict=$verdict"; echo "report=$report"; } >>"$GITHUB_OUTPUT"
fi

# The sticky comment: the marker, then the report (cut below GitHub's 65,536 characters).
if [[ ${COMMENT:-true} == true && -n ${PR_NUMBER:-} ]]; then
  repo=${GITHUB_REPOSITORY:?GITHUB_REPOSITORY is needed to comment}
  body=$(mktemp)
  { echo "$marker"; head -c 60000 "$report"; } >"$body"
  [[ $(wc -c <"$report") -gt 60000 ]] && printf '\n\n… (cut: the whole report is in the job summary)\n' >>"$body"
  author=${COMMENT_AUTHOR:-github-actions[bot]}
  id=$(gh api "repos/$repo/issues/$PR_NUMBER/comments" --paginate \
    --jq ".[] | select(.user.login == \"$author\" and (.body | startswith(\"$marker\"))) | .id" | head -1) || id=
  if [[ -n $id ]]; then
    gh api -X PATCH "repos/$repo/issues/comments/$id" -F "body=@$body" >/dev/null ||
      echo "::warning::could not update the pull request's comment $id"
  else
    gh api -X POST "repos/$repo/issues/$PR_NUMBER/comments" -F "body=@$body" >/dev/null ||
      echo "::warning::could not comment on the pull request (a fork's token is read-only)"
  fi
  rm -f "$body"
fi

echo "candor: $verdict (exit $status); fail-on: $fail_on, on-provider-error: $on_provider_error: the job $($pass && echo passes || echo fails)"
$pass && exit 0
exit $status
