#!/usr/bin/env bash
# Fails, naming the files, when a tracked C++ file differs from what
# clang-format (Debian's, with .clang-format) makes of it. `clang-format -i`
# on the named files fixes them.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check_format: clang-format is not installed (tools/packages.txt)"; exit 1; }
mapfile -t files < <(git ls-files '*.cpp' '*.hpp')
bad=()
for f in "${files[@]}"; do
  clang-format --style=file "$f" | cmp -s - "$f" || bad+=("$f")
done
if ((${#bad[@]})); then
  echo "check_format: not formatted by $(clang-format --version | head -1): ${bad[*]}"
  exit 1
fi
echo "check_format: ${#files[@]} C++ files formatted"
