#!/usr/bin/env python3
"""A scripted stand-in for the OpenAI Responses API, for driving the real
Codex CLI (`codex exec`) in tests (candor issue 26, `candor gate`).

Python standard library only.  Written for the candor project; no code copied
from elsewhere.  The event names and shapes follow OpenAI's public Responses
API streaming reference (response.created, response.in_progress,
response.output_item.added, response.content_part.added,
response.output_text.delta/.done, response.content_part.done,
response.function_call_arguments.delta/.done, response.output_item.done,
response.completed) and what Codex CLI 0.169 was observed to send and accept
(see README.md in this folder).

Usage
-----
    fake_openai_responses.py (--script replies.jsonl | --scripts DIR [--marker REGEX]) \
        --log requests.jsonl [--host 127.0.0.1] [--port 0] [--port-file FILE] \
        [--consume tools|all] [--side-reply TEXT]

--scripts DIR (candor eval, issue 39): many conversations at once, each
answered from DIR/<task>.jsonl by the "[task:<task>]" marker in its user
messages, the line picked by the number of model turns (runs of assistant
message / function_call / custom_tool_call / reasoning items) already in the
request's input, "{cwd}" filled from Codex's "<cwd>...</cwd>"; no state
between requests (see fake_scripts.py).

Prints "PORT 12345" on stdout once listening (and writes --port-file).  Point
Codex at it with a custom model provider (config.toml, or -c overrides):

    model = "gpt-5.5"                # known to Codex 0.169; see README, gotcha 5
    model_provider = "fake"
    [model_providers.fake]
    name = "fake"
    base_url = "http://127.0.0.1:PORT/v1"
    wire_api = "responses"
    env_key = "OPENAI_API_KEY"       # any non-empty value

Script file: JSONL, one reply per agent request to POST /v1/responses.
Blank lines and '#' lines are ignored.  Forms (keys may be combined; items
are emitted in the order text, function_call, custom_tool_call):

    {"text": "All done."}
    {"function_call": {"name": "exec_command", "arguments": {"cmd": "echo hi > a.txt"}}}
    {"custom_tool_call": {"name": "apply_patch", "input": "*** Begin Patch\n..."}}
    {"output": [<raw Responses output items>]}

"arguments" may be an object (serialised for you) or a string.  Optional:
    "expect": "substring"   the request body must contain it (recorded as
                            expect_ok in the log, counted in /__fake/state).

--consume tools (default): only requests whose body has a non-empty "tools"
list consume a line (Codex's side requests, if any, get --side-reply);
--consume all: every POST /v1/responses does.  An exhausted script answers the
text "(fake_openai_responses: script exhausted)".

Log: JSONL, one line per request: seq, ts, method, path, query, headers
(authorization masked), body, kind, script_index, expect_ok, exhausted,
reply (the output items sent).

Other endpoints:
    GET  /v1/models        a small model list (the request's model is echoed
                           by the Responses reply anyway)
    GET  /__fake/state     counters
    POST /v1/chat/completions and anything else: 404 OpenAI-style error (logged)
    GET  anything else     200 {} (logged)
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

MASKED_HEADERS = {"authorization", "proxy-authorization", "cookie", "x-api-key",
                  "openai-api-key"}


def load_script(path):
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


def new_id(prefix):
    return f"{prefix}_fake_{uuid.uuid4().hex[:24]}"


def to_items(reply):
    """Script line -> list of completed Responses output items."""
    if "output" in reply:
        return [dict(i) for i in reply["output"]]
    items = []
    if "text" in reply:
        items.append({
            "type": "message", "id": new_id("msg"), "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": str(reply["text"]),
                         "annotations": [], "logprobs": []}],
        })
    if "function_call" in reply:
        fc = reply["function_call"]
        args = fc.get("arguments", {})
        if not isinstance(args, str):
            args = json.dumps(args)
        items.append({
            "type": "function_call", "id": new_id("fc"), "status": "completed",
            "call_id": fc.get("call_id") or new_id("call"),
            "name": fc["name"], "arguments": args,
        })
    if "custom_tool_call" in reply:
        ct = reply["custom_tool_call"]
        items.append({
            "type": "custom_tool_call", "id": new_id("ctc"), "status": "completed",
            "call_id": ct.get("call_id") or new_id("call"),
            "name": ct["name"], "input": ct.get("input", ""),
        })
    if not items:
        items.append({"type": "message", "id": new_id("msg"), "status": "completed",
                      "role": "assistant",
                      "content": [{"type": "output_text", "text": "",
                                   "annotations": [], "logprobs": []}]})
    return items


def chunks(s, n):
    if not s:
        return [""]
    size = max(1, -(-len(s) // n))
    return [s[i:i + size] for i in range(0, len(s), size)]


class Events:
    """Builds the SSE body with increasing sequence numbers."""

    def __init__(self):
        self.parts = []
        self.seq = 0

    def add(self, etype, **fields):
        data = {"type": etype, "sequence_number": self.seq}
        data.update(fields)
        self.seq += 1
        self.parts.append(f"event: {etype}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n")

    def body(self):
        return "".join(self.parts).encode("utf-8")


def response_obj(resp_id, model, status, output, usage=None):
    r = {"id": resp_id, "object": "response", "created_at": int(time.time()),
         "status": status, "model": model, "output": output,
         "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
         "error": None, "incomplete_details": None}
    if usage is not None:
        r["usage"] = usage
    return r


def stream_body(resp_id, model, items, in_tok):
    ev = Events()
    ev.add("response.created", response=response_obj(resp_id, model, "in_progress", []))
    ev.add("response.in_progress", response=response_obj(resp_id, model, "in_progress", []))
    out_tok = 0
    for oi, item in enumerate(items):
        t = item.get("type")
        if t == "message":
            ev.add("response.output_item.added", output_index=oi,
                   item=dict(item, status="in_progress", content=[]))
            for ci, part in enumerate(item.get("content", [])):
                text = part.get("text", "")
                ev.add("response.content_part.added", item_id=item["id"], output_index=oi,
                       content_index=ci,
                       part={"type": "output_text", "text": "", "annotations": []})
                for piece in chunks(text, 3):
                    ev.add("response.output_text.delta", item_id=item["id"],
                           output_index=oi, content_index=ci, delta=piece, logprobs=[])
                ev.add("response.output_text.done", item_id=item["id"], output_index=oi,
                       content_index=ci, text=text, logprobs=[])
                ev.add("response.content_part.done", item_id=item["id"], output_index=oi,
                       content_index=ci, part=part)
                out_tok += max(1, len(text) // 4)
        elif t == "function_call":
            ev.add("response.output_item.added", output_index=oi,
                   item=dict(item, status="in_progress", arguments=""))
            for piece in chunks(item["arguments"], 3):
                ev.add("response.function_call_arguments.delta", item_id=item["id"],
                       output_index=oi, delta=piece)
            ev.add("response.function_call_arguments.done", item_id=item["id"],
                   output_index=oi, arguments=item["arguments"])
            out_tok += max(1, len(item["arguments"]) // 4)
        elif t == "custom_tool_call":
            ev.add("response.output_item.added", output_index=oi,
                   item=dict(item, status="in_progress", input=""))
            for piece in chunks(item["input"], 3):
                ev.add("response.custom_tool_call_input.delta", item_id=item["id"],
                       output_index=oi, delta=piece)
            ev.add("response.custom_tool_call_input.done", item_id=item["id"],
                   output_index=oi, input=item["input"])
            out_tok += max(1, len(item["input"]) // 4)
        else:
            ev.add("response.output_item.added", output_index=oi, item=item)
        ev.add("response.output_item.done", output_index=oi, item=item)
    usage = {"input_tokens": in_tok, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": out_tok, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": in_tok + out_tok}
    ev.add("response.completed", response=response_obj(resp_id, model, "completed", items, usage))
    return ev.body(), usage


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
    protocol_version = "HTTP/1.1"
    server_version = "fake-openai-responses/1"
    state = None

    def log_message(self, fmt, *args):
        pass

    def _read_body(self):
        # Codex may compress request bodies in some configurations; we only
        # accept identity here and log what arrives.
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n > 0 else b""
        if self.headers.get("Content-Encoding", "identity") not in ("identity", ""):
            return f"<{len(raw)} bytes, content-encoding {self.headers['Content-Encoding']}>", None
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
        self.send_header("x-request-id", "req_fake_" + uuid.uuid4().hex[:16])
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

    def _error(self, code, message, etype="invalid_request_error"):
        self._send(code, {"error": {"message": message, "type": etype,
                                    "param": None, "code": None}})

    def do_HEAD(self):
        self._record(None, kind="other")
        self._send(200, b"")

    def do_GET(self):
        path = urlsplit(self.path).path
        st = self.state
        if path == "/__fake/state":
            with st.lock:
                s = {"requests": st.seq, "script_next": st.next,
                     "script_len": len(st.script), "expect_misses": st.expect_misses}
                if st.scripts is not None:
                    s.update(st.scripts.state())
            return self._send(200, s)
        if path.endswith("/models"):
            self._record(None, kind="models")
            return self._send(200, {"object": "list", "data": [
                {"id": "gpt-5.1-codex", "object": "model", "created": 0, "owned_by": "fake"}]})
        # A websocket upgrade (Responses over websocket) is refused so that the
        # client falls back to HTTP streaming.
        self._record(None, kind="other")
        if self.headers.get("Upgrade", "").lower() == "websocket":
            return self._error(426, "fake_openai_responses: websockets not supported")
        self._send(200, {})

    def do_POST(self):
        path = urlsplit(self.path).path
        text, body = self._read_body()
        if not path.endswith("/responses"):
            self._record(body, kind="other")
            return self._error(404, f"fake_openai_responses: no endpoint {path}", "not_found")
        if not isinstance(body, dict):
            self._record(body, kind="other")
            return self._error(400, "body is not a JSON object")
        st = self.state
        is_agent = st.consume == "all" or bool(body.get("tools"))
        idx, reply, exhausted, expect_ok = None, None, False, None
        extra = {}
        if is_agent and st.scripts is not None:
            # --scripts: the conversation's marker picks the script, its history the line
            texts, turns, cwd = fake_scripts.responses_view(body)
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
                reply = {"text": "(fake_openai_responses: script exhausted)"}
        if not is_agent:
            reply = {"text": st.side_reply}
        elif "expect" in reply:
            expect_ok = reply["expect"] in text
            if not expect_ok:
                with st.lock:
                    st.expect_misses += 1
        items = to_items(reply)
        model = body.get("model") or "gpt-fake"
        resp_id = new_id("resp")
        in_tok = max(1, len(text) // 4)
        self._record(body, kind="agent" if is_agent else "side", script_index=idx,
                     exhausted=exhausted, expect_ok=expect_ok, reply=items, **extra)
        data, usage = stream_body(resp_id, model, items, in_tok)
        if body.get("stream", False):
            return self._send(200, data, "text/event-stream; charset=utf-8")
        return self._send(200, response_obj(resp_id, model, "completed", items, usage))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--script", help="JSONL replies, one per agent request, in order")
    src.add_argument("--scripts", metavar="DIR",
                     help="one JSONL script per task marker, DIR/<name>.jsonl (see fake_scripts.py)")
    ap.add_argument("--marker", default=fake_scripts.DEFAULT_MARKER,
                    help="with --scripts: regex whose group 1 names the script")
    ap.add_argument("--log", required=True)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--consume", choices=["tools", "all"], default="tools")
    ap.add_argument("--side-reply", default="OK")
    a = ap.parse_args()
    try:
        script = load_script(a.script) if a.script else []
        scripts = fake_scripts.ScriptDir(a.scripts, a.marker) if a.scripts else None
    except (OSError, ValueError) as e:
        print(f"fake_openai_responses: {e}", file=sys.stderr)
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
