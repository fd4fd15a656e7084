#!/usr/bin/env python3
"""Run one user turn of Codex CLI through its app-server (JSON-RPC over stdio), the protocol Codex's
own TUI is a client of, and keep every notification. `codex exec` prints no hook's `systemMessage`
(tests/agents/README.md); the app-server reports each hook run as `hook/started` / `hook/completed`
with the hook's output as entries (`{"kind": "warning", "text": ...}` for a systemMessage), which is
what an interactive user is shown. gate_e2e.py uses this to check that candor's warnings reach them.

Written for candor (issue 26); Python standard library only. Methods and shapes from `codex
app-server generate-json-schema` (Codex 0.169.0): initialize, thread/start {cwd, sandbox,
approvalPolicy}, turn/start {threadId, input: [{type: "text", text}]}, the turn/completed
notification.

Usage: codex_app_turn.py --codex BIN --cwd DIR --prompt TEXT --out NOTIFICATIONS.jsonl
       [--sandbox workspace-write] [--timeout 100]
Environment: CODEX_HOME, HOME, the provider's key (as Codex uses them).
Exit: 0 the turn completed, 1 an app-server error or a timeout (the notifications so far are kept).
"""

import argparse
import json
import queue
import subprocess
import sys
import threading
import time


def main():
    ap = argparse.ArgumentParser(description="One Codex turn through the app-server")
    ap.add_argument("--codex", required=True)
    ap.add_argument("--cwd", required=True)
    ap.add_argument("--prompt", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--sandbox", default="workspace-write")
    ap.add_argument("--timeout", type=float, default=100)
    a = ap.parse_args()
    deadline = time.monotonic() + a.timeout
    p = subprocess.Popen([a.codex, "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, cwd=a.cwd)
    out = open(a.out, "w")
    next_id = [0]
    lines = queue.Queue()

    def reader():  # a thread: a blocking readline cannot honour the deadline, a queue's get can
        for line in p.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=reader, daemon=True).start()

    def send(method, params=None, notify=False):
        msg = {"jsonrpc": "2.0", "method": method}
        if not notify:
            next_id[0] += 1
            msg["id"] = next_id[0]
        if params is not None:
            msg["params"] = params
        p.stdin.write(json.dumps(msg) + "\n")
        p.stdin.flush()
        return msg.get("id")

    def read_until(pred):
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the app-server did not finish the turn in time")
            try:
                line = lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise RuntimeError("the app-server closed")
            msg = json.loads(line)
            out.write(json.dumps(msg, ensure_ascii=False) + "\n")
            out.flush()
            if "id" in msg and "method" in msg:
                # A request from the server (an approval): refused; the tests run with approval never.
                p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "error": {
                    "code": -32601, "message": "codex_app_turn.py answers no requests"}}) + "\n")
                p.stdin.flush()
                continue
            if pred(msg):
                return msg

    def call(method, params):
        rid = send(method, params)
        msg = read_until(lambda m: m.get("id") == rid and "method" not in m)
        if "error" in msg:
            raise RuntimeError(f"{method}: {msg['error']}")
        return msg["result"]

    try:
        call("initialize", {"clientInfo": {"name": "candor-gate-e2e", "version": "0"}})
        send("initialized", notify=True)
        thread = call("thread/start", {"cwd": a.cwd, "sandbox": a.sandbox, "approvalPolicy": "never"})
        tid = thread["thread"]["id"]
        call("turn/start", {"threadId": tid, "input": [{"type": "text", "text": a.prompt}]})
        done = read_until(lambda m: m.get("method") == "turn/completed")
        status = ((done.get("params") or {}).get("turn") or {}).get("status")
        print(json.dumps({"thread": tid, "status": status}))
        return 0
    except Exception as e:  # report, never hang
        print(json.dumps({"error": f"{type(e).__name__}: {e}"}))
        return 1
    finally:
        out.close()
        try:
            p.stdin.close()
            p.wait(timeout=10)
        except Exception:
            p.kill()


if __name__ == "__main__":
    sys.exit(main())
