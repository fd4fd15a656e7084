#!/usr/bin/env bash
# The C++ sources as .clang-format writes them. Checks only (CI); `--fix` rewrites them in place.
# Debian 12's clang-format (14) is the one the tree is formatted with: another version may place a
# line break elsewhere, so the check says which version it ran.
#   scripts/format_check.sh [--fix]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh clang-format
mapfile -t files < <(git ls-files '*.cc' '*.h' | grep -v -e '^tests/data/' -e '^subprojects/')
if [[ "${1:-}" == "--fix" ]]; then
  clang-format -i "${files[@]}"
  exit 0
fi
unformatted=()
for f in "${files[@]}"; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || unformatted+=("$f")
done
if [[ ${#unformatted[@]} -ne 0 ]]; then
  echo "format: ${#unformatted[@]} of ${#files[@]} files differ from what $(clang-format --version | head -1) writes:"
  printf '  %s\n' "${unformatted[@]}"
  echo "fix with: scripts/format_check.sh --fix"
  exit 1
fi
echo "format: ${#files[@]} files as .clang-format writes them ($(clang-format --version | head -1))"
