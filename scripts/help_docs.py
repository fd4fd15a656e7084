#!/usr/bin/env python3
"""The man page and the bash completion of candor, both read from the built binary's own help.

    help_docs.py CANDOR man VERSION OUT      writes the roff man page (candor.1)
    help_docs.py CANDOR bash VERSION OUT     writes the bash completion script

Runs `CANDOR --help` and `CANDOR SUB --help` for each subcommand the top-level help lists, so the
installed documentation can never disagree with the binary. Only Python's standard library (meson
already needs Python); no network, no help2man.
"""
import re
import subprocess
import sys


class Entry:
    def __init__(self, spec, text):
        self.spec = spec  # the left column: "-C,--workspace TEXT", "--kind TEXT:{modify,inspect}", "run"
        self.text = text  # the description

    def flags(self):
        return [f for f in self.spec.split(" ", 1)[0].split(",") if f.startswith("-")]

    def takes_value(self):
        return " " in self.spec

    def choices(self):
        # The value's name alone, the word after the flags: "--judge auto|always|never" (cli/options.h
        # one_of), "name {config,plan}" or CLI11's "TEXT:{a,b}" (never an example in the text beside it).
        words = self.spec.split(" ")
        value = words[1] if len(words) > 1 else ""
        m = re.search(r"\{([^}\s]*)\}", value)
        if m:
            return m.group(1).split(",")
        return value.split("|") if "|" in value else []


class Help:
    """One `--help` text: description, usage line, sections of entries, other lines (footers)."""

    def __init__(self, text):
        self.description = ""
        self.usage = ""
        self.sections = {}  # "Options" -> [Entry]
        self.prose = []     # lines outside the sections, after the usage line
        section = None
        for line in text.splitlines():
            if not line.strip():
                section = None
                continue
            if line.startswith("Usage:"):
                self.usage = line[len("Usage:"):].strip()
            elif re.match(r"^[A-Z][A-Za-z ]*:$", line):
                section = line[:-1]
                self.sections[section] = []
            elif section and re.match(r"^ {2}\S", line):
                m = re.match(r"^ {2}(\S.*?)(?: {2,}(.*))?$", line)
                self.sections[section].append(Entry(m.group(1), m.group(2) or ""))
            elif section and line.startswith("    ") and self.sections[section]:
                last = self.sections[section][-1]  # a description on its own line, under a long spec
                last.text = (last.text + " " + line.strip()).strip()
            elif not self.usage and not self.description:
                self.description = line.strip()
            else:
                self.prose.append(line.rstrip())

    def options(self):
        return self.sections.get("Options", [])


# The top-level help's footer sections that become the man page's own (cli/main.cc kTopFooter).
MAN_SECTIONS = {"Exit status": "EXIT STATUS", "Environment": "ENVIRONMENT", "Files": "FILES"}


def read_help(binary, *args):
    done = subprocess.run([binary, *args, "--help"], capture_output=True, text=True, check=True)
    return Help(done.stdout)


# roff: backslashes and hyphens escaped, no line may start with a control character.
def roff(text):
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + text if text.startswith((".", "'")) else text


def man_entry(e):
    words = e.spec.split(" ", 1)
    head = ", ".join("\\fB" + roff(f) + "\\fR" for f in words[0].split(","))
    if len(words) > 1:
        head += " \\fI" + roff(words[1]) + "\\fR"
    return [".TP", head, roff(e.text) if e.text else "\\&"]


def man_sections(h):
    out = []
    for name, entries in h.sections.items():
        if name == "Subcommands":
            continue
        out.append(".PP")
        out.append("\\fB" + roff(name) + ":\\fR")
        for e in entries:
            out += man_entry(e)
    if h.prose:
        out += [".PP", ".nf"] + [roff(l) for l in h.prose] + [".fi"]
    return out


def man_command(h, fallback):
    usage = re.sub(r"^\S*candor\b", "candor", h.usage)
    return [".SS " + '"' + roff(usage).replace('"', '\\(dq') + '"', roff(h.description or fallback)] + man_sections(h)


def man_page(binary, version):
    top = read_help(binary)
    desc = top.description.split(": ", 1)[-1]
    out = [
        '.\\" Generated from `candor --help` by scripts/help_docs.py; do not edit.',
        '.TH CANDOR 1 "" "candor %s" "User Commands"' % roff(version),
        ".SH NAME",
        "candor \\- " + roff(desc),
        ".SH SYNOPSIS",
        ".B candor",
        "\\fISUBCOMMAND\\fR [\\fIOPTIONS\\fR] [\\fIARGUMENTS\\fR]",
        ".br",
        ".B candor",
        "\\fB\\-h\\fR | \\fB\\-V\\fR",
        ".SH DESCRIPTION",
        roff(desc[:1].upper() + desc[1:]) + ".",
        "Each subcommand is described under COMMANDS below;",
        "\\fBcandor\\fR \\fISUBCOMMAND\\fR \\fB\\-\\-help\\fR prints the same text.",
        ".SH OPTIONS",
    ]
    for e in top.options():
        out += man_entry(e)
    out.append(".SH COMMANDS")
    for sub in top.sections.get("Subcommands", []):
        h = read_help(binary, sub.spec)
        out += man_command(h, sub.text)
        # Subcommands of a subcommand (`candor gate install`) get sections of their own.
        for inner in h.sections.get("Subcommands", []):
            out += man_command(read_help(binary, sub.spec, inner.spec), inner.text)
    for name, title in MAN_SECTIONS.items():
        entries = top.sections.get(name, [])
        if not entries:
            sys.exit("help_docs.py: `candor --help` has no %s: section" % name)
        out.append(".SH " + title)
        for e in entries:
            out += [".TP", "\\fB" + roff(e.spec) + "\\fR", roff(e.text) if e.text else "\\&"]
    out += [".SH SEE ALSO", "The README and docs/ of the candor source tree."]
    return "\n".join(out) + "\n"


def bash_words(words):
    return " ".join(words)


def choice_cases(options):
    """The `case $prev in` that offers an option's listed values after it; [] when none lists any."""
    cases = [(e.flags(), e.choices()) for e in options if e.choices()]
    if not cases:
        return []
    return (["      case $prev in"] +
            ["        %s) choices='%s' ;;" % ("|".join(flags), bash_words(choices)) for flags, choices in cases] +
            ["      esac"])


def bash_completion(binary, version):
    top = read_help(binary)
    subs = [s.spec for s in top.sections.get("Subcommands", [])]
    lines = [
        "# bash completion for candor %s: generated from `candor --help` by scripts/help_docs.py." % version,
        "_candor() {",
        "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} sub= i",
        "  for ((i = 1; i < COMP_CWORD; i++)); do",
        "    case ${COMP_WORDS[i]} in -*) ;; *) sub=${COMP_WORDS[i]}; break ;; esac",
        "  done",
        "  local opts= choices= valued= nested=",
        "  case $sub in",
        "    '')",
        "      opts='%s'" % bash_words(f for e in top.options() for f in e.flags()),
        "      valued=' %s '" % bash_words(f for e in top.options() if e.takes_value() for f in e.flags()),
    ]
    lines += choice_cases(top.options())
    lines.append("      ;;")
    for sub in subs:
        h = read_help(binary, sub)
        nested = [e.spec for e in h.sections.get("Subcommands", [])]
        # A nested subcommand's options (`gate install --agent`) are offered under its parent.
        entries = list(h.options())
        for inner in nested:
            entries += [e for e in read_help(binary, sub, inner).options() if e.flags() and e.flags() != ["-h", "--help"]]
        # The top-level options that fall through to every command (--color).
        entries += [e for e in top.options() if e.takes_value()]
        seen = set()
        entries = [e for e in entries if not (tuple(e.flags()) in seen or seen.add(tuple(e.flags())))]
        h.sections["Options"] = entries
        opts = [f for e in h.options() for f in e.flags()]
        valued = [f for e in h.options() if e.takes_value() for f in e.flags()]
        # A positional whose values are listed ({a,b}) completes like a nested subcommand.
        nested += [c for e in h.sections.get("Positionals", []) for c in e.choices()]
        lines.append("    %s)" % sub)
        lines.append("      opts='%s'" % bash_words(opts))
        if nested:
            lines.append("      nested='%s'" % bash_words(nested))
        lines.append("      valued=' %s '" % bash_words(valued))
        lines += choice_cases(h.options())
        lines.append("      ;;")
    lines += [
        "  esac",
        "  if [[ -n $choices ]]; then",
        '    COMPREPLY=($(compgen -W "$choices" -- "$cur"))',
        "  elif [[ $valued == *\" $prev \"* ]]; then",
        "    COMPREPLY=()  # a value: files, through -o default",
        "  elif [[ $cur == -* ]]; then",
        '    COMPREPLY=($(compgen -W "$opts" -- "$cur"))',
        "  elif [[ -n $nested && $prev == \"$sub\" ]]; then",
        '    COMPREPLY=($(compgen -W "$nested" -- "$cur"))',
        "  elif [[ -z $sub ]]; then",
        "    COMPREPLY=($(compgen -W '%s' -- \"$cur\"))" % bash_words(subs),
        "  else",
        "    COMPREPLY=()",
        "  fi",
        "}",
        "complete -o default -F _candor candor",
    ]
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) != 5 or sys.argv[2] not in ("man", "bash"):
        sys.exit("usage: help_docs.py CANDOR man|bash VERSION OUT")
    binary, kind, version, out = sys.argv[1:]
    text = man_page(binary, version) if kind == "man" else bash_completion(binary, version)
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
