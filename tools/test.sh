#!/usr/bin/env bash
# Sets up (tools/setup.sh) and runs the whole test suite through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
ctest --test-dir build --output-on-failure --parallel "$(nproc)"
