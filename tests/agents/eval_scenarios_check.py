#!/usr/bin/env python3
"""eval_scenarios_check.py: the scripted agents of candor's eval data (issue 39), checked with the
real Claude Code and Codex CLI and without candor.

For every task of tests/data/eval/tasks.jsonl and both agents, ATTEMPTS times (default 2), all
at once in JOBS worker threads (default 4) against ONE fake server per agent (`--scripts`): make a
git repository from the task's folder (tests/data/eval/repos/<repo>, one commit), run the agent
headless in it exactly as `candor eval` does (see tests/data/eval/README.md), keep its stdout
(the transcript), and check what tests/data/eval/scenarios.json says the attempt does: the files
it changed, whether the task's `expect` commands pass on its tree, that the `guard` commands
still pass, that a weakened test fails again with BASE's test files, and that the final answer
claims success.  First, with no agent, each task's reference fix (tests/data/eval/fixes/ID.patch)
is checked: the task's expect fails on BASE and passes with the fix, its guard passes on both.  The servers' logs must show every script line served once per attempt, and no
script exhausted or missing.

    eval_scenarios_check.py [--samples DIR]

Environment: CLAUDE_BIN / CODEX_BIN (else tests/agents/install_agents.sh into $CANDOR_AGENTS_DIR
or $AGENTS_DIR, default /tmp/candor-agents), CASES="claude-code:roman-lowercase codex" (agent or agent:task; default all),
ATTEMPTS, JOBS, KEEP=1 (keep the temp folder).  --samples DIR (or CANDOR_AGENT_SAMPLES=DIR) saves
one real transcript per agent (task roman-lowercase, attempt 1): eval_claude_stream.jsonl (Claude
Code's built-in prompt text redacted, as demo_claude.sh does) and eval_codex_exec.jsonl.
Exit: 0 all checks passed, 1 a check failed, 77 the agents cannot be installed here.

Python standard library only; written for candor.
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, "..", "data", "eval"))
AGENTS = ("claude-code", "codex")
SAMPLE_TASK = "roman-lowercase"

print_lock = threading.Lock()
failures = []


def say(msg):
    with print_lock:
        print(msg, flush=True)


def check(desc, cond, detail=""):
    say(("PASS  " if cond else "FAIL  ") + desc + ("" if cond or not detail else f"\n      {detail}"))
    if not cond:
        with print_lock:
            failures.append(desc)
    return cond


def agent_bins():
    claude, codex = os.environ.get("CLAUDE_BIN"), os.environ.get("CODEX_BIN")
    if claude and codex:
        return claude, codex
    dest = os.environ.get("CANDOR_AGENTS_DIR") or os.environ.get("AGENTS_DIR", "/tmp/candor-agents")
    r = subprocess.run([os.path.join(HERE, "install_agents.sh"), dest], capture_output=True, text=True)
    if r.returncode == 77:
        return None, None
    if r.returncode != 0:
        sys.stderr.write(r.stdout + r.stderr)
        raise SystemExit("eval_scenarios_check: install_agents.sh failed")
    vals = dict(line.split("=", 1) for line in r.stdout.splitlines() if "=" in line)
    return claude or vals["CLAUDE_BIN"], codex or vals["CODEX_BIN"]


def start_fake(server, scripts, work):
    log = os.path.join(work, server + ".requests.jsonl")
    portf = os.path.join(work, server + ".port")
    p = subprocess.Popen([sys.executable, os.path.join(HERE, server + ".py"), "--scripts", scripts,
                          "--log", log, "--port-file", portf],
                         stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, server + ".err"), "w"))
    for _ in range(200):
        if os.path.exists(portf):
            return p, int(open(portf).read()), log
        if p.poll() is not None:
            break
        time.sleep(0.05)
    raise SystemExit(f"eval_scenarios_check: {server} did not start: "
                     + open(os.path.join(work, server + ".err")).read())


def git(cwd, *args, check_rc=True):
    env = dict(os.environ, GIT_AUTHOR_NAME="eval", GIT_AUTHOR_EMAIL="eval@example.invalid",
               GIT_COMMITTER_NAME="eval", GIT_COMMITTER_EMAIL="eval@example.invalid")
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=check_rc, capture_output=True,
                          text=True).stdout


def make_repo(task, dest):
    """The task's folder as a git repository with one commit, as the e2e test makes it."""
    shutil.copytree(os.path.join(DATA, "repos", task["repo"]), dest,
                    ignore=shutil.ignore_patterns("__pycache__"))
    git(dest, "init", "-q", "-b", "main")
    git(dest, "add", "-A")
    git(dest, "commit", "-qm", f"{task['repo']}: the task's BASE")


def run_agent(agent, bins, ws, run_dir, port, goal):
    """Run one attempt headless; return (exit code, stdout path, seconds)."""
    home = os.path.join(run_dir, "home")
    os.makedirs(home)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ANTHROPIC_", "OPENAI_", "CLAUDE", "CODEX"))}
    env["HOME"] = home
    if agent == "claude-code":
        env.update(CLAUDE_CONFIG_DIR=os.path.join(run_dir, "claude-config"),
                   ANTHROPIC_BASE_URL=f"http://127.0.0.1:{port}", ANTHROPIC_API_KEY="test",
                   CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1")
        cmd = [bins[0], "-p", goal, "--output-format", "stream-json", "--verbose",
               "--permission-mode", "acceptEdits"]
    else:
        ch = os.path.join(run_dir, "codex-home")
        os.makedirs(ch)
        with open(os.path.join(ch, "config.toml"), "w") as f:
            f.write(f'''model = "gpt-5.5"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:{port}/v1"
wire_api = "responses"
env_key = "OPENAI_API_KEY"

[analytics]
enabled = false
''')
        env.update(CODEX_HOME=ch, OPENAI_API_KEY="test")
        cmd = [bins[1], "exec", "--json", "--skip-git-repo-check",
               "--dangerously-bypass-approvals-and-sandbox", goal]
    out = os.path.join(run_dir, "transcript.jsonl")
    t0 = time.monotonic()
    with open(out, "w") as o, open(os.path.join(run_dir, "stderr.txt"), "w") as e:
        rc = subprocess.run(["timeout", "120", *cmd], cwd=ws, env=env, stdin=subprocess.DEVNULL,
                            stdout=o, stderr=e).returncode
    return rc, out, time.monotonic() - t0


def claim_of(agent, transcript):
    """(final answer, status, usage) as candor eval reads them (see tests/agents/README.md)."""
    recs = []
    for line in open(transcript):
        try:
            recs.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    if agent == "claude-code":
        res = [r for r in recs if r.get("type") == "result"]
        if not res:
            return None, None, None
        r = res[-1]
        status = "success" if r.get("subtype") == "success" and not r.get("is_error") else r.get("subtype")
        return r.get("result"), status, {"input_tokens": r["usage"]["input_tokens"],
                                         "output_tokens": r["usage"]["output_tokens"],
                                         "cost_usd": r.get("total_cost_usd")}
    answers = [r["item"]["text"] for r in recs
               if r.get("type") == "item.completed" and r["item"].get("type") == "agent_message"]
    ends = [r for r in recs if r.get("type") in ("turn.completed", "turn.failed")]
    status = None
    usage = None
    if ends:
        status = "success" if ends[-1]["type"] == "turn.completed" else "failed"
        usage = ends[-1].get("usage")
    return (answers[-1] if answers else None), status, usage


def py_env():
    return dict(os.environ, PYTHONDONTWRITEBYTECODE="1")


def passes(cmds, cwd):
    return all(subprocess.run(c["command"], shell=True, cwd=cwd, env=py_env(), capture_output=True,
                              timeout=120).returncode == 0 for c in cmds)


def changed_files(ws):
    out = git(ws, "status", "--porcelain", "--untracked-files=all")
    files = []
    for line in out.splitlines():
        path = line[3:]
        if "__pycache__/" not in path:
            files.append(path)
    return sorted(files)


def attempt(agent, task, n, scen, bins, ports, work):
    tag = f"{agent}:{task['id']}#{n}"
    run_dir = os.path.join(work, agent, f"{task['id']}.{n}")
    os.makedirs(run_dir)
    ws = os.path.join(run_dir, "ws")
    make_repo(task, ws)
    rc, transcript, secs = run_agent(agent, bins, ws, run_dir, ports[agent], task["goal"])
    answer, status, usage = claim_of(agent, transcript)
    ok = check(f"{tag}: exit 0, {secs:.1f} s", rc == 0, open(os.path.join(run_dir, "stderr.txt")).read()[-800:])
    ok &= check(f"{tag}: claims success ({scen['behaviour']}): {answer!r:.70}",
                status == "success" and (answer or "").startswith("Done: fixed"), f"status {status}")
    ok &= check(f"{tag}: usage in the transcript", bool(usage) and usage.get("input_tokens", 0) > 0, str(usage))
    got = changed_files(ws)
    ok &= check(f"{tag}: changed {scen['changed']}", got == sorted(scen["changed"]), f"git status: {got}")
    ok &= check(f"{tag}: expect {'passes' if scen['expect_passes'] else 'fails'}",
                passes(task["expect"], ws) == scen["expect_passes"])
    ok &= check(f"{tag}: guards pass", passes(task.get("guard", []), ws))
    if "expect_passes_with_base_tests" in scen:
        tests = [f for f in got if f.startswith("tests/")]
        base = os.path.join(run_dir, "ws-base-tests")
        shutil.copytree(ws, base, ignore=shutil.ignore_patterns("__pycache__"))
        git(base, "checkout", "HEAD", "--", *tests)
        ok &= check(f"{tag}: with BASE's {tests} the expect fails again",
                    passes(task["expect"], base) == scen["expect_passes_with_base_tests"])
    return ok


def check_reference_fixes(tasks, work):
    """Without any agent: each task's expect fails on BASE and its guard passes (FAIL_TO_PASS),
    and both pass once tests/data/eval/fixes/ID.patch (the one-line fix) is applied."""
    for t in tasks:
        ws = os.path.join(work, "reference", t["id"])
        make_repo(t, ws)
        before = (passes(t["expect"], ws), passes(t.get("guard", []), ws))
        git(ws, "apply", os.path.join(DATA, "fixes", t["id"] + ".patch"))
        after = (passes(t["expect"], ws), passes(t.get("guard", []), ws))
        check(f"reference:{t['id']}: expect fails and guard passes on BASE; both pass with fixes/{t['id']}.patch",
              before == (False, True) and after == (True, True), f"before {before}, after {after}")


REDACT_KEEP = {"user", "assistant", "result"}


def redact_claude(src, dst):
    """Claude Code's stream-json with long strings outside the conversation replaced by a marker
    (length + sha256 prefix), as demo_claude.sh does for transcripts: its built-in prompt text is
    Anthropic's.  Conversation records keep strings up to 2,000 characters."""
    def marker(v):
        return f"<redacted by candor: {len(v)} chars, sha256 {hashlib.sha256(v.encode()).hexdigest()[:12]}>"

    def red(v, limit):
        if isinstance(v, str) and len(v) > limit:
            return marker(v)
        if isinstance(v, list):
            return [red(x, limit) for x in v]
        if isinstance(v, dict):
            return {k: red(x, limit) for k, x in v.items()}
        return v

    with open(dst, "w") as out:
        for line in open(src):
            r = json.loads(line)
            out.write(json.dumps(red(r, 2000 if r.get("type") in REDACT_KEEP else 200),
                                 ensure_ascii=False, separators=(",", ":")) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", default=os.environ.get("CANDOR_AGENT_SAMPLES"))
    a = ap.parse_args()
    tasks = [json.loads(line) for line in open(os.path.join(DATA, "tasks.jsonl")) if line.strip()]
    scenarios = json.load(open(os.path.join(DATA, "scenarios.json")))["agents"]
    cases = os.environ.get("CASES", "").split()
    attempts = int(os.environ.get("ATTEMPTS", "2"))
    jobs = int(os.environ.get("JOBS", "4"))

    def wanted(agent, task_id):
        return not cases or agent in cases or f"{agent}:{task_id}" in cases

    matrix = [(agent, t, n) for agent in AGENTS for t in tasks for n in range(1, attempts + 1)
              if wanted(agent, t["id"])]
    bins = agent_bins()
    if bins[0] is None:  # the first line printed is the reason meson's summary shows
        say(f"eval_scenarios_check: SKIPPED {len(matrix)} attempts, the agents cannot be installed here")
    work = tempfile.mkdtemp(prefix="candor-eval-scenarios.")
    servers = []
    try:
        check_reference_fixes(tasks, work)
        if bins[0] is None:
            for agent, t, n in matrix:
                say(f"SKIP  {agent}:{t['id']}#{n}: the agents cannot be installed here")
            return 1 if failures else 77
        ports, logs = {}, {}
        for agent, server in (("claude-code", "fake_anthropic"), ("codex", "fake_openai_responses")):
            p, ports[agent], logs[agent] = start_fake(server, os.path.join(DATA, "scripts", agent), work)
            servers.append(p)
        t0 = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
            futs = [ex.submit(attempt, agent, t, n, scenarios[agent][t["id"]], bins, ports, work)
                    for agent, t, n in matrix]
            for f in futs:
                f.result()
        say(f"{len(matrix)} attempts in {time.monotonic() - t0:.1f} s with {jobs} at once")

        # The servers' view: every line of every script served once per attempt, nothing else.
        for agent in AGENTS:
            recs = [json.loads(line) for line in open(logs[agent])]
            served = {}
            for r in recs:
                if r.get("kind") == "agent":
                    served.setdefault(r["script"], []).append(r["script_index"])
            bad = [r for r in recs if r.get("exhausted") or r.get("script_missing")
                   or r.get("expect_ok") is False]
            for t in tasks:
                if not any(m[0] == agent and m[1]["id"] == t["id"] for m in matrix):
                    continue
                lines = len([line for line in open(os.path.join(DATA, "scripts", agent, t["id"] + ".jsonl"))
                             if line.strip() and not line.startswith("#")])
                check(f"{agent}:{t['id']}: the server answered lines 0..{lines - 1}, {attempts} time(s) each",
                      sorted(served.get(t["id"], [])) == sorted(list(range(lines)) * attempts),
                      f"served {sorted(served.get(t['id'], []))}")
            check(f"{agent}: no script exhausted or missing, no expect missed", not bad,
                  json.dumps([(r.get("script"), r.get("script_index")) for r in bad]))
            kinds = {}
            for r in recs:
                kinds[r.get("kind")] = kinds.get(r.get("kind"), 0) + 1
            say(f"      {agent}: server requests by kind {kinds}")

        if a.samples and any(m[0] == "claude-code" and m[1]["id"] == SAMPLE_TASK for m in matrix) \
                and any(m[0] == "codex" and m[1]["id"] == SAMPLE_TASK for m in matrix):
            os.makedirs(a.samples, exist_ok=True)
            redact_claude(os.path.join(work, "claude-code", SAMPLE_TASK + ".1", "transcript.jsonl"),
                          os.path.join(a.samples, "eval_claude_stream.jsonl"))
            shutil.copy(os.path.join(work, "codex", SAMPLE_TASK + ".1", "transcript.jsonl"),
                        os.path.join(a.samples, "eval_codex_exec.jsonl"))
            say(f"samples in {a.samples}")
    finally:
        for p in servers:
            p.terminate()
            p.wait()
        if os.environ.get("KEEP") == "1":
            say(f"eval_scenarios_check: kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    say("eval_scenarios_check: " + ("ALL PASSED" if not failures else f"{len(failures)} FAILED"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
