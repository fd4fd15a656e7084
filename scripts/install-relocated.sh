#!/usr/bin/env bash
# Installs a built tree under PREFIX, inside DESTDIR when one is given, without reconfiguring the
# build folder (`make install PREFIX=...` and `make deb` both come here):
#   scripts/install-relocated.sh BUILD PREFIX [DESTDIR] [--strip]
# `meson install --destdir` into a staging folder at the build's own prefix, then copied to PREFIX.
# No file of candor's depends on the prefix but candor.pc, whose prefix= is rewritten (the binary
# links libcandor statically and embeds its schemas); what meson installs outside the prefix (an
# absolute option) is copied as it is.
set -euo pipefail
build=${1:?usage: install-relocated.sh BUILD PREFIX [DESTDIR] [--strip]}
target=${2:?usage: install-relocated.sh BUILD PREFIX [DESTDIR] [--strip]}
destdir=${3:-}
strip=()
[[ ${4:-} == --strip ]] && strip=(--strip)
[[ $target == /* ]] || { echo "install-relocated: PREFIX must be absolute, got '$target'" >&2; exit 1; }
[[ -f "$build/meson-info/intro-buildoptions.json" ]] || { echo "install-relocated: $build is not a meson build folder" >&2; exit 1; }
prefix=$(python3 -c 'import json, sys; print(next(o["value"] for o in json.load(open(sys.argv[1])) if o["name"] == "prefix"))' \
  "$build/meson-info/intro-buildoptions.json")
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
meson install -C "$build" --no-rebuild "${strip[@]}" --quiet --destdir "$stage/dest" >"$stage/install.log" 2>&1 ||
  { cat "$stage/install.log" >&2; exit 1; }
mkdir -p "$destdir$target"
if [[ -d "$stage/dest$prefix" ]]; then
  cp -a "$stage/dest$prefix/." "$destdir$target/"
  rm -rf "${stage:?}/dest$prefix"
fi
# What lies outside the build's prefix, as meson put it (nothing, unless an option is absolute).
find "$stage/dest" -depth -type d -empty -delete 2>/dev/null || true
[[ -d "$stage/dest" ]] && cp -a "$stage/dest/." "${destdir:-/}"
find "$destdir$target" -name candor.pc -exec sed -i "s|^prefix=.*|prefix=$target|" {} +
