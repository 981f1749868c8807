#!/bin/sh
# tools/plot_eval.py on small eval and bench JSON files of the form glsurf
# writes: a PNG each, and one-line errors for a bad file or a --steps list of
# the wrong length. Skipped (77) without Debian's python3 and matplotlib.
# Usage: plot_eval.sh SOURCE_DIR
set -u
source=$1
py=/usr/bin/python3
fail() { echo "FAILED: $*"; exit 1; }
[ -x "$py" ] && "$py" -c "import matplotlib" 2>/dev/null ||
  { echo "skipped: /usr/bin/python3 with matplotlib not found (apt-get install python3-matplotlib)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
plot="$py $source/tools/plot_eval.py"

pair() {  # pair K REPEATABILITY CORRECT
  printf '{"pair": "1-%s", "keypoints_a": 100, "keypoints_b": 90, "repeatability": %s, "matches": 80, "correct_3px": %s, "correct_5px": 70, "matching_score": 0.5, "precision": 0.9}' "$1" "$2" "$3"
}
printf '{"sequence": "seq", "backend": "cpu", "pairs": [%s, %s, %s]}\n' "$(pair 2 0.8 70)" "$(pair 3 0.6 50)" \
  "$(pair 4 0.4 20)" >"$work/eval.json"
cat >"$work/bench.json" <<'JSON'
{"renderer": "llvmpipe", "version": "4.5", "software": true, "detector": {},
 "frames": [{"size": "320x240", "gpu_ms": 20.5, "fps": 48.8, "keypoints": 300, "cpu_ms": 90.1, "stages_clock": "x", "stages_ms": {}},
            {"size": "640x480", "gpu_ms": 70.2, "fps": 14.2, "keypoints": 900, "cpu_ms": 350.0, "stages_clock": "x", "stages_ms": {}}],
 "matching": [{"m": 512, "fused_gpu_ms": 3.1, "cpu_ms": 20.0}, {"m": 1024, "fused_gpu_ms": 9.0, "cpu_ms": null}]}
JSON

$plot eval "$work/eval.json" --steps 10,20,30 --xlabel "angle" "$work/eval.json" -o "$work/e.png" >/dev/null ||
  fail "eval plot"
$plot bench "$work/bench.json" -o "$work/b.png" >/dev/null || fail "bench plot"
for f in e b; do
  head -c 8 "$work/$f.png" | od -c | head -1 | grep -q "P   N   G" || fail "$f.png is no PNG"
done
err=$($plot eval "$work/eval.json" --steps 1,2 -o "$work/x.png" 2>&1)
[ $? -eq 1 ] && echo "$err" | grep -q "steps gives 2 values, .* has 3 pairs" || fail "--steps too short: $err"
err=$($plot bench "$work/eval.json" -o "$work/x.png" 2>&1)
[ $? -eq 1 ] && echo "$err" | grep -q "no 'frames'" || fail "an eval file as bench: $err"
[ ! -e "$work/x.png" ] || fail "a failed plot wrote its PNG"
echo "all plot checks passed"
