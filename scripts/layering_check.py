#!/usr/bin/env python3
"""The component layering of docs/design.md, checked against the code.

Each folder is one library. A file may include headers of the folders its component may use (and
its own), and third-party headers only of the libraries its component may use; each meson.build
declares exactly the candor libraries its sources include. Run from the source root:

    scripts/layering_check.py [ROOT]          exit 1 and one line per violation
    scripts/layering_check.py --self-check    plants violations in a copy and expects each found
    scripts/layering_check.py --graph [ROOT]  the include graph as it is (ARCHITECTURE.md's table)
"""
import difflib
import pathlib
import re
import shutil
import sys
import tempfile

# folder -> (candor folders it may include, third-party libraries it may include). Read it as the
# table in docs/design.md, "Components and layout"; the few edges the contract does not list are
# in EXCEPTIONS below, each with its reason.
ALLOWED = {
    "core": ([], ["json", "fmt"]),
    "evidence": (["core"], ["json", "fmt", "re2"]),
    "net": (["core"], ["json", "fmt", "curl"]),
    "sandbox": (["core"], ["json", "fmt", "seccomp", "crypto"]),
    "snapshot": (["core", "sandbox"], ["json", "fmt", "git2", "crypto", "zlib"]),
    "llm": (["core", "net"], ["json", "fmt"]),
    "planner": (["core", "llm"], ["json", "fmt"]),
    "assertions": (["core", "sandbox", "net", "snapshot"], ["json", "fmt", "re2"]),
    "executor": (["core", "sandbox", "assertions", "snapshot", "planner", "evidence"], ["json", "fmt", "re2"]),
    "verify": (["core", "llm"], ["json", "fmt", "re2"]),
    "import": (["core"], ["json", "fmt"]),
    "store": (["core"], ["json", "fmt", "sqlite"]),
    "report": (["core", "verify"], ["json", "fmt"]),
    "app": (["core", "net", "sandbox", "snapshot", "llm", "planner", "assertions", "evidence", "executor", "verify", "import",
             "store", "report"], ["json", "fmt"]),
    # The installed API (include/candor/): its own value types and a Session behind a pimpl,
    # converted to and from app/'s.
    "api": (["app", "core", "verify"], ["json", "fmt"]),
    # The command: arguments -> app calls -> exit codes; it prints what app returns with report/'s
    # renderers and reads core's value types.
    "cli": (["app", "core", "report"], ["json", "fmt", "cli11"]),
}

# Edges beyond the table, each with the reason it exists. Keep this list short and say each one in
# the closing note of the change that adds it.
EXCEPTIONS = {
    ("core", "re2"): "a kRegex argument (core/arg_schema) is checked by the engine that will run it",
    ("verify", "evidence"): "tier 1 asks evidence/'s pure rules which changed paths a user's command may cover and which it reads as its tests",
    ("llm", "sandbox"): "the `command` provider runs its command through sandbox::run_process (deadline, output cap, group kill)",
    ("executor", "llm"): "the round runner asks the planner's provider and the reviewer through llm::Provider",
    ("executor", "net"): "the http_get tool and the reviewer's http_get go through net::HttpClient",
}

THIRD_PARTY = [
    ("json", r"nlohmann/"),
    ("fmt", r"fmt/"),
    ("curl", r"curl/"),
    ("seccomp", r"seccomp\.h"),
    ("crypto", r"openssl/"),
    ("git2", r"git2(\.h|/)"),
    ("zlib", r"zlib\.h"),
    ("re2", r"re2/"),
    ("sqlite", r"sqlite3\.h"),
    ("cli11", r"CLI/"),
]

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
MESON_DEP = re.compile(r"\b([a-z]+)_dep\b")


def uses_of(folder):
    """(candor folders included, third-party libraries included), each -> first file:line."""
    own, third = {}, {}
    for f in sorted(list(folder.glob("*.h")) + list(folder.glob("*.cc"))):
        text = f.read_text(errors="replace")
        for m in INCLUDE.finditer(text):
            where = f"{f.parent.name}/{f.name}:{text.count(chr(10), 0, m.start()) + 1}"
            target = m.group(2)
            if m.group(1) == '"' and "/" in target:
                own.setdefault(target.split("/")[0], where)
                continue
            for lib, pattern in THIRD_PARTY:
                if re.match(pattern, target):
                    third.setdefault(lib, where)
    return own, third


def declared_in(folder):
    """The candor libraries a folder's meson.build links (its X_dep names, its own declaration aside)."""
    meson = folder / "meson.build"
    if not meson.exists():
        return None
    text = re.sub(r"#[^\n]*", "", meson.read_text())
    names = set(MESON_DEP.findall(text))
    return {n for n in names if n in ALLOWED and n != folder.name}


def check(root):
    problems = []
    for name, (folders, libs) in ALLOWED.items():
        folder = root / name
        if not folder.is_dir():
            continue
        own, third = uses_of(folder)
        for other, where in sorted(own.items()):
            if other == name or other not in ALLOWED:
                continue
            if other not in folders and (name, other) not in EXCEPTIONS:
                problems.append(f"{where}: {name}/ may not include {other}/ (docs/design.md, Components and layout)")
        for lib, where in sorted(third.items()):
            if lib not in libs and (name, lib) not in EXCEPTIONS:
                problems.append(f"{where}: {name}/ may not include {lib} headers")
        declared = declared_in(folder)
        if declared is None:
            continue
        included = {o for o in own if o != name and o in ALLOWED}
        for extra in sorted(declared - included):
            problems.append(f"{name}/meson.build: declares {extra}_dep, but no file of {name}/ includes {extra}/")
        for missing in sorted(included - declared):
            problems.append(f"{name}/meson.build: {name}/ includes {missing}/ ({own[missing]}) without declaring {missing}_dep")
    for (name, what), _ in EXCEPTIONS.items():
        folder = root / name
        if not folder.is_dir():
            continue
        own, third = uses_of(folder)
        if what not in own and what not in third:
            problems.append(f"scripts/layering_check.py: the exception {name} -> {what} is no longer used: remove it")
    return problems


def self_check(root):
    """Each planted violation must be reported; the clean copy must pass."""
    plants = [
        ("verify/planted.h", '#include "executor/tool.h"\n', "verify/ may not include executor/"),
        ("core/planted.h", "#include <git2.h>\n", "core/ may not include git2 headers"),
        ("import/planted.h", '#include "verify/judge.h"\n', "import/ may not include verify/"),
        ("cli/planted.h", '#include "store/run_store.h"\n', "cli/ may not include store/"),
        ("store/meson.build", "\n# a comment\nx = report_dep\n", "declares report_dep, but no file"),
    ]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        copy = pathlib.Path(tmp) / "src"
        for name in ALLOWED:
            if (root / name).is_dir():
                shutil.copytree(root / name, copy / name)
        baseline = set(check(copy))
        for path, text, expected in plants:
            target = copy / path
            before = target.read_text() if target.exists() else None
            target.write_text((before or "") + text)
            found = [p for p in check(copy) if p not in baseline]
            if not any(expected in p for p in found):
                failures.append(f"planting {path} was not reported (expected '{expected}', got {found})")
            if before is None:
                target.unlink()
            else:
                target.write_text(before)
        # ARCHITECTURE.md's graph: a copy that matches passes; one edge taken out of it is reported.
        if (root / "ARCHITECTURE.md").is_file():
            doc = copy / "ARCHITECTURE.md"
            shutil.copyfile(root / "ARCHITECTURE.md", doc)
            if graph_problems(copy):
                failures.append("the copied ARCHITECTURE.md's graph was reported though it matches the code")
            text = doc.read_text()
            doc.write_text(text.replace("report      -> core, verify", "report      -> core", 1))
            if not any("ARCHITECTURE.md's graph is not the code's" in p for p in graph_problems(copy)):
                failures.append("a graph edge missing from ARCHITECTURE.md was not reported")
    return failures


def graph(root):
    """One line per folder: the candor folders and the libraries its files include, as they are."""
    lines = []
    for name in ALLOWED:
        folder = root / name
        if not folder.is_dir():
            continue
        own, third = uses_of(folder)
        folders = [o for o in ALLOWED if o in own and o != name]
        lines.append(f"{name:<11} -> {', '.join(folders) or '-'}" + (f"   [{', '.join(sorted(third))}]" if third else ""))
    return lines


GRAPH_MARK = "<!-- scripts/layering_check.py --graph -->"


def documented_graph(root):
    """The graph ARCHITECTURE.md shows: the fenced block right after GRAPH_MARK, or None."""
    doc = root / "ARCHITECTURE.md"
    if not doc.is_file():
        return None
    lines = doc.read_text().splitlines()
    if GRAPH_MARK not in lines:
        return []
    i = lines.index(GRAPH_MARK) + 1
    if i >= len(lines) or not lines[i].startswith("```"):
        return []
    end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), len(lines))
    return lines[i + 1:end]


def graph_problems(root):
    """ARCHITECTURE.md's copy of the graph, against the graph the includes make."""
    shown = documented_graph(root)
    if shown is None:
        return []
    if not shown:
        return [f"ARCHITECTURE.md: no graph after the line {GRAPH_MARK}: paste `scripts/layering_check.py --graph`"]
    actual = graph(root)
    if shown == actual:
        return []
    diff = difflib.unified_diff(shown, actual, "ARCHITECTURE.md", "scripts/layering_check.py --graph", lineterm="")
    return ["ARCHITECTURE.md's graph is not the code's; paste `scripts/layering_check.py --graph` there:"] + \
        ["  " + line for line in diff]


def main(argv):
    if len(argv) > 1 and argv[1] == "--graph":
        print("\n".join(graph(pathlib.Path(argv[2] if len(argv) > 2 else "."))))
        return 0
    if len(argv) > 1 and argv[1] == "--self-check":
        root = pathlib.Path(argv[2] if len(argv) > 2 else ".")
        failures = self_check(root)
        for f in failures:
            print("self-check: " + f)
        print("self-check: " + ("ok" if not failures else f"{len(failures)} failure(s)"))
        return 1 if failures else 0
    root = pathlib.Path(argv[1] if len(argv) > 1 else ".")
    problems = check(root) + graph_problems(root)
    for p in problems:
        print(p)
    if not problems:
        print(f"layering: {sum(1 for n in ALLOWED if (root / n).is_dir())} components follow the table")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
