#!/usr/bin/env python3
"""The JSON Schemas (share/candor/schemas/) against every example and fixture, and against candor.

1. Each schema is a valid draft 2020-12 schema.
2. Every config, plan and script file under examples/ and tests/data, the plans and scripts the
   shell tests write (heredocs in tests/*.sh), the configs and plans in docs/ (```json blocks,
   recognised by their keys) and the CI examples' CANDOR_EXPECT validate.
3. Reports made here by the built binary (exec: success and a failed assertion; run with the
   example script: a replan and the judge; verify --git; report --json) validate.
4. Known-bad documents are rejected (an unknown config key, a step without an id, a script line
   with both replies, a report with a verdict candor never gives), so this test can fail.
5. The schemas agree with the parsers: a table of configs, plans and script lines, each judged by
   the schema and by candor itself (exit 65 is candor's "invalid input"); the two must agree.

Config files are read as JSON with comments (// and /* */ stripped first), so a commented config
validates too. Needs Debian's python3-jsonschema: without it, exit 77 (skipped) saying so.
    env: CANDOR_BIN, CANDOR_SOURCE_ROOT
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    # meson's Python may not be Debian's, which is where python3-jsonschema installs.
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") \
            and not os.environ.get("CANDOR_SCHEMAS_REEXEC"):
        os.environ["CANDOR_SCHEMAS_REEXEC"] = "1"
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    print("python3-jsonschema not installed (apt-get install python3-jsonschema; make test does): skipped")
    sys.exit(77)
from jsonschema import Draft202012Validator

CANDOR = os.environ["CANDOR_BIN"]
SRC = os.environ["CANDOR_SOURCE_ROOT"]
NAMES = ["config", "plan", "script", "report"]
failures = []
counts = {"valid": 0, "rejected": 0, "agreed": 0}


def fail(message):
    print("FAIL: " + message)
    failures.append(message)


def strip_comments(text):
    """JSON with comments to JSON: // and /* */ outside strings removed (line breaks kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * text.count("\n", i, end))
            i = end
        else:
            out.append(c)
            i += 1
    return "".join(out)


schemas = {}
for name in NAMES:
    with open(os.path.join(SRC, "share/candor/schemas", name + ".schema.json"), encoding="utf-8") as f:
        schemas[name] = json.load(f)
    try:
        Draft202012Validator.check_schema(schemas[name])
    except jsonschema.SchemaError as e:
        fail("%s.schema.json is not a valid draft 2020-12 schema: %s" % (name, e.message))
validators = {name: Draft202012Validator(s) for name, s in schemas.items()}
# A replan's reply may leave goal_kind out (docs/design.md: Plan); a first plan, exec's, may not.
later_plan = dict(schemas["plan"], required=[r for r in schemas["plan"]["required"] if r != "goal_kind"])
validators["later plan"] = Draft202012Validator(later_plan)


def errors(kind, doc):
    return ["%s: %s" % ("/".join(str(p) for p in e.absolute_path) or "$", e.message)
            for e in validators[kind].iter_errors(doc)]


def expect_valid(kind, doc, where):
    errs = errors(kind, doc)
    if errs:
        fail("%s (%s) does not validate: %s" % (where, kind, "; ".join(errs[:3])))
    else:
        counts["valid"] += 1


def expect_rejected(kind, doc, where):
    if errors(kind, doc):
        counts["rejected"] += 1
    else:
        fail("%s: the %s schema accepts a document candor refuses: %s" % (where, kind, json.dumps(doc)[:200]))


def check_script_text(text, where):
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        doc = json.loads(line)
        expect_valid("script", doc, "%s:%d" % (where, n))
        reply = doc.get("reply_json")
        if isinstance(reply, dict) and "steps" in reply:
            expect_valid("later plan", reply, "%s:%d reply_json" % (where, n))


def rel(path):
    return os.path.relpath(path, SRC)


# 2. Files and fixtures.
fixtures = 0
for root in ("examples", "tests/data"):
    for path in sorted(glob.glob(os.path.join(SRC, root, "**", "*"), recursive=True)):
        if path.endswith(".json") and "/plans/" in path:
            with open(path, encoding="utf-8") as f:
                expect_valid("plan", json.load(f), rel(path))
        # tests/data/eval: task files (docs/eval.md) and the scripted servers' replies, no script lines.
        elif path.endswith(".jsonl") and "/trajectories/" not in path and "/data/eval/" not in path:
            with open(path, encoding="utf-8") as f:
                check_script_text(f.read(), rel(path))
        elif path.endswith(os.path.join(".candor", "config.json")) or os.path.basename(path) == "config.json":
            with open(path, encoding="utf-8") as f:
                expect_valid("config", json.loads(strip_comments(f.read())), rel(path))
        else:
            continue
        fixtures += 1
# The shell tests' own plans and scripts: `cat > "$work/NAME.json" <<'JSON' ... JSON`.
heredoc = re.compile(r"""cat > "?\$work/(\S+?\.jsonl?)"? <<'JSON'\n(.*?)\nJSON\n""", re.S)
for path in sorted(glob.glob(os.path.join(SRC, "tests", "*.sh"))):
    with open(path, encoding="utf-8") as f:
        for m in heredoc.finditer(f.read()):
            where = "%s (%s)" % (rel(path), m.group(1))
            if m.group(1).endswith(".jsonl"):
                check_script_text(m.group(2), where)
            else:
                expect_valid("plan", json.loads(m.group(2)), where)
            fixtures += 1
# The docs' examples: a ```json block with "steps" is a plan; one whose keys are all config keys, a config.
config_keys = set(schemas["config"]["properties"])
for path in sorted(glob.glob(os.path.join(SRC, "docs", "*.md"))) + [os.path.join(SRC, "README.md")]:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for m in re.finditer(r"```json\n(.*?)\n```", text, re.S):
        try:
            doc = json.loads(strip_comments(m.group(1)))
        except ValueError:
            continue
        line = text.count("\n", 0, m.start()) + 1
        if isinstance(doc, dict) and "steps" in doc and "then" in doc:
            expect_valid("plan", doc, "%s:%d" % (rel(path), line))
        elif isinstance(doc, dict) and doc and set(doc) <= config_keys:
            expect_valid("config", doc, "%s:%d" % (rel(path), line))
        else:
            continue
        fixtures += 1
for path in sorted(glob.glob(os.path.join(SRC, "examples", "ci", "*.yml"))):
    with open(path, encoding="utf-8") as f:
        for m in re.finditer(r"^ *CANDOR_EXPECT: '(.*)'$", f.read(), re.M):
            expect_valid("config", {"expect": [json.loads(m.group(1))]}, rel(path) + " CANDOR_EXPECT")
            fixtures += 1
if fixtures < 8:
    fail("only %d fixtures found: the globs above no longer find the examples" % fixtures)

# 3. Reports from the built binary.
work = tempfile.mkdtemp(prefix="candor-schemas-")
env = dict(os.environ, CANDOR_HOME=os.path.join(work, "store"), NO_COLOR="1", CANDOR_LLM="",
           HOME=work, GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
           GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")
for key in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
    env.pop(key, None)


def candor(*args, cwd=None):
    return subprocess.run([CANDOR, *args], env=env, cwd=cwd or work, capture_output=True, text=True)


def site(name):
    dest = os.path.join(work, name)
    subprocess.run(["cp", "-r", os.path.join(SRC, "examples/dark-green/site"), dest], check=True)
    subprocess.run(["chmod", "-R", "u+w", dest], check=True)
    return dest


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def report_of(result, where, codes):
    if result.returncode not in codes:
        fail("%s exited %d (expected one of %s): %s" % (where, result.returncode, codes, result.stderr[-500:]))
        return None
    try:
        doc = json.loads(result.stdout)
    except ValueError:
        fail("%s printed no JSON: %s" % (where, result.stdout[:300]))
        return None
    expect_valid("report", doc, where)
    return doc


reports = []
ws = site("exec")
reports.append(report_of(candor("exec", os.path.join(SRC, "examples/dark-green/plans/patch.json"), "-C", ws, "-q", "--json"),
                         "exec patch.json", [0]))
failing = write(os.path.join(work, "failing.json"), json.dumps({
    "goal_kind": "modify", "steps": [{"id": "s1", "tool": "file_write", "args": {"path": "a.txt", "content": "x\n"},
                                      "assert": [{"type": "file_contains", "path": "a.txt", "text": "y"}]}],
    "then": "finish"}))
reports.append(report_of(candor("exec", failing, "-C", site("failing"), "-q", "--json"), "exec with a failed assertion", [1, 2]))
ws = site("run")
reports.append(report_of(candor("run", "Make the background dark green", "-C", ws, "-q", "--json", "--llm",
                                "script:" + os.path.join(SRC, "examples/dark-green/replies.jsonl")),
                         "run with examples/dark-green/replies.jsonl", [0, 1, 2]))
reports.append(report_of(candor("report", "--json", "-C", ws), "report --json", [0]))
repo = os.path.join(work, "repo")
os.makedirs(os.path.join(repo, "src"))
write(os.path.join(repo, "src/a.txt"), "old\n")
git = lambda *a: subprocess.run(["git", "-C", repo, *a], env=env, check=True, capture_output=True)
git("init", "-q", "-b", "main")
git("add", "-A")
git("commit", "-qm", "base")
write(os.path.join(repo, "src/a.txt"), "new\n")
git("commit", "-qam", "change")
reports.append(report_of(candor("verify", "--git", "HEAD~1..HEAD", "-C", repo, "--goal", "say new", "--json", "--expect",
                                json.dumps({"type": "file_contains", "path": "src/a.txt", "text": "new"})),
                         "verify --git", [0, 1, 2]))
if all(reports):
    if reports[0]["verdict"] != "success" or reports[4]["git"] is None or reports[2]["tier2"] is None and \
            reports[2]["usage"]["llm_calls"] < 2:
        fail("the reports are not the kinds this test means to cover: %s" %
             [(r["source"], r["verdict"]) for r in reports])

# 4. Known-bad documents.
bad = [
    ("config", {"budgett": {"max_steps": 5}}, "a config with an unknown key"),
    ("config", {"budget": {"max_steps": 0}}, "a budget out of range"),
    ("config", {"expect": [{"type": "file_contains", "path": "a"}]}, "an expectation without its text"),
    ("plan", {"goal_kind": "modify", "steps": [{"tool": "file_read", "args": {"path": "a"}}], "then": "finish"},
     "a plan step without an id"),
    ("plan", {"goal_kind": "modify", "steps": [{"id": "a", "tool": "file_read", "args": {"path": "a", "lines": 3}}],
              "then": "finish"}, "a tool argument that does not exist"),
    ("script", {"reply": "a", "reply_json": {}}, "a script line with both replies"),
    ("script", {"reply": "a", "tokens": 3}, "a script line with an unknown field"),
]
good_report = next((r for r in reports if r), None)
if good_report:
    bad.append(("report", dict(good_report, verdict="maybe"), "a report with a verdict candor never gives"))
    bad.append(("report", dict(good_report, extra=1), "a report with a field the schema does not list"))
for kind, doc, where in bad:
    expect_rejected(kind, doc, where)

# 5. The schemas agree with the parsers: each document judged by both.
cases = {
    "config": [
        {}, {"$schema": "https://example.invalid/config.schema.json"}, {"$schema": 3},
        {"budget": {"max_replans": 0, "max_steps": 50, "timeout_s": 600}}, {"budget": {"max_replans": 1001}},
        {"budget": {"max_step": 5}}, {"output_cap_bytes": 1023}, {"output_cap_bytes": 65536},
        {"network": {"allow_hosts": ["example.com"]}}, {"network": {"allow_hosts": [""]}},
        {"sandbox": {"read_paths": ["relative"]}}, {"sandbox": {"limits": {"memory_mb": 8}}},
        {"sandbox": {"allow_network": True, "pass_env": ["GH_TOKEN"], "limits": {"processes": 512}}},
        {"snapshot": {"ignore": ["#comment"]}}, {"snapshot": {"ignore": ["node_modules/", "*.log"]}},
        {"scope": ["src/**"], "sensitive": ["deploy/**"]}, {"scope": [""]},
        {"gate": {"max_blocks": 2, "block_on": ["scope", "judge"], "judge": "never"}}, {"gate": {"block_on": ["nope"]}},
        {"gate": {"judge": "sometimes"}}, {"gate": {"acceptance": {"aider": {}}}},
        {"evaluators": {"max_len": {"command": ["python3", "x.py"], "args": {"max": {"type": "integer", "required": True}}}}},
        {"evaluators": {"MaxLen": {"command": ["x"]}}}, {"evaluators": {"m": {"command": []}}},
        {"evaluators": {"m": {"command": ["x"], "args": {"type": {"type": "string"}}}}},
        {"expect": [{"type": "file_exists", "path": "index.html"}], "guard": [{"type": "command_succeeds", "command": "true"}]},
        {"secrets": {"allow": ["test/*.pem"]}}, {"secrets": {"deny": []}},
    ],
    "plan": [
        {"goal_kind": "inspect", "steps": [], "then": "finish"},
        {"$schema": "plan.schema.json", "goal_kind": "inspect", "steps": [], "then": "finish"},
        {"goal_kind": "inspect", "steps": [], "then": "later"},
        {"goal_kind": "inspect", "steps": [], "then": "finish", "note": "x"},
        {"goal_kind": "inspect", "steps": [{"id": "s1", "tool": "file_read", "args": {"path": "index.html", "offset": 1}}], "then": "finish"},
        {"goal_kind": "inspect", "steps": [{"id": "s1", "tool": "file_read", "args": {"path": "index.html", "offset": 0}}], "then": "finish"},
        {"goal_kind": "inspect", "steps": [{"id": "", "tool": "file_list"}], "then": "finish"},
        {"goal_kind": "inspect", "steps": [{"id": "s1", "tool": "file_list"}], "then": "finish"},
        {"goal_kind": "inspect", "steps": [{"id": "s1", "tool": "file_read"}], "then": "finish"},
        {"goal_kind": "inspect", "steps": [{"id": "s1", "tool": "file_reed", "args": {"path": "a"}}], "then": "finish"},
        {"goal_kind": "inspect", "steps": [{"id": "s1", "tool": "file_list", "assert": [{"type": "not", "assertion": {"type": "file_exists", "path": "nope"}}]}], "then": "finish"},
        {"goal_kind": "inspect", "steps": [{"id": "s1", "tool": "file_list", "assert": [{"type": "exit_code_eq", "code": 256}]}], "then": "finish"},
        {"goal_kind": "inspect", "steps": [{"id": "s1", "tool": "file_list", "assert": [{"type": "file_contains", "path": "a", "text": "b", "extra": 1}]}], "then": "finish"},
        {"goal_kind": "modify", "steps": [{"id": "s1", "tool": "file_patch", "args": {"path": "index.html", "edits": [{"find": "", "replace": "x"}]}}], "then": "finish"},
        {"goal_kind": "inspect", "questions": [""], "steps": [], "then": "finish"},
        {"steps": [], "then": "finish"},
    ],
    "script": [
        {"reply_json": {"goal_kind": "inspect", "steps": [], "then": "finish", "final_answer": "nothing to do"}},
        {"reply": "{\"goal_kind\": \"inspect\", \"steps\": [], \"then\": \"finish\"}", "usage": {"input_tokens": 1, "output_tokens": 2}},
        {"reply_json": {}, "usage": {"input_tokens": -1, "output_tokens": 2}},
        {"reply_json": {}, "usage": {"input_tokens": 1}},
        {"reply": 3}, {"expect": "x"}, {"reply": "a", "reply_json": {}}, {"reply": "a", "expect": 3},
    ],
}


def candor_accepts(kind, doc, n):
    """True when candor takes the document, False when it refuses it as invalid input (exit 65)."""
    ws = os.path.join(work, "agree-%s-%d" % (kind, n))
    os.makedirs(os.path.join(ws, ".candor"))
    write(os.path.join(ws, "index.html"), "<title>x</title>\n")
    if kind == "config":
        write(os.path.join(ws, ".candor/config.json"), json.dumps(doc))
        r = candor("evaluators", "-C", ws, "--json")
    elif kind == "plan":
        r = candor("exec", write(os.path.join(work, "agree-%d.json" % n), json.dumps(doc)), "-C", ws, "-q", "--judge", "never")
    else:
        r = candor("run", "say hello", "-C", ws, "-q", "--judge", "never",
                   "--llm", "script:" + write(os.path.join(work, "agree-%d.jsonl" % n), json.dumps(doc) + "\n"))
    if r.returncode not in (0, 1, 2, 65):
        fail("%s %s: candor exited %d: %s" % (kind, json.dumps(doc), r.returncode, r.stderr[-300:]))
    return r.returncode != 65, r.stderr.strip()


n = 0
for kind, docs in cases.items():
    for doc in docs:
        n += 1
        by_candor, why = candor_accepts(kind, doc, n)
        by_schema = not errors(kind, doc)
        if by_candor == by_schema:
            counts["agreed"] += 1
        else:
            fail("%s %s: candor %s it%s, the schema %s it%s" % (
                kind, json.dumps(doc), "accepts" if by_candor else "refuses", "" if by_candor else " (" + why + ")",
                "accepts" if by_schema else "refuses", "" if by_schema else " (" + "; ".join(errors(kind, doc)[:2]) + ")"))

subprocess.run(["rm", "-rf", work])
print("schemas: %d documents valid, %d bad ones rejected, %d judged alike by schema and candor; %d failure(s)" % (
    counts["valid"], counts["rejected"], counts["agreed"], len(failures)))
sys.exit(1 if failures else 0)
