#!/bin/bash
# glsurf's image-set front end against COLMAP's own (CPU SIFT), timed side by
# side in one interleaved run, then COLMAP's mapper on each database.
#
# Usage: tools/compare_colmap.sh GLSURF SCRATCH_DIR [--rounds N] [--set N]
#            [--set-from DIR] [--set-features N] [--old-pairs K]
#
# Sets:
#   scene  the rendered 10-view room (tools/render_scene.py, seed 1)
#   setN   N views made by `glsurf bench throughput --keep` (turned, scaled
#          crops of the bundled photos; --set 0 leaves it out; default 50),
#          or the first N images of --set-from DIR; both front ends capped at
#          --set-features per image (default 2000: glsurf --max-features,
#          COLMAP --SiftExtraction.max_num_features)
# Each round runs, per set: glsurf (detect --database, match --database
# --pairs exhaustive, gl backend; then colmap mapper), then COLMAP
# (feature_extractor, exhaustive_matcher, mapper; CPU, 2 threads; the mapper
# on the scene only: the crops have no parallax to reconstruct), then on the
# scene the old way: one `glsurf match A B` process per pair for the first K
# pairs (--old-pairs, default 5), from the images and from feature files.
# Wall time per step (process start included); medians over the rounds (at
# least 2, default 2), with their spread; ratios COLMAP / glsurf.
# SCRATCH_DIR is created if needed; times.tsv and summary.txt are left in it.
set -euo pipefail

usage() {
  echo "usage: $0 GLSURF SCRATCH_DIR [--rounds N] [--set N] [--set-from DIR] [--set-features N] [--old-pairs K]" >&2
  exit 2
}
[ $# -ge 2 ] || usage
glsurf=$(realpath "$1")
scratch=$2
shift 2
rounds=2 set=50 set_from="" set_features=2000 old_pairs=5
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2 ;;
    --set) set=$2 ;;
    --set-from) set_from=$2 ;;
    --set-features) set_features=$2 ;;
    --old-pairs) old_pairs=$2 ;;
    *) usage ;;
  esac
  [ $# -ge 2 ] || usage
  shift 2
done
[ "$rounds" -ge 2 ] || { echo "--rounds: at least 2" >&2; exit 2; }
[ -x "$glsurf" ] || { echo "$glsurf is not an executable" >&2; exit 2; }
command -v colmap >/dev/null || { echo "skipped: colmap not found"; exit 77; }
. "$(dirname "$0")/find_python.sh"
find_python "numpy, cv2" || { echo "skipped: no python3 with numpy and cv2"; exit 77; }
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$scratch"
scratch=$(realpath "$scratch")
times=$scratch/times.tsv  # set, round, tool, step, seconds
rm -f "$times" "$scratch"/counts.*.tsv  # counts.SET.TOOL.tsv: images, pairs, features, verified, registered

# The sets.
sets="scene"
rm -rf "$scratch/scene"
"$python" "$root/tools/render_scene.py" "$scratch/scene" --views 10 --seed 1 >/dev/null
if [ "$set" -gt 0 ]; then
  sets="scene set$set"
  rm -rf "$scratch/set$set" "$scratch/set$set.made"
  mkdir -p "$scratch/set$set/images"
  if [ -z "$set_from" ]; then
    # --images N --set 2: the views made, one short run of each step (its times unused).
    "$glsurf" bench throughput --images "$set" --set 2 --rounds 1 --keep "$scratch/set$set.made" >/dev/null
    set_from=$scratch/set$set.made/images
  fi
  find "$set_from" -maxdepth 1 -name '*.png' | sort | head -n "$set" | xargs -I{} cp {} "$scratch/set$set/images/"
  [ "$(find "$scratch/set$set/images" -name "*.png" | wc -l)" -eq "$set" ] || { echo "fewer than $set images in $set_from"; exit 1; }
fi

# db_counts DB: features per image (mean), pairs verified (COLMAP's
# two_view_geometries with inliers).
db_counts() {
  "$python" - "$1" <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
n, k = c.execute("SELECT count(*), sum(rows) FROM keypoints").fetchone()
v = c.execute("SELECT count(*) FROM two_view_geometries WHERE rows > 0").fetchone()[0]
print(f"{(k or 0) / max(n, 1):.0f}\t{v}")
EOF
}
# registered SPARSE: images in the largest model.
registered() {
  "$python" - "$1" <<'EOF'
import glob, struct, sys
best = 0
for f in glob.glob(sys.argv[1] + "/*/images.bin"):
    with open(f, "rb") as h:
        best = max(best, struct.unpack("<Q", h.read(8))[0])
print(best)
EOF
}

# timed SET ROUND TOOL STEP COMMAND...: runs it (output to a log), appends its
# wall time. A failed mapper is timed all the same; 0 images registered.
timed() {
  local s=$1 r=$2 tool=$3 step=$4
  shift 4
  local log=$scratch/$s.$tool.$step.log start=$EPOCHREALTIME
  if ! "$@" >"$log" 2>&1 && [ "$step" != mapper ]; then
    echo "FAILED: $s $tool $step: $*"
    tail -n 20 "$log"
    exit 1
  fi
  last_seconds=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
  printf '%s\t%s\t%s\t%s\t%s\n' "$s" "$r" "$tool" "$step" "$last_seconds" >>"$times"
}

# The old way's inputs: the scene's feature files, made once.
"$glsurf" detect "$scratch/scene/images" -o "$scratch/scene_features" --format bin >/dev/null 2>&1
mapfile -t scene_images < <(find "$scratch/scene/images" -name '*.png' | sort)
old_list=()
for ((i = 0; i < ${#scene_images[@]} && ${#old_list[@]} < old_pairs; i++)); do
  for ((j = i + 1; j < ${#scene_images[@]} && ${#old_list[@]} < old_pairs; j++)); do
    old_list+=("$i $j")
  done
done

for ((r = 1; r <= rounds; r++)); do
  for s in $sets; do
    images=$scratch/$s/images
    n=$(find "$images" -name "*.png" | wc -l)
    pairs=$((n * (n - 1) / 2))
    extra_glsurf=() extra_colmap=()
    if [ "$s" != scene ]; then
      extra_glsurf=(--max-features "$set_features")
      extra_colmap=(--SiftExtraction.max_num_features "$set_features")
    fi
    for tool in glsurf colmap; do
      db=$scratch/$s.$tool.db
      sparse=$scratch/$s.$tool.sparse
      rm -rf "$db" "$db-shm" "$db-wal" "$sparse"
      mkdir -p "$sparse"
      if [ $tool = glsurf ]; then
        timed "$s" "$r" $tool features "$glsurf" detect "$images" --database "$db" "${extra_glsurf[@]}"
        timed "$s" "$r" $tool matching "$glsurf" match --database "$db" --pairs exhaustive
      else
        timed "$s" "$r" $tool features colmap feature_extractor --database_path "$db" --image_path "$images" \
          --SiftExtraction.use_gpu 0 --SiftExtraction.num_threads 2 "${extra_colmap[@]}"
        timed "$s" "$r" $tool matching colmap exhaustive_matcher --database_path "$db" \
          --SiftMatching.use_gpu 0 --SiftMatching.num_threads 2
      fi
      counts=$(db_counts "$db")
      # The crops of planar photos have no parallax: the mapper finds no
      # initial pair there, after a time that says nothing; the scene only.
      if [ "$s" = scene ]; then
        timed "$s" "$r" $tool mapper colmap mapper --database_path "$db" --image_path "$images" \
          --output_path "$sparse" --Mapper.num_threads 2
      fi
      printf '%s\t%s\t%s\t%s\n' "$n" "$pairs" "$counts" "$(registered "$sparse")" >>"$scratch/counts.$s.$tool.tsv"
    done
    if [ "$s" = scene ]; then
      for how in images features; do
        start=$EPOCHREALTIME
        for pair in "${old_list[@]}"; do
          read -r i j <<<"$pair"
          a=${scene_images[$i]} b=${scene_images[$j]}
          if [ $how = features ]; then
            a=$scratch/scene_features/$(basename "${a%.*}").bin
            b=$scratch/scene_features/$(basename "${b%.*}").bin
          fi
          "$glsurf" match "$a" "$b" -o "$scratch/old_pair.txt" >/dev/null 2>&1 || true  # no homography: exit 1
        done
        awk -v a="$start" -v b="$EPOCHREALTIME" -v r="$r" -v h="$how" -v k="${#old_list[@]}" \
          'BEGIN { printf "scene\t%s\told_from_%s\tper_pair\t%.3f\n", r, h, (b - a) / k }' >>"$times"
      done
    fi
  done
  echo "round $r done" >&2
done

"$python" - "$times" "$scratch" "$sets" "${#old_list[@]}" <<'EOF' | tee "$scratch/summary.txt"
import collections, statistics, sys
steps_file, scratch, sets, old_k = sys.argv[1], sys.argv[2], sys.argv[3].split(), int(sys.argv[4])
t = collections.defaultdict(list)
for line in open(steps_file):
    s, r, tool, step, sec = line.split("\t")
    t[s, tool, step].append(float(sec))
med = lambda v: statistics.median(v)
spread = lambda v: f"{min(v):.1f}-{max(v):.1f}"
for s in sets:
    counts = {}
    for tool in ("glsurf", "colmap"):
        rows = [l.split("\t") for l in open(f"{scratch}/counts.{s}.{tool}.tsv")]
        counts[tool] = rows[-1]
    n, pairs = int(counts["glsurf"][0]), int(counts["glsurf"][1])
    rounds = len(t[s, "glsurf", "features"])
    print(f"\n{s}: {n} images, {pairs} pairs; medians of {rounds} interleaved rounds (min-max), wall s per step")
    print(f"{'step':<10} | {'glsurf (gl)':>20} | {'COLMAP (CPU SIFT)':>20} | colmap/glsurf")
    steps = [st for st in ("features", "matching", "mapper") if t[s, "glsurf", st]]
    totals = {tool: [sum(x) for x in zip(*(t[s, tool, st] for st in steps))] for tool in ("glsurf", "colmap")}
    for step in steps + ["total"]:
        g = totals["glsurf"] if step == "total" else t[s, "glsurf", step]
        c = totals["colmap"] if step == "total" else t[s, "colmap", step]
        print(f"{step:<10} | {med(g):8.1f} ({spread(g):>10}) | {med(c):8.1f} ({spread(c):>10}) | {med(c) / med(g):6.2f}")
    rg, rc = pairs / med(t[s, "glsurf", "matching"]), pairs / med(t[s, "colmap", "matching"])
    print(f"matching pairs/s: glsurf {rg:.2f}, COLMAP {rc:.2f} (x{rg / rc:.2f}); per-round ratios colmap/glsurf: "
          + ", ".join(f"{c / g:.2f}" for g, c in zip(t[s, "glsurf", "matching"], t[s, "colmap", "matching"])))
    for tool in ("glsurf", "colmap"):
        _, _, feat, ver, reg = counts[tool]
        registered = f", {reg.strip()} of {n} images registered (largest model)" if "mapper" in steps else ""
        print(f"  {tool}: {feat.strip()} features per image, {ver.strip()} of {pairs} pairs verified{registered}")
    if s == "scene" and old_k:
        inproc = [m / pairs for m in t[s, "glsurf", "matching"]]
        print(f"old way, one `glsurf match A B` process per pair ({old_k} pairs), s per pair vs in-process "
              f"match --database ({med(inproc):.3f} s per pair incl. start and SQLite):")
        for how in ("images", "features"):
            v = t[s, f"old_from_{how}", "per_pair"]
            print(f"  from {how:<8}: {med(v):.3f} s per pair ({spread(v)}), in-process is {med(v) / med(inproc):.1f}x faster")
EOF
