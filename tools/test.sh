#!/usr/bin/env bash
# Sets up (tools/setup.sh), checks the C++ formatting (tools/check_format.sh)
# and runs the whole test suite through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
bash tools/check_format.sh
ctest --test-dir build --output-on-failure --parallel "$(nproc)"
