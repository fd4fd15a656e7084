#!/usr/bin/env bash
# The HTML report in headless Chromium: the verdict banner, the step rows, a diff line, and a
# <script> from a workspace file shown as text, never run. Exit 77 (skipped) without Chromium.
set -euo pipefail
candor=${CANDOR_BIN:?}
src=${CANDOR_SOURCE_ROOT:?}
chromium=$(command -v chromium || command -v chromium-browser || true)
[[ -n "$chromium" ]] || { echo "chromium not installed: skipped"; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$src/examples/dark-green/site" "$work/site"
export CANDOR_HOME="$work/store" NO_COLOR=1 CANDOR_LLM=
unset ANTHROPIC_API_KEY ANTHROPIC_BASE_URL OPENAI_API_KEY OPENAI_BASE_URL  # no judge from the environment
cat > "$work/plan.json" <<'JSON'
{"goal_kind": "modify", "steps": [
  {"id": "s1", "tool": "file_read", "args": {"path": "index.html"}},
  {"id": "s2", "tool": "file_write", "args": {"path": "notes.html",
     "content": "<script>document.title='PWNED';document.body.innerHTML='PWNED'</script>\n"},
   "assert": [{"type": "file_contains", "path": "notes.html", "text": "PWNED"}]},
  {"id": "s3", "tool": "file_patch", "args": {"path": "css/style.css",
     "edits": [{"find": "background: #ffffff;", "replace": "background: #006400;"}]},
   "assert": [{"type": "file_contains", "path": "css/style.css", "text": "#006400"}]}],
 "then": "finish"}
JSON
"$candor" exec "$work/plan.json" -C "$work/site" --goal "Dark green <b>background</b>" >/dev/null
"$candor" report last --html "$work/report.html"

flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$work/profile")
timeout 60 "$chromium" "${flags[@]}" --dump-dom "file://$work/report.html" > "$work/dom.html" 2>"$work/chromium.log"
timeout 60 "$chromium" "${flags[@]}" --window-size=1000,1400 --screenshot="$work/report.png" "file://$work/report.html" \
  >/dev/null 2>>"$work/chromium.log"

fail=0
check() { if grep -q -- "$2" "$work/dom.html"; then echo "ok: $1"; else echo "FAILED: $1 (no '$2' in the DOM)"; fail=1; fi; }
check "verdict banner" '<header class="banner success" id="verdict"><h1>SUCCESS</h1>'
check "goal text escaped" 'Dark green &lt;b&gt;background&lt;/b&gt;'
check "diff line" '<span class="add">+  background: #006400;</span>'
check "script shown as text" '&lt;script&gt;document.title='
rows=$(grep -o '<tr class="step">' "$work/dom.html" | wc -l)
if [[ $rows -eq 3 ]]; then echo "ok: 3 step rows"; else echo "FAILED: $rows step rows, expected 3"; fail=1; fi
if grep -q '<title>candor success' "$work/dom.html" && ! grep -q 'PWNED</title>' "$work/dom.html"; then
  echo "ok: the injected script did not run"
else
  echo "FAILED: the page title changed"; fail=1
fi
size=$(stat -c %s "$work/report.png" 2>/dev/null || echo 0)
if [[ $size -gt 10000 ]]; then echo "ok: screenshot ($size bytes)"; else echo "FAILED: no screenshot"; cat "$work/chromium.log"; fail=1; fi
[[ -n "${KEEP_SCREENSHOT:-}" ]] && cp "$work/report.png" "$KEEP_SCREENSHOT"
exit $fail
