#!/bin/sh
# The pictures of match --draw and detect --draw, decoded (Debian's python3
# with OpenCV; skipped, exit 77, without it): the inliers' colours at their
# endpoints, no outlier red unless --draw-outliers, a keypoint's circle in
# its Laplacian sign's colour. Usage: cli_draw.sh GLSURF ASSETS
. "$(dirname "$0")/cli_common.sh"

py=/usr/bin/python3
[ -x "$py" ] && "$py" -c "import cv2, numpy" 2>/dev/null ||
  { echo "skipped: /usr/bin/python3 with cv2 and numpy not found (apt-get install python3-opencv)"; exit 77; }

# The box pair is grey: any red on it is an outlier's.
"$glsurf" match "$assets/box.png" "$assets/box_in_scene.png" -o "$work/m.txt" --draw "$work/m.png" \
  >/dev/null 2>&1 || fail "match --draw"
"$glsurf" match "$assets/box.png" "$assets/box_in_scene.png" --draw "$work/o.png" --draw-outliers \
  >/dev/null 2>&1 || fail "match --draw --draw-outliers"
"$glsurf" detect "$assets/graf1.png" -o "$work/k.txt" --draw "$work/k.png" --draw-max 1 \
  2>/dev/null || fail "detect --draw"

out=$("$py" - "$work" "$assets" <<'EOF' 2>&1
import sys, cv2, numpy as np
work, assets = sys.argv[1], sys.argv[2]
def rgb(path):
    return cv2.imread(path, cv2.IMREAD_COLOR)[:, :, ::-1].astype(int)
# io/draw.cpp's match_colour and the Laplacian colours.
palette = [(0, 114, 178), (86, 180, 233), (0, 158, 115), (120, 220, 80),
           (160, 110, 230), (0, 215, 215), (204, 121, 167), (235, 235, 235)]
dark, light = (0, 200, 255), (255, 140, 0)
wa = cv2.imread(assets + "/box.png").shape[1]
ha = max(cv2.imread(assets + "/box.png").shape[0], cv2.imread(assets + "/box_in_scene.png").shape[0])
m = rgb(work + "/m.png")
rows = [l.split() for l in open(work + "/m.txt") if not l.startswith("#")]
inliers = [(i, r) for i, r in enumerate(rows) if r[7] == "1"]
assert len(inliers) >= 15, "inliers: %d" % len(inliers)
def near(img, x, y, colour, reach=1):
    x, y = int(round(x)), int(round(y))
    patch = img[max(0, y - reach):y + reach + 1, max(0, x - reach):x + reach + 1].reshape(-1, 3)
    return bool((patch == np.array(colour)).all(axis=1).any())
# The endpoints of the closest inlier (drawn last of none: every inlier is drawn here, 300 at most).
best = min(inliers, key=lambda ir: float(ir[1][6]))
i, r = best
x1, y1, x2, y2 = map(float, r[2:6])
assert near(m, x1, y1, palette[i % 8]), "A's endpoint of inlier %d not in its colour" % i
assert near(m, wa + x2, y2, palette[i % 8]), "B's endpoint of inlier %d not in its colour" % i
hits = sum(near(m, float(r[2]), float(r[3]), palette[i % 8]) for i, r in inliers)
assert hits >= 0.8 * len(inliers), "inlier endpoints in their colours: %d of %d" % (hits, len(inliers))
def reds(img):
    body = img[:ha]
    # Red well above green and blue (test_draw.cpp's reddish): not a blend of the yellow outline and a line.
    return int((body[:, :, 0] > 1.5 * np.maximum(body[:, :, 1], body[:, :, 2]) + 20).sum())
assert reds(m) == 0, "red on the default picture: %d pixels" % reds(m)
assert reds(rgb(work + "/o.png")) > 50, "no red with --draw-outliers"
# detect --draw --draw-max 1: the strongest keypoint's circle, radius size / 2.
k = [list(map(float, l.split()[:7])) for l in open(work + "/k.txt").readlines()[1:]]
x, y, size, angle, response, laplacian = max(k, key=lambda f: f[4])[:6]
kp = rgb(work + "/k.png")
# Anti-aliased: a pixel next to each of four points of the circle mostly of its colour.
def mostly(img, x, y, colour):
    x, y = int(round(x)), int(round(y))
    patch = img[y - 1:y + 2, x - 1:x + 2].reshape(-1, 3)
    return bool((np.abs(patch - np.array(colour)).max(axis=1) < 60).any())
colour = dark if laplacian > 0 else light
on_circle = [mostly(kp, x + size / 2 * c, y + size / 2 * s, colour) for c, s in ((1, 0), (-1, 0), (0, 1), (0, -1))]
assert sum(on_circle) >= 3, "the strongest keypoint's circle: %s" % on_circle
print("pictures decoded and checked")
EOF
) || fail "$out"
echo "$out"

# The options' rules.
err=$("$glsurf" match "$assets/box.png" "$assets/box_in_scene.png" --draw-outliers 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q -- "--draw-outliers needs --draw" || fail "--draw-outliers alone: $err"
err=$("$glsurf" detect "$assets/box.png" "$assets/graf1.png" -o "$work/dir" --draw "$work/two.png" 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q -- "--draw draws one image" && [ ! -e "$work/two.png" ] ||
  fail "detect --draw of two images: $err"
err=$("$glsurf" detect "$assets/box.png" --draw-max 5 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q -- "--draw-max needs --draw" || fail "--draw-max alone: $err"
err=$("$glsurf" detect "$assets/box.png" --draw "$work/k.jpg" 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q -- "--draw writes PNG" || fail "detect --draw k.jpg: $err"
echo "all draw checks passed"
