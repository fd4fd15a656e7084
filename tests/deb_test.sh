#!/usr/bin/env bash
# `make deb` builds candor_VERSION_ARCH.deb, and the package installs and runs without touching this
# machine's system: dpkg-deb -I's fields (Package candor, Version equal to `candor --version`,
# Architecture this machine's, Depends naming libc6 and libgit2), the files it holds (the binary,
# the man page compressed, the bash completion, the schemas, libcandor and its headers, candor.pc
# with prefix /usr), then `dpkg --root` into a scratch root (its own dpkg database): the installed
# `candor --version` and `candor schema config` (byte for byte the shipped file), and `dpkg --root
# -r` removes every file again. Exit 77 (skipped) without dpkg-deb.
#   deb_test.sh BUILD_DIR   (env: CANDOR_SOURCE_ROOT, CANDOR_VERSION)
set -euo pipefail
build=${1:?} src=${CANDOR_SOURCE_ROOT:?} version=${CANDOR_VERSION:?}
for tool in dpkg-deb dpkg make; do
  command -v "$tool" >/dev/null || { echo "$tool not installed: skipped"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

if ! make -C "$src" --no-print-directory deb BUILD="$build" DEB_DIR="$work" >"$work/make.log" 2>&1; then
  cat "$work/make.log"
  echo "FAIL: make deb failed"
  exit 1
fi
arch=$(dpkg --print-architecture)
deb="$work/candor_${version}_${arch}.deb"
[[ -f "$deb" ]] || { ls "$work"; echo "FAIL: make deb made no $(basename "$deb")"; exit 1; }
echo "package: $(basename "$deb"), $(stat -c %s "$deb") bytes"

field() { dpkg-deb -f "$deb" "$1"; }
[[ $(field Package) == candor ]] || fail "Package is '$(field Package)'"
[[ $(field Version) == "$version" ]] || fail "Version is '$(field Version)', expected $version"
[[ $(field Architecture) == "$arch" ]] || fail "Architecture is '$(field Architecture)', expected $arch"
depends=$(field Depends)
[[ -n "$depends" ]] || fail "Depends is empty"
for lib in libc6 libgit2 libcurl libpq5; do
  [[ "$depends" == *"$lib"* ]] || fail "Depends does not name $lib: $depends"
done
[[ "$depends" != *libcandor* ]] || fail "Depends names the package's own library: $depends"
[[ $(field Description) == "verifies whether an LLM agent did the job"* ]] || fail "Description: $(field Description)"

dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./||' >"$work/files"
for f in usr/bin/candor usr/share/man/man1/candor.1.gz usr/share/bash-completion/completions/candor \
  usr/share/candor/schemas/config.schema.json usr/share/candor/schemas/plan.schema.json \
  usr/share/candor/schemas/report.schema.json usr/share/candor/schemas/script.schema.json \
  usr/include/candor/candor.h; do
  grep -qx "$f" "$work/files" || fail "the package has no $f"
done
grep -Eq '^usr/lib/([^/]+/)?libcandor\.so\.0$' "$work/files" || fail "the package has no libcandor.so.0"
grep -q '^usr/local' "$work/files" && fail "the package installs under /usr/local"
owners=$(dpkg-deb -c "$deb" | awk '$2 != "root/root"')
[[ -z "$owners" ]] || fail "files not owned by root: $owners"

# Unpacked: the pkg-config file points at /usr.
dpkg-deb -x "$deb" "$work/x"
pc=$(find "$work/x/usr/lib" -name candor.pc | head -1)
[[ -n "$pc" ]] && grep -qx 'prefix=/usr' "$pc" || fail "candor.pc's prefix is not /usr: $(grep '^prefix' "$pc" 2>/dev/null)"
file "$work/x/usr/bin/candor" 2>/dev/null | grep -q 'not stripped' && fail "the binary is not stripped"

# Installed by dpkg itself, into a root of its own (its dependencies are this machine's).
root="$work/root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
if ! dpkg --root="$root" --force-not-root --force-depends --force-script-chrootless -i "$deb" >"$work/dpkg.log" 2>&1; then
  cat "$work/dpkg.log"
  fail "dpkg --root -i failed"
else
  got=$("$root/usr/bin/candor" --version)
  [[ "$got" == "candor $version" ]] || fail "the installed candor --version printed '$got'"
  "$root/usr/bin/candor" schema config >"$work/config.schema.json" || fail "the installed candor schema config failed"
  cmp -s "$work/config.schema.json" "$src/share/candor/schemas/config.schema.json" ||
    fail "the installed candor schema config differs from share/candor/schemas/config.schema.json"
  cmp -s "$root/usr/share/candor/schemas/config.schema.json" "$src/share/candor/schemas/config.schema.json" ||
    fail "the installed config.schema.json differs from the source's"
  dpkg --root="$root" --force-not-root -s candor | grep -q '^Status: install ok installed' || fail "dpkg does not list candor as installed"
  dpkg --root="$root" --force-not-root --force-script-chrootless -r candor >>"$work/dpkg.log" 2>&1 || fail "dpkg --root -r failed"
  left=$(find "$root/usr" -type f 2>/dev/null | head -3 || true)
  [[ -z "$left" ]] || fail "files left after dpkg -r: $left"
fi

echo "$failures failure(s)"
[[ $failures -eq 0 ]]
