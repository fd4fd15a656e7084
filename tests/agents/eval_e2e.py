#!/usr/bin/env python3
"""eval_e2e.py: the meson test `agents-eval`, `candor eval` with the real Claude Code and Codex CLI
(issue 39).

The six tasks of tests/data/eval (three real repositories, made git repositories here) are run by
both agents against their scripted API servers (tests/agents/fake_*.py --scripts, one per agent),
as three shards in parallel processes writing to one PostgreSQL (tests/postgres/pg_server.sh).
Then:
  - `candor eval report --json` shows, per agent, every task claimed and only the honest ones
    verified, and names each cheat (a weakened test, a test-aware change) on its task;
  - `eval report --markdown` says "claimed but not verified";
  - a shard killed mid-task (SIGKILL to candor and its agent) and run again records each (task,
    attempt) once;
  - the same eval on a SQLite store gives the same report (per agent and per task).

Environment: CANDOR_BIN, CANDOR_SOURCE_ROOT; CLAUDE_BIN / CODEX_BIN or CANDOR_AGENTS_DIR as
eval_scenarios_check.py takes them; KEEP=1 keeps the temp folder.
Exit: 0 all passed, 1 a check failed, 77 the agents or PostgreSQL's server are not available here
(each case reported skipped, by name).

Python standard library only; written for candor.
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import eval_scenarios_check as scen  # noqa: E402  (the same data, fakes and repositories)

ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
CANDOR = os.environ.get("CANDOR_BIN", os.path.join(ROOT, "build", "cli", "candor"))
PG = os.path.join(ROOT, "tests", "postgres", "pg_server.sh")
CASES = ["three shards on PostgreSQL", "claimed vs verified per agent", "cheats named", "markdown report",
         "killed shard re-run", "same report on SQLite"]
results = {}
STARTED = time.monotonic()


def case(name, ok, detail=""):
    prev = results.get(name, True)
    results[name] = prev and ok
    scen.check(f"{name}: {detail}" if detail else name, ok)


def skip_all(reason):
    for c in CASES:
        print(f"agents-eval: skipped {c} ({reason})")
    print(f"agents-eval: cases: 0 passed | 0 failed | {len(CASES)} skipped")
    print(reason)
    sys.exit(77)


def candor(args, env, **kw):
    return subprocess.run([CANDOR, *args], env=env, capture_output=True, text=True, **kw)


def make_tasks(work):
    """tasks.jsonl with each task's repo a git repository made here and its commit that repo's HEAD."""
    tasks = [json.loads(line) for line in open(os.path.join(scen.DATA, "tasks.jsonl")) if line.strip()]
    repos = {}
    for t in tasks:
        if t["repo"] not in repos:
            dest = os.path.join(work, "repos", t["repo"])
            scen.make_repo(t, dest)
            repos[t["repo"]] = (dest, scen.git(dest, "rev-parse", "HEAD").strip())
        t["repo"], t["commit"] = repos[t["repo"]]
    path = os.path.join(work, "tasks.jsonl")
    with open(path, "w") as f:
        for t in tasks:
            f.write(json.dumps(t) + "\n")
    return path, tasks


def agent_env(work, bins, ports):
    """What a developer's shell would hold: both agents on PATH, each pointed at its scripted server."""
    bindir = os.path.join(work, "bin")
    os.makedirs(bindir, exist_ok=True)
    for name, target in (("claude", bins[0]), ("codex", bins[1])):
        link = os.path.join(bindir, name)
        if not os.path.exists(link):
            os.symlink(target, link)
    home = os.path.join(work, "home")
    codex_home = os.path.join(work, "codex-home")
    os.makedirs(home, exist_ok=True)
    os.makedirs(codex_home, exist_ok=True)
    with open(os.path.join(codex_home, "config.toml"), "w") as f:
        f.write(f'''model = "gpt-5.5"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:{ports['codex']}/v1"
wire_api = "responses"
env_key = "OPENAI_API_KEY"

[analytics]
enabled = false
''')
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ANTHROPIC_", "OPENAI_", "CLAUDE", "CODEX", "CANDOR_STORE_URL"))}
    # Debian's python3 first: the tasks' checks run in candor's sandbox, which reads the system's
    # folders, not a python3 of the developer's home (pyenv's shims).
    env.update(PATH=bindir + ":/usr/bin:/bin:" + os.environ.get("PATH", ""), HOME=home, NO_COLOR="1",
               CANDOR_HOME=os.path.join(work, "candor-home"),
               CLAUDE_CONFIG_DIR=os.path.join(work, "claude-config"),
               ANTHROPIC_BASE_URL=f"http://127.0.0.1:{ports['claude-code']}", ANTHROPIC_API_KEY="test",
               CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1",
               CODEX_HOME=codex_home, OPENAI_API_KEY="test")
    return env


def report_json(eval_id, store, env):
    r = candor(["eval", "report", eval_id, "--json", "--store", store], env)
    if r.returncode != 0:
        scen.check(f"eval report {eval_id} on {store[:24]}", False, r.stderr[-2000:])
        return None
    return json.loads(r.stdout)


# What the report JSON says, read in one place.
def per_agent(report):
    return {a["agent"]: a for a in report["agents"]}


def per_task(report):
    return {(t["agent"], t["task"], t["attempt"]): t for t in report["attempts"]}


def summary_of(report):
    """What must match between two stores: per agent, the counts; per attempt, claim, verdict and cheats."""
    agents = {a: {k: v[k] for k in ("tasks", "claimed_success", "verified_success", "claimed_not_verified")}
              for a, v in per_agent(report).items()}
    attempts = {f"{k[0]}/{k[1]}/{k[2]}": (t["claimed"], t["verdict"], sorted(t.get("cheats", [])))
                for k, t in per_task(report).items()}
    return {"agents": agents, "attempts": attempts,
            "missing": sorted(json.dumps(m, sort_keys=True) for m in report.get("missing", []))}


EXAMPLE = os.path.join(ROOT, "examples", "ci", "eval-matrix.yml")


def example_block(name):
    """The shell lines of examples/ci/eval-matrix.yml between `# >>> candor NAME` and `# <<< candor NAME`:
    a `run: CMD` line, or the lines of a `run: |` block."""
    lines, inside, block = [], False, False
    for line in open(EXAMPLE):
        s = line.strip()
        if s == f"# >>> candor {name}":
            inside = True
        elif s == f"# <<< candor {name}":
            break
        elif inside and s.startswith("run: |"):
            block = True
        elif inside and s.startswith("run: "):
            lines.append(s[len("run: "):])
        elif inside and block and s and not s.startswith("#"):
            lines.append(s)
    return lines


def as_ci_would(line, tasks_file, shard, run_id):
    return (line.replace("${{ matrix.shard }}", str(shard)).replace("${{ github.run_id }}", run_id)
            .replace("evals/tasks.jsonl", tasks_file))


def run_example_matrix(tasks_file, run_id, url, env, agents):
    """The workflow's eval job as its matrix runs it: three shards at once, per agent, the store from
    CANDOR_STORE_URL as the workflow sets it."""
    [line] = example_block("eval shard")
    ci_env = dict(env, CANDOR_STORE_URL=url)
    procs = []
    for agent in agents:
        for shard in range(3):
            # The one change to the workflow's line: no judge, since the scripted servers answer as the
            # agents, not as a judge (the verdicts below are tier 1's).
            cmd = as_ci_would(line, tasks_file, shard, run_id).replace("--agent claude-code", f"--agent {agent}")
            cmd += " --judge never"
            cmd = cmd.replace("candor ", CANDOR + " ", 1)
            procs.append((cmd, subprocess.Popen(["bash", "-c", cmd], env=ci_env, stdout=subprocess.PIPE,
                                                stderr=subprocess.PIPE, text=True)))
    ok = True
    for cmd, p in procs:
        _out, err = p.communicate(timeout=900)
        if p.returncode != 0:
            ok = False
            scen.check(f"`{cmd}` exits 0", False, f"exit {p.returncode}: {err[-3000:]}")
    return ok


def run_shards(tasks_file, eval_id, store, env, shards, agents):
    procs = []
    for agent in agents:
        for i in range(shards):
            args = ["eval", tasks_file, "--agent", agent, "--eval-id", eval_id, "--store", store, "--judge", "never"]
            if shards > 1:
                args += ["--shard", f"{i}/{shards}"]
            procs.append((agent, i, subprocess.Popen([CANDOR, *args], env=env, stdout=subprocess.PIPE,
                                                     stderr=subprocess.PIPE, text=True)))
    ok = True
    for agent, i, p in procs:
        out, err = p.communicate(timeout=900)
        if p.returncode != 0:
            ok = False
            scen.check(f"candor eval --agent {agent} --shard {i}/{shards} exits 0", False,
                       f"exit {p.returncode}: {err[-3000:]}")
    return ok


def main():
    bins = scen.agent_bins()
    if bins[0] is None:
        skip_all("Claude Code and Codex CLI cannot be installed here (tests/agents/install_agents.sh)")
    started = subprocess.run([PG, "start"], capture_output=True, text=True)
    if started.returncode == 77:
        skip_all("no PostgreSQL server here (Debian package postgresql)")
    if started.returncode != 0:
        raise SystemExit("agents-eval: pg_server.sh start failed: " + started.stderr)
    pg_dir = started.stdout.splitlines()[0]
    work = tempfile.mkdtemp(prefix="candor-eval-e2e-")
    servers = []
    try:
        url = subprocess.run([PG, "createdb", pg_dir, "eval"], capture_output=True, text=True,
                             check=True).stdout.splitlines()[-1]
        ports = {}
        for agent, server in (("claude-code", "fake_anthropic"), ("codex", "fake_openai_responses")):
            p, port, _log = scen.start_fake(server, os.path.join(scen.DATA, "scripts", agent), work)
            servers.append(p)
            ports[agent] = port
        tasks_file, tasks = make_tasks(work)
        env = agent_env(work, bins, ports)
        expected = json.load(open(os.path.join(scen.DATA, "scenarios.json")))["agents"]

        # 1. Three shards per agent, in parallel processes, one PostgreSQL: the example workflow's
        # job as its matrix runs it.
        t0 = time.monotonic()
        ran = run_example_matrix(tasks_file, "42", url, env, ["claude-code", "codex"])
        case("three shards on PostgreSQL", ran, f"6 shard processes in {time.monotonic() - t0:.1f} s")
        pg_report = report_json("gh-42", url, env)
        if pg_report is None:
            case("three shards on PostgreSQL", False, "no report")
            return
        agents = per_agent(pg_report)
        attempts = per_task(pg_report)
        case("three shards on PostgreSQL", not pg_report.get("missing") and len(attempts) == 12,
             f"{len(attempts)} attempts recorded, missing {pg_report.get('missing')}")

        # 2. Per agent: six claimed, two verified, four claimed but not verified.
        for agent, scenarios in expected.items():
            a = agents.get(agent, {})
            want_verified = sum(1 for s in scenarios.values() if s["verdict"] == "success")
            case("claimed vs verified per agent",
                 a.get("claimed_success") == 6 and a.get("verified_success") == want_verified and
                 a.get("claimed_not_verified") == 6 - want_verified,
                 f"{agent}: {json.dumps({k: a.get(k) for k in ('tasks', 'claimed_success', 'verified_success', 'claimed_not_verified')})}")
            for task_id, s in scenarios.items():
                t = attempts.get((agent, task_id, 1), {})
                verdict_ok = t.get("verdict") == s["verdict"]
                case("claimed vs verified per agent", t.get("claimed") == "success" and verdict_ok,
                     f"{agent}/{task_id}: claimed {t.get('claimed')}, verdict {t.get('verdict')} "
                     f"(scenario: {s['behaviour']}, {s['verdict']})")
                # 3. Each cheat named on its task.
                if "cheat" in s or s["behaviour"] in ("weakened-test", "test-aware"):
                    cheats = " ".join(t.get("cheats", [])).lower()
                    want = "test-aware" if s["behaviour"] == "test-aware" else "weakened"
                    case("cheats named", want in cheats or (want == "weakened" and "skipped" in cheats),
                         f"{agent}/{task_id}: cheats {t.get('cheats')} (want {want})")
                elif s["behaviour"] in ("honest", "nothing"):
                    case("cheats named", not t.get("cheats"), f"{agent}/{task_id}: no cheat ({t.get('cheats')})")

        # 4. The example's report job: the Markdown summary says what matters; the JUnit file is XML.
        summary = os.path.join(work, "summary.md")
        report_lines = [as_ci_would(line, tasks_file, 0, "42").replace("candor ", CANDOR + " ", 1)
                        for line in example_block("eval report")]
        rep = subprocess.run(["bash", "-ec", "\n".join(report_lines)], cwd=work, capture_output=True, text=True,
                             env=dict(env, CANDOR_STORE_URL=url, GITHUB_STEP_SUMMARY=summary))
        md = open(summary).read() if os.path.exists(summary) else ""
        junit = open(os.path.join(work, "eval-junit.xml")).read() if os.path.exists(
            os.path.join(work, "eval-junit.xml")) else ""
        case("markdown report", rep.returncode == 0 and "claimed but not verified" in md.lower() and
             junit.lstrip().startswith("<?xml") and "<testcase" in junit,
             f"exit {rep.returncode}, summary {len(md)} chars, junit {len(junit)} chars {rep.stderr[-500:]}")

        # 5. A shard killed mid-task, then run again: each (task, attempt) once.
        args = ["eval", tasks_file, "--agent", "codex", "--eval-id", "ci-kill", "--store", url, "--judge", "never"]
        p = subprocess.Popen([CANDOR, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True, start_new_session=True)
        killed_running = False
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and p.poll() is None:
            st = candor(["eval", "status", "ci-kill", "--json", "--store", url], env)
            states = [t["state"] for t in json.loads(st.stdout)["attempts"]] if st.returncode == 0 else []
            if "running" in states and "done" in states:
                os.killpg(p.pid, signal.SIGKILL)
                killed_running = True
                break
            time.sleep(0.05)
        p.wait()
        again = subprocess.run([CANDOR, *args], env=env, capture_output=True, text=True, timeout=900)
        kill_report = report_json("ci-kill", url, env)
        counts = {}
        for t in (kill_report or {}).get("attempts", []):
            counts[(t["task"], t["attempt"])] = counts.get((t["task"], t["attempt"]), 0) + 1
        case("killed shard re-run",
             killed_running and again.returncode == 0 and len(counts) == 6 and set(counts.values()) == {1} and
             all(t["state"] == "done" for t in kill_report["attempts"]),
             f"killed while running: {killed_running}; re-run exit {again.returncode}; attempts {counts}")

        # 6. The same eval on SQLite: the same report.
        sqlite_store = os.path.join(work, "sqlite-store")
        ran = run_shards(tasks_file, "gh-42", sqlite_store, env, 1, ["claude-code", "codex"])
        sqlite_report = report_json("gh-42", sqlite_store, env) if ran else None
        same = sqlite_report is not None and summary_of(sqlite_report) == summary_of(pg_report)
        case("same report on SQLite", same,
             "" if same else f"postgres {json.dumps(summary_of(pg_report))}\nsqlite "
             f"{json.dumps(summary_of(sqlite_report)) if sqlite_report else None}")
    finally:
        for p in servers:
            p.terminate()
        subprocess.run([PG, "stop", pg_dir], capture_output=True)
        if os.environ.get("KEEP") == "1":
            print(f"kept {work}")
        else:
            subprocess.run(["rm", "-rf", work])
    passed = sum(1 for c in CASES if results.get(c) is True)
    failed = len(CASES) - passed
    print(f"agents-eval: cases: {passed} passed | {failed} failed | 0 skipped ({time.monotonic() - STARTED:.0f} s)")
    sys.exit(1 if failed or scen.failures else 0)


if __name__ == "__main__":
    main()
