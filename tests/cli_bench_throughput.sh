#!/bin/sh
# bench throughput on a tiny set (4 views of 320x240, one round): the JSON
# alone on standard output and well formed, a record per step with both
# backends, positive rates, every image's keypoints stored, the same-photo
# pair verified; --keep leaves distinct images; bad --size and an existing
# --keep folder are usage errors. Usage: cli_bench_throughput.sh GLSURF ASSETS
. "$(dirname "$0")/cli_common.sh"

"$glsurf" bench throughput --images 4 --set 4 --size 320x240 --rounds 1 --keep "$work/kept" --json - \
  >"$work/t.json" 2>"$work/table.txt" || fail "bench throughput: $(tail -n 3 "$work/table.txt")"
[ "$(head -c 1 "$work/t.json")" = "{" ] && [ "$(tail -n 1 "$work/t.json")" = "}" ] ||
  fail "--json - mixed the table into the JSON: $(head -n 3 "$work/t.json")"
grep -q '"image_size": "320x240"' "$work/t.json" || fail "image size: $(grep image_size "$work/t.json")"
# Both backends of both steps: a positive rate, a count that shows the work ran.
rate='[0-9]*\.[0-9]*[1-9][0-9]*'
for b in gl cpu; do
  grep -q "\"detect\": {\"images\": 4, .*\"$b\": {\"seconds\": \[[0-9.]*\], \"median_s\": [0-9.]*, \"images_per_s\": $rate, \"keypoints\": [1-9][0-9]*}" \
    "$work/t.json" || fail "detect $b: $(grep '"detect"' "$work/t.json")"
  grep -q "\"match\": {\"images\": 4, \"pairs\": 6, .*\"$b\": {\"seconds\": \[[0-9.]*\], \"median_s\": [0-9.]*, \"pairs_per_s\": $rate, \"verified_pairs\": [1-6]}" \
    "$work/t.json" || fail "match $b: $(grep '"match"' "$work/t.json")"
done
grep -q '"gl_over_cpu": [0-9.]*}' "$work/t.json" || fail "no ratio: $(grep gl_over_cpu "$work/t.json")"
if command -v python3 >/dev/null; then
  python3 - "$work/t.json" <<'EOF' || fail "the JSON: $(cat "$work/t.json")"
import json, sys
r = json.load(open(sys.argv[1]))
for step, unit, work in (("detect", "images", 4), ("match", "pairs", 6)):
    for b in ("gl", "cpu"):
        s = r[step][b]
        assert s["median_s"] > 0 and abs(s[unit + "_per_s"] * s["median_s"] - work) < 0.01 * work, (step, b, s)
assert r["match"]["mean_features"] > 0 and r["match"]["mean_features"] <= r["match"]["max_features"], r["match"]
assert r["detect"]["gl"]["keypoints"] > 0 and r["detect"]["cpu"]["keypoints"] > 0
EOF
fi
grep -q '^detect, 4 images  *| *[0-9.]* *[0-9.]* images/s' "$work/table.txt" ||
  fail "the table on standard error: $(cat "$work/table.txt")"
grep -q 'llvmpipe' "$work/table.txt" && { grep -q 'CPU-emulated' "$work/table.txt" || fail "llvmpipe not labelled"; }

# The kept set: four distinct PNGs.
[ "$(ls "$work/kept/images" | grep -c '^view_00[0-3]\.png$')" -eq 4 ] || fail "kept images: $(ls "$work/kept/images")"
[ "$(cat "$work/kept/images"/*.png | wc -c)" -gt 0 ] || fail "empty images"
[ "$(cksum "$work/kept/images"/*.png | cut -d ' ' -f 1 | sort -u | wc -l)" -eq 4 ] || fail "the views are not distinct"

"$glsurf" bench throughput --size 10x10 >"$work/out.txt" 2>&1 && fail "--size 10x10 was taken"
grep -q 'error: --size' "$work/out.txt" || fail "--size 10x10: $(cat "$work/out.txt")"
"$glsurf" bench throughput --keep "$work/kept" >"$work/out.txt" 2>&1 && fail "an existing --keep folder was taken"
grep -q 'exists' "$work/out.txt" || fail "--keep existing: $(cat "$work/out.txt")"
echo "all throughput checks passed"
