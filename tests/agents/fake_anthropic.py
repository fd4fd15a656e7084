#!/usr/bin/env python3
"""A scripted stand-in for the Anthropic Messages API, for driving the real
Claude Code CLI in tests (candor issue 26, `candor gate`).

Python standard library only.  Written for the candor project; no code copied
from elsewhere.  The wire format follows Anthropic's public Messages API
documentation ("Streaming Messages": message_start, content_block_start,
content_block_delta with text_delta / input_json_delta, content_block_stop,
message_delta, message_stop) and what Claude Code 2.1.x was observed to send
(see README.md in this folder).

Usage
-----
    fake_anthropic.py (--script replies.jsonl | --scripts DIR [--marker REGEX]) \
        --log requests.jsonl [--host 127.0.0.1] [--port 0] [--port-file FILE] \
        [--consume tools|all] [--side-reply TEXT]

--scripts DIR (candor eval, issue 39): many conversations at once, each
answered from DIR/<task>.jsonl by the "[task:<task>]" marker in its user
messages, the line picked by the number of assistant turns already in the
request, "{cwd}" filled from Claude Code's "Primary working directory: ...";
no state between requests (see fake_scripts.py).

The chosen port is printed on stdout as the first line ("PORT 12345") and,
with --port-file, written to that file (atomically) once the server listens.
Point Claude Code at it with ANTHROPIC_BASE_URL=http://127.0.0.1:PORT.

Script file (JSONL, one JSON object per line; blank lines and lines starting
with '#' are ignored).  Each line is the reply to one *agent* request (see
--consume) to POST /v1/messages, in order:

    {"text": "All done."}
    {"tool_use": {"name": "Write", "input": {"file_path": "/x/a.txt", "content": "hi\n"}}}
    {"text": "Let me write it.", "tool_use": {"name": "Write", "input": {...}}}
    {"content": [{"type": "text", "text": "..."},
                 {"type": "tool_use", "name": "Bash", "input": {"command": "ls"}}],
     "stop_reason": "tool_use"}

Optional keys on any line:
    "expect": "substring"   the request body (as JSON text) must contain it;
                            a miss is recorded in the log ("expect_ok": false)
                            and counted in GET /__fake/state, the reply is
                            still sent (the test decides what a miss means).
    "stop_reason": "..."    override (default: "tool_use" when the reply has a
                            tool_use block, else "end_turn").
    "model": "..."          model name echoed in the reply (default: the
                            request's model).

Which requests consume a script line (--consume):
    tools (default)  only requests whose body has a non-empty "tools" list,
                     i.e. turns of the agent loop.  Side requests without
                     tools (Claude Code may send some, e.g. a title or a
                     quota probe to a small model; none were seen in -p mode
                     with 2.1.332) get --side-reply and do not advance the
                     script.
    all              every POST /v1/messages consumes a line.
When the script is exhausted, the reply is the text "(fake_anthropic: script
exhausted)" with stop_reason end_turn, and the log line says "exhausted": true.

Log file (JSONL, one line per HTTP request, flushed at once): seq, ts, method,
path, query, headers (x-api-key / authorization masked), body (parsed JSON,
or the raw text), kind ("agent", "side", "count_tokens", "other"),
script_index, expect_ok, exhausted, reply (what was sent, as content blocks).

Other endpoints:
    POST /v1/messages/count_tokens   {"input_tokens": <rough estimate>}
    GET  /__fake/state               {"requests": n, "script_next": i,
                                      "script_len": n, "expect_misses": n}
    HEAD/GET anything else           200 {} (logged)
    POST anything else               404 Anthropic-style not_found_error (logged)
"""

import argparse
import json
import os
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit, parse_qs

import fake_scripts

MASKED_HEADERS = {"x-api-key", "authorization", "proxy-authorization", "cookie"}


def load_script(path):
    """Read the JSONL script; raise ValueError with the line number on bad input."""
    replies = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            s = line.strip()
            if not s or s.startswith("#"):
                continue
            try:
                obj = json.loads(s)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}:{n}: not JSON: {e}") from None
            if not isinstance(obj, dict):
                raise ValueError(f"{path}:{n}: a reply must be a JSON object")
            replies.append(obj)
    return replies


def to_blocks(reply):
    """Turn a script line into a list of Anthropic content blocks."""
    blocks = []
    if "content" in reply:
        for b in reply["content"]:
            b = dict(b)
            if b.get("type") == "tool_use":
                b.setdefault("id", "toolu_fake_" + uuid.uuid4().hex[:20])
                b.setdefault("input", {})
            blocks.append(b)
        return blocks
    if "text" in reply:
        blocks.append({"type": "text", "text": str(reply["text"])})
    if "tool_use" in reply:
        tu = reply["tool_use"]
        blocks.append({
            "type": "tool_use",
            "id": tu.get("id") or "toolu_fake_" + uuid.uuid4().hex[:20],
            "name": tu["name"],
            "input": tu.get("input", {}),
        })
    if not blocks:
        blocks.append({"type": "text", "text": ""})
    return blocks


def chunks(s, n):
    """Split s into about n pieces (at least one), to exercise delta joining."""
    if not s:
        return [""]
    size = max(1, -(-len(s) // n))
    return [s[i:i + size] for i in range(0, len(s), size)]


def sse(event, data):
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def usage(input_tokens, output_tokens):
    return {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": output_tokens,
        "service_tier": "standard",
    }


def stream_body(msg_id, model, blocks, stop_reason, in_tok):
    """The full SSE body for one streamed message."""
    out = []
    start_msg = {
        "id": msg_id, "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": usage(in_tok, 1),
    }
    out.append(sse("message_start", {"type": "message_start", "message": start_msg}))
    out.append(sse("ping", {"type": "ping"}))
    out_tok = 0
    for i, b in enumerate(blocks):
        if b["type"] == "text":
            out.append(sse("content_block_start", {
                "type": "content_block_start", "index": i,
                "content_block": {"type": "text", "text": ""}}))
            for piece in chunks(b["text"], 3):
                out.append(sse("content_block_delta", {
                    "type": "content_block_delta", "index": i,
                    "delta": {"type": "text_delta", "text": piece}}))
            out_tok += max(1, len(b["text"]) // 4)
        elif b["type"] == "tool_use":
            out.append(sse("content_block_start", {
                "type": "content_block_start", "index": i,
                "content_block": {"type": "tool_use", "id": b["id"],
                                  "name": b["name"], "input": {}}}))
            js = json.dumps(b["input"])
            for piece in chunks(js, 3):
                out.append(sse("content_block_delta", {
                    "type": "content_block_delta", "index": i,
                    "delta": {"type": "input_json_delta", "partial_json": piece}}))
            out_tok += max(1, len(js) // 4)
        else:  # thinking or anything else: send it whole in the start event
            out.append(sse("content_block_start", {
                "type": "content_block_start", "index": i, "content_block": b}))
        out.append(sse("content_block_stop", {"type": "content_block_stop", "index": i}))
    out.append(sse("message_delta", {
        "type": "message_delta",
        "delta": {"stop_reason": stop_reason, "stop_sequence": None},
        "usage": {"output_tokens": out_tok}}))
    out.append(sse("message_stop", {"type": "message_stop"}))
    return "".join(out).encode("utf-8")


class State:
    def __init__(self, script, log_path, consume, side_reply, scripts=None):
        self.script = script
        self.scripts = scripts   # a fake_scripts.ScriptDir in --scripts mode, else None
        self.next = 0
        self.seq = 0
        self.expect_misses = 0
        self.consume = consume
        self.side_reply = side_reply
        self.lock = threading.Lock()
        self.log = open(log_path, "a", encoding="utf-8")

    def write_log(self, rec):
        with self.lock:
            self.log.write(json.dumps(rec, ensure_ascii=False) + "\n")
            self.log.flush()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"   # keep-alive; every reply has a Content-Length
    server_version = "fake-anthropic/1"
    state = None  # set in main()

    def log_message(self, fmt, *args):  # quiet: the JSONL log is the record
        pass

    # -- helpers ---------------------------------------------------------
    def _read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n > 0 else b""
        text = raw.decode("utf-8", "replace")
        try:
            return text, (json.loads(text) if text else None)
        except json.JSONDecodeError:
            return text, text

    def _send(self, code, body, ctype="application/json"):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("request-id", "req_fake_" + uuid.uuid4().hex[:16])
        if ctype.startswith("text/event-stream"):
            self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _record(self, body, **extra):
        st = self.state
        with st.lock:
            st.seq += 1
            seq = st.seq
        u = urlsplit(self.path)
        headers = {k.lower(): ("***" if k.lower() in MASKED_HEADERS else v)
                   for k, v in self.headers.items()}
        rec = {"seq": seq, "ts": time.time(), "method": self.command,
               "path": u.path, "query": parse_qs(u.query), "headers": headers,
               "body": body}
        rec.update(extra)
        st.write_log(rec)

    # -- verbs -----------------------------------------------------------
    def do_HEAD(self):
        self._record(None, kind="other")
        self._send(200, b"")

    def do_GET(self):
        path = urlsplit(self.path).path
        st = self.state
        if path == "/__fake/state":
            with st.lock:
                s = {"requests": st.seq, "script_next": st.next,
                     "script_len": len(st.script),
                     "expect_misses": st.expect_misses}
                if st.scripts is not None:
                    s.update(st.scripts.state())
            return self._send(200, s)
        self._record(None, kind="other")
        self._send(200, {})

    def do_POST(self):
        path = urlsplit(self.path).path
        text, body = self._read_body()
        if path.endswith("/v1/messages/count_tokens"):
            self._record(body, kind="count_tokens")
            return self._send(200, {"input_tokens": max(1, len(text) // 4)})
        if not path.endswith("/v1/messages"):
            self._record(body, kind="other")
            return self._send(404, {"type": "error", "error": {
                "type": "not_found_error",
                "message": f"fake_anthropic: no endpoint {path}"}})
        if not isinstance(body, dict):
            self._record(body, kind="other")
            return self._send(400, {"type": "error", "error": {
                "type": "invalid_request_error", "message": "body is not a JSON object"}})

        st = self.state
        is_agent = st.consume == "all" or bool(body.get("tools"))
        idx, reply, exhausted, expect_ok = None, None, False, None
        extra = {}
        if is_agent and st.scripts is not None:
            # --scripts: the conversation's marker picks the script, its history the line
            texts, turns, cwd = fake_scripts.anthropic_view(body)
            with st.lock:
                name, idx, reply, exhausted, missing = st.scripts.pick(texts, turns, cwd)
            if reply is None:  # no marker: answered as a side request
                is_agent = False
            else:
                extra = {"script": name, "cwd": cwd, "script_missing": missing}
        elif is_agent:
            with st.lock:
                if st.next < len(st.script):
                    idx = st.next
                    reply = st.script[idx]
                    st.next += 1
                else:
                    exhausted = True
            if reply is None:
                reply = {"text": "(fake_anthropic: script exhausted)"}
        if not is_agent:
            reply = {"text": st.side_reply}
        elif "expect" in reply:
            expect_ok = reply["expect"] in text
            if not expect_ok:
                with st.lock:
                    st.expect_misses += 1

        blocks = to_blocks(reply)
        has_tool = any(b.get("type") == "tool_use" for b in blocks)
        stop_reason = reply.get("stop_reason") or ("tool_use" if has_tool else "end_turn")
        model = reply.get("model") or body.get("model") or "claude-fake"
        msg_id = "msg_fake_" + uuid.uuid4().hex[:20]
        in_tok = max(1, len(text) // 4)
        self._record(body, kind="agent" if is_agent else "side", script_index=idx,
                     exhausted=exhausted, expect_ok=expect_ok, reply=blocks, **extra)

        if body.get("stream"):
            data = stream_body(msg_id, model, blocks, stop_reason, in_tok)
            return self._send(200, data, "text/event-stream; charset=utf-8")
        out_tok = sum(max(1, len(json.dumps(b)) // 4) for b in blocks)
        return self._send(200, {
            "id": msg_id, "type": "message", "role": "assistant", "model": model,
            "content": blocks, "stop_reason": stop_reason, "stop_sequence": None,
            "usage": usage(in_tok, out_tok)})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--script", help="JSONL replies, one per agent request, in order")
    src.add_argument("--scripts", metavar="DIR",
                     help="one JSONL script per task marker, DIR/<name>.jsonl (see fake_scripts.py)")
    ap.add_argument("--marker", default=fake_scripts.DEFAULT_MARKER,
                    help="with --scripts: regex whose group 1 names the script")
    ap.add_argument("--log", required=True, help="JSONL request log (appended)")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0, help="0 = any free port")
    ap.add_argument("--port-file", help="write the chosen port here once listening")
    ap.add_argument("--consume", choices=["tools", "all"], default="tools")
    ap.add_argument("--side-reply", default="OK",
                    help="text answer to requests that do not consume the script")
    a = ap.parse_args()
    try:
        script = load_script(a.script) if a.script else []
        scripts = fake_scripts.ScriptDir(a.scripts, a.marker) if a.scripts else None
    except (OSError, ValueError) as e:
        print(f"fake_anthropic: {e}", file=sys.stderr)
        return 65
    Handler.state = State(script, a.log, a.consume, a.side_reply, scripts)
    srv = ThreadingHTTPServer((a.host, a.port), Handler)
    srv.daemon_threads = True
    port = srv.server_address[1]
    if a.port_file:
        tmp = a.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(f"{port}\n")
        os.replace(tmp, a.port_file)
    print(f"PORT {port}", flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
