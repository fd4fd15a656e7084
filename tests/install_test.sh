#!/usr/bin/env bash
# `DESTDIR=... make install` into a scratch folder: the binary, the man page and the bash
# completion land under the prefix; the installed binary says the project's version; the man page
# has a section for every subcommand `candor --help` lists; the completion completes subcommands,
# options and option values.
#   install_test.sh BUILD_DIR   (env: CANDOR_SOURCE_ROOT; CANDOR_VERSION, CANDOR_PREFIX,
#                                CANDOR_BINDIR, CANDOR_MANDIR, CANDOR_DATADIR: the build's settings)
set -euo pipefail
build=${1:?} src=${CANDOR_SOURCE_ROOT:?}
version=${CANDOR_VERSION:?} prefix=${CANDOR_PREFIX:?}
command -v make >/dev/null || { echo "make not installed: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The build's own prefix, so that make install reconfigures nothing.
if ! DESTDIR="$work/dest" make -C "$src" --no-print-directory install BUILD="$build" PREFIX="$prefix" >"$work/install.log" 2>&1; then
  cat "$work/install.log"
  fail "make install failed"
fi
installed() { case $1 in /*) echo "$work/dest$1" ;; *) echo "$work/dest$prefix/$1" ;; esac; }
bin="$(installed "${CANDOR_BINDIR:?}")/candor"
man="$(installed "${CANDOR_MANDIR:?}")/man1/candor.1"
completion="$(installed "${CANDOR_DATADIR:?}")/bash-completion/completions/candor"
for f in "$bin" "$man" "$completion"; do
  [[ -f "$f" ]] || fail "not installed: ${f#"$work/dest"}"
done
[[ -x "$bin" ]] || { echo "$failures failure(s)"; exit 1; }

for flag in --version -V; do
  got=$("$bin" "$flag")
  [[ "$got" == "candor $version" ]] || fail "candor $flag printed '$got', expected 'candor $version'"
done

# Every subcommand the binary lists has its section in the man page.
subcommands=$("$bin" --help | sed -n '/^Subcommands:/,/^$/p' | awk 'NR > 1 && NF {print $1}')
[[ $(wc -w <<<"$subcommands") -ge 10 ]] || fail "candor --help lists too few subcommands: $subcommands"
for sub in $subcommands; do
  grep -q "^\.SS \"candor $sub " "$man" || fail "the man page has no section for '$sub'"
done
grep -q '^\.TH CANDOR 1 .*"candor '"$version"'"' "$man" || fail "the man page's title does not carry version $version"
grep -q 'build/' "$man" && fail "the man page shows a build path"
if command -v groff >/dev/null; then
  warnings=$(groff -man -ww -z "$man" 2>&1)
  [[ -z "$warnings" ]] || fail "groff warns about the man page: $warnings"
else
  echo "groff not installed: the man page's roff was not checked"
fi

# The completion, driven the way bash drives it.
complete_words() {  # words of the command line, the last one being completed
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _candor; [[ ${#COMPREPLY[@]} -eq 0 ]] || printf "%s\n" "${COMPREPLY[@]}"' _ "$completion" "$@"
}
expect_completion() {  # EXPECTED WORDS...
  local expected=$1 got
  shift
  got=$(complete_words "$@" | sort | tr '\n' ' ')
  [[ "$got" == "$expected" ]] || fail "completing '$*' gave '$got', expected '$expected'"
}
expect_completion "report run runs " candor r
expect_completion "verify " candor ver
expect_completion "--max-goal-attempts --max-replans --max-steps --max-tokens " candor run --max
expect_completion "always auto " candor run --judge a
expect_completion "--version " candor --ver
expect_completion "--verdict " candor runs --verd
expect_completion "fail " candor runs --verdict f
expect_completion "" candor run -C ""   # a folder: bash's own file completion (-o default)

if [[ $failures -ne 0 ]]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "installed and checked: bin/candor, man1/candor.1, bash-completion/completions/candor"
