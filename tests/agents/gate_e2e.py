#!/usr/bin/env python3
"""`candor gate` with the real agents (issue 26, "Done means"): Claude Code and Codex CLI, pinned and
installed from the npm registry into the build folder (install_agents.sh), each driven against its
scripted API server on 127.0.0.1 (fake_anthropic.py, fake_openai_responses.py) with the hooks that
`candor gate install` wrote. Five cases per agent:

  a  the agent edits the wrong file and says done: blocked; the next API request carries candor's
     reason; the scripted agent fixes it; the second stop is allowed; the stored run is `success`
  b  the agent answers a question without touching files: allowed, never blocked (the hook ran)
  c  an agent that keeps failing is blocked `gate.max_blocks` times (counted from the server's
     request log), then let through with the warning
  d  the agent loosens `.candor/config.json` mid-turn: the turn's start config decides, and the
     change is reported as protected
  e  the store is unwritable: the stop is let through with a visible warning

and four more with Claude Code only (issue 37, the agent turning its own tools on its gate; Codex's
sandbox stops most of these commands before candor could):

  f  a program the agent runs writes `{"disableAllHooks": true}` to .claude/settings.local.json
     (Claude Code refuses its Write tool and shell redirects there; not a python one-liner):
     blocked as a protected change, and `gate status` says the hooks will not run
  g  the agent deletes .candor/config.json: blocked; the next turn begins with the config turn 1
     began with and blocks the broken file
  h  the agent runs the start hook itself (no prompt id, its session from its transcript's name):
     the real stop is checked from the true start
  i  the agent runs `candor gc --older-than 1s` during its turn: the open turn is kept, the stop blocks

No judge (no `--llm` on the hooks): every verdict here is decided by the config's `expect`. The
agents' keys are dummies for the fake servers; the hooks inherit them and must never use them (no
request reaches a server except the agent's own).

Environment: CANDOR_BIN, CANDOR_SOURCE_ROOT (meson sets both); CANDOR_AGENTS_DIR, where the agents
are installed (default: the folder `agents` beside the binary's `cli` folder, i.e. the build
folder); CANDOR_AGENT_SAMPLES=DIR saves the real transcripts of case a (and the versions) there;
KEEP=1 keeps the temp folders; CASES="claude-code:a codex:c" runs only those.

Exit: 0 every case passed, 1 a case failed, 77 the agents cannot be installed here (no node or npm,
the registry unreachable): every case is reported skipped, by name, never passed.
"""

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CANDOR = os.environ.get("CANDOR_BIN") or sys.exit("CANDOR_BIN is not set")
AGENTS_DIR = os.environ.get("CANDOR_AGENTS_DIR") or os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(CANDOR))), "agents")
AGENTS = ["claude-code", "codex"]
CASES = ["a", "b", "c", "d", "e"]
CASE_TITLES = {
    "a": "wrong file, blocked, reason delivered, fixed, allowed, run success",
    "b": "a question answered without changes: allowed, never blocked",
    "c": "keeps failing: blocked max_blocks times, then allowed with the warning",
    "d": ".candor/config.json loosened mid-turn: the start's config decides, protected change reported",
    "e": "store unwritable: allowed with a visible warning",
    "f": "the agent writes disableAllHooks to settings.local.json: blocked, gate status says the hooks are off",
    "g": "the agent deletes .candor/config.json: blocked; the next turn is checked with the config it deleted",
    "h": "the agent runs the start hook itself without a prompt id: the real start still decides",
    "i": "the agent runs candor gc during its turn: the open turn is kept and its stop still blocks",
}
# Round four (issue 37) needs the agent's own tools turned on itself: Claude Code's Bash runs commands,
# Codex's sandbox would stop most of them before candor could, so these run with Claude Code only.
ROUND_FOUR = ["f", "g", "h", "i"]
EXPECT_HELLO = {"expect": [{"type": "file_contains", "path": "hello.txt", "text": "hello candor"}]}


def log(*a):
    print(*a, flush=True)


def candor(*args, env=None, cwd=None):
    return subprocess.run([CANDOR, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=120)


class Case:
    """One agent run: a workspace, its store, the agent's own folders, the fake server, the checks."""

    def __init__(self, agent, name, bins):
        self.agent, self.name, self.bins = agent, name, bins
        self.w = tempfile.mkdtemp(prefix=f"candor-agents-{agent}-{name}.")
        self.ws = os.path.join(self.w, "ws")
        self.home = os.path.join(self.w, "home")
        self.store = os.path.join(self.w, "store")
        self.agent_home = os.path.join(self.w, "claude-config" if agent == "claude-code" else "codex-home")
        for d in (self.ws, self.home, self.agent_home):
            os.makedirs(d)
        self.failures = []
        self.server = None
        self.port = None
        self.requests_path = os.path.join(self.w, "requests.jsonl")
        self.stdout = self.stderr = ""
        self.rc = None
        self.seconds = 0.0

    # -- checks --------------------------------------------------------------------------------------
    def check(self, ok, what, detail=""):
        if not ok:
            self.failures.append(what + (f" ({detail})" if detail else ""))
        return ok

    # -- the workspace -------------------------------------------------------------------------------
    def write(self, rel, text):
        p = os.path.join(self.ws, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)

    def read(self, rel):
        try:
            with open(os.path.join(self.ws, rel)) as f:
                return f.read()
        except OSError:
            return None

    def git_init(self):
        g = ["git", "-C", self.ws, "-c", "user.name=t", "-c", "user.email=t@localhost"]
        subprocess.run(g + ["init", "-q"], check=True)
        subprocess.run(g + ["add", "-A"], check=True)
        subprocess.run(g + ["commit", "-qm", "start"], check=True)

    def tree(self):
        out = {}
        for root, dirs, files in os.walk(self.ws):
            dirs[:] = [d for d in dirs if d != ".git"]
            for f in files:
                p = os.path.join(root, f)
                with open(p, "rb") as fh:
                    out[os.path.relpath(p, self.ws)] = fh.read()
        return out

    # -- the environment the agent (and so its hooks) runs with ---------------------------------------
    def env(self):
        e = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": self.home, "LANG": "C.UTF-8",
             "TMPDIR": os.environ.get("TMPDIR", "/tmp")}
        if self.agent == "claude-code":
            e.update({"CLAUDE_CONFIG_DIR": self.agent_home, "ANTHROPIC_API_KEY": "test-key-for-the-fake-only",
                      "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1"})
            if self.port:
                e["ANTHROPIC_BASE_URL"] = f"http://127.0.0.1:{self.port}"
        else:
            e.update({"CODEX_HOME": self.agent_home, "OPENAI_API_KEY": "test-key-for-the-fake-only"})
        return e

    # -- the scripted server ---------------------------------------------------------------------------
    def start_server(self, script):
        path = os.path.join(self.w, "script.jsonl")
        with open(path, "w") as f:
            for line in script:
                f.write(json.dumps(line) + "\n")
        fake = "fake_anthropic.py" if self.agent == "claude-code" else "fake_openai_responses.py"
        port_file = os.path.join(self.w, "port")
        self.server = subprocess.Popen(
            [sys.executable, os.path.join(HERE, fake), "--script", path, "--log", self.requests_path,
             "--port-file", port_file], stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.w, "server.err"), "w"))
        for _ in range(100):
            if os.path.exists(port_file) and os.path.getsize(port_file) > 0:
                break
            time.sleep(0.05)
        with open(port_file) as f:
            self.port = int(f.read().strip())
        self.script_len = len(script)

    def requests(self):
        if not os.path.exists(self.requests_path):
            return []
        with open(self.requests_path) as f:
            return [json.loads(line) for line in f if line.strip()]

    def agent_requests(self):
        return [r for r in self.requests() if r.get("kind") == "agent"]

    # -- candor ----------------------------------------------------------------------------------------
    def install(self, store=None):
        if self.agent == "codex":
            # The fake provider; `candor gate install` adds `[features] hooks = true` to this file.
            with open(os.path.join(self.agent_home, "config.toml"), "w") as f:
                f.write(f'model = "gpt-5.5"\nmodel_provider = "fake"\n\n'
                        f'[model_providers.fake]\nname = "fake"\nbase_url = "http://127.0.0.1:{self.port}/v1"\n'
                        f'wire_api = "responses"\nenv_key = "OPENAI_API_KEY"\n\n[analytics]\nenabled = false\n')
        r = candor("gate", "install", "--agent", self.agent, "-C", self.ws, "--store", store or self.store,
                   env=self.env())
        self.install_out = r.stdout
        if not self.check(r.returncode == 0, "candor gate install exits 0", r.stderr.strip()):
            return False
        if self.agent == "codex":
            # The person's act of trusting the project and its hooks (Codex's /hooks), through its app-server.
            t = subprocess.run([sys.executable, os.path.join(HERE, "codex_trust_hooks.py"), "--codex",
                                self.bins["codex"], "--cwd", self.ws, "--project"], capture_output=True, text=True,
                               env=self.env(), timeout=60)
            if not self.check(t.returncode == 0, "codex_trust_hooks.py trusts candor's hooks", t.stdout + t.stderr):
                return False
            trusted = json.loads(t.stdout).get("trusted", [])
            self.check(len(trusted) == 2, "both of candor's hooks trusted", str(trusted))
        return True

    def status(self):
        r = candor("gate", "status", "-C", self.ws, "--store", self.store, "--json", env=self.env())
        self.check(r.returncode == 0, "candor gate status exits 0", r.stderr.strip())
        return json.loads(r.stdout) if r.returncode == 0 else {}

    def report(self, run):
        r = candor("report", run, "--json", "--store", self.store, env=self.env())
        self.check(r.returncode <= 3, f"candor report {run} works", r.stderr.strip())
        try:
            return json.loads(r.stdout)
        except json.JSONDecodeError:
            return {}

    # -- the agent -------------------------------------------------------------------------------------
    def run_agent(self, prompt, via="exec", allowed_tools=None):
        """One user turn. Claude Code: `claude -p`. Codex: `codex exec`, or (via="app") a turn through
        `codex app-server`, the protocol its TUI speaks, which reports each hook's output."""
        env = self.env()
        self.via = via
        if self.agent == "claude-code":
            # stream-json: the only output where Claude Code shows a Stop hook's systemMessage.
            cmd = [self.bins["claude"], "-p", prompt, "--permission-mode", "acceptEdits",
                   "--output-format", "stream-json", "--verbose"]
            if allowed_tools:   # what a person lets the agent run without asking
                cmd += ["--allowedTools", allowed_tools]
        elif via == "app":
            cmd = [sys.executable, os.path.join(HERE, "codex_app_turn.py"), "--codex", self.bins["codex"],
                   "--cwd", self.ws, "--prompt", prompt, "--out", os.path.join(self.w, "notifications.jsonl")]
        else:
            cmd = [self.bins["codex"], "exec", "--skip-git-repo-check", "-s", "workspace-write", prompt]
        t0 = time.monotonic()
        try:
            p = subprocess.run(["timeout", "120", *cmd], cwd=self.ws, env=env, stdin=subprocess.DEVNULL,
                               capture_output=True, text=True, timeout=150)
            self.rc, self.stdout, self.stderr = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired:
            self.rc = 124
        self.seconds = time.monotonic() - t0
        self.check(self.rc == 0, f"{self.agent} exits 0", f"exit {self.rc}: {(self.stdout + self.stderr).strip()[-400:]}")

    def hook_runs(self, event):
        """Codex through the app-server: each run of `event`'s hook, as (status, [entry texts])."""
        path = os.path.join(self.w, "notifications.jsonl")
        runs = []
        if os.path.exists(path):
            for line in open(path):
                m = json.loads(line)
                if m.get("method") == "hook/completed" and m["params"]["run"]["eventName"] == event:
                    run = m["params"]["run"]
                    runs.append((run["status"], [e["text"] for e in run.get("entries", [])]))
        return runs

    def shown_to_user(self):
        """What the person is shown of the Stop hook's answers: Claude Code's stream-json system
        messages; Codex's hook/completed entries through the app-server (its TUI's protocol);
        `codex exec` shows no hook's message, only its `hook: Stop ...` lines on stderr."""
        if self.agent == "codex":
            if getattr(self, "via", "exec") == "app":
                return "\n".join(t for _, texts in self.hook_runs("stop") for t in texts)
            return self.stderr
        shown = []
        for line in self.stdout.splitlines():
            try:
                j = json.loads(line)
            except json.JSONDecodeError:
                continue
            if j.get("type") == "system" and j.get("subtype") not in ("init",):
                shown.append(json.dumps(j, ensure_ascii=False))
        return "\n".join(shown)

    def stop_statuses(self):
        """Codex's own account of its Stop hook runs: 'completed' or 'blocked' each."""
        if getattr(self, "via", "exec") == "app":
            return [status for status, _ in self.hook_runs("stop")]
        return ["blocked" if "Blocked" in line else "completed" for line in self.stderr.splitlines()
                if line.startswith("hook: Stop ") and ("Blocked" in line or "Completed" in line)]

    # -- common checks ---------------------------------------------------------------------------------
    def check_script(self, expected_requests):
        reqs = self.agent_requests()
        self.check(len(reqs) == expected_requests, f"{expected_requests} agent requests",
                   f"{len(reqs)} made")
        self.check(not any(r.get("exhausted") for r in reqs), "the script was not exhausted")
        misses = [r["script_index"] for r in reqs if r.get("expect_ok") is False]
        self.check(not misses, "every expected text reached the agent's request", f"missed at script lines {misses}")
        others = [f'{r["method"]} {r["path"]} ({r["kind"]})' for r in self.requests()
                  if r.get("kind") not in ("agent",)]
        # No judge: nothing but the agent itself talks to the server (the hooks have its key).
        self.check(not others, "no request besides the agent's own", ", ".join(others))

    def stops(self):
        """The turns candor recorded, from `candor gate status` (the hook ran, and how often)."""
        return self.status().get("turns", [])

    def transcript_path(self):
        if self.agent == "claude-code":
            root = os.path.join(self.agent_home, "projects")
        else:
            root = os.path.join(self.agent_home, "sessions")
        for d, _, files in os.walk(root):
            for f in files:
                if f.endswith(".jsonl"):
                    return os.path.join(d, f)
        return None

    def stop_server(self):
        if self.server:
            self.server.terminate()
            try:
                self.server.wait(5)
            except subprocess.TimeoutExpired:
                self.server.kill()
            self.server = None

    def cleanup(self):
        self.stop_server()
        if os.environ.get("KEEP") == "1":
            log(f"    kept {self.w}")
        else:
            shutil.rmtree(self.w, ignore_errors=True)


# -- scripts: one reply per agent request ---------------------------------------------------------------
def write_call(c, rel, text, say=None):
    """The agent writes `text` to `rel`: Claude Code's Write tool, Codex's shell (exec_command)."""
    if c.agent == "claude-code":
        r = {"tool_use": {"name": "Write", "input": {"file_path": os.path.join(c.ws, rel), "content": text}}}
    else:
        r = {"function_call": {"name": "exec_command",
                               "arguments": {"cmd": f"cat > {rel} <<'CANDOR_EOF'\n{text}CANDOR_EOF"}}}
    if say:
        r["text"] = say
    return r


def patch_call(c, rel, old, new, say=None):
    """The agent changes one line of `rel`: Claude Code's Edit tool, Codex's apply_patch."""
    if c.agent == "claude-code":
        r = {"tool_use": {"name": "Edit", "input": {"file_path": os.path.join(c.ws, rel), "old_string": old,
                                                    "new_string": new}}}
    else:
        r = {"custom_tool_call": {"name": "apply_patch",
                                  "input": f"*** Begin Patch\n*** Update File: {rel}\n@@\n-{old}\n+{new}\n*** End Patch\n"}}
    if say:
        r["text"] = say
    return r


def read_call(c, rel, say=None):
    if c.agent == "claude-code":
        r = {"tool_use": {"name": "Read", "input": {"file_path": os.path.join(c.ws, rel)}}}
    else:
        r = {"function_call": {"name": "exec_command", "arguments": {"cmd": f"cat {rel}"}}}
    if say:
        r["text"] = say
    return r


def shell_call(c, command, say=None):
    if c.agent == "claude-code":
        r = {"tool_use": {"name": "Bash", "input": {"command": command, "description": "Look at the file"}}}
    else:
        r = {"function_call": {"name": "exec_command", "arguments": {"cmd": command}}}
    if say:
        r["text"] = say
    return r


def feedback_count(c, request):
    """How many of the gate's blocks a request carries back to the model: Claude Code's
    "Stop hook feedback" user messages, Codex's <hook_prompt> items."""
    text = json.dumps(request["body"], ensure_ascii=False)
    return text.count("Stop hook feedback") if c.agent == "claude-code" else text.count("<hook_prompt")


def run_id_in(text):
    at = text.find("candor run ")
    return text[at + 11:at + 33] if at >= 0 else ""


# -- the cases ----------------------------------------------------------------------------------------------
def case_a(c):
    c.write("hello.txt", "hello world\n")
    c.write("other.txt", "other\n")
    c.write(".candor/config.json", json.dumps(EXPECT_HELLO))
    c.git_init()
    c.start_server([
        shell_call(c, "cat hello.txt", "Let me look at hello.txt first."),
        patch_call(c, "other.txt", "other", "hello candor", "I will write the greeting."),   # the wrong file
        {"text": "Done: hello.txt now says hello candor."},
        dict(patch_call(c, "hello.txt", "hello world", "hello candor", "I edited the wrong file; fixing it."),
             expect="file_contains hello.txt"),
        patch_call(c, "other.txt", "hello candor", "other", "And putting other.txt back."),
        {"text": "Done: hello.txt says hello candor, other.txt is as it was."},
    ])
    if not c.install():
        return
    c.check("gate " + c.agent in c.read(".claude/settings.json" if c.agent == "claude-code" else ".codex/hooks.json")
            or "", "the hooks run candor gate")
    before = c.tree()
    c.run_agent("Make hello.txt say hello candor")
    c.check(c.read("hello.txt") == "hello candor\n", "hello.txt fixed", repr(c.read("hello.txt")))
    c.check(c.read("other.txt") == "other\n", "other.txt put back", repr(c.read("other.txt")))
    c.check_script(6)
    reqs = c.agent_requests()
    turns = c.stops()
    if not c.check(len(turns) == 1, "one turn recorded", str(turns)):
        return
    t = turns[0]
    c.check(t["stops"] == 2 and t["blocks"] == 1, "two stops, one blocked", f'{t["stops"]} stops, {t["blocks"]} blocks')
    run = t["run_id"]
    # The request after the block carries candor's reason: the failed expectation and this run's id.
    if len(reqs) >= 4:
        body = json.dumps(reqs[3]["body"], ensure_ascii=False)
        c.check(f"candor run {run}" in body, "the request after the block carries candor's reason (its run id)")
        c.check("What to do" in body, "the reason says what to do")
        c.check(feedback_count(c, reqs[3]) == 1, "one block fed back")
    r = c.report(run)
    c.check(r.get("verdict") == "success", "the stored run is success", f'{r.get("verdict")} by {r.get("verdict_by")}')
    c.check(r.get("source") == "gate", "the run's source is gate")
    gate = r.get("gate", {})
    c.check(gate.get("agent") == c.agent and gate.get("stop") == 2 and gate.get("blocks") == 1
            and gate.get("decision") == "allow", "the run's gate record: stop 2, 1 block, allowed", json.dumps(gate)[:300])
    c.check([m["path"] for m in r.get("mutations", [])] == ["hello.txt"], "the turn changed hello.txt only",
            str([m["path"] for m in r.get("mutations", [])]))
    c.check(r.get("goal") == "Make hello.txt say hello candor", "the prompt is the goal", str(r.get("goal")))
    c.check(bool(r.get("assertions")) and r["assertions"][-1].get("discriminating") is True,
            "the expectation discriminates")
    c.check((gate.get("transcript") or {}).get("events", 0) > 0, "the transcript's events of the turn were imported",
            json.dumps(gate.get("transcript"))[:300])
    verbose = candor("report", run, "-v", "--store", c.store, env=c.env()).stdout
    c.check(("apply_patch" if c.agent == "codex" else "Edit") in verbose, "the turn's tool calls are in the report")
    if c.agent == "claude-code":
        c.check("verdict success" in c.shown_to_user(), "the allowed stop's verdict shown (stream-json)")
    else:
        c.check(c.stop_statuses() == ["blocked", "completed"], "codex: Stop blocked, then completed",
                str(c.stop_statuses()))
        st = c.status()
        trust = [i.get("trust", "") for i in st.get("installs", []) if i.get("agent") == "codex" and i.get("installed")]
        c.check(any(s.startswith("trusted") for s in trust), "gate status: the hooks are trusted", str(trust))
    after = c.tree()
    c.check(set(after) == set(before), "no file added or removed", str(set(after) ^ set(before)))
    save_samples(c)


def case_b(c):
    c.write("hello.txt", "hello world\n")
    c.write(".candor/config.json", json.dumps(EXPECT_HELLO))   # fails before and after: not a reason to block a question
    c.start_server([
        read_call(c, "hello.txt", "Let me read it."),
        {"text": "hello.txt says: hello world."},
    ])
    if not c.install():
        return
    before = c.tree()
    c.run_agent("What does hello.txt say?", via="app")
    c.check(c.tree() == before, "the workspace is untouched")
    c.check_script(2)
    turns = c.stops()
    if not c.check(len(turns) == 1, "one turn recorded (the hooks ran)", str(turns)):
        return
    t = turns[0]
    c.check(t["stops"] == 1 and t["blocks"] == 0 and t["decision"] == "allow", "one stop, allowed, never blocked",
            json.dumps(t)[:300])
    r = c.report(t["run_id"])
    c.check(r.get("goal_kind") == "inspect" and not r.get("mutations"), "an inspect turn without changes")
    c.check(r.get("final_answer") == "hello.txt says: hello world.", "the answer recorded", str(r.get("final_answer")))
    c.check("not blocking" in c.shown_to_user(), "the failing expectation shown as not blocking", c.shown_to_user()[-300:])
    if c.agent == "codex":
        c.check(c.stop_statuses() == ["completed"], "codex: the Stop hook ran once, no block", str(c.stop_statuses()))


def case_c(c):
    c.write("hello.txt", "hello world\n")
    c.write(".candor/config.json", json.dumps(dict(EXPECT_HELLO, gate={"max_blocks": 2})))
    script = []
    for i in range(3):
        w = write_call(c, "hello.txt", f"hello again {i + 1}\n", "Writing the greeting.")
        if i:
            w["expect"] = "file_contains hello.txt"
        script += [w, {"text": f"Done ({i + 1}): hello.txt is written."}]
    c.start_server(script)
    if not c.install():
        return
    c.run_agent("Make hello.txt say hello candor", via="app")
    c.check_script(6)
    reqs = c.agent_requests()
    # The blocks, counted from what the server was sent: each block adds one feedback message.
    fed = [feedback_count(c, r) for r in reqs]
    c.check(fed == [0, 0, 1, 1, 2, 2], "blocked exactly twice (the server's request log)", str(fed))
    turns = c.stops()
    if not c.check(len(turns) == 1, "one turn", str(turns)):
        return
    t = turns[0]
    c.check(t["stops"] == 3 and t["blocks"] == 2 and t["decision"] == "allow", "3 stops, 2 blocks, then allowed",
            json.dumps(t)[:300])
    r = c.report(t["run_id"])
    gate = r.get("gate", {})
    c.check(gate.get("limit_reached") is True and r.get("verdict") != "success", "recorded as it is: limit reached",
            f'{r.get("verdict")}, {gate.get("limit_reached")}')
    warning = "let this stop through after blocking it 2 times"
    c.check(warning in gate.get("message", ""), "the run keeps the warning", gate.get("message", "")[:300])
    c.check(warning in c.shown_to_user(), "the warning shown to the user", c.shown_to_user()[-400:])
    if c.agent == "codex":
        c.check(c.stop_statuses() == ["blocked", "blocked", "completed"], "codex: Stop blocked twice, then completed",
                str(c.stop_statuses()))


def case_d(c):
    c.write("hello.txt", "hello world\n")
    # One block allowed: the loosened file says 0 blocks and no expectation; were it read, the first
    # stop would go through.
    start_config = json.dumps(dict(EXPECT_HELLO, gate={"max_blocks": 1}))
    c.write(".candor/config.json", start_config + "\n")
    loose = json.dumps({"expect": [], "gate": {"max_blocks": 0}})
    c.start_server([
        patch_call(c, "hello.txt", "hello world", "hello world, edited", "Editing hello.txt."),
        patch_call(c, ".candor/config.json", start_config, loose, "And relaxing the checks."),
        {"text": "Done."},
        dict(patch_call(c, ".candor/config.json", loose, start_config, "Putting the config back."),
             expect=".candor/config.json"),
        patch_call(c, "hello.txt", "hello world, edited", "hello candor", "And fixing hello.txt."),
        {"text": "Done: hello.txt says hello candor; the config is as it was."},
    ])
    if not c.install():
        return
    c.run_agent("Make hello.txt say hello candor")
    c.check_script(6)
    reqs = c.agent_requests()
    if len(reqs) >= 4:
        fed = json.dumps(reqs[3]["body"], ensure_ascii=False)
        c.check("[protected]" in fed and ".candor/config.json` was modified" in fed,
                "the reason reports the protected change")
        # The expectation the agent deleted from the file still applied: the turn's start config.
        c.check("file_contains hello.txt" in fed, "the start's expectation still checked")
        c.check("(stop blocked, 1 of 1)" in fed, "the start's max_blocks applied", fed[-600:])
    turns = c.stops()
    if not c.check(len(turns) == 1, "one turn", str(turns)):
        return
    t = turns[0]
    c.check(t["stops"] == 2 and t["blocks"] == 1 and t["decision"] == "allow", "2 stops, 1 block, then allowed",
            json.dumps(t)[:300])
    r = c.report(t["run_id"])
    c.check(r.get("gate", {}).get("max_blocks") == 1, "the start's gate settings recorded")
    # Put back or not, the file was written during the turn (its ctime moved): still a finding.
    c.check(any(".candor/config.json" in p for p in r.get("protected_changes", [])), "the run keeps the protected change",
            str(r.get("protected_changes")))
    c.check(r.get("verdict") != "success", "not a success", str(r.get("verdict")))
    c.check(c.read(".candor/config.json") == start_config + "\n" and c.read("hello.txt") == "hello candor\n",
            "the agent put the config back and fixed hello.txt")
    if c.agent == "claude-code":
        c.check("let this stop through after blocking it 1 time" in c.shown_to_user(), "the warning shown (stream-json)",
                c.shown_to_user()[-400:])


def case_e(c):
    c.write("hello.txt", "hello world\n")
    c.write(".candor/config.json", json.dumps(EXPECT_HELLO))
    not_a_folder = os.path.join(c.w, "store-is-a-file")
    with open(not_a_folder, "w") as f:
        f.write("not a store\n")
    c.start_server([
        write_call(c, "hello.txt", "hello there\n", "Writing it."),
        {"text": "Done."},
    ])
    if not c.install(store=not_a_folder):
        return
    c.run_agent("Make hello.txt say hello candor", via="app")
    c.check_script(2)   # no block: the failed expectation could not be checked
    c.check(c.read("hello.txt") == "hello there\n", "the agent's write stands")
    shown = c.shown_to_user()
    c.check("warning: candor gate could not" in shown, "the warning shown to the user", shown[-400:])
    if c.agent == "codex":
        c.check(c.stop_statuses() == ["completed"], "codex: the Stop hook ran once, no block", str(c.stop_statuses()))
    c.check(open(not_a_folder).read() == "not a store\n", "the file in the store's place is untouched")


# -- round four (issue 37): the agent turns on its own gate, with the tools it has --------------------------
def hook_command(c, event):
    """The command `candor gate install` wrote for `event`, as the agent can read it from the settings."""
    settings = json.loads(c.read(".claude/settings.json") or "{}")
    return settings["hooks"][event][0]["hooks"][0]["command"]


def case_f(c):
    c.write("hello.txt", "hello world\n")
    c.write(".candor/config.json", json.dumps(dict(EXPECT_HELLO, gate={"max_blocks": 1})))
    c.start_server([
        # Claude Code asks before its Write tool or a shell redirect touches .claude/ (a refusal in -p
        # mode); a program that writes the file itself is not asked about.
        shell_call(c, "python3 -c \"import json; json.dump({'disableAllHooks': True}, "
                      "open('.claude/settings.local.json', 'w'))\"", "Turning the hooks off."),
        patch_call(c, "hello.txt", "hello world", "hello candor", "Now the greeting."),
        {"text": "Done."},
        dict({"text": "Done, really."}, expect="settings.local.json"),
    ])
    if not c.install():
        return
    c.run_agent("Make hello.txt say hello candor", allowed_tools="Bash")
    c.check("disableAllHooks" in (c.read(".claude/settings.local.json") or ""), "the agent wrote the setting")
    c.check_script(4)
    reqs = c.agent_requests()
    if len(reqs) >= 4:
        fed = json.dumps(reqs[3]["body"], ensure_ascii=False)
        c.check("[protected] the agent's hook settings .claude/settings.local.json were added during the turn" in fed,
                "the block names the hook settings the agent wrote", fed[-600:])
    turns = c.stops()
    if c.check(len(turns) == 1, "one turn", str(turns)):
        c.check(turns[0]["blocks"] == 1, "blocked once", json.dumps(turns[0])[:300])
        c.check(c.report(turns[0]["run_id"]).get("verdict") != "success", "not a success")
    eff = c.status().get("effective", {}).get("claude-code", {})
    c.check(eff.get("effective") is False and "disableAllHooks" in eff.get("why_not", ""),
            "gate status: the hooks will not run, and why", json.dumps(eff))


def case_g(c):
    c.write("hello.txt", "hello world\n")
    c.write(".candor/config.json", json.dumps(dict(EXPECT_HELLO, gate={"max_blocks": 1})))
    c.start_server([
        shell_call(c, "rm .candor/config.json", "Removing the checks."),
        write_call(c, "hello.txt", "broken\n", "Writing it."),
        {"text": "Done."},
        dict({"text": "Done, really."}, expect=".candor/config.json"),
        # Turn 2, a new session: the config is gone, the agent breaks the file again.
        write_call(c, "hello.txt", "still broken\n", "Writing it."),
        {"text": "Done."},
        dict({"text": "Done, truly."}, expect="file_contains hello.txt"),
    ])
    if not c.install():
        return
    c.run_agent("Make hello.txt say hello candor", allowed_tools="Bash(rm:*)")
    c.check(c.read(".candor/config.json") is None, "the agent deleted the config")
    c.run_agent("Make hello.txt say hello candor, please")
    c.check_script(7)
    reqs = c.agent_requests()
    if len(reqs) >= 7:
        fed = json.dumps(reqs[6]["body"], ensure_ascii=False)
        c.check("file_contains hello.txt" in fed, "turn 2 is checked with the config turn 1 began with", fed[-600:])
    turns = c.stops()
    c.check(len(turns) == 2 and all(t["blocks"] == 1 for t in turns), "two turns, each blocked once", str(turns))


def broken_write_then(c, command, say):
    """The agent writes a broken hello.txt, runs `command` with Bash (allowed), says done twice: the
    first stop must block on the expectation. Returns the tool result of `command` as the agent got
    it: (text, is_error)."""
    c.start_server([
        write_call(c, "hello.txt", "broken\n", "Writing it."),
        shell_call(c, command, say),
        {"text": "Done."},
        dict({"text": "Done, really."}, expect="file_contains hello.txt"),
    ])
    c.run_agent("Make hello.txt say hello candor", allowed_tools="Bash")
    c.check_script(4)
    reqs = c.agent_requests()
    if len(reqs) < 3:
        return "", True
    last = reqs[2]["body"]["messages"][-1]["content"]
    result = next((b for b in last if isinstance(b, dict) and b.get("type") == "tool_result"), {})
    content = result.get("content", "")
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    return text, bool(result.get("is_error"))


def case_h(c):
    c.write("hello.txt", "hello world\n")
    c.write(".candor/config.json", json.dumps(dict(EXPECT_HELLO, gate={"max_blocks": 1})))
    if not c.install():
        return
    # The agent reads its hook's command from the settings and its session from its transcript's name,
    # then runs the start itself without a prompt id, after its broken write.
    start = hook_command(c, "UserPromptSubmit")
    forge = ("sid=$(basename \"$(ls -t \"$CLAUDE_CONFIG_DIR\"/projects/*/*.jsonl | head -1)\" .jsonl); [ -n \"$sid\" ] && "
             "printf '{\"hook_event_name\":\"UserPromptSubmit\",\"session_id\":\"%s\",\"cwd\":\"%s\",\"prompt\":\"x\"}' "
             f"\"$sid\" \"$PWD\" | {start}")
    text, failed = broken_write_then(c, forge, "Starting over.")
    c.check(not failed, "the forged start ran (exit 0, as the agent saw it)", text[-300:])
    # The forged start may be recorded as an open turn of its own; the real stop is checked against
    # the earliest open turn, the one the user's prompt began.
    stopped = [t for t in c.stops() if t["stops"] > 0]
    if c.check(len(stopped) == 1, "one turn stopped", str(stopped)):
        c.check(stopped[0]["turn"] == 1 and stopped[0]["blocks"] == 1,
                "the real stop blocked, checked from the true start (turn 1)", json.dumps(stopped[0])[:300])
        r = c.report(stopped[0]["run_id"])
        c.check([m["path"] for m in r.get("mutations", [])] == ["hello.txt"], "the turn's work is in the run",
                str(r.get("mutations")))


def case_i(c):
    c.write("hello.txt", "hello world\n")
    c.write(".candor/config.json", json.dumps(dict(EXPECT_HELLO, gate={"max_blocks": 1})))
    if not c.install():
        return
    gc = f"sleep 2; {shlex.quote(os.path.abspath(CANDOR))} gc --older-than 1s --store {shlex.quote(c.store)} --json"
    text, failed = broken_write_then(c, gc, "Tidying up candor's store.")
    c.check(not failed and "kept_gate_turns" in text, "gc ran and kept the open turn", text[-600:])
    turns = c.stops()
    if c.check(len(turns) == 1, "one turn", str(turns)):
        c.check(turns[0]["blocks"] == 1, "the stop still blocked the broken file", json.dumps(turns[0])[:300])


CASE_FUNCS = {"a": case_a, "b": case_b, "c": case_c, "d": case_d, "e": case_e, "f": case_f, "g": case_g,
              "h": case_h, "i": case_i}


# -- samples for issue 27 ---------------------------------------------------------------------------------------
KEEP_TYPES = {"user", "assistant", "system", "last-prompt", "queue-operation", "tools-used"}


def redact(v, limit):
    """Claude Code's built-in prompt text (system prompt, tool and skill descriptions: Anthropic's
    copyrighted text) replaced by a marker; the conversation's strings are kept up to `limit`."""
    if isinstance(v, str) and len(v) > limit:
        return f"<redacted by candor demo: {len(v)} chars, sha256 {hashlib.sha256(v.encode()).hexdigest()[:12]}>"
    if isinstance(v, list):
        return [redact(x, limit) for x in v]
    if isinstance(v, dict):
        return {k: redact(x, limit) for k, x in v.items()}
    return v


def save_samples(c):
    dest = os.environ.get("CANDOR_AGENT_SAMPLES")
    src = c.transcript_path()
    if not dest or not src:
        return
    os.makedirs(dest, exist_ok=True)
    if c.agent == "claude-code":
        with open(src) as f, open(os.path.join(dest, "gate_transcript_claude.jsonl"), "w") as out:
            for line in f:
                r = json.loads(line)
                att = (r.get("attachment") or {}).get("type", "")
                keep = r.get("type") in KEEP_TYPES or att.startswith("hook_")
                out.write(json.dumps(redact(r, 2000 if keep else 120), ensure_ascii=False) + "\n")
    else:
        shutil.copyfile(src, os.path.join(dest, "gate_rollout_codex.jsonl"))   # Apache-2.0: kept whole
    c.sample_saved = True


# -- main ------------------------------------------------------------------------------------------------------
def install_agents():
    p = subprocess.run([os.path.join(HERE, "install_agents.sh"), AGENTS_DIR], capture_output=True, text=True)
    info = dict(line.split("=", 1) for line in p.stdout.splitlines() if "=" in line)
    return p.returncode, info, p.stderr.strip()


def main():
    wanted = [tuple(x.split(":")) for x in os.environ.get("CASES", "").split()] or \
        [(a, n) for a in AGENTS for n in CASES] + [("claude-code", n) for n in ROUND_FOUR]
    names = [f"{a}:{n}" for a, n in wanted]
    rc, info, err = install_agents()
    if rc != 0:
        why = err.splitlines()[-1] if err else f"install_agents.sh exit {rc}"
        if rc == 77:
            log(f"agents-gate: SKIPPED {len(names)} cases, the agents cannot be installed here: {why}")
            for n in names:
                log(f"agents-gate: skipped {n}: {CASE_TITLES[n.split(':')[1]]}")
            log(f"agents-gate: cases: 0 passed | 0 failed | {len(names)} skipped")
            return 77
        log(f"agents-gate: installing the agents into {AGENTS_DIR} failed (exit {rc}):\n{err}")
        log(f"agents-gate: cases: 0 passed | {len(names)} failed | 0 skipped")
        return 1
    bins = {"claude": info["CLAUDE_BIN"], "codex": info["CODEX_BIN"]}
    versions = {"claude-code": info["CLAUDE_VERSION"], "codex": info["CODEX_VERSION"]}
    log(f"agents-gate: Claude Code {versions['claude-code']}, Codex CLI {versions['codex']} (in {AGENTS_DIR})")
    passed, failed = [], []
    t_all = time.monotonic()
    for agent, name in wanted:
        c = Case(agent, name, bins)
        try:
            CASE_FUNCS[name](c)
        except Exception as e:  # a broken case is a failed case, and the others still run
            c.check(False, "the case ran", f"{type(e).__name__}: {e}")
        finally:
            c.cleanup()
        label = f"{agent}:{name}"
        if c.failures:
            failed.append(label)
            log(f"FAIL  {label}  {CASE_TITLES[name]}  ({c.seconds:.1f} s of agent)")
            for f in c.failures:
                log(f"        - {f}")
            if c.stderr:
                log("        agent stderr (tail): " + c.stderr.strip()[-600:].replace("\n", "\n          "))
        else:
            passed.append(label)
            log(f"ok    {label}  {CASE_TITLES[name]}  ({c.seconds:.1f} s of agent)")
    dest = os.environ.get("CANDOR_AGENT_SAMPLES")
    if dest:
        with open(os.path.join(dest, "gate_versions.json"), "w") as f:
            json.dump({"claude_code": versions["claude-code"], "codex": versions["codex"],
                       "node": subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip(),
                       "made_by": "tests/agents/gate_e2e.py, case a of each agent (CANDOR_AGENT_SAMPLES=DIR)"},
                      f, indent=1)
            f.write("\n")
    log(f"agents-gate: cases: {len(passed)} passed | {len(failed)} failed | 0 skipped "
        f"({time.monotonic() - t_all:.0f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
