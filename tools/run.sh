#!/usr/bin/env bash
# Sets up (tools/setup.sh) and runs glsurf's main job on the bundled images.
# For now: the OpenGL context report and the integral-image benchmark on
# assets/graf1.png; detection and matching replace it as they land.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
./build/glsurf info
echo
./build/glsurf bench integral "$@"
