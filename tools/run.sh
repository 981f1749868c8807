#!/usr/bin/env bash
# Sets up (tools/setup.sh) and runs glsurf's main job on the bundled images.
# For now: the OpenGL context report, SURF keypoints of the bundled images
# (GPU and CPU reference), and the integral-image benchmark on
# assets/graf1.png; description and matching join as they land.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
./build/glsurf info
echo
mkdir -p out
./build/glsurf detect assets -o out/gl
./build/glsurf detect assets -o out/cpu --backend cpu
echo "keypoints written to out/gl/*.txt and out/cpu/*.txt"
echo
./build/glsurf bench integral "$@"
