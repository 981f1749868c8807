#!/usr/bin/env bash
# Sets up (tools/setup.sh) and runs glsurf's main job on the bundled images.
# The OpenGL context report; matching of the bundled pairs on the GPU (graf1 ->
# graf3 against its ground-truth homography, box -> box_in_scene), with
# match lists, homographies and pictures in out/; keypoints and descriptors
# of the bundled images from both backends; then the multi-view job: a
# rendered 10-view scene into a COLMAP database (out/scene.db), colmap
# mapper, and the cameras against the truth.
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
echo
tools/render_scene.py out/scene >/dev/null
rm -f out/scene.db
./build/glsurf detect out/scene/images --database out/scene.db --single-camera
./build/glsurf match --database out/scene.db --pairs exhaustive
rm -rf out/sparse && mkdir -p out/sparse
colmap mapper --database_path out/scene.db --image_path out/scene/images --output_path out/sparse \
  --Mapper.num_threads "$(nproc)" >out/mapper.log 2>&1
tools/compare_poses.py out/scene/poses.txt out/sparse | tail -4
echo "matches, homographies and pictures in out/; keypoints and descriptors in out/gl and out/cpu;"
echo "the scene's database and reconstruction in out/scene.db and out/sparse"
