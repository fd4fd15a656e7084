#!/usr/bin/env bash
# Record a real Cline CLI task against the scripted local Anthropic Messages API
# server (fake_anthropic.py, beside this script): the sample of candor's `cline`
# import format (tests/data/trajectories/cline/real-2.18.0, issue 27). Everything
# lives under $ROOT (default: a new temporary folder); HOME is a scratch folder
# there, so nothing global is touched.
#
#   usage: record_cline.sh [VERSION]     VERSION = 2.18.0 (default) or 3.0.65
#
#   2.18.0  "Cline CLI - Node.js" host around the extension core (cline 3.82.0):
#           writes the classic task folder ~/.cline/data/tasks/<epoch ms>/
#           {api_conversation_history.json, ui_messages.json, task_metadata.json}
#   3.0.65  the rewritten CLI on @cline/core 0.0.86 (Bun-compiled binary):
#           writes ~/.cline/data/sessions/<id>/{<id>.json, <id>.messages.json}
#           (+ an index in ~/.cline/data/db/sessions.db) -- a different format.
#
# Output: $ROOT/out/v$VERSION/ (Cline's files + requests log + run output).
set -euo pipefail

VERSION="${1:-2.18.0}"
ROOT="${ROOT:-$(mktemp -d)}"
FAKE="${FAKE:-$(cd "$(dirname "$0")" && pwd)/fake_anthropic.py}"
RUN="$ROOT/run-$VERSION"          # scratch for this recording
PREFIX="$ROOT/npm-$VERSION"        # npm prefix holding the pinned CLI
OUT="$ROOT/out/v$VERSION"
WS="$RUN/ws"                       # the workspace Cline works in
MAJOR="${VERSION%%.*}"

rm -rf "$RUN" "$OUT"
mkdir -p "$RUN/home" "$WS" "$OUT"
export HOME="$RUN/home"
unset ANTHROPIC_API_KEY ANTHROPIC_BASE_URL OPENAI_API_KEY CLINE_API_KEY CLINE_DATA_DIR CLINE_DIR || true

# 1. install the pinned CLI (npm does not run the install scripts by default
#    here; neither version needs them)
if [ ! -x "$PREFIX/node_modules/.bin/cline" ]; then
  npm install --prefix "$PREFIX" --no-audit --no-fund "cline@$VERSION"
fi
CLINE="$PREFIX/node_modules/.bin/cline"
"$CLINE" --version

# 2. the script: the model creates a file, runs a passing command and a failing
#    one, then finishes.  Tool names differ by CLI generation (seen in the
#    "tools" list of the requests each one sends; both use native tool_use):
#      2.x: write_to_file, execute_command, attempt_completion
#      3.x: editor, run_commands, submit_and_exit (yolo-mode completion tool)
if [ "$MAJOR" -le 2 ]; then
cat > "$RUN/script.jsonl" <<EOF
{"expect": "Create hello.py", "text": "I'll create the file first.", "tool_use": {"name": "write_to_file", "input": {"absolutePath": "$WS/hello.py", "content": "print('hello from cline')\\n", "task_progress": "- [ ] Create hello.py\\n- [ ] Run it\\n- [ ] Check missing.txt"}}}
{"expect": "hello.py", "tool_use": {"name": "execute_command", "input": {"command": "ls -l && python3 hello.py", "requires_approval": false}}}
{"expect": "hello from cline", "text": "The file runs. Now checking for a file that should not exist.", "tool_use": {"name": "execute_command", "input": {"command": "test -f missing.txt", "requires_approval": false}}}
{"text": "missing.txt is absent, as expected (the test command failed).", "tool_use": {"name": "attempt_completion", "input": {"result": "Created hello.py, which prints 'hello from cline'. 'ls -l && python3 hello.py' succeeded; 'test -f missing.txt' failed because missing.txt does not exist.", "task_progress": "- [x] Create hello.py\\n- [x] Run it\\n- [x] Check missing.txt"}}}
{"text": "Done."}
EOF
else
cat > "$RUN/script.jsonl" <<EOF
{"expect": "Create hello.py", "text": "I'll create the file first.", "tool_use": {"name": "editor", "input": {"path": "$WS/hello.py", "new_text": "print('hello from cline')\\n"}}}
{"expect": "hello.py", "tool_use": {"name": "run_commands", "input": {"commands": ["ls -l && python3 hello.py"]}}}
{"expect": "hello from cline", "text": "The file runs. Now checking for a file that should not exist.", "tool_use": {"name": "run_commands", "input": {"commands": ["test -f missing.txt"]}}}
{"text": "missing.txt is absent, as expected (the test command failed).", "tool_use": {"name": "submit_and_exit", "input": {"summary": "Created hello.py, which prints 'hello from cline'. 'ls -l && python3 hello.py' succeeded; 'test -f missing.txt' failed because missing.txt does not exist.", "verified": true}}}
{"text": "Done."}
EOF
fi

# 3. start the scripted server
python3 "$FAKE" --script "$RUN/script.jsonl" --log "$RUN/requests.jsonl" \
  --port-file "$RUN/port" > "$RUN/server.out" 2>&1 &
SERVER_PID=$!
trap 'kill "$SERVER_PID" 2>/dev/null || true' EXIT
for _ in $(seq 50); do [ -s "$RUN/port" ] && break; sleep 0.1; done
PORT="$(cat "$RUN/port")"

# 4. provider config: anthropic, dummy key, base URL -> the fake server.
#    `cline auth` takes --baseurl only for OpenAI(-compatible) providers
#    (3.0.65: "base URL is only supported for OpenAI and OpenAI-compatible
#    providers"), so the base URL is added to the file `cline auth` wrote.
if [ "$MAJOR" -le 2 ]; then
  "$CLINE" auth -p anthropic -k sk-ant-dummy-key -m claude-sonnet-4-6
  SETTINGS="$HOME/.cline/data/globalState.json"; KEY=anthropicBaseUrl; URL="http://127.0.0.1:$PORT"
else
  "$CLINE" auth --provider anthropic --apikey sk-ant-dummy-key --modelid claude-sonnet-4-6
  SETTINGS="$HOME/.cline/data/settings/providers.json"; KEY=baseUrl; URL="http://127.0.0.1:$PORT/v1"
fi
python3 - "$SETTINGS" "$KEY" "$URL" <<'PY'
import json, sys
p, key, url = sys.argv[1:4]
d = json.load(open(p))
if key == "baseUrl":
    d["providers"]["anthropic"]["settings"]["baseUrl"] = url   # 3.x providers.json
else:
    d[key] = url                                                # 2.x globalState.json
json.dump(d, open(p, "w"), indent=2)
PY

# 5. run headless (yolo = auto-approve everything, exit when the task ends)
PROMPT="Create hello.py that prints a greeting, run it, check that missing.txt does not exist, then finish."
set +e
(cd "$WS" && timeout 300 "$CLINE" --yolo --json -c "$WS" "$PROMPT" \
  > "$RUN/cline.stdout.ndjson" 2> "$RUN/cline.stderr" < /dev/null)
RC=$?
set -e
echo "cline exit code: $RC" | tee "$RUN/cline.rc"

# 6. copy out
if [ "$MAJOR" -le 2 ]; then
  SRC="$(ls -d "$HOME"/.cline/data/tasks/*/ | head -1)"          # tasks/<epoch ms>/
  cp -r "$SRC" "$OUT/task"
  cp "$HOME/.cline/data/state/taskHistory.json" "$OUT/" 2>/dev/null || true
else
  SRC="$(ls -d "$HOME"/.cline/data/sessions/*/ | head -1)"       # sessions/<id>/
  cp -r "$SRC" "$OUT/session"
fi
cp "$RUN/script.jsonl" "$RUN/requests.jsonl" "$RUN/cline.stdout.ndjson" "$RUN/cline.stderr" "$RUN/cline.rc" "$OUT/"
curl -s "http://127.0.0.1:$PORT/__fake/state" > "$OUT/fake_state.json" || true
echo "copied $SRC -> $OUT"
find "$OUT" -type f | sort
