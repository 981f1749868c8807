#!/usr/bin/env bash
# Checks that two glsurf binaries write byte-identical feature, match and
# homography files: every image of assets/ and ../shared/data (when present)
# through detect on both backends (plain, --extended, --upright, --max-features),
# and the bundled pairs through match on both backends.
#
#   bash tools/same_output.sh REFERENCE_BINARY [CANDIDATE_BINARY]
#
# CANDIDATE_BINARY defaults to build/glsurf. A reference is any earlier build,
# e.g. `git worktree add /tmp/ref COMMIT && cmake -S /tmp/ref -B /tmp/ref/build
# && cmake --build /tmp/ref/build --target glsurf_cli`. Prints one line per
# output and exits 1 when any differ.
set -uo pipefail
cd "$(dirname "$0")/.."
ref=${1:?usage: same_output.sh REFERENCE_BINARY [CANDIDATE_BINARY]}
new=${2:-build/glsurf}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

images=(assets/*.png)
[ -d ../shared/data ] && images+=(../shared/data/*.png)
runs=()
for backend in gl cpu; do
  for image in "${images[@]}"; do
    tag=$(basename "$(dirname "$image")")_$(basename "$image" .png)
    runs+=("detect_${backend}_${tag}.txt|detect $image --backend $backend")
    runs+=("detect_${backend}_${tag}_ext.bin|detect $image --backend $backend --extended --format bin")
    runs+=("detect_${backend}_${tag}_upright_500.txt|detect $image --backend $backend --upright --max-features 500")
  done
  runs+=("match_${backend}_graf.txt|match assets/graf1.png assets/graf3.png --backend $backend --homography @H")
  runs+=("match_${backend}_box.txt|match assets/box.png assets/box_in_scene.png --backend $backend --homography @H")
done

differ=0
for run in "${runs[@]}"; do
  name=${run%%|*}
  read -r -a args <<<"${run#*|}"
  for side in ref new; do
    binary=$ref; [ $side = new ] && binary=$new
    mkdir -p "$work/$side"
    out="$work/$side/$name"
    a=("${args[@]/@H/$out.H}")
    "$binary" "${a[@]}" -o "$out" >/dev/null 2>"$out.err" || echo "exit $?" >>"$out.status"
  done
  same=yes
  for suffix in "" .H .status; do
    if [ -e "$work/ref/$name$suffix" ] || [ -e "$work/new/$name$suffix" ]; then
      cmp -s "$work/ref/$name$suffix" "$work/new/$name$suffix" || same=no
    fi
  done
  if [ $same = yes ]; then
    echo "same     $name $(sha256sum <"$work/new/$name" | cut -c1-16)"
  else
    echo "DIFFERENT $name"
    differ=1
  fi
done
exit $differ
