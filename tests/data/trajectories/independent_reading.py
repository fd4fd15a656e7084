#!/usr/bin/env python3
"""An independent reading of the real transcripts in this folder: for each file, the tool calls,
their results (with exit codes) and the final answer, found with plain Python from each format's
own description (SOURCE.txt of each folder, and docs/acceptance.md), not from candor's importer.
tests/import_formats_test.cc asserts that candor reads the same numbers; run this to see them:

    python3 tests/data/trajectories/independent_reading.py
"""
import json
import pathlib
import re

HERE = pathlib.Path(__file__).parent


def jsonl(path):
    return [json.loads(l) for l in open(path, encoding="utf-8") if l.strip()]


def claude(path):
    calls, results, final = [], [], None
    for r in jsonl(path):
        c = (r.get("message") or {}).get("content")
        if r.get("type") == "assistant" and isinstance(c, list):
            if r.get("isApiErrorMessage") or r["message"].get("model") == "<synthetic>":
                continue  # Claude Code's own error message, not the model's
            for b in c:
                if b["type"] == "tool_use":
                    calls.append(b["name"])
                if b["type"] == "text":
                    final = b["text"]
        if r.get("type") == "user" and isinstance(c, list):
            for b in c:
                if b["type"] == "tool_result":
                    text = b["content"] if isinstance(b["content"], str) else "".join(x.get("text", "") for x in b["content"])
                    m = re.match(r"Exit code (\d+)", text)
                    results.append(int(m.group(1)) if m else (None if b.get("is_error") else "ok"))
    return calls, results, final


def codex_rollout(path):
    calls, results, final = [], [], None
    for r in jsonl(path):
        p = r.get("payload") or {}
        if r["type"] == "response_item" and p.get("type") in ("function_call", "custom_tool_call"):
            calls.append(p["name"])
        if r["type"] == "response_item" and p.get("type") in ("function_call_output", "custom_tool_call_output"):
            m = re.search(r"^(?:Process exited with code|Exit code:) (\d+)$", p["output"], re.M)
            results.append(int(m.group(1)) if m else None)
        if r["type"] == "event_msg" and p.get("type") == "task_complete":
            final = p["last_agent_message"]
    return calls, results, final


def codex_exec(path):
    calls, results, final = [], [], None
    for r in jsonl(path):
        item = r.get("item") or {}
        if r["type"] == "item.started":
            calls.append(item["type"])
        if r["type"] == "item.completed" and item["type"] == "agent_message":
            final = item["text"]
        elif r["type"] == "item.completed":
            results.append(item.get("exit_code", item.get("status")))
    return calls, results, final


def openhands_v1(path):
    calls, results, final = [], [], None
    for e in jsonl(path):
        if e["kind"] == "ActionEvent":
            calls.append(e["tool_name"])
        if e["kind"] == "ObservationEvent":
            o = e["observation"]
            results.append(o["exit_code"] if o.get("exit_code") is not None else ("error" if o.get("is_error") else "ok"))
    return calls, results, final


def mini(path):
    calls, results, final = [], [], None
    for m in json.load(open(path)):
        if m["role"] == "assistant":
            if re.search(r"```mswea_bash_command\n", m["content"]):
                calls.append("bash")
            final = m["content"]
        elif m["role"] == "user" and calls and len(results) < len(calls):
            rc = re.match(r"<returncode>(-?\d+)</returncode>", m["content"])
            results.append(int(rc.group(1)) if rc else None)
            if "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in final and not rc:
                final = m["content"]  # what the submitting command printed
    return calls, results, final


def aider(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    calls = [l for l in lines if l.startswith(("> Applied edit to ", "> Commit ", "#### /undo", "#### /test ", "#### /run "))]
    results = [l for l in lines if l.startswith(("> Applied edit to ", "> Commit ", "> Removed: "))]
    # a /test that failed shows its output as a blockquote whose first line follows the command
    results += [l for i, l in enumerate(lines) if i and lines[i - 1].startswith("#### /test ") and l.startswith("> ")]
    return [c.split(" ")[1] for c in calls], results, None


FILES = [
    ("claude-code/real-2.1.332-exit-code-api-error.jsonl", claude),
    ("codex/real-0.169.0-rollout-exit-codes.jsonl", codex_rollout),
    ("codex-exec/real-0.169.0-exec.jsonl", codex_exec),
    ("openhands/v1-goal-events.jsonl", openhands_v1),
    ("mini-swe-agent/github_issue.traj.json", mini),
    ("aider/aider-repo-session-2024-08-06.chat.history.md", aider),
]

if __name__ == "__main__":
    for name, read in FILES:
        calls, results, final = read(HERE / name)
        print(f"{name}\n  calls {len(calls)}: {calls}\n  results {len(results)}: "
              f"{results if not name.startswith('aider') else len(results)}\n  final: {str(final)[:100]!r}")
