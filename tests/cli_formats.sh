#!/bin/sh
# The feature and match files for other tools, read back by those tools
# (tests/formats_check.py): detect/describe --format opencv|colmap|lowe and
# match --format opencv|colmap, against glsurf's own bin and text files of
# the same run, exactly. Usage:
#   cli_formats.sh opencv GLSURF ASSETS [OPENCV_READ_FEATURES]   cv2.FileStorage (and OpenCV's
#                                                                C++ cv::read, when built)
#   cli_formats.sh colmap GLSURF ASSETS     colmap feature_importer and matches_importer
#   cli_formats.sh lowe GLSURF ASSETS       an independent reader; the usage errors
# Exit: 0 pass, 1 fail, 77 skip (opencv: no python3 with cv2; colmap: no colmap).
mode=$1
shift
opencv_reader=${3:-}
. "$(dirname "$0")/cli_common.sh"
check=$(dirname "$0")/formats_check.py

# The first python3 with what the mode needs (the one on PATH may lack numpy and cv2).
need=sqlite3
[ "$mode" = opencv ] && need="numpy, cv2"
. "$(dirname "$0")/../tools/find_python.sh"
if ! find_python "$need"; then
  [ "$mode" = opencv ] && { echo "skipped: no python3 with numpy and cv2 (apt-get install python3-opencv)"; exit 77; }
  fail "no python3 with sqlite3"
fi
# The CPU reference: the same keypoints in the same order in every run.
detect() { "$glsurf" detect --backend cpu "$@" 2>"$work/detect.log" || fail "detect $*: $(cat "$work/detect.log")"; }
match() { "$glsurf" match --backend cpu "$@" >"$work/match.log" 2>&1 || fail "match $*: $(cat "$work/match.log")"; }
# usage_error WORDS...: glsurf WORDS exits 2 with one line.
usage_error() {
  err=$("$glsurf" "$@" 2>&1 </dev/null)
  status=$?
  [ $status -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "glsurf $* (exit $status): $err"
  echo "ok: usage error: $err"
}

case $mode in
opencv)
  detect "$assets/box.png" -o "$work/box.bin"
  detect "$assets/box.png" -o "$work/box.txt"
  detect "$assets/box.png" -o "$work/box.yml"
  detect "$assets/box.png" -o "$work/box.XML"
  "$glsurf" detect "$assets/box.png" -o "$work/box.dat" --format opencv 2>/dev/null && fail "--format opencv -o box.dat was taken"
  detect "$assets/box.png" --format opencv >"$work/stdout.yaml"
  cmp -s "$work/box.yml" "$work/stdout.yaml" || fail "standard output is not the YAML file"
  "$python" "$check" opencv-features "$work/box.bin" "$work/box.yml" "$work/box.XML" || exit 1
  # 128 values, upright (angle 0), and a batch: one NAME.yml per image.
  detect "$assets/box.png" --extended --upright -o "$work/e.bin"
  detect "$assets/box.png" "$assets/box_in_scene.png" --extended --upright --format opencv -o "$work/batch"
  [ "$(ls "$work/batch")" = "$(printf 'box.yml\nbox_in_scene.yml')" ] || fail "batch files: $(ls "$work/batch")"
  "$python" "$check" opencv-features "$work/e.bin" "$work/batch/box.yml" || exit 1
  # OpenCV's C++ reader, where it was built: its keypoints and descriptors,
  # printed as glsurf's txt, are detect's txt byte for byte.
  if [ -n "$opencv_reader" ]; then
    for file in box.yml box.XML; do
      "$opencv_reader" "$work/$file" >"$work/cpp.txt" || fail "OpenCV's C++ reader on $file"
      cmp -s "$work/cpp.txt" "$work/box.txt" || fail "cv::read of $file differs from the txt file"
    done
    echo "ok: cv::read (C++) loads box.yml and box.XML as detect's txt, byte for byte"
  else
    echo "note: OpenCV's C++ reader not built (no libopencv-dev): cv2 only"
  fi
  # Matches: cv::DMatch (queryIdx trainIdx imgIdx distance) and the inlier flags.
  match "$assets/box.png" "$assets/box_in_scene.png" -o "$work/m.txt"
  match "$assets/box.png" "$assets/box_in_scene.png" -o "$work/m.yaml"
  match "$assets/box.png" "$assets/box_in_scene.png" -o "$work/m.xml" --format opencv
  "$python" "$check" opencv-matches "$work/m.txt" "$work/m.yaml" "$work/m.xml" || exit 1
  ;;
colmap)
  command -v colmap >/dev/null || { echo "skipped: colmap not found (apt-get install colmap)"; exit 77; }
  mkdir "$work/images"
  cp "$assets/box.png" "$assets/box_in_scene.png" "$work/images/"
  # A batch: IMAGE_NAME.txt per image, as COLMAP's feature_importer looks for them.
  detect "$work/images" -o "$work/features" --format colmap
  detect "$work/images" -o "$work/bin" --format bin
  [ "$(ls "$work/features")" = "$(printf 'box.png.txt\nbox_in_scene.png.txt')" ] ||
    fail "feature files: $(ls "$work/features")"
  colmap feature_importer --database_path "$work/db" --image_path "$work/images" \
    --import_path "$work/features" >"$work/import.log" 2>&1 || fail "feature_importer: $(tail -5 "$work/import.log")"
  for image in box box_in_scene; do
    "$python" "$check" colmap-features "$work/db" "$image.png" "$work/bin/$image.bin" \
      "$work/features/$image.png.txt" || exit 1
  done
  # 128 values are written as they are: one image, -o NAME.txt.
  detect "$assets/box.png" --extended -o "$work/e.bin"
  mkdir "$work/e" "$work/e_images"
  cp "$assets/box.png" "$work/e_images/"
  detect "$assets/box.png" --extended --format colmap -o "$work/e/box.png.txt"
  colmap feature_importer --database_path "$work/e.db" --image_path "$work/e_images" \
    --import_path "$work/e" >"$work/import.log" 2>&1 || fail "feature_importer (128): $(tail -5 "$work/import.log")"
  "$python" "$check" colmap-features "$work/e.db" box.png "$work/e.bin" "$work/e/box.png.txt" || exit 1
  # The match list: the images' names, a line "i j" per match, a blank line.
  match "$work/images/box.png" "$work/images/box_in_scene.png" -o "$work/m.txt"
  match "$work/images/box.png" "$work/images/box_in_scene.png" -o "$work/list.txt" --format colmap
  colmap matches_importer --database_path "$work/db" --match_list_path "$work/list.txt" --match_type raw \
    --SiftMatching.use_gpu 0 >"$work/import.log" 2>&1 || fail "matches_importer: $(tail -5 "$work/import.log")"
  "$python" "$check" colmap-matches "$work/db" "$work/list.txt" "$work/m.txt" || exit 1
  ;;
lowe)
  detect "$assets/box.png" -o "$work/box.bin"
  detect "$assets/box.png" -o "$work/box.key"
  "$python" "$check" lowe "$work/box.bin" "$work/box.key" || exit 1
  detect "$assets/box.png" --extended -o "$work/e.bin"
  detect "$assets/box.png" "$assets/box_in_scene.png" --extended --format lowe -o "$work/batch"
  [ "$(ls "$work/batch")" = "$(printf 'box.key\nbox_in_scene.key')" ] || fail "batch files: $(ls "$work/batch")"
  "$python" "$check" lowe "$work/e.bin" "$work/batch/box.key" || exit 1
  # Names and combinations that do not fit: one line, exit status 2, no file.
  usage_error detect "$assets/box.png" --format opencv -o "$work/x.txt"
  usage_error detect "$assets/box.png" --format colmap -o "$work/x.yml"
  usage_error detect "$assets/box.png" --format sift -o "$work/x.key"
  usage_error describe "$assets/box.png" "$work/box.bin" --format opencv -o "$work/x.txt"
  usage_error match "$assets/box.png" "$assets/box_in_scene.png" --format opencv
  usage_error match "$assets/box.png" "$assets/box_in_scene.png" --format opencv -o "$work/x.txt"
  usage_error match "$assets/box.png" "$assets/box_in_scene.png" --format json -o "$work/x.txt"
  usage_error match - "$assets/box_in_scene.png" --format colmap -o "$work/x.txt"
  usage_error match "$work/box.bin" "$assets/box_in_scene.png" --format colmap -o "$work/x.txt"
  usage_error match --database "$work/none.db" --format colmap -o "$work/x.txt"
  [ -z "$(ls "$work" | grep '^x\.')" ] || fail "a refused run left $(ls "$work" | grep '^x\.')"
  ;;
*)
  fail "unknown mode $mode"
  ;;
esac
echo "all $mode format checks passed"
