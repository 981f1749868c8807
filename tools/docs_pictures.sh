#!/bin/sh
# Makes the pictures in docs/ that README and docs/reference.md show, from
# the bundled images: matches (box, graf1 -> graf3), graf1's keypoints, a
# viewer screenshot (headless) and the evaluation plot of three synthetic
# sequences (viewpoint, blur, light). Each is made smaller than 300 KB for the
# repository: scaled to at most WIDTH pixels and stored with a 200-colour
# palette that keeps the marks' colours exact (Debian's python3 with PIL).
# Usage: tools/docs_pictures.sh [GLSURF] (default build/glsurf); a few minutes
# on llvmpipe, most of it the three evals.
set -eu
cd "$(dirname "$0")/.."
glsurf=${1:-build/glsurf}
py=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# small SOURCE TARGET WIDTH: scaled down to WIDTH (Lanczos) and palettised.
small() {
  "$py" - "$1" "$2" "$3" <<'EOF'
import os, sys
from PIL import Image
source, target, width = sys.argv[1], sys.argv[2], int(sys.argv[3])
# io/draw.hpp's mark colours, the viewer's, and the caption's.
fixed = [(0, 114, 178), (86, 180, 233), (0, 158, 115), (120, 220, 80), (160, 110, 230), (0, 215, 215),
         (204, 121, 167), (235, 235, 235), (235, 30, 30), (255, 230, 0), (0, 200, 255), (255, 140, 0),
         (26, 217, 255), (255, 140, 26), (0, 0, 0), (255, 255, 255), (28, 28, 28), (150, 150, 150)]
image = Image.open(source).convert("RGB")
if image.size[0] > width:
    image = image.resize((width, round(image.size[1] * width / image.size[0])), Image.LANCZOS)
colours = 200
base = image.quantize(colors=colours - len(fixed), method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
palette = [c for rgb in fixed for c in rgb] + base.getpalette()[:3 * (colours - len(fixed))]
holder = Image.new("P", (1, 1))
holder.putpalette(palette + [0] * (768 - len(palette)))
image.quantize(palette=holder, dither=Image.Dither.NONE).save(target, optimize=True)
print("%s: %dx%d, %d bytes" % (target, image.size[0], image.size[1], os.path.getsize(target)))
EOF
}

"$glsurf" match assets/box.png assets/box_in_scene.png --draw "$work/box.png"
small "$work/box.png" docs/example_box_matches.png 900
"$glsurf" match assets/graf1.png assets/graf3.png --draw "$work/graf.png" --draw-max 150
small "$work/graf.png" docs/example_graf_matches.png 1000
"$glsurf" detect assets/graf1.png -o "$work/graf1.txt" --draw "$work/keypoints.png" --draw-max 300
small "$work/keypoints.png" docs/example_graf1_keypoints.png 700
"$glsurf" view assets/graf1.png assets/graf3.png --headless --frames 2 --width 800 --max-features 300 \
  --screenshot "$work/view.png"
small "$work/view.png" docs/example_view.png 800
"$glsurf" view assets/box.png assets/box_in_scene.png --headless --match --frames 2 --width 960 --height 560 --max-features 500 \
  --screenshot "$work/view_match.png"
small "$work/view_match.png" docs/example_view_match.png 960

# Mikolajczyk's three kinds of change, made from graf1 with known homographies.
"$glsurf" warp assets/graf1.png "$work/viewpoint" --perspective 0.1,0.2,0.3,0.4,0.5 >/dev/null
"$glsurf" warp assets/graf1.png "$work/blur" --blur 1,2,3,4,5 >/dev/null
"$glsurf" warp assets/graf1.png "$work/light" --brightness -20,-40,-60,-80,-100 >/dev/null
for s in viewpoint blur light; do
  "$glsurf" eval "$work/$s" --json "$work/$s.json" >/dev/null
done
"$py" tools/plot_eval.py eval \
  "$work/viewpoint.json" --steps 0.1,0.2,0.3,0.4,0.5 --xlabel "horizontal tilt P (glsurf warp --perspective)" \
  --title "viewpoint (graf1 warped)" \
  "$work/blur.json" --steps 1,2,3,4,5 --xlabel "Gaussian blur sigma (px)" --title "blur (graf1 blurred)" \
  "$work/light.json" --steps 20,40,60,80,100 --xlabel "grey levels darker" --title "light (graf1 darkened)" \
  -o "$work/eval.png" >/dev/null
small "$work/eval.png" docs/example_eval.png 900
