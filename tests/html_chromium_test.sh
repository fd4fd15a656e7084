#!/usr/bin/env bash
# The HTML report in headless Chromium. Run 1 (exec, a judge asked though tier 1 decided): the
# verdict banner, the step rows, a diff line, a <script> from a workspace file shown as text and
# never run, the judge's answers shown as secondary. Run 2 (run: a failed assertion, a replan, the
# judge deciding, a warning): each new element of the page. Exit 77 (skipped) without Chromium.
# KEEP_SCREENSHOT=DIR keeps both screenshots.
set -euo pipefail
candor=${CANDOR_BIN:?}
src=${CANDOR_SOURCE_ROOT:?}
chromium=$(command -v chromium || command -v chromium-browser || true)
[[ -n "$chromium" ]] || { echo "chromium not installed: skipped"; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$src/examples/dark-green/site" "$work/site"
cp -r "$src/examples/dark-green/site" "$work/site2"
export CANDOR_HOME="$work/store" NO_COLOR=1 CANDOR_LLM=
unset ANTHROPIC_API_KEY ANTHROPIC_BASE_URL OPENAI_API_KEY OPENAI_BASE_URL  # no judge from the environment
cat > "$work/plan.json" <<'JSON'
{"goal_kind": "modify", "questions": ["Is the background dark green?"], "steps": [
  {"id": "s1", "tool": "file_read", "args": {"path": "index.html"}},
  {"id": "s2", "tool": "file_write", "args": {"path": "notes.html",
     "content": "<script>document.title='PWNED';document.body.innerHTML='PWNED'</script>\n"},
   "assert": [{"type": "file_contains", "path": "notes.html", "text": "PWNED"}]},
  {"id": "s3", "tool": "file_patch", "args": {"path": "css/style.css",
     "edits": [{"find": "background: #ffffff;", "replace": "background: #006400;"}]},
   "assert": [{"type": "file_contains", "path": "css/style.css", "text": "#006400"}]}],
 "then": "finish"}
JSON
# The judge's goal-only call fixes its questions; its answers end with the question candor appends.
cat > "$work/judge1.jsonl" <<'JSON'
{"reply_json": {"questions": ["Is the background dark green?"]}}
{"reply_json": {"answers": [{"question": 1, "answer": "yes", "reason": "style.css sets #006400"}, {"question": 2, "answer": "yes", "reason": "nothing else changed"}]}}
JSON
"$candor" exec "$work/plan.json" -C "$work/site" --goal "Dark green <b>background</b>" --llm "script:$work/judge1.jsonl" \
  --judge always >/dev/null
"$candor" report last -C "$work/site" --html "$work/report.html"

# Run 2: round 1's assertion fails (the planner wrote a colour name, then checked for the hex), round
# 2 patches the hex in and checks it; the round-1 check passes when made again at the end, so no
# failure is left, but only the planner's own checks back the change: tier 1 is unsure and the judge
# decides, on the questions its goal-only call gave (the third answer is the question candor appends).
cat > "$work/replies.jsonl" <<'JSON'
{"reply_json": {"goal_kind": "modify", "questions": ["Is the page background dark green?"], "steps": [{"id": "s1", "tool": "file_patch", "why": "make <i>the</i> background dark green", "args": {"path": "css/style.css", "edits": [{"find": "background: #ffffff;", "replace": "background: darkgreen;"}]}, "assert": [{"type": "file_contains", "path": "css/style.css", "text": "#006400"}]}, {"id": "s2", "tool": "file_read", "why": "never reached", "args": {"path": "index.html"}}], "then": "finish"}}
{"reply_json": {"steps": [{"id": "s3", "tool": "file_patch", "why": "write the colour as the hex the check wants", "args": {"path": "css/style.css", "edits": [{"find": "background: darkgreen;", "replace": "background: #006400;"}]}, "assert": [{"type": "file_contains", "path": "css/style.css", "text": "#006400"}]}], "then": "finish", "final_answer": "The background is dark green."}}
{"reply_json": {"questions": ["Is the page background dark green?", "Is the <em>text</em> still readable?"]}}
{"reply_json": {"answers": [{"question": 1, "answer": "yes", "reason": "style.css now sets #006400"}, {"question": 2, "answer": "yes", "reason": "the <b>text</b> colour is unchanged"}, {"question": 3, "answer": "yes", "reason": "only style.css changed"}]}}
JSON
"$candor" run "Make the background dark green" -C "$work/site2" --llm "script:$work/replies.jsonl" -q >/dev/null || true
"$candor" report last -C "$work/site2" --html "$work/report2.html"

flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$work/profile")
for n in "" 2; do
  timeout 60 "$chromium" "${flags[@]}" --dump-dom "file://$work/report$n.html" > "$work/dom$n.html" 2>>"$work/chromium.log"
  timeout 60 "$chromium" "${flags[@]}" --window-size=1280,2000 --screenshot="$work/report$n.png" "file://$work/report$n.html" \
    >/dev/null 2>>"$work/chromium.log"
done

fail=0
check() { if grep -qF -- "$3" "$work/$1"; then echo "ok: $2"; else echo "FAILED: $2 (no '$3' in $1)"; fail=1; fi; }
absent() { if ! grep -qF -- "$3" "$work/$1"; then echo "ok: $2"; else echo "FAILED: $2 ('$3' in $1)"; fail=1; fi; }
# `a` comes before `b` in the DOM.
before() {
  local a b
  a=$(grep -obF -- "$3" "$work/$1" | head -1 | cut -d: -f1 || true)
  b=$(grep -obF -- "$4" "$work/$1" | head -1 | cut -d: -f1 || true)
  if [[ -n "$a" && -n "$b" && $a -lt $b ]]; then echo "ok: $2"; else echo "FAILED: $2 ('$3' at ${a:-none}, '$4' at ${b:-none})"; fail=1; fi
}

check dom.html "verdict banner" '<header class="banner success" id="verdict"><h1>SUCCESS</h1>'
check dom.html "goal text escaped" 'Dark green &lt;b&gt;background&lt;/b&gt;'
check dom.html "diff line" '<span class="add">+  background: #006400;</span>'
check dom.html "script shown as text" '&lt;script&gt;document.title='
rows=$(grep -o '<tr class="step">' "$work/dom.html" | wc -l)
if [[ $rows -eq 3 ]]; then echo "ok: 3 step rows"; else echo "FAILED: $rows step rows, expected 3"; fail=1; fi
if grep -q '<title>candor success' "$work/dom.html" && ! grep -q 'PWNED</title>' "$work/dom.html"; then
  echo "ok: the injected script did not run"
else
  echo "FAILED: the page title changed"; fail=1
fi
check dom.html "the judge asked, tier 1 deciding: secondary" '<section id="judge" class="judge-secondary"><h2>The judge was asked; tier 1 decided</h2>'
absent dom.html "no warning on a clean success" '<li class="warning">'
check dom.html "a supporting reason, marked in words" '<li class="support"><span class="mark">✓ supports:</span> every changed file'
check dom.html "signals: changed files" '<tr id="sig-changed-files"><th>changed files</th><td>2</td></tr>'
check dom.html "signals: no suspicious step" '<tr id="sig-suspicious"><th>suspicious steps</th><td>0</td></tr>'
check dom.html "signals: budget not exhausted" '<tr id="sig-budget-exhausted"><th>budget exhausted</th><td>no</td></tr>'
check dom.html "signals: assertions" '<tr id="sig-assertions"><th>assertions</th><td>2 passed, 0 failed · final: 2 passed, 0 failed</td></tr>'
check dom.html "signals: effect tools" '<tr id="sig-effect-tools"><th>effect tools run</th><td>yes</td></tr>'
check dom.html "signals: sandbox" '<tr id="sig-sandbox"><th>sandbox (shell steps)</th>'
check dom.html "signals: provider" '<tr id="sig-provider"><th>provider / model</th><td>script'
check dom.html "signals: judge policy" '<tr id="sig-judge-policy"><th>judge policy</th><td>always</td></tr>'

check dom2.html "run 2 decided by the judge" '<header class="banner success" id="verdict"><h1>SUCCESS</h1>'
check dom2.html "the banner counts the warnings" '<span id="banner-warnings">⚠ 1 warning</span>'
absent dom.html "no warning count on a clean success" 'id="banner-warnings"'
check dom2.html "the judge's answers beside the verdict" '<section id="judge" class="judge-decided"><h2>The judge decided (tier 2)</h2>'
before dom2.html "the judge's answers come before the reasons" 'id="judge-answers"' 'id="reasons"'
check dom2.html "the judge's question, answer and reason, escaped" '<td>Is the &lt;em&gt;text&lt;/em&gt; still readable?</td><td class="ok">✓ yes</td><td>the &lt;b&gt;text&lt;/b&gt; colour is unchanged</td>'
check dom2.html "a warning, marked in words, with its severity" '<li class="warning"><span class="mark">⚠ warning:</span> <span class="severity">unproven</span> css/style.css (modified) is covered only by the planner'"'"'s own checks'
check dom2.html "the judge's yes supports" '<li class="support"><span class="mark">✓ supports:</span> the judge answered yes to 3 of 3 questions</li>'
check dom2.html "round 1: first plan" '<tr class="round"><th colspan="5">Round 1 · <span class="plan-reason">first plan</span>'
check dom2.html "round 2: the replan reason" '<tr class="round"><th colspan="5">Round 2 · <span class="replan-reason">replanned because: '
check dom2.html "the replan reason names the failed assertion" 'replanned because: step s1'
check dom2.html "a failed assertion is not ok" '<td class="outcome assertion-failed">✗ assertion failed<br>file_contains: '
check dom2.html "a step's why, escaped" '<td class="why">make &lt;i&gt;the&lt;/i&gt; background dark green</td>'
check dom2.html "a step the failure skipped" '<tr class="step-not-run"><td class="id">s2</td>'
check dom2.html "a passing step" '<td class="outcome ok">✓ ok, 1 assertion passed</td>'
check dom2.html "signals: changed files" '<tr id="sig-changed-files"><th>changed files</th><td>1</td></tr>'
check dom2.html "signals: assertions" '<tr id="sig-assertions"><th>assertions</th><td>1 passed, 1 failed · final: 1 passed, 0 failed</td></tr>'
check dom2.html "signals: judge policy" '<tr id="sig-judge-policy"><th>judge policy</th><td>auto</td></tr>'
absent dom2.html "no secondary judge when it decided" 'class="judge-secondary"'

for n in "" 2; do
  size=$(stat -c %s "$work/report$n.png" 2>/dev/null || echo 0)
  if [[ $size -gt 10000 ]]; then echo "ok: screenshot $n ($size bytes)"; else echo "FAILED: no screenshot $n"; cat "$work/chromium.log"; fail=1; fi
done
if [[ -n "${KEEP_SCREENSHOT:-}" ]]; then mkdir -p "$KEEP_SCREENSHOT"; cp "$work"/report*.png "$work"/report*.html "$KEEP_SCREENSHOT"/; fi
exit $fail
