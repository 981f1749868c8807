#!/bin/sh
# Tiled detection end to end (docs/reference.md, Tiles): an image larger
# than the driver's textures (GL_MAX_TEXTURE_SIZE limited to 2,048 by the
# test hook) gives the keypoints and descriptors it gives in one piece, and
# a 20,000 x 20,000 image is detected on both backends within a memory
# budget of 1.5 GB, measured as the child's peak resident set.
# Usage: cli_tiles.sh GLSURF ASSETS
. "$(dirname "$0")/cli_common.sh"
. "$(dirname "$0")/../tools/find_python.sh"
find_python "numpy, cv2" || { echo "skipped: no python3 with numpy and cv2 (apt-get install python3-numpy python3-opencv)"; exit 77; }
compare="$(dirname "$0")/compare_features.py"

# 6000 x 4000 from box_in_scene (Lanczos): its candidate atlas and integral
# image need textures of 4,500 and 6,002 texels.
"$python" -c "
import cv2, sys
a = cv2.imread(sys.argv[1], cv2.IMREAD_GRAYSCALE)
cv2.imwrite(sys.argv[2], cv2.resize(a, (6000, 4000), interpolation=cv2.INTER_LANCZOS4))" \
  "$assets/box_in_scene.png" "$work/6000.png" || fail "making the 6000 x 4000 image"
"$glsurf" detect "$work/6000.png" --max-features 5000 -o "$work/whole.txt" 2>"$work/whole.err" ||
  fail "6000 x 4000 in one piece: $(cat "$work/whole.err")"
grep -q "6000x4000, " "$work/whole.err" || fail "in one piece: $(cat "$work/whole.err")"
GLSURF_MAX_TEXTURE_SIZE=2048 "$glsurf" detect "$work/6000.png" --max-features 5000 -o "$work/tiled.txt" \
  2>"$work/tiled.err" || fail "6000 x 4000 with 2,048 texels a side: $(cat "$work/tiled.err")"
grep -q "6000x4000 in [0-9]* tiles" "$work/tiled.err" || fail "not tiled: $(cat "$work/tiled.err")"
"$python" "$compare" "$work/whole.txt" "$work/tiled.txt" || fail "tiled and whole differ"
# --tile-size does the same without the hook; a tile side too small is refused.
"$glsurf" detect "$work/6000.png" --max-features 5000 --tile-size 3000 -o "$work/tiled.txt" 2>"$work/tiled.err" ||
  fail "--tile-size 3000: $(cat "$work/tiled.err")"
"$python" "$compare" "$work/whole.txt" "$work/tiled.txt" || fail "--tile-size 3000 and whole differ"
err=$("$glsurf" detect "$work/6000.png" --tile-size 500 -o "$work/small.txt" 2>&1)
[ $? -eq 1 ] && echo "$err" | grep -q "tiles of 500x500 are too small: tiles need at least 864x864" ||
  fail "--tile-size 500: $err"
[ ! -e "$work/small.txt" ] || fail "--tile-size 500 left a file"
err=$("$glsurf" detect "$work/6000.png" --memory-budget lots 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q "memory-budget must be a size in bytes such as 2G or 512M, not 'lots'" ||
  fail "--memory-budget lots: $err"
rm "$work/6000.png"

# 20,000 x 20,000 (400 megapixels, a PGM of 400 MB: graf1 repeated) on both
# backends, --memory-budget 1.5G: the peak resident set stays within it.
# One octave sampled every second pixel keeps the run short; the tiles
# and the memory do not depend on it.
"$python" -c "
import cv2, numpy as np, sys
a = cv2.imread(sys.argv[1], cv2.IMREAD_GRAYSCALE)
tile = np.vstack([np.hstack([a, a[:, ::-1]]), np.hstack([a[::-1], a[::-1, ::-1]])])
with open(sys.argv[2], 'wb') as f:
    f.write(b'P5 20000 20000 255\n')
    reps = (20000 // tile.shape[0] + 1, 20000 // tile.shape[1] + 1)
    f.write(np.ascontiguousarray(np.tile(tile, reps)[:20000, :20000]).tobytes())" \
  "$assets/graf1.png" "$work/20000.pgm" || fail "making the 20000 x 20000 image"
for backend in gl cpu; do
  "$python" -c "
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], capture_output=True, text=True)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
print(r.stderr.strip(), '; peak RSS %.2f GB' % (peak / 1e9))
sys.exit(r.returncode or (peak > 1.5e9))" \
    "$glsurf" detect "$work/20000.pgm" --backend $backend --octaves 1 --sample-step 2 --max-features 2000 \
    --memory-budget 1.5G -o "$work/20000_$backend.txt" >"$work/20000.log" 2>&1 ||
    fail "20000 x 20000 on $backend: $(cat "$work/20000.log")"
  cat "$work/20000.log"
  grep -q "2000 keypoints, 20000x20000 in [0-9]* tiles" "$work/20000.log" || fail "$backend: $(cat "$work/20000.log")"
done
echo "all tile checks passed"
