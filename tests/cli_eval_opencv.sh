#!/bin/sh
# glsurf eval's repeatability against OpenCV's cv::evaluateFeatureDetector on
# a synthetic sequence from the bundled graf1: a rotation with a scale change,
# and two perspective tilts, the steeper a viewpoint change of over 50 degrees
# (the median over A's keypoints of acos(s2 / s1), s1 >= s2 the singular values
# of H's local affine map). Each pair's keypoints (as detect writes them, the
# same eval scores) go to tests/opencv/opencv_repeatability, which keeps those
# in the common part and asks OpenCV. The figures must agree within 0.01 on
# every pair; on the steepest, regions as circles (the helper's circle model)
# must be off by more than that, so that the test tells ellipses from circles.
# Usage: cli_eval_opencv.sh GLSURF ASSETS HELPER
. "$(dirname "$0")/cli_common.sh"
helper=$3
options="--backend cpu --threshold 2000"  # ~1,800 keypoints on graf1: a few seconds in all

"$glsurf" warp "$assets/graf1.png" "$work/seq" --rotate 30,0,15 --scale 0.75,0.85,0.7 --perspective 0,1.2,1.9 \
  >/dev/null || fail "warp"
"$glsurf" eval "$work/seq" $options --json "$work/eval.json" || fail "eval"
for k in 1 2 3 4; do
  "$glsurf" detect "$work/seq/img$k.png" $options -o "$work/k$k.txt" 2>/dev/null || fail "detect img$k"
done
field() { echo "$1" | sed -n "s/.*\"$2\": \\([0-9.]*\\).*/\\1/p"; }
word() { echo "$1" | awk -v key="$2" '{ for (i = 1; i < NF; i++) if ($i == key) print $(i + 1) }'; }
for k in 2 3 4; do
  record=$(grep "\"pair\": \"1-$k\"" "$work/eval.json")
  [ -n "$record" ] || fail "no pair 1-$k in eval's JSON"
  # The helper reads the keypoints eval scored.
  [ "$(field "$record" keypoints_a)" = "$(head -n 1 "$work/k1.txt" | cut -d' ' -f1)" ] &&
    [ "$(field "$record" keypoints_b)" = "$(head -n 1 "$work/k$k.txt" | cut -d' ' -f1)" ] ||
    fail "1-$k: detect found other keypoints than eval scored: $record"
  opencv=$("$helper" "$work/k1.txt" "$work/k$k.txt" 800 640 800 640 "$work/seq/H1to${k}p") || fail "helper on 1-$k: $opencv"
  ours=$(field "$record" repeatability); theirs=$(word "$opencv" opencv_repeatability)
  circle=$(word "$opencv" circle_repeatability); tilt=$(word "$opencv" median_tilt_deg)
  echo "1-$k: glsurf $ours ($(field "$record" correspondences) of $(field "$record" visible_a)," \
       "$(field "$record" visible_b) visible), OpenCV $theirs ($(word "$opencv" opencv_correspondences) of" \
       "$(word "$opencv" visible_a), $(word "$opencv" visible_b)), circles $circle; median viewpoint angle $tilt degrees"
  # The common part is the same (the same rule, computed apart; a keypoint
  # on the edge to rounding may fall either way).
  awk -v a="$(field "$record" visible_a)" -v b="$(field "$record" visible_b)" -v c="$(word "$opencv" visible_a)" \
      -v d="$(word "$opencv" visible_b)" 'BEGIN { exit !((a - c) ^ 2 <= 4 && (b - d) ^ 2 <= 4) }' ||
    fail "1-$k: the common parts differ"
  awk -v p="$ours" -v q="$theirs" 'BEGIN { exit !(p - q <= 0.01 && q - p <= 0.01) }' ||
    fail "1-$k: glsurf's repeatability $ours and OpenCV's $theirs differ by more than 0.01"
done
# The last pair is the steepest: over 50 degrees, and circles there would be
# off by more than twice the tolerance.
awk -v t="$tilt" 'BEGIN { exit !(t >= 50) }' || fail "1-4: median viewpoint angle $tilt < 50 degrees"
awk -v c="$circle" -v q="$theirs" 'BEGIN { exit !(c - q > 0.02 || q - c > 0.02) }' ||
  fail "1-4: the circle model's $circle is within 0.02 of OpenCV's $theirs: the test cannot tell circles from ellipses"
echo "all OpenCV agreement checks passed"
