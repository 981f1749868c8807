#!/bin/sh
# SIFT from the command line (docs/notes/sift.md): its feature files say
# what they hold, the GPU gives the CPU reference's keypoints and
# descriptors, SURF's and SIFT's options and files do not mix, and on the
# bundled pair glsurf's SIFT finds at least as many correct matches as
# OpenCV's (sift_quality.py) and keeps its keypoints and descriptors under
# rotations and a half scale (sift_invariance.py).
# Usage: cli_sift.sh GLSURF ASSETS
. "$(dirname "$0")/cli_common.sh"
. "$(dirname "$0")/../tools/find_python.sh"
find_python "numpy, cv2" || { echo "skipped: no python3 with numpy and cv2 (apt-get install python3-numpy python3-opencv)"; exit 77; }

# Files: "N 128 sift" (txt), GLSIFT01 (bin); descriptors of unit length, >= 0.
for backend in cpu gl; do
  "$glsurf" detect "$assets/box.png" --features sift --backend $backend -o "$work/box_$backend.txt" \
    2>"$work/err" || fail "detect --features sift --backend $backend: $(cat "$work/err")"
done
head -1 "$work/box_cpu.txt" | grep -q "^[1-9][0-9]* 128 sift$" || fail "txt header: $(head -1 "$work/box_cpu.txt")"
"$glsurf" detect "$assets/box.png" --features sift --backend cpu -o "$work/box.bin" 2>/dev/null || fail "bin"
[ "$(head -c 8 "$work/box.bin")" = "GLSIFT01" ] || fail "bin magic: $(head -c 8 "$work/box.bin")"
"$python" -c "
import numpy as np, sys
rows = np.loadtxt(sys.argv[1], skiprows=1, ndmin=2)
d = rows[:, 7:]
assert d.shape[1] == 128, d.shape
assert (d >= 0).all(), 'negative descriptor values'
assert np.allclose(np.linalg.norm(d, axis=1), 1, atol=1e-5), 'not unit length'
assert set(np.unique(rows[:, 5])) <= {-1, 1}, 'Laplacian signs'
" "$work/box_cpu.txt" || fail "descriptor values"

# The GPU against the CPU reference: keypoints within 0.1 px, size within
# 0.1 %, the same sign, angles within 0.5 degrees and descriptors at cosine
# >= 0.99, for 99 % of either's entries (docs/reference.md, SIFT).
"$python" "$(dirname "$0")/compare_features.py" "$work/box_cpu.txt" "$work/box_gl.txt" 0.99 0.5 0.99 ||
  fail "GPU and CPU SIFT differ"

# Options and files of one detector only.
err=$("$glsurf" detect "$assets/box.png" --features sift --threshold 500 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q "threshold is SURF's option; it does not apply to --features sift" ||
  fail "--threshold with sift: $err"
err=$("$glsurf" detect "$assets/box.png" --contrast-threshold 0.1 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q "contrast-threshold is SIFT's option" || fail "--contrast-threshold: $err"
err=$("$glsurf" detect "$assets/box.png" --features orb 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q "features must be surf or sift, not 'orb'" || fail "--features orb: $err"
"$glsurf" detect "$assets/box.png" --backend cpu --extended -o "$work/surf.txt" 2>/dev/null || fail "surf"
err=$("$glsurf" match "$work/surf.txt" "$work/box_cpu.txt" 2>&1)
[ $? -eq 1 ] && echo "$err" | grep -q "surf features, .* sift" || fail "SURF against SIFT files: $err"

# COLMAP's and Lowe's files take SIFT's values as VLFeat stores them: round(512 v), at most 255.
"$glsurf" detect "$assets/box.png" --features sift --backend cpu --format colmap -o "$work/box.png.txt" \
  2>/dev/null || fail "colmap format"
"$python" -c "
import numpy as np, sys
rows = np.loadtxt(sys.argv[1], skiprows=1, ndmin=2)
ours = np.loadtxt(sys.argv[2], skiprows=1, ndmin=2)
assert np.array_equal(rows[:, 4:], np.minimum(255, np.floor(512 * ours[:, 7:] + 0.5))), 'uint8 values'
assert np.allclose(rows[:, 2], ours[:, 2] / 2, rtol=1e-6), 'scale = size / 2'
" "$work/box.png.txt" "$work/box_cpu.txt" || fail "colmap values"

# The viewer in match mode finds what match finds (the same detector, matcher and filters).
want=$("$glsurf" match "$assets/graf1.png" "$assets/graf3.png" --features sift 2>&1 | sed -n 's/.* \([0-9]* matches, [0-9]* inliers\),.*/\1/p')
got=$("$glsurf" view --headless --frames 2 --features sift --match "$assets/graf1.png" "$assets/graf3.png" 2>&1)
[ -n "$want" ] && echo "$got" | grep -q "match mode, last frame: $want" || fail "view --features sift --match: $got (match: $want)"
err=$("$glsurf" view --headless --frames 1 --features sift --upright "$assets/box.png" 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q "upright is SURF's option" || fail "view --features sift --upright: $err"

# A COLMAP database of SIFT features: COLMAP's bytes are round(512 v) of
# glsurf's own floats, and the pair is matched and verified from it.
"$glsurf" detect "$assets/graf1.png" "$assets/graf3.png" --features sift --backend cpu --database "$work/s.db" \
  --quiet 2>"$work/err" || fail "detect --database --features sift: $(cat "$work/err")"
"$glsurf" match --database "$work/s.db" --pairs exhaustive --quiet 2>"$work/err" ||
  fail "match --database of SIFT features: $(cat "$work/err")"
"$python" -c "
import sqlite3, sys, numpy as np
db = sqlite3.connect(sys.argv[1])
for image_id, rows, cols, data in db.execute('SELECT image_id, rows, cols, data FROM descriptors'):
    ours = db.execute('SELECT descriptors FROM glsurf_features WHERE image_id = ?', (image_id,)).fetchone()[0]
    v = np.frombuffer(ours, '<f4').reshape(rows, 128)
    assert cols == 128 and np.array_equal(np.frombuffer(data, np.uint8).reshape(rows, cols),
                                          np.minimum(255, np.floor(512 * v.astype(np.float64) + 0.5)).astype(np.uint8)), image_id
assert db.execute('SELECT value FROM glsurf_settings WHERE key = \\'detector\\'').fetchone()[0].startswith('sift ')
inliers = db.execute('SELECT rows FROM two_view_geometries').fetchone()[0]
assert inliers > 100, inliers
print('database:', inliers, 'verified matches')
" "$work/s.db" || fail "SIFT database"

"$python" "$(dirname "$0")/sift_quality.py" "$glsurf" "$assets" gl || fail "SIFT quality"
"$python" "$(dirname "$0")/sift_invariance.py" "$glsurf" "$assets" gl || fail "SIFT invariance"
echo "all SIFT checks passed"
