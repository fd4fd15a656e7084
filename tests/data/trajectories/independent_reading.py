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


def gemini(path):
    """The session as Gemini CLI loads it: the last record of an id wins in its place, $set messages
    replaces the list, $rewindTo ID drops ID and what follows (all when ID is not there)."""
    order, by_id = [], {}
    for r in jsonl(path):
        if "$rewindTo" in r:
            k = order.index(r["$rewindTo"]) if r["$rewindTo"] in order else 0
            for gone in order[k:]:
                del by_id[gone]
            del order[k:]
        elif isinstance((r.get("$set") or {}).get("messages"), list):
            order, by_id = [], {}
            for m in r["$set"]["messages"]:
                order += [] if m["id"] in by_id else [m["id"]]
                by_id[m["id"]] = m
        elif "id" in r and "type" in r:
            order += [] if r["id"] in by_id else [r["id"]]
            by_id[r["id"]] = r
    calls, results, final = [], [], None
    for m in (by_id[i] for i in order if by_id[i]["type"] == "gemini"):
        for c in m.get("toolCalls") or []:
            calls.append(c["name"])
            out = "".join(p["functionResponse"]["response"].get("output", "") for p in c.get("result") or []
                          if p["functionResponse"].get("id") == c["id"])
            code = re.search(r"Exit Code: (-?\d+)", out)
            results.append(int(code.group(1)) if code else (c["status"], "no code in the text"))
        text = m["content"] if isinstance(m["content"], str) else "".join(
            p.get("text", "") for p in m["content"] if not p.get("thought"))
        final = text if text.strip() else final
    return calls, results, final


def openhands_folder(path):
    events = sorted(pathlib.Path(path).glob("event-*.json"))
    tmp = [json.load(open(e)) for e in events]
    calls = [e["tool_name"] for e in tmp if e["kind"] == "ActionEvent"]
    results = [e["observation"].get("exit_code") for e in tmp if e["kind"] == "ObservationEvent"]
    said = [e for e in tmp if e["kind"] == "MessageEvent" and e["source"] == "agent"]
    final = "".join(c.get("text", "") for c in said[-1]["llm_message"]["content"]) if said else None
    return calls, results, final


def mini_v1(path):
    """The current format: {"info": {"submission", ...}, "messages": [...]}; the answer is info.submission."""
    doc = json.load(open(path))
    calls, results, _ = mini_messages(doc["messages"])
    return calls, results, doc["info"]["submission"]


def mini(path):
    return mini_messages(json.load(open(path)))


def mini_messages(messages):
    calls, results, final = [], [], None
    for m in messages:
        if m["role"] == "assistant":
            if re.search(r"```(?:mswea_bash_command|bash)\n", m["content"]):
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
    # aider 0.86: /run's output goes to the chat only; the file says "Added N lines of output to the chat."
    results += [l for i, l in enumerate(lines) if l.startswith("> Added ") and " of output to the chat." in l
                and any(p.startswith("#### /run ") for p in lines[max(0, i - 2):i])]
    # a /test that failed shows its output as a blockquote whose first line follows the command
    results += [l for i, l in enumerate(lines) if i and lines[i - 1].startswith("#### /test ") and l.startswith("> ")]
    return [c.split(" ")[1] for c in calls], results, None


def cline(path):
    """Cline 2.x: native tool_use calls; each result a user text block "[tool for 'arg'] Result:"
    (paired in order), its exit code as Cline words it; the answer is attempt_completion's result."""
    calls, results, final = [], [], None
    for m in json.load(open(path / "api_conversation_history.json" if path.is_dir() else path)):
        for b in m["content"] if isinstance(m["content"], list) else []:
            if m["role"] == "assistant" and b.get("type") == "tool_use":
                if b["name"] == "attempt_completion":
                    final = b["input"].get("result")
                else:
                    calls.append(b["name"])
            if m["role"] == "user" and b.get("type") == "text" and re.match(r"\[\w+ for '.*'\] Result:", b["text"]):
                code = re.search(r"\((?:exit code) (\d+)\)|failed with exit code (\d+)", b["text"])
                results.append(int(code.group(1) or code.group(2)) if code else "ok")
    calls += ["attempt_completion"] if final is not None else []
    return calls, results, final


FILES = [
    ("claude-code/real-2.1.332-exit-code-api-error.jsonl", claude),
    ("codex/real-0.169.0-rollout-exit-codes.jsonl", codex_rollout),
    ("codex-exec/real-0.169.0-exec.jsonl", codex_exec),
    ("openhands/v1-goal-events.jsonl", openhands_v1),
    ("mini-swe-agent/github_issue.traj.json", mini),
    ("aider/aider-repo-session-2024-08-06.chat.history.md", aider),
    ("codex-exec/real-0.169.0-exec-recorder.jsonl", codex_exec),
    ("openhands/confirmation_mode", openhands_folder),
    ("gemini-cli/real-0.46.0-checkpoint-rewind.jsonl", gemini),
    ("gemini-cli/real-0.46.0-mid-turn-message-queued.jsonl", gemini),
    ("mini-swe-agent/django__django-16255.traj.json", mini_v1),
    ("aider/real-0.86.2-shell-escape-command.chat.history.md", aider),
    ("aider/real-0.86.2-self-correction-iteration.chat.history.md", aider),
    ("cline/real-2.18.0/api_conversation_history.json", cline),
]

if __name__ == "__main__":
    for name, read in FILES:
        calls, results, final = read(HERE / name)
        print(f"{name}\n  calls {len(calls)}: {calls}\n  results {len(results)}: "
              f"{results if not name.startswith('aider') else len(results)}\n  final: {str(final)[:100]!r}")
