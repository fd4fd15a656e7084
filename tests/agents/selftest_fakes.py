#!/usr/bin/env python3
"""Smoke test of fake_anthropic.py and fake_openai_responses.py without any
agent: start each on a free port, send what the agents send, check the event
sequence, the script order, side requests, `expect`, and the request log.

Python stdlib only; written for candor.  Exit 0 when all checks pass.
"""

import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
failures = []


def check(desc, cond):
    print(("PASS  " if cond else "FAIL  ") + desc)
    if not cond:
        failures.append(desc)


def start(server, script_lines, tmp):
    script = os.path.join(tmp, server + ".script.jsonl")
    with open(script, "w") as f:
        f.write("# comment lines are ignored\n\n")
        for line in script_lines:
            f.write(json.dumps(line) + "\n")
    log = os.path.join(tmp, server + ".log.jsonl")
    portf = os.path.join(tmp, server + ".port")
    p = subprocess.Popen([sys.executable, os.path.join(HERE, server + ".py"), "--script", script,
                          "--log", log, "--port-file", portf], stdout=subprocess.DEVNULL)
    for _ in range(100):
        if os.path.exists(portf):
            break
        time.sleep(0.05)
    return p, int(open(portf).read()), log


def post(port, path, body, headers=None):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(),
                                 headers={"content-type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, r.headers.get("content-type", ""), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("content-type", ""), e.read().decode()


def sse_events(text):
    out = []
    for block in text.strip().split("\n\n"):
        ev = data = None
        for line in block.split("\n"):
            if line.startswith("event: "):
                ev = line[7:]
            elif line.startswith("data: "):
                data = json.loads(line[6:])
        out.append((ev, data))
    return out


def test_anthropic(tmp):
    p, port, log = start("fake_anthropic", [
        {"text": "hi", "tool_use": {"name": "Write", "input": {"file_path": "/x", "content": "y"}}},
        {"text": "done", "expect": "MUST-BE-THERE"},
    ], tmp)
    try:
        tools = [{"name": "Write", "input_schema": {"type": "object"}}]
        st, ct, body = post(port, "/v1/messages?beta=true",
                            {"model": "m", "stream": True, "tools": tools, "messages": []},
                            {"x-api-key": "secret"})
        ev = sse_events(body)
        names = [e for e, _ in ev]
        check("anthropic: 200 text/event-stream", st == 200 and ct.startswith("text/event-stream"))
        check("anthropic: event order", names[0] == "message_start" and names[-1] == "message_stop"
              and names[-2] == "message_delta")
        tu = "".join(d["delta"]["partial_json"] for e, d in ev
                     if e == "content_block_delta" and d["delta"]["type"] == "input_json_delta")
        check("anthropic: input_json_delta joins to the input", json.loads(tu) == {"file_path": "/x", "content": "y"})
        check("anthropic: stop_reason tool_use", ev[-2][1]["delta"]["stop_reason"] == "tool_use")
        # a side request (no tools) does not consume the script
        st, _, body = post(port, "/v1/messages", {"model": "h", "messages": [], "max_tokens": 5})
        check("anthropic: side request answered whole, non-streamed",
              st == 200 and json.loads(body)["content"][0]["text"] == "OK")
        st, _, body = post(port, "/v1/messages", {"model": "m", "stream": True, "tools": tools,
                                                   "messages": [{"role": "user", "content": "nope"}]})
        txt = "".join(d["delta"].get("text", "") for e, d in sse_events(body) if e == "content_block_delta")
        check("anthropic: second script line", txt == "done")
        st, _, body = post(port, "/v1/messages/count_tokens", {"messages": []})
        check("anthropic: count_tokens", st == 200 and "input_tokens" in json.loads(body))
        st, _, _ = post(port, "/v1/unknown", {})
        check("anthropic: unknown POST is 404", st == 404)
        state = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/__fake/state"))
        check("anthropic: expect miss counted", state["expect_misses"] == 1 and state["script_next"] == 2)
        st, _, body = post(port, "/v1/messages", {"model": "m", "stream": True, "tools": tools, "messages": []})
        txt = "".join(d["delta"].get("text", "") for e, d in sse_events(body) if e == "content_block_delta")
        check("anthropic: exhausted script answers a marker", "script exhausted" in txt)
        recs = [json.loads(l) for l in open(log)]
        check("anthropic: every request logged, key masked",
              len(recs) == 6 and recs[0]["headers"]["x-api-key"] == "***"
              and recs[0]["query"] == {"beta": ["true"]} and recs[-1]["exhausted"] is True)
    finally:
        p.terminate()


def test_openai(tmp):
    p, port, log = start("fake_openai_responses", [
        {"text": "hi", "function_call": {"name": "exec_command", "arguments": {"cmd": "ls"}}},
        {"custom_tool_call": {"name": "apply_patch", "input": "*** Begin Patch\n*** End Patch\n"}},
        {"text": "done", "expect": "REASON"},
    ], tmp)
    try:
        tools = [{"type": "function", "name": "exec_command"}]
        st, ct, body = post(port, "/v1/responses", {"model": "gpt-5.5", "stream": True, "tools": tools,
                                                     "input": []}, {"authorization": "Bearer secret"})
        ev = sse_events(body)
        names = [e for e, _ in ev]
        check("openai: 200 text/event-stream", st == 200 and ct.startswith("text/event-stream"))
        check("openai: created first, completed last",
              names[0] == "response.created" and names[-1] == "response.completed")
        args = "".join(d["delta"] for e, d in ev if e == "response.function_call_arguments.delta")
        check("openai: arguments deltas join", json.loads(args) == {"cmd": "ls"})
        done = [d["item"] for e, d in ev if e == "response.output_item.done"]
        check("openai: two output items (message, function_call)",
              [i["type"] for i in done] == ["message", "function_call"] and done[1]["call_id"])
        check("openai: sequence numbers increase",
              [d["sequence_number"] for _, d in ev] == list(range(len(ev))))
        st, _, body = post(port, "/v1/responses", {"model": "gpt-5.5", "stream": True, "tools": tools, "input": []})
        done = [d["item"] for e, d in sse_events(body) if e == "response.output_item.done"]
        check("openai: custom_tool_call item", done[0]["type"] == "custom_tool_call"
              and done[0]["input"].startswith("*** Begin Patch"))
        st, _, body = post(port, "/v1/responses", {"model": "gpt-5.5", "stream": True, "tools": tools,
                                                    "input": [{"role": "user", "content": "REASON"}]})
        state = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/__fake/state"))
        check("openai: expect met", state["expect_misses"] == 0 and state["script_next"] == 3)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models") as r:
            check("openai: /v1/models lists a model", json.load(r)["data"])
        recs = [json.loads(l) for l in open(log)]
        check("openai: requests logged, authorization masked",
              len(recs) == 4 and recs[0]["headers"]["authorization"] == "***")
    finally:
        p.terminate()


def main():
    with tempfile.TemporaryDirectory() as tmp:
        test_anthropic(tmp)
        test_openai(tmp)
    print("selftest_fakes: " + ("ALL PASSED" if not failures else f"{len(failures)} FAILED"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
