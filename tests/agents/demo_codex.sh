#!/usr/bin/env bash
# demo_codex.sh — drive the real Codex CLI (`codex exec`) against
# fake_openai_responses.py and prove the Stop-hook round trip end to end
# (candor issue 26 groundwork).
#
#   demo_codex.sh [SAMPLES_DIR]
#
# Environment: CODEX_BIN (default: installs with install_agents.sh into
# $AGENTS_DIR, default /tmp/candor-agents); TRUST=appserver (default: trust the
# project and its hooks through `codex app-server`, as a user's /hooks review
# would) or TRUST=bypass (`codex exec --trust --dangerously-bypass-hook-trust`);
# KEEP=1 keeps the temp dir.
# Exit: 0 all checks passed, 1 a check failed, 77 Codex unavailable.
#
# The scripted model creates hello.txt with exec_command, adds notes.md with
# apply_patch (a freeform custom tool call), says done, is blocked by the Stop
# hook, fixes hello.txt (the script line checks that the hook's reason reached
# that request) and stops.  Samples go to SAMPLES_DIR (default ./samples).
#
# Written for candor; see README.md in this folder.

set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
SAMPLES="${1:-$HERE/samples}"
TRUST="${TRUST:-appserver}"
mkdir -p "$SAMPLES"

if [ -z "${CODEX_BIN:-}" ]; then
    out="$("$HERE/install_agents.sh" "${AGENTS_DIR:-/tmp/candor-agents}")"; rc=$?
    [ $rc -eq 77 ] && { echo "demo_codex: SKIP (agents not installable here)"; exit 77; }
    [ $rc -ne 0 ] && { echo "demo_codex: install failed"; exit 1; }
    CODEX_BIN="$(printf '%s\n' "$out" | sed -n 's/^CODEX_BIN=//p')"
fi

W="$(mktemp -d /tmp/candor-demo-codex.XXXXXX)"
SERVER_PID=""
cleanup() {
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null
    [ "${KEEP:-0}" = 1 ] && echo "demo_codex: kept $W" || rm -rf "$W"
}
trap cleanup EXIT

fail=0
check() {
    local d="$1"; shift
    if "$@"; then echo "PASS  $d"; else echo "FAIL  $d"; fail=1; fi
}

WS="$W/ws"; HOOKLOG="$W/hooklog"; CH="$W/codex-home"
mkdir -p "$WS/.codex" "$HOOKLOG" "$W/home" "$CH"

cat >"$W/ups_hook.sh" <<EOF
#!/bin/sh
# UserPromptSubmit: keep the input, never block, print nothing.
cat > "$HOOKLOG/ups.\$(date +%s%N).json"
exit 0
EOF
cat >"$W/stop_hook.sh" <<EOF
#!/bin/sh
# Stop: keep the input; block the first stop, allow the next.
n=\$(ls "$HOOKLOG" | grep -c '^stop' || true)
cat > "$HOOKLOG/stop\$n.json"
# what the transcript holds at the moment the hook runs
cp "\$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["transcript_path"])' "$HOOKLOG/stop\$n.json")" \
   "$HOOKLOG/at_stop\$n.jsonl" 2>/dev/null || true
if [ "\$n" = 0 ]; then
  printf '%s\n' '{"decision":"block","reason":"CANDOR-REASON-42: hello.txt must say hello candor; fix it"}'
fi
exit 0
EOF
chmod +x "$W"/*.sh
# Project hooks: same shape as Claude Code's settings "hooks" object.
cat >"$WS/.codex/hooks.json" <<EOF
{
  "hooks": {
    "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "$W/ups_hook.sh"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "$W/stop_hook.sh", "timeout": 60}]}]
  }
}
EOF

cat >"$W/script.jsonl" <<EOF
{"text": "I will create the file.", "function_call": {"name": "exec_command", "arguments": {"cmd": "printf 'hello world\\\\n' > hello.txt"}}}
{"custom_tool_call": {"name": "apply_patch", "input": "*** Begin Patch\n*** Add File: notes.md\n+# notes\n+written by apply_patch\n*** End Patch\n"}}
{"text": "Done: hello.txt written."}
{"expect": "CANDOR-REASON-42", "function_call": {"name": "exec_command", "arguments": {"cmd": "printf 'hello candor\\\\n' > hello.txt"}}}
{"text": "Done: hello.txt now says hello candor."}
EOF

python3 "$HERE/fake_openai_responses.py" --script "$W/script.jsonl" --log "$W/requests.jsonl" \
    --port-file "$W/port" >"$W/server.out" 2>&1 &
SERVER_PID=$!
for _ in $(seq 100); do [ -s "$W/port" ] && break; sleep 0.1; done
[ -s "$W/port" ] || { echo "demo_codex: fake server did not start"; cat "$W/server.out"; exit 1; }
PORT="$(cat "$W/port")"

# User config: the fake provider.  gpt-5.5 is a model Codex 0.169 knows (no
# "model metadata not found" warning, apply_patch offered as a custom tool).
# [features] hooks = true is the default in 0.169; `codex_hooks` (the issue's
# name) still works but prints a deprecation notice.
cat >"$CH/config.toml" <<EOF
model = "gpt-5.5"
model_provider = "fake"

[features]
hooks = true

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:$PORT/v1"
wire_api = "responses"
env_key = "OPENAI_API_KEY"

[analytics]
enabled = false
EOF

export HOME="$W/home" CODEX_HOME="$CH" OPENAI_API_KEY=test
EXTRA=()
if [ "$TRUST" = appserver ]; then
    timeout 60 python3 "$HERE/codex_trust_hooks.py" --codex "$CODEX_BIN" --cwd "$WS" --project \
        >"$W/trust.json" || { echo "demo_codex: trusting hooks failed"; cat "$W/trust.json"; exit 1; }
    echo "trusted hooks: $(python3 -c "import json,sys;print([h['key'] for h in json.load(open(sys.argv[1]))['trusted']])" "$W/trust.json")"
else
    EXTRA=(--trust --dangerously-bypass-hook-trust)
fi

t0=$(date +%s.%N)
( cd "$WS" && timeout 120 "$CODEX_BIN" exec --skip-git-repo-check -s workspace-write \
      "${EXTRA[@]}" "Create hello.txt saying hello" \
      </dev/null >"$W/stdout.txt" 2>"$W/stderr.txt" )
rc=$?
t1=$(date +%s.%N)
echo "codex: $("$CODEX_BIN" --version)  exit $rc  $(python3 -c "print(round($t1-$t0,2))") s  (trust: $TRUST)"

upss=("$HOOKLOG"/ups.*.json)
check "codex exited 0" test "$rc" -eq 0
check "hello.txt has the fixed content" grep -qx 'hello candor' "$WS/hello.txt"
check "notes.md written by apply_patch" grep -qx 'written by apply_patch' "$WS/notes.md"
check "UserPromptSubmit hook ran once" test "${#upss[@]}" -eq 1 -a -s "${upss[0]}"
check "Stop hook ran twice" test -s "$HOOKLOG/stop0.json" -a -s "$HOOKLOG/stop1.json" -a ! -e "$HOOKLOG/stop2.json"
check "stop_hook_active false, then true; same turn_id" python3 - "$HOOKLOG" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1] + "/stop0.json")); b = json.load(open(sys.argv[1] + "/stop1.json"))
sys.exit(0 if (a["stop_hook_active"] is False and b["stop_hook_active"] is True
               and a["turn_id"] == b["turn_id"]) else 1)
EOF
check "the reason reached the next API request (script expect)" python3 - "$PORT" <<'EOF'
import json, sys, urllib.request
s = json.load(urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/__fake/state"))
print("      server state:", s)
sys.exit(0 if s["expect_misses"] == 0 and s["script_next"] == s["script_len"] == 5 else 1)
EOF
ROLLOUT="$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['transcript_path'])" "$HOOKLOG/stop0.json")"
check "rollout exists at transcript_path ($ROLLOUT)" test -s "$ROLLOUT"
check "rollout records the hook prompt" grep -q 'hook_prompt' "$ROLLOUT"

check "at the first stop the rollout already holds the last assistant message" \
    grep -q "Done: hello.txt written." "$HOOKLOG/at_stop0.jsonl"

cp "${upss[0]}" "$SAMPLES/ups_input_codex.json"
cp "$HOOKLOG/stop0.json" "$SAMPLES/stop_input_codex.json"
cp "$HOOKLOG/stop1.json" "$SAMPLES/stop_input_codex_active.json"
# Codex is Apache-2.0: its rollout (with its base instructions) is kept whole.
cp "$ROLLOUT" "$SAMPLES/rollout_codex.jsonl"
python3 - "$W/requests.jsonl" "$SAMPLES/codex_request_after_block.json" <<'EOF'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1]) if '"kind": "agent"' in l]
r = next(r for r in reqs if r.get("expect_ok") is True)
json.dump({"note": "fake_openai_responses.py log of the request after the Stop hook blocked; "
                   "body.input cut to the last 2 items, instructions and tools dropped",
           "path": r["path"], "model": r["body"]["model"],
           "last_input_items": r["body"]["input"][-2:]},
          open(sys.argv[2], "w"), indent=1, ensure_ascii=False)
EOF
echo "samples in $SAMPLES"
[ $fail -eq 0 ] && echo "demo_codex: ALL PASSED" || echo "demo_codex: FAILED"
exit $fail
