#!/usr/bin/env bash
# Sets up (tools/setup.sh) and runs glsurf's main job on the bundled images.
# The OpenGL context report; matching of the bundled pairs on the GPU (graf1 ->
# graf3 against its ground-truth homography, box -> box_in_scene), with
# match lists, homographies and pictures in out/; keypoints and descriptors
# of the bundled images from both backends.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
./build/glsurf info
echo
mkdir -p out
./build/glsurf match -o out/graf_matches.txt --homography out/graf_H.txt --draw out/graf_matches.png "$@"
./build/glsurf match assets/box.png assets/box_in_scene.png -o out/box_matches.txt \
  --homography out/box_H.txt --draw out/box_matches.png "$@"
echo
./build/glsurf detect assets -o out/gl
./build/glsurf detect assets -o out/cpu --backend cpu
echo "matches, homographies and pictures in out/; keypoints and descriptors in out/gl and out/cpu"
