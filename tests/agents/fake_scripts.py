"""The `--scripts DIR` mode shared by fake_anthropic.py and fake_openai_responses.py (candor
issue 39, `candor eval`): many conversations at once against one fake server, each answered from
its own script, with no state kept between requests.

Python standard library only.  Written for the candor project.

Routing
-------
An agent request is routed to the script DIR/<NAME>.jsonl, where NAME is group 1 of the first
match of the marker pattern (default ``\\[task:([A-Za-z0-9_.-]+)\\]``, so a goal that contains
``[task:roman-lowercase]`` is answered from DIR/roman-lowercase.jsonl) in the conversation's user
messages.  A request with no marker gets the side reply (as a request without tools does); a
marker with no script file gets the text "(fake: no script for NAME)".

Which line answers
------------------
The reply index is computed from the request alone: it is the number of model turns already in
the conversation the request carries, that is the number of maximal runs of model-produced items
(Anthropic: ``assistant`` messages; Responses: assistant ``message``, ``function_call``,
``custom_tool_call``, ``reasoning`` ... items) in its history.  The first request of a
conversation gets line 0, the request after the first reply's tool result gets line 1, and so on.
Parallel sessions, repeated attempts and restarted shards of the same task therefore each get the
right line, whatever order the requests arrive in.  Past the end of the script the reply is
"(fake: script NAME exhausted)".

Placeholders
------------
Every string of a reply line has ``{cwd}`` replaced by the agent's working directory as the
request states it (Claude Code: "Primary working directory: DIR" in its environment text; Codex:
``<cwd>DIR</cwd>`` in its environment context), and ``{task}`` by NAME.  Nothing else in braces is
touched, so JSON and shell text need no escaping.
"""

import json
import os
import re

DEFAULT_MARKER = r"\[task:([A-Za-z0-9_.-]+)\]"


def load_jsonl(path):
    """Read a JSONL script; raise ValueError with the line number on bad input."""
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


def strings(obj):
    """Every string inside a JSON value, depth first."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, list):
        for x in obj:
            yield from strings(x)
    elif isinstance(obj, dict):
        for x in obj.values():
            yield from strings(x)


def fill(obj, values):
    """A copy of obj with each {key} of values replaced in every string."""
    if isinstance(obj, str):
        for k, v in values.items():
            if v is not None:
                obj = obj.replace("{" + k + "}", v)
        return obj
    if isinstance(obj, list):
        return [fill(x, values) for x in obj]
    if isinstance(obj, dict):
        return {k: fill(x, values) for k, x in obj.items()}
    return obj


def count_runs(items, is_model):
    """The number of maximal runs of consecutive items for which is_model(item) holds."""
    runs, inside = 0, False
    for it in items:
        m = is_model(it)
        if m and not inside:
            runs += 1
        inside = m
    return runs


# -- what each wire format carries ------------------------------------------------------------

def anthropic_view(body):
    """(user texts, model turns so far, cwd) of a Messages API request body."""
    msgs = body.get("messages") or []
    users = [s for m in msgs if isinstance(m, dict) and m.get("role") == "user"
             for s in strings(m.get("content"))]
    turns = count_runs(msgs, lambda m: isinstance(m, dict) and m.get("role") == "assistant")
    cwd = None
    for s in strings([body.get("system"), msgs]):
        m = re.search(r"Primary working directory: ([^\n]+)", s)
        if m:
            cwd = m.group(1).strip()
            break
    return users, turns, cwd


MODEL_ITEM_TYPES = {"function_call", "custom_tool_call", "reasoning", "local_shell_call",
                    "web_search_call", "file_search_call", "computer_call"}


def responses_view(body):
    """(user texts, model turns so far, cwd) of a Responses API request body."""
    items = body.get("input") or []
    if isinstance(items, str):
        items = [{"type": "message", "role": "user", "content": items}]

    def is_model(it):
        if not isinstance(it, dict):
            return False
        t = it.get("type", "message")
        return t in MODEL_ITEM_TYPES or (t == "message" and it.get("role") == "assistant")

    users = [s for it in items if isinstance(it, dict) and it.get("role") == "user"
             for s in strings(it.get("content"))]
    turns = count_runs(items, is_model)
    cwd = None
    for s in users:
        m = re.search(r"<cwd>([^<]+)</cwd>", s)
        if m:
            cwd = m.group(1).strip()
            break
    return users, turns, cwd


class ScriptDir:
    """DIR/<NAME>.jsonl scripts, all read (and checked) at start."""

    def __init__(self, path, marker=DEFAULT_MARKER):
        self.path = path
        self.marker = re.compile(marker)
        if self.marker.groups < 1:
            raise ValueError(f"marker pattern {marker!r} needs a group (the script name)")
        self.scripts = {}
        for name in sorted(os.listdir(path)):
            if name.endswith(".jsonl"):
                self.scripts[name[:-len(".jsonl")]] = load_jsonl(os.path.join(path, name))
        if not self.scripts:
            raise ValueError(f"{path}: no *.jsonl script")
        self.served = {}       # name -> replies sent (for /__fake/state)

    def name_in(self, texts):
        for s in texts:
            m = self.marker.search(s)
            if m:
                return m.group(1)
        return None

    def pick(self, texts, turns, cwd):
        """(name, index, reply or None, exhausted, missing) for one agent request; reply None
        means the request carries no marker."""
        name = self.name_in(texts)
        if name is None:
            return None, None, None, False, False
        script = self.scripts.get(name)
        if script is None:
            return name, turns, {"text": f"(fake: no script for {name})"}, False, True
        self.served[name] = self.served.get(name, 0) + 1
        if turns >= len(script):
            return name, turns, {"text": f"(fake: script {name} exhausted)"}, True, False
        return name, turns, fill(script[turns], {"cwd": cwd, "task": name}), False, False

    def state(self):
        return {"scripts": len(self.scripts), "served": dict(self.served)}
