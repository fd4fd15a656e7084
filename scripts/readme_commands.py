#!/usr/bin/env python3
"""Every candor command the README shows is run by a test or the demo.

    readme_commands.py SOURCE_ROOT

Reads the README's ```sh blocks; for each line that runs `candor SUB [...]` it takes the
subcommand and its options, and looks for a test or demo that runs the same subcommand with each of
those options: in C++ tests an argument list that starts {"SUB", ... and names "--option" in the
same file; in shell scripts a line that runs candor SUB ... --option. A README line whose option no
test passes fails with the line and the option, so a README example cannot drift away from what is
checked. Options are compared, not values: `--llm openai:MODEL` is covered by any test of --llm.
"""
import pathlib
import re
import shlex
import sys

OPTION = re.compile(r"^--?[A-Za-z][\w-]*")


def readme_commands(text):
    """(line number, subcommand, [options]) of every `candor ...` line in the ```sh blocks."""
    commands, in_sh = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            in_sh = line.strip() in ("```sh", "```bash") and not in_sh
            continue
        if not in_sh:
            continue
        code = line.split("  #", 1)[0].strip().removesuffix("\\").strip()  # a continued line: its first part
        if not code.startswith("candor "):
            continue
        # Bracketed parts ([--json | --markdown], [RUN]) are optional forms; each option in them counts.
        words = shlex.split(code.replace("[", " ").replace("]", " ").replace("|", " "))
        sub = words[1] if len(words) > 1 and not words[1].startswith("-") else ""
        options = [OPTION.match(w).group(0) for w in words[1:] if OPTION.match(w)]
        commands.append((number, sub, options))
    return commands


def cpp_runs(text):
    """{subcommand: set of options} for the argument lists a C++ test passes to candor."""
    runs = {}
    literals = set(re.findall(r'"(-[\w-]+)', text))
    for sub in re.findall(r'\{\s*"([a-z][a-z-]*)"\s*,', text):
        runs.setdefault(sub, set()).update(literals)
    return runs


def shell_runs(text):
    runs = {}
    for line in text.splitlines():
        m = re.search(r'(?:\$candor|\$\{?CANDOR\w*\}?|\bcandor)"?\s+([a-z][a-z-]*)\b(.*)', line)
        if m:
            runs.setdefault(m.group(1), set()).update(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", m.group(2)))
    return runs


def main(root):
    root = pathlib.Path(root)
    tested = {}
    sources = sorted((root / "tests").glob("*.cc")) + sorted((root / "tests").glob("*.h"))
    # The CI examples are run as written by tests/ci_examples_test.sh.
    scripts = sorted((root / "tests").glob("*.sh")) + [root / "scripts" / "demo.sh"] + sorted((root / "examples" / "ci").glob("*.yml"))
    for path in sources + scripts:
        found = (cpp_runs if path.suffix in (".cc", ".h") else shell_runs)(path.read_text(errors="replace"))
        for sub, options in found.items():
            tested.setdefault(sub, set()).update(options)
    missing = []
    commands = readme_commands((root / "README.md").read_text())
    for number, sub, options in commands:
        if sub not in tested and not (sub == "" and options):
            missing.append(f"README.md:{number}: no test or demo runs `candor {sub}`")
            continue
        have = tested.get(sub, set()) | (tested.get("", set()) if sub == "" else set())
        if sub == "":  # `candor --version`: any test that runs candor with the option
            have = set().union(*tested.values())
        for option in options:
            if option not in have:
                missing.append(f"README.md:{number}: no test or demo runs `candor {sub}` with {option}")
    print(f"{len(commands)} candor command lines in README.md, {len(missing)} not run by any test")
    for m in missing:
        print("  " + m)
    return 1 if missing or not commands else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
