#!/usr/bin/env bash
# record_codex_exec_json.sh OUT — record a real `codex exec --json` event stream (issue 27: the
# importer's sample of that format): the pinned Codex CLI (install_agents.sh) against
# fake_openai_responses.py, a scripted model that runs a passing and a failing command, adds a file
# with apply_patch, and says done. Codex writes the stream to stdout only, never to disk, so a sample
# has to be recorded; OUT receives it as Codex printed it (absolute paths of a temporary workspace).
# Exit: 0 recorded, 77 Codex cannot be installed here, 1 otherwise.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: record_codex_exec_json.sh OUT}
set +e
bins=$("$here/install_agents.sh" "${AGENTS_DIR:-$here/../../build/agents}")
rc=$?
set -e
[ $rc -eq 77 ] && { echo "record_codex_exec_json: Codex cannot be installed here" >&2; exit 77; }
[ $rc -eq 0 ] || exit 1
codex=$(sed -n 's/^CODEX_BIN=//p' <<<"$bins")
w=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$w"' EXIT
mkdir -p "$w/ws" "$w/home" "$w/codex-home"
cat >"$w/script.jsonl" <<'SCRIPT'
{"function_call": {"name": "exec_command", "arguments": {"cmd": "printf 'hello\\n' > hello.txt && cat hello.txt"}}}
{"function_call": {"name": "exec_command", "arguments": {"cmd": "test -f missing.txt"}}}
{"custom_tool_call": {"name": "apply_patch", "input": "*** Begin Patch\n*** Add File: notes.md\n+# Notes\n+hello written\n*** End Patch\n"}}
{"text": "Done: hello.txt says hello and notes.md records it."}
SCRIPT
python3 "$here/fake_openai_responses.py" --script "$w/script.jsonl" --log "$w/requests.jsonl" \
  --port-file "$w/port" >/dev/null 2>"$w/server.err" &
server=$!
for _ in $(seq 100); do [ -s "$w/port" ] && break; sleep 0.05; done
cat >"$w/codex-home/config.toml" <<TOML
model = "gpt-5.5"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:$(cat "$w/port")/v1"
wire_api = "responses"
env_key = "OPENAI_API_KEY"

[analytics]
enabled = false
TOML
(cd "$w/ws" && HOME=$w/home CODEX_HOME=$w/codex-home OPENAI_API_KEY=test-key-for-the-fake-only \
  timeout 120 "$codex" exec --json --skip-git-repo-check -s workspace-write \
  "Create hello.txt saying hello and note it in notes.md" </dev/null >"$out")
echo "recorded $(wc -l <"$out") events of $("$codex" --version) into $out"
