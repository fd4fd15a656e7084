#!/usr/bin/env bash
# install_agents.sh DEST — install the real Claude Code and Codex CLI, pinned,
# into DEST (an npm prefix), for candor's end-to-end gate tests (issue 26).
#
# Written for the candor project.  Nothing is vendored: the packages are
# fetched from the npm registry at install time.
#   @anthropic-ai/claude-code  proprietary, "© Anthropic PBC. All rights
#                              reserved", see its LICENSE.md / README.md;
#                              a native binary shipped in the platform package
#                              @anthropic-ai/claude-code-<os>-<arch>[-musl].
#   @openai/codex              Apache-2.0; a Node launcher (bin/codex.js) plus
#                              a native binary in @openai/codex-<os>-<arch>
#                              (published as @openai/codex@<ver>-<os>-<arch>).
#
# Output on success (stdout, one per line, machine-readable):
#   CLAUDE_BIN=<DEST>/node_modules/.bin/claude      (native ELF after postinstall)
#   CODEX_BIN=<DEST>/node_modules/.bin/codex        (node launcher; needs node >= 16)
#   CLAUDE_VERSION=2.1.332
#   CODEX_VERSION=0.169.0
# Progress and warnings go to stderr.
#
# Exit codes: 0 installed (or already installed), 77 cannot install here
# (no node/npm, registry unreachable, npm install failing on this machine) — the test suite reports the agent tests
# as skipped, 1 a pin the registry does not have, 64 usage.
#
# Idempotent: when DEST already holds both pinned versions and both binaries
# answer --version, npm is not run at all (so a second run works offline).
#
# Environment: CANDOR_CLAUDE_CODE_VERSION / CANDOR_CODEX_VERSION override the
# pins; NPM (default: npm); INSTALL_TIMEOUT seconds for npm install (600).

set -u
set -o pipefail

CLAUDE_CODE_VERSION="${CANDOR_CLAUDE_CODE_VERSION:-2.1.332}"
CODEX_VERSION="${CANDOR_CODEX_VERSION:-0.169.0}"
NPM="${NPM:-npm}"
INSTALL_TIMEOUT="${INSTALL_TIMEOUT:-600}"

say()  { printf 'install_agents: %s\n' "$*" >&2; }
skip() { say "SKIP: $*"; exit 77; }
die()  { say "ERROR: $*"; exit 1; }

if [ $# -ne 1 ] || [ -z "$1" ]; then
    echo "usage: install_agents.sh DEST" >&2
    exit 64
fi
mkdir -p "$1" || die "cannot create $1"
DEST="$(cd "$1" && pwd)" || die "cannot enter $1"

CLAUDE_BIN="$DEST/node_modules/.bin/claude"
CODEX_BIN="$DEST/node_modules/.bin/codex"

# The version a package.json under DEST declares, or nothing.
pkg_version() {
    local f="$DEST/node_modules/$1/package.json"
    [ -f "$f" ] || return 0
    sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$f" | head -n 1
}

# Does the binary answer --version with the expected version (first word)?
bin_ok() {  # bin expected
    [ -x "$1" ] || return 1
    local out
    out="$(timeout 30 "$1" --version 2>/dev/null)" || return 1
    case "$out" in *"$2"*) return 0 ;; *) return 1 ;; esac
}

# Claude Code's postinstall copies the native binary over the bin/claude.exe
# placeholder (a 500-byte shell stub that prints "claude native binary not
# installed").  When install scripts did not run (npm --ignore-scripts, or a
# future npm that blocks unapproved scripts) fall back to the platform
# package's binary directly.
claude_fallback() {
    local p
    for p in linux-x64 linux-arm64 linux-x64-musl linux-arm64-musl darwin-arm64 darwin-x64; do
        if [ -x "$DEST/node_modules/@anthropic-ai/claude-code-$p/claude" ] &&
           bin_ok "$DEST/node_modules/@anthropic-ai/claude-code-$p/claude" "$CLAUDE_CODE_VERSION"; then
            CLAUDE_BIN="$DEST/node_modules/@anthropic-ai/claude-code-$p/claude"
            return 0
        fi
    done
    return 1
}

installed_ok() {
    [ "$(pkg_version @anthropic-ai/claude-code)" = "$CLAUDE_CODE_VERSION" ] || return 1
    [ "$(pkg_version @openai/codex)" = "$CODEX_VERSION" ] || return 1
    bin_ok "$CLAUDE_BIN" "$CLAUDE_CODE_VERSION" || claude_fallback || return 1
    bin_ok "$CODEX_BIN" "$CODEX_VERSION" || return 1
}

report() {
    printf 'CLAUDE_BIN=%s\nCODEX_BIN=%s\nCLAUDE_VERSION=%s\nCODEX_VERSION=%s\n' \
        "$CLAUDE_BIN" "$CODEX_BIN" "$CLAUDE_CODE_VERSION" "$CODEX_VERSION"
}

# Codex's launcher is a Node script; npm itself needs node.
command -v node >/dev/null 2>&1 || skip "node not found (Debian: apt-get install -y nodejs npm)"

if installed_ok; then
    say "already installed in $DEST"
    report
    exit 0
fi

command -v "$NPM" >/dev/null 2>&1 || skip "npm not found (Debian: apt-get install -y nodejs npm)"

# Reachability first: `npm ping` (GET <registry>/-/ping).  Any failure here —
# no route, DNS, refused, a timeout, or a filtering proxy answering 404 —
# means "cannot install here" (77).  Few retries, so an offline machine
# answers in seconds instead of npm's default minute of back-off.
NPM_NET=(--fetch-retries=1 --fetch-timeout=20000)
if ! out="$(timeout 60 "$NPM" ping "${NPM_NET[@]}" 2>&1)"; then
    skip "npm registry unreachable: $(printf '%s' "$out" | grep -m1 -E 'error (code|network)|ERR' || echo 'npm ping failed')"
fi

# Then the pins: a version the registry does not have is an error in this
# script (1), not a reason to skip.  (`npm view pkg@missing version` prints
# nothing and exits 0.)
check_pin() {  # spec
    local out rc
    out="$(timeout 90 "$NPM" view "${NPM_NET[@]}" "$1" version 2>&1)"; rc=$?
    if [ $rc -eq 0 ] && [ -n "$out" ]; then return 0; fi
    if [ $rc -eq 0 ] || printf '%s' "$out" | grep -qE 'E404|ETARGET'; then
        die "no such version on the registry: $1"
    fi
    [ $rc -eq 124 ] && skip "npm registry unreachable (timed out asking for $1)"
    skip "npm registry unreachable: $(printf '%s' "$out" | grep -m1 -E 'error code|ERR' || echo "npm view exit $rc")"
}
check_pin "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION"
check_pin "@openai/codex@$CODEX_VERSION"

say "installing @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION @openai/codex@$CODEX_VERSION into $DEST"
# --engine-strict=false: Claude Code declares node >= 22, but the package only
# uses node for its postinstall copy step (CommonJS: works on node 20 here, and Debian 12's node 18
# has every API it uses); the
# CLI itself is a native binary.  --save-exact keeps DEST/package.json pinned.
log="$DEST/install_agents.log"
if ! timeout "$INSTALL_TIMEOUT" "$NPM" install --prefix "$DEST" --no-audit --no-fund \
        --save-exact --engine-strict=false --loglevel=warn \
        "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" "@openai/codex@$CODEX_VERSION" \
        >"$log" 2>&1; then
    tail -n 20 "$log" >&2
    if grep -qE 'ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|network' "$log"; then
        skip "npm registry unreachable during install (see $log)"
    fi
    # This machine cannot install them (its node, npm or libc): the cases are reported skipped,
    # by name, on the test summary's last line, never passed. A missing pin is caught above (1).
    skip "npm install failed here (see $log)"
fi

if ! installed_ok; then
    tail -n 20 "$log" >&2
    skip "installed, but the binaries do not answer --version as expected here (see $log)"
fi
say "done"
report
exit 0
