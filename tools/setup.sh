#!/usr/bin/env bash
# Installs glsurf's build and test dependencies (Debian 12, as root) and builds it.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
mapfile -t packages < tools/packages.txt
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  apt-get update
  apt-get install -y --no-install-recommends "${missing[@]}"
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DGLSURF_PYTHON=ON
cmake --build build -j"$(nproc)"
