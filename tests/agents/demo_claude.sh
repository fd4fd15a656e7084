#!/usr/bin/env bash
# demo_claude.sh — drive the real Claude Code against fake_anthropic.py and
# prove the Stop-hook round trip end to end (candor issue 26 groundwork).
#
#   demo_claude.sh [SAMPLES_DIR]
#
# Environment: CLAUDE_BIN (default: installs with install_agents.sh into
# $AGENTS_DIR, default /tmp/candor-agents), KEEP=1 keeps the temp dir.
# Exit: 0 all checks passed, 1 a check failed, 77 Claude Code unavailable.
#
# What it does: a temp workspace with a project .claude/settings.json holding
# a UserPromptSubmit hook (saves its stdin) and a Stop hook (saves its stdin;
# blocks the first stop with {"decision":"block","reason":...}, allows the
# second).  The scripted model writes hello.txt with the Write tool, says
# done, is blocked, answers again (the script line checks that the hook's
# reason reached that request), and stops.  Samples of the hook inputs, the
# real session transcript (prompt text redacted) and the request that carried
# the reason are copied to SAMPLES_DIR (default: ./samples next to this file).
#
# Written for candor; see README.md in this folder.

set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
SAMPLES="${1:-$HERE/samples}"
mkdir -p "$SAMPLES"

if [ -z "${CLAUDE_BIN:-}" ]; then
    out="$("$HERE/install_agents.sh" "${AGENTS_DIR:-/tmp/candor-agents}")"; rc=$?
    [ $rc -eq 77 ] && { echo "demo_claude: SKIP (agents not installable here)"; exit 77; }
    [ $rc -ne 0 ] && { echo "demo_claude: install failed"; exit 1; }
    CLAUDE_BIN="$(printf '%s\n' "$out" | sed -n 's/^CLAUDE_BIN=//p')"
fi

W="$(mktemp -d /tmp/candor-demo-claude.XXXXXX)"
SERVER_PID=""
cleanup() {
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null
    [ "${KEEP:-0}" = 1 ] && echo "demo_claude: kept $W" || rm -rf "$W"
}
trap cleanup EXIT

fail=0
check() {  # description, then a command; prints PASS/FAIL
    local d="$1"; shift
    if "$@"; then echo "PASS  $d"; else echo "FAIL  $d"; fail=1; fi
}

WS="$W/ws"; HOOKLOG="$W/hooklog"
mkdir -p "$WS/.claude" "$HOOKLOG" "$W/home" "$W/claude-config"

# --- hooks: tiny shell scripts -------------------------------------------
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
cat >"$WS/.claude/settings.json" <<EOF
{
  "hooks": {
    "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "$W/ups_hook.sh"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "$W/stop_hook.sh", "timeout": 60}]}]
  }
}
EOF

# --- the scripted model ----------------------------------------------------
cat >"$W/script.jsonl" <<EOF
{"text": "I will create the file.", "tool_use": {"name": "Write", "input": {"file_path": "$WS/hello.txt", "content": "hello world\n"}}}
{"text": "Done: hello.txt written."}
{"expect": "CANDOR-REASON-42", "text": "Fixing it.", "tool_use": {"name": "Write", "input": {"file_path": "$WS/hello.txt", "content": "hello candor\n"}}}
{"text": "Done: hello.txt now says hello candor."}
EOF

python3 "$HERE/fake_anthropic.py" --script "$W/script.jsonl" --log "$W/requests.jsonl" \
    --port-file "$W/port" >"$W/server.out" 2>&1 &
SERVER_PID=$!
for _ in $(seq 100); do [ -s "$W/port" ] && break; sleep 0.1; done
[ -s "$W/port" ] || { echo "demo_claude: fake server did not start"; cat "$W/server.out"; exit 1; }
PORT="$(cat "$W/port")"

# --- run Claude Code ---------------------------------------------------------
t0=$(date +%s.%N)
( cd "$WS" && env HOME="$W/home" CLAUDE_CONFIG_DIR="$W/claude-config" \
    ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" ANTHROPIC_API_KEY=test \
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
    timeout 120 "$CLAUDE_BIN" -p "Create hello.txt saying hello" \
        --permission-mode acceptEdits --output-format json \
        </dev/null >"$W/stdout.json" 2>"$W/stderr.txt" )
rc=$?
t1=$(date +%s.%N)
echo "claude: $("$CLAUDE_BIN" --version)  exit $rc  $(python3 -c "print(round($t1-$t0,2))") s"

# --- checks --------------------------------------------------------------------
stops=("$HOOKLOG"/stop*.json); upss=("$HOOKLOG"/ups.*.json)
check "claude exited 0" test "$rc" -eq 0
check "hello.txt has the fixed content" grep -qx 'hello candor' "$WS/hello.txt"
check "UserPromptSubmit hook ran once" test "${#upss[@]}" -eq 1 -a -s "${upss[0]}"
check "Stop hook ran twice" test -s "$HOOKLOG/stop0.json" -a -s "$HOOKLOG/stop1.json" -a ! -e "$HOOKLOG/stop2.json"
check "stop_hook_active false, then true" python3 - "$HOOKLOG" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1] + "/stop0.json")); b = json.load(open(sys.argv[1] + "/stop1.json"))
sys.exit(0 if a["stop_hook_active"] is False and b["stop_hook_active"] is True else 1)
EOF
check "the reason reached the next API request (script expect)" python3 - "$PORT" <<'EOF'
import json, sys, urllib.request
s = json.load(urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/__fake/state"))
print("      server state:", s)
sys.exit(0 if s["expect_misses"] == 0 and s["script_next"] == s["script_len"] == 4 else 1)
EOF
TRANSCRIPT="$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['transcript_path'])" "$HOOKLOG/stop0.json")"
check "transcript exists at transcript_path ($TRANSCRIPT)" test -s "$TRANSCRIPT"
check "transcript records the Stop hook feedback" grep -q 'Stop hook feedback' "$TRANSCRIPT"

# --- samples -------------------------------------------------------------------
check "at the first stop the transcript already holds the last assistant message" \
    grep -q "Done: hello.txt written." "$HOOKLOG/at_stop0.jsonl"

cp "${upss[0]}" "$SAMPLES/ups_input_claude.json"
cp "$HOOKLOG/stop0.json" "$SAMPLES/stop_input_claude.json"
cp "$HOOKLOG/stop1.json" "$SAMPLES/stop_input_claude_active.json"
cp "$W/stdout.json" "$SAMPLES/claude_print_result.json"
# The request after the block: its last messages (where the reason sits).
python3 - "$W/requests.jsonl" "$SAMPLES/claude_request_after_block.json" <<'EOF'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1]) if '"kind": "agent"' in l]
r = next(r for r in reqs if r.get("expect_ok") is True)
json.dump({"note": "fake_anthropic.py log of the request after the Stop hook blocked; "
                   "body.messages cut to the last 3, system and tools dropped",
           "path": r["path"], "query": r["query"], "model": r["body"]["model"],
           "last_messages": r["body"]["messages"][-3:]},
          open(sys.argv[2], "w"), indent=1, ensure_ascii=False)
EOF
# The transcript, with Claude Code's built-in prompt text (system prompt,
# tool, agent and skill descriptions: Anthropic's copyrighted text) replaced
# by a marker (length + sha256 prefix).  Conversation records (user,
# assistant, system, hook attachments) keep strings up to 2000 chars; the
# structure of every record is kept.
python3 - "$TRANSCRIPT" "$SAMPLES/transcript_claude.jsonl" <<'EOF'
import hashlib, json, sys
KEEP_TYPES = {"user", "assistant", "system", "last-prompt", "queue-operation", "tools-used"}
def marker(v):
    return f"<redacted by candor demo: {len(v)} chars, sha256 {hashlib.sha256(v.encode()).hexdigest()[:12]}>"
def red(v, limit):
    if isinstance(v, str) and len(v) > limit:
        return marker(v)
    if isinstance(v, list):
        return [red(x, limit) for x in v]
    if isinstance(v, dict):
        return {k: red(x, limit) for k, x in v.items()}
    return v
with open(sys.argv[2], "w") as out:
    for line in open(sys.argv[1]):
        r = json.loads(line)
        att = (r.get("attachment") or {}).get("type", "")
        keep = r.get("type") in KEEP_TYPES or att.startswith("hook_")
        out.write(json.dumps(red(r, 2000 if keep else 120), ensure_ascii=False) + "\n")
EOF
echo "samples in $SAMPLES"
[ $fail -eq 0 ] && echo "demo_claude: ALL PASSED" || echo "demo_claude: FAILED"
exit $fail
