#!/usr/bin/env bash
# Builds the Debian package candor_VERSION_ARCH.deb from a built tree, without root:
#   scripts/make-deb.sh [BUILD [OUTDIR]]     (defaults: build, BUILD)
# The build installed under /usr in a staging root (scripts/install-relocated.sh: the build
# folder is not reconfigured), the man page compressed as Debian does, a control file whose Depends
# come from the binary's and the library's shared libraries (dpkg-shlibdeps when dpkg-dev is
# installed, else each library's package as `dpkg -S` names it), then dpkg-deb --root-owner-group.
# Prints the package's path.
set -euo pipefail
build=${1:-build}
out=${2:-$build}
src=$(cd "$(dirname "$0")/.." && pwd)
[[ -x "$build/cli/candor" ]] || { echo "make-deb: $build/cli/candor is not built (make build)" >&2; exit 1; }
for tool in dpkg-deb dpkg python3; do
  command -v "$tool" >/dev/null || { echo "make-deb: $tool not found (a Debian system's dpkg)" >&2; exit 1; }
done
version=$("$build/cli/candor" --version | awk '{print $2}')
arch=$(dpkg --print-architecture)
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d "$out/deb-stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT
root="$stage/root"

"$src/scripts/install-relocated.sh" "$build" /usr "$root" --strip
find "$root/usr/share/man" -type f -name '*.[0-9]' -exec gzip -9n {} +
doc="$root/usr/share/doc/candor"
mkdir -p "$doc"
printf 'candor %s: verifies whether an LLM agent did the job.\nSource: the candor repository (README.md, docs/).\n' \
  "$version" >"$doc/README.Debian"

# Depends: what the ELF files in the package link.
mapfile -t elves < <(find "$root" -type f \( -perm -u+x -o -name '*.so*' \) -exec sh -c \
  'head -c 4 "$1" | grep -q "ELF" && echo "$1"' _ {} \;)
depends=
if command -v dpkg-shlibdeps >/dev/null; then
  mkdir -p "$stage/shlibs/debian"
  printf 'Source: candor\n\nPackage: candor\nArchitecture: any\n' >"$stage/shlibs/debian/control"
  depends=$(cd "$stage/shlibs" && dpkg-shlibdeps -O -l"$root/usr/lib" "${elves[@]}" 2>"$stage/shlibdeps.log" |
    sed -n 's/^shlibs:Depends=//p') || true
fi
if [[ -z "$depends" ]]; then
  # Each library the ELF files need, by the package that installed it (as installed: >= its version).
  depends=$(for f in "${elves[@]}"; do objdump -p "$f" | awk '/NEEDED/ {print $2}'; done | sort -u |
    grep -v '^libcandor' | while read -r lib; do
      path=$(ldconfig -p | awk -v l="$lib" '$1 == l {print $NF; exit}')
      [[ -n "$path" ]] || continue
      pkg=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -1 | cut -d: -f1) || pkg=$(dpkg -S "$path" | head -1 | cut -d: -f1)
      [[ -n "$pkg" ]] && echo "$pkg (>= $(dpkg-query -W -f='${Version}' "$pkg" | sed 's/-[^-]*$//'))"
    done | sort -u | paste -sd, | sed 's/,/, /g')
fi
[[ -n "$depends" ]] || { echo "make-deb: no Depends could be computed" >&2; cat "$stage/shlibdeps.log" >&2 2>/dev/null; exit 1; }

mkdir -p "$root/DEBIAN"
cat >"$root/DEBIAN/control" <<CONTROL
Package: candor
Version: $version
Architecture: $arch
Maintainer: candor developers <candor@localhost>
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Section: devel
Priority: optional
Description: verifies whether an LLM agent did the job
 candor runs natural-language modification goals over a workspace, or verifies a change
 another agent made (a pull request, a commit range), and reports honestly whether the goal
 was achieved: snapshots, assertions, a deterministic verdict and, when unsure, an LLM judge.
 Includes the candor command, its man page and bash completion, the JSON Schemas of its files,
 and libcandor with its headers and pkg-config file.
CONTROL
deb="$out/candor_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
