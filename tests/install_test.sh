#!/usr/bin/env bash
# `DESTDIR=... make install` into a scratch folder: the binary, the man page, the bash completion
# and the JSON Schemas land under the prefix; the installed binary says the project's version; the
# man page has a section for every subcommand `candor --help` lists; the completion completes
# subcommands, options and option values. libcandor: the library, its headers and its pkg-config file are
# installed, and examples/embed compiles against the installed tree alone (not the source tree),
# runs a plan and cancels a second run from another thread.
#   install_test.sh BUILD_DIR   (env: CANDOR_SOURCE_ROOT; CANDOR_VERSION, CANDOR_PREFIX,
#                                CANDOR_BINDIR, CANDOR_MANDIR, CANDOR_DATADIR, CANDOR_LIBDIR,
#                                CANDOR_INCLUDEDIR: the build's settings)
set -euo pipefail
build=${1:?} src=${CANDOR_SOURCE_ROOT:?}
version=${CANDOR_VERSION:?} prefix=${CANDOR_PREFIX:?}
command -v make >/dev/null || { echo "make not installed: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# A prefix other than the build's: the files are relocated, and the build folder is not
# reconfigured (issue 42: `make install PREFIX=...` used to rewrite the checkout's build).
build_prefix=$prefix
prefix=/opt/candor-relocated
options_before=$(cat "$build/meson-info/intro-buildoptions.json")
if ! DESTDIR="$work/dest" make -C "$src" --no-print-directory install BUILD="$build" PREFIX="$prefix" >"$work/install.log" 2>&1; then
  cat "$work/install.log"
  fail "make install failed"
fi
[[ "$(cat "$build/meson-info/intro-buildoptions.json")" == "$options_before" ]] ||
  fail "make install PREFIX=$prefix reconfigured the build folder"
[[ -d "$work/dest$build_prefix" && "$build_prefix" != "$prefix" ]] &&
  fail "make install PREFIX=$prefix also installed under the build's prefix $build_prefix"
installed() { case $1 in /*) echo "$work/dest$1" ;; *) echo "$work/dest$prefix/$1" ;; esac; }
bin="$(installed "${CANDOR_BINDIR:?}")/candor"
man="$(installed "${CANDOR_MANDIR:?}")/man1/candor.1"
completion="$(installed "${CANDOR_DATADIR:?}")/bash-completion/completions/candor"
for f in "$bin" "$man" "$completion"; do
  [[ -f "$f" ]] || fail "not installed: ${f#"$work/dest"}"
done
# The JSON Schemas (docs/schemas.md), as shipped, and as the installed binary prints them.
schemas="$(installed "${CANDOR_DATADIR:?}")/candor/schemas"
for name in config plan report script; do
  cmp -s "$schemas/$name.schema.json" "$src/share/candor/schemas/$name.schema.json" ||
    fail "not installed as shipped: ${schemas#"$work/dest"}/$name.schema.json"
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
# The sections a man page is expected to have, each with its entries (issue 42).
for section in "EXIT STATUS" "ENVIRONMENT" "FILES"; do
  grep -q "^\.SH $section\$" "$man" || fail "the man page has no $section section"
done
for code in 0 1 2 3 64 65 69 70 73 77 130; do
  sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' "$man" | grep -qxF "\\fB$code\\fR" || fail "EXIT STATUS does not list $code"
done
for name in CANDOR_HOME CANDOR_LLM NO_COLOR; do
  sed -n '/^\.SH ENVIRONMENT/,/^\.SH /p' "$man" | grep -q "$name" || fail "ENVIRONMENT does not name $name"
done
if command -v groff >/dev/null; then
  warnings=$(groff -man -ww -z "$man" 2>&1)
  [[ -z "$warnings" ]] || fail "groff warns about the man page: $warnings"
else
  echo "groff not installed: the man page's roff was not checked"
fi

# The README's quick start, run as written against the installed binary, in a store of its own.
quick=$(sed -n '/^<!-- quick-start -->$/,/^<!-- \/quick-start -->$/p' "$src/README.md" | sed '1,2d;$d' | sed '$d')
[[ $(wc -l <<<"$quick") -ge 8 ]] || fail "the README has no quick start between <!-- quick-start --> markers"
quick_out=$(cd "$work" && TMPDIR="$work" PATH="$(dirname "$bin"):/usr/bin:/bin" CANDOR_HOME="$work/quick-store" HOME="$work" \
  bash -euo pipefail -c "$quick" 2>&1) || fail "the README's quick start failed: $quick_out"
grep -q '^SUCCESS  Make the background dark green' <<<"$quick_out" || fail "quick start: no SUCCESS first: $quick_out"
grep -q '^undid run .*: 1 restored' <<<"$quick_out" || fail "quick start: the undo did not restore style.css: $quick_out"
grep -q '^PARTIAL  Make the background dark green' <<<"$quick_out" || fail "quick start: no PARTIAL last: $quick_out"
grep -q '^exit 1$' <<<"$quick_out" || fail "quick start: the last exec did not exit 1: $quick_out"

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
# Enumerated values, a nested command's too (gate install --agent), and --color after any command.
expect_completion "claude-code codex " candor gate install --agent ""
expect_completion "always auto " candor report --color a
expect_completion "always auto never " candor --color ""
# An example in a positional's help text is no list of values: `candor assert <TAB>` offers files.
expect_completion "" candor assert ""
expect_completion "" candor run -C ""   # a folder: bash's own file completion (-o default)
expect_completion "config " candor schema c   # a positional's listed values

# The sanitizer runtimes the installed libcandor links (ASan, UBSan); "" for an ordinary build.
sanitizer_runtime() {
  ldd "$1"/libcandor.so 2>/dev/null | awk '/lib(asan|ubsan)\.so/ { printf "%s%s", sep, $3; sep = ":" }'
}

# libcandor, used the way a program that embeds it would: pkg-config, the installed headers only.
libdir="$(installed "${CANDOR_LIBDIR:?}")"
includedir="$(installed "${CANDOR_INCLUDEDIR:?}")"
pc="$libdir/pkgconfig/candor.pc"
[[ -f "$libdir/libcandor.so" ]] || fail "not installed: ${libdir#"$work/dest"}/libcandor.so"
[[ -f "$includedir/candor/candor.h" ]] || fail "not installed: ${includedir#"$work/dest"}/candor/candor.h"
[[ -f "$pc" ]] || fail "not installed: ${pc#"$work/dest"}"
if [[ -f "$pc" ]]; then
  grep -q '^Requires: nlohmann_json' "$pc" || fail "candor.pc does not make nlohmann_json public: $(grep Requires "$pc")"
  pkg() { PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --define-variable=prefix="$work/dest$prefix" "$@" candor; }
  [[ "$(pkg --modversion)" == "$version" ]] || fail "pkg-config --modversion candor gave '$(pkg --modversion)', expected $version"
  # The headers are included as <candor/X.h>: the include root is what pkg-config gives, not a
  # folder below it (a prefix outside the compiler's own search path would not find them).
  [[ " $(pkg --cflags) " == *" -I$includedir "* ]] || fail "pkg-config --cflags candor does not give -I$includedir: $(pkg --cflags)"
  # The installed headers are the API's own: candor/*.h, each compiling alone, and what they
  # include is one another, the C++ library and nlohmann_json (no header of candor's inside).
  stray=$(cd "$includedir" && find . -type f ! -path './candor/*.h' | sort)
  [[ -z "$stray" ]] || fail "installed beside the API's headers: $stray"
  headers=$(cd "$includedir" && ls candor/*.h 2>/dev/null | wc -l)
  [[ "$headers" -ge 5 ]] || fail "only $headers public headers installed under ${includedir#"$work/dest"}/candor"
  for h in "$includedir"/candor/*.h; do
    name=candor/$(basename "$h")
    # shellcheck disable=SC2046
    if ! echo "#include <$name>" | c++ -std=c++20 -fsyntax-only -Wall -Wextra -Wpedantic -Werror -x c++ - \
        $(pkg --cflags) 2>"$work/alone.log"; then
      cat "$work/alone.log"
      fail "$name does not compile alone against the installed tree"
    fi
    # shellcheck disable=SC2046
    deps=$(echo "#include <$name>" | c++ -std=c++20 -M -x c++ - $(pkg --cflags) 2>/dev/null | tr ' \\' '\n\n' |
      grep '\.h' | grep -v "^$includedir/candor/" |
      grep -E "^$src/|/candor/|/(git2|curl|re2|fmt|CLI|openssl)/|/(git2|sqlite3|seccomp|zlib)\.h" || true)
    [[ -z "$deps" ]] || fail "$name reaches headers that are not the API's: $deps"
  done
  # Compiled from a copy outside the source tree, with no -I of it: a header the umbrella needs but
  # the install left out fails here.
  cp "$src/examples/embed/embed.cc" "$work/embed.cc"
  # shellcheck disable=SC2046  # pkg-config's words are separate arguments
  if ! (cd "$work" && c++ -std=c++20 embed.cc $(pkg --cflags --libs) -o embed 2>"$work/embed-build.log"); then
    cat "$work/embed-build.log"
    fail "examples/embed does not compile against the installed libcandor"
  # A libcandor built with sanitizers (make sanitize) cannot run in a program built without them (the
  # runtime must come first; preloaded, it reaches the sandboxed children too): compiled, not run.
  elif [[ -n "$(sanitizer_runtime "$libdir")" ]]; then
    echo "embed: compiled; not run against a libcandor built with sanitizers"
  elif ! LD_LIBRARY_PATH="$libdir" "$work/embed" >"$work/embed.log" 2>&1; then
    cat "$work/embed.log"
    fail "examples/embed did not run a plan and cancel a run"
  else
    grep -q '^run 1: .*verdict success' "$work/embed.log" || fail "embed: run 1 was not success: $(cat "$work/embed.log")"
    grep -q 'event [0-9]* tool_called' "$work/embed.log" || fail "embed: the observer printed no tool_called event"
    grep -q '^run 2: .*cancelled after' "$work/embed.log" || fail "embed: run 2 was not cancelled: $(cat "$work/embed.log")"
  fi
fi

if [[ $failures -ne 0 ]]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "installed and checked: bin/candor, man1/candor.1, bash-completion/completions/candor, libcandor (embed: ok)"
