#!/usr/bin/env python3
"""Smoke test of fake_anthropic.py and fake_openai_responses.py without any
agent: start each on a free port, send what the agents send, check the event
sequence, the script order, side requests, `expect`, and the request log; and the
`--scripts DIR` mode (issue 39): routing by task marker, the line from the
conversation's history, `{cwd}`, side replies, bad scripts refused.

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


def start(server, script_lines, tmp, scripts=None):
    """Start a fake with one script (script_lines) or, with scripts={name: lines}, in --scripts mode."""
    if scripts is None:
        src = os.path.join(tmp, server + ".script.jsonl")
        with open(src, "w") as f:
            f.write("# comment lines are ignored\n\n")
            for line in script_lines:
                f.write(json.dumps(line) + "\n")
        mode = ["--script", src]
    else:
        src = os.path.join(tmp, server + ".scripts.d")
        os.makedirs(src)
        for name, lines in scripts.items():
            with open(os.path.join(src, name + ".jsonl"), "w") as f:
                f.write("# comment lines are ignored\n")
                f.writelines(json.dumps(line) + "\n" for line in lines)
        mode = ["--scripts", src]
    stem = server + ("" if scripts is None else ".scripts")
    log = os.path.join(tmp, stem + ".log.jsonl")
    portf = os.path.join(tmp, stem + ".port")
    p = subprocess.Popen([sys.executable, os.path.join(HERE, server + ".py"), *mode,
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


def anthropic_text(body):
    """The text and tool inputs of a streamed Anthropic reply."""
    ev = sse_events(body)
    txt = "".join(d["delta"].get("text", "") for e, d in ev if e == "content_block_delta")
    tools = [d["content_block"]["name"] for e, d in ev
             if e == "content_block_start" and d["content_block"]["type"] == "tool_use"]
    return txt, tools


def test_anthropic_scripts(tmp):
    p, port, log = start("fake_anthropic", None, tmp, scripts={
        "alpha": [{"text": "a0", "tool_use": {"name": "Write", "input": {"file_path": "{cwd}/f.py",
                                                                          "content": "x"}}},
                  {"text": "a1 {task}"}],
        "beta": [{"text": "b0"}, {"text": "b1", "expect": "RESULT-B"}],
    })
    try:
        tools = [{"name": "Write", "input_schema": {"type": "object"}}]
        env = {"role": "system", "content": [{"type": "text", "text":
                                              " - Primary working directory: /w/alpha\n - Is a git repository: true"}]}

        def conv(marker, turns, extra=""):
            msgs = [{"role": "user", "content": [{"type": "text", "text": "<system-reminder>x</system-reminder>"},
                                                 {"type": "text", "text": f"Fix it [task:{marker}]"}]}, env]
            for i in range(turns):
                # a reply that Claude Code splits in two assistant messages is still one turn
                msgs += [{"role": "assistant", "content": [{"type": "text", "text": "t"}]},
                         {"role": "assistant", "content": [{"type": "tool_use", "id": f"u{i}", "name": "Write",
                                                            "input": {}}]},
                         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"u{i}",
                                                       "content": "ok " + extra}]}]
            return {"model": "m", "stream": True, "tools": tools, "messages": msgs}

        # out of order and repeated: every answer depends on the request alone
        _, _, b1 = post(port, "/v1/messages", conv("beta", 1, "RESULT-B"))
        _, _, a0 = post(port, "/v1/messages", conv("alpha", 0))
        _, _, a0again = post(port, "/v1/messages", conv("alpha", 0))
        _, _, a1 = post(port, "/v1/messages", conv("alpha", 1))
        _, _, b0 = post(port, "/v1/messages", conv("beta", 0))
        check("anthropic --scripts: the marker picks the script, the turns the line",
              anthropic_text(a0) == ("a0", ["Write"]) and anthropic_text(a0again) == ("a0", ["Write"])
              and anthropic_text(a1)[0] == "a1 alpha" and anthropic_text(b0)[0] == "b0"
              and anthropic_text(b1)[0] == "b1")
        tu = "".join(d["delta"]["partial_json"] for e, d in sse_events(a0)
                     if e == "content_block_delta" and d["delta"]["type"] == "input_json_delta")
        check("anthropic --scripts: {cwd} filled from 'Primary working directory'",
              json.loads(tu)["file_path"] == "/w/alpha/f.py")
        _, _, ex = post(port, "/v1/messages", conv("alpha", 2))
        _, _, nos = post(port, "/v1/messages", conv("gamma", 0))
        check("anthropic --scripts: exhausted, and a marker with no script, say so",
              "script alpha exhausted" in anthropic_text(ex)[0] and "no script for gamma" in anthropic_text(nos)[0])
        st, _, side = post(port, "/v1/messages", {"model": "m", "stream": True, "tools": tools,
                                                  "messages": [{"role": "user", "content": "title please"}]})
        st2, _, side2 = post(port, "/v1/messages", {"model": "h", "max_tokens": 5,
                                                    "messages": [{"role": "user", "content": "[task:alpha]"}]})
        check("anthropic --scripts: no marker, or no tools, gets the side reply",
              anthropic_text(side)[0] == "OK" and json.loads(side2)["content"][0]["text"] == "OK")
        state = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/__fake/state"))
        recs = [json.loads(l) for l in open(log)]
        check("anthropic --scripts: state counts per script, the log names script, line and cwd",
              state["served"] == {"alpha": 4, "beta": 2} and state["expect_misses"] == 0
              and [(r.get("script"), r["script_index"]) for r in recs[:5]]
              == [("beta", 1), ("alpha", 0), ("alpha", 0), ("alpha", 1), ("beta", 0)]
              and recs[1]["cwd"] == "/w/alpha" and recs[1]["expect_ok"] is None and recs[0]["expect_ok"] is True
              and recs[-2]["kind"] == "side" and recs[-1]["kind"] == "side")
    finally:
        p.terminate()


def test_openai_scripts(tmp):
    p, port, log = start("fake_openai_responses", None, tmp, scripts={
        "alpha": [{"text": "looking", "function_call": {"name": "exec_command", "arguments": {"cmd": "ls {cwd}"}}},
                  {"custom_tool_call": {"name": "apply_patch", "input": "*** Begin Patch\n*** End Patch\n"}},
                  {"text": "Done: {task}"}],
        "beta": [{"text": "b0"}],
    })
    try:
        tools = [{"type": "function", "name": "exec_command"}]

        def conv(marker, turns):
            items = [{"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "rules"}]},
                     {"type": "message", "role": "user", "content": [
                         {"type": "input_text", "text": "<environment_context>\n  <cwd>/w/a</cwd>\n</environment_context>"}]},
                     {"type": "message", "role": "user", "content": [
                         {"type": "input_text", "text": f"Fix it [task:{marker}]"}]}]
            for i in range(turns):
                items += [{"type": "reasoning", "summary": []},
                          {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "t"}]},
                          {"type": "function_call", "name": "exec_command", "arguments": "{}", "call_id": f"c{i}"},
                          {"type": "function_call_output", "call_id": f"c{i}", "output": "ok"}]
            return {"model": "gpt-5.5", "stream": True, "tools": tools, "input": items}

        def items_of(body):
            return [d["item"] for e, d in sse_events(body) if e == "response.output_item.done"]

        _, _, r2 = post(port, "/v1/responses", conv("alpha", 2))
        _, _, r0 = post(port, "/v1/responses", conv("alpha", 0))
        _, _, r1 = post(port, "/v1/responses", conv("alpha", 1))
        _, _, b0 = post(port, "/v1/responses", conv("beta", 0))
        i0, i1, i2 = items_of(r0), items_of(r1), items_of(r2)
        check("openai --scripts: the marker picks the script, the turns the line",
              [i["type"] for i in i0] == ["message", "function_call"]
              and i1[0]["type"] == "custom_tool_call"
              and i2[0]["content"][0]["text"] == "Done: alpha"
              and items_of(b0)[0]["content"][0]["text"] == "b0")
        check("openai --scripts: {cwd} filled from <cwd>", json.loads(i0[1]["arguments"]) == {"cmd": "ls /w/a"})
        _, _, side = post(port, "/v1/responses", {"model": "gpt-5.5", "stream": True, "tools": tools,
                                                  "input": [{"type": "message", "role": "user", "content": "hi"}]})
        check("openai --scripts: no marker gets the side reply", items_of(side)[0]["content"][0]["text"] == "OK")
        state = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/__fake/state"))
        recs = [json.loads(l) for l in open(log)]
        check("openai --scripts: state and log",
              state["served"] == {"alpha": 3, "beta": 1}
              and [r["script_index"] for r in recs[:4]] == [2, 0, 1, 0] and recs[-1]["kind"] == "side")
    finally:
        p.terminate()


def test_bad_scripts(tmp):
    d = os.path.join(tmp, "bad")
    os.makedirs(d)
    with open(os.path.join(d, "x.jsonl"), "w") as f:
        f.write('{"text": "ok"}\nnot json\n')
    for server in ("fake_anthropic", "fake_openai_responses"):
        r = subprocess.run([sys.executable, os.path.join(HERE, server + ".py"), "--scripts", d,
                            "--log", os.path.join(tmp, "bad.log")], capture_output=True, text=True)
        check(f"{server} --scripts: a bad line is refused with FILE:LINE (exit 65)",
              r.returncode == 65 and "x.jsonl:2" in r.stderr)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        test_anthropic(tmp)
        test_openai(tmp)
        test_anthropic_scripts(tmp)
        test_openai_scripts(tmp)
        test_bad_scripts(tmp)
    print("selftest_fakes: " + ("ALL PASSED" if not failures else f"{len(failures)} FAILED"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
