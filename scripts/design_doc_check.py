#!/usr/bin/env python3
"""docs/design.md names only what exists: subcommands, options and report fields.

    design_doc_check.py SOURCE_ROOT CANDOR_BINARY

- Every `candor SUB` the document shows is a subcommand of the built binary.
- Every option (`--name`, `-C`) written in a line that shows a candor command, or anywhere in the
  section "The CLI", is in the --help of the binary or of one of its subcommands.
- Every field the section "The report JSON" names in backticks is a JSON key or value the code
  writes: a string literal "name" in the sources that build reports and facts.
A document that drifts from the code (an option renamed, a field dropped) fails with the line and
the name, so the contract a user's clone carries cannot quietly stop being true.
"""
import pathlib
import re
import subprocess
import sys

SOURCES = ["core", "report", "verify", "executor", "snapshot", "cli", "app", "store", "assertions"]


def help_text(binary, *sub):
    out = subprocess.run([binary, *sub, "--help"], capture_output=True, text=True, check=False)
    return out.stdout + out.stderr


def subcommands(top_help):
    """The subcommand names listed under SUBCOMMANDS: in the top-level --help."""
    names, listing = set(), False
    for line in top_help.splitlines():
        if line.strip().upper().startswith("SUBCOMMANDS"):
            listing = True
            continue
        if listing:
            m = re.match(r"^\s{2}([a-z][a-z-]*)\b", line)
            if m:
                names.add(m.group(1))
            elif line.strip() and not line.startswith(" "):
                listing = False
    return names


def options_in(text):
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[A-Za-z])(?![\w-])", text))


def sections(text):
    """{heading: body} for the '## ' sections."""
    out, current = {}, ""
    for line in text.splitlines():
        if line.startswith("## "):
            current = line[3:].strip()
            out[current] = []
        elif current:
            out[current].append(line)
    return {k: "\n".join(v) for k, v in out.items()}


def code_literals(root):
    literals = set()
    for folder in SOURCES:
        for path in (root / folder).glob("**/*.cc"):
            literals.update(re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"', path.read_text(errors="replace")))
        for path in (root / folder).glob("**/*.h"):
            literals.update(re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"', path.read_text(errors="replace")))
    return literals


def cited_sections(root):
    """Every `docs/design.md, "NAME"` (or `docs/design.md's "NAME"`, or `(docs/design.md, NAME)`) in
    the repository's own files, a comment's line breaks joined: (file, NAME)."""
    cited = []
    for path in sorted(root.glob("**/*")):
        if path.suffix not in (".cc", ".h", ".md", ".py", ".sh") or not path.is_file() or path.name == "design_doc_check.py":
            continue
        if any(part.startswith(("build", ".")) for part in path.relative_to(root).parts[:-1]):
            continue
        text = re.sub(r"\n\s*(?://|#)?\s*", " ", path.read_text(errors="replace"))
        for name in re.findall(r"docs/design\.md(?:, |'s )\"([^\"]{3,80})\"", text):
            cited.append((str(path.relative_to(root)), name))
        # Unquoted: `(docs/design.md, Trust boundary)`, up to the parenthesis' end, a colon, a
        # semicolon or a comma (`Trust boundary, Secrets`: the section, then where in it).
        for name in re.findall(r"\(docs/design\.md, ([A-Z][^\"();,]{2,60}?)[:);,]", text):
            cited.append((str(path.relative_to(root)), name.strip()))
    return cited


def main(root, binary):
    root = pathlib.Path(root)
    doc = (root / "docs" / "design.md").read_text()
    top = help_text(binary)
    subs = subcommands(top)
    if len(subs) < 5:
        print(f"could not read the subcommands from `{binary} --help`:\n{top}")
        return 1
    known_options = options_in(top)
    nested = {"gate": ["install", "status"]}
    for sub in subs:
        known_options |= options_in(help_text(binary, sub))
        for inner in nested.get(sub, []):
            known_options |= options_in(help_text(binary, sub, inner))
    problems = []
    cli_section = sections(doc).get("The CLI", "")
    in_code = False
    for number, line in enumerate(doc.splitlines(), 1):
        if line.startswith("```"):
            in_code = not in_code
            continue
        # In code: `candor SUB ...` spans, or lines of a code block (indented or fenced) that run candor.
        shown = re.findall(r"`candor ([a-z][a-z-]*)", line)
        if in_code:
            shown += re.findall(r"^\s*candor ([a-z][a-z-]*)", line)
        for sub in shown:
            if sub not in subs:
                problems.append(f"docs/design.md:{number}: `candor {sub}` is not a subcommand ({', '.join(sorted(subs))})")
        if "candor " in line or (line and line in cli_section):
            for option in options_in(line):
                if option not in known_options:
                    problems.append(f"docs/design.md:{number}: {option} is in no --help of {binary}")
    report = sections(doc).get("The report JSON", "")
    if not report:
        problems.append('docs/design.md: no section "The report JSON"')
    literals = code_literals(root)
    for field in sorted(set(re.findall(r"`([a-z_][a-z0-9_]*)`", report))):
        if field not in literals:
            problems.append(f'docs/design.md, "The report JSON": `{field}` is written by no code (no "{field}" literal in {", ".join(SOURCES)})')
    # A citation names a section that is there: a heading, or a bold paragraph's opening words.
    named = set(re.findall(r"^#+ (.+)$", doc, re.M))
    for line in doc.splitlines():
        named |= {bold.rstrip(".") for bold in re.findall(r"\*\*(.+?)\*\*", line)}
    citations = cited_sections(root)
    for where, name in citations:
        if not any(n == name or n.startswith(name) for n in named):
            problems.append(f'{where}: cites docs/design.md, "{name}", which has no such section')
    for p in problems:
        print(p)
    checked = len(set(re.findall(r"`([a-z_][a-z0-9_]*)`", report)))
    print(f"{len(subs)} subcommands, {len(known_options)} options, {checked} report names, "
          f"{len(citations)} section citations checked; {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
