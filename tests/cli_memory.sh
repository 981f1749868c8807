#!/bin/sh
# The memory check counts every limit the process is under, not only the
# machine's free memory: an address-space limit (ulimit -v) and the memory
# cgroups of containers and batch schedulers (v1 and v2, faked under
# GLSURF_CGROUP_ROOT). An image larger than what is left is detected in
# tiles that fit; one whose smallest tile does not fit is refused at once,
# with the one-line reason, where the work would otherwise fail late
# (GL_OUT_OF_MEMORY) or be killed. Usage: cli_memory.sh GLSURF ASSETS
. "$(dirname "$0")/cli_common.sh"

noise() {  # noise SIDE FILE: a SIDE x SIDE grey image of random pixels
  { printf 'P5 %d %d 255\n' "$1" "$1"; head -c $(($1 * $1)) /dev/urandom; } > "$2"
}
noise 4096 "$work/4096.pgm"
noise 2048 "$work/2048.pgm"

# ulimit -v 2 GB: 4096 x 4096 in one piece on the GPU backend needs about
# 1.6 GB on top of the address space the process holds already, more than
# the limit leaves; in tiles it is detected within the limit.
out=$(ulimit -v 2000000; "$glsurf" detect "$work/4096.pgm" --max-features 5000 -o "$work/out.txt" 2>&1)
status=$?
[ $status -eq 0 ] && echo "$out" | grep -q "5000 keypoints, 4096x4096" || fail "under ulimit -v: status $status, $out"
[ "$(head -1 "$work/out.txt")" = "5000 64" ] || fail "under ulimit -v: $(head -1 "$work/out.txt")"
rm -f "$work/out.txt"

# --memory-budget below the smallest tile's needs: refused at once, nothing written.
start=$(date +%s%N)
out=$("$glsurf" detect "$work/4096.pgm" --memory-budget 100M -o "$work/out.txt" 2>&1)
status=$?
ms=$((($(date +%s%N) - start) / 1000000))
[ $status -eq 1 ] && echo "$out" | grep -q "image of 4096x4096 does not fit in one piece, and its smallest tile (864x864) needs about .* GB; the memory budget leaves 0.08 GB$" ||
  fail "--memory-budget 100M: status $status, $out"
[ $ms -lt 5000 ] || fail "the refusal took $ms ms"
[ ! -e "$work/out.txt" ] || fail "after the refusal a feature file was left"

# A fake cgroup tree with a 0.1 GB limit at this process's own cgroup (as
# /proc/self/cgroup names it): 2048 x 2048 needs about 0.6 GB, its smallest
# tile about 0.28 GB.
for version in 1 2; do
  root="$work/cgroup$version"
  while IFS=: read -r id controllers path; do
    if [ $version = 2 ] && [ -z "$controllers" ]; then
      mkdir -p "$root$path"
      echo 100000000 > "$root$path/memory.max"
      echo 0 > "$root$path/memory.current"
    elif [ $version = 1 ] && echo ",$controllers," | grep -q ",memory,"; then
      mkdir -p "$root/memory$path"
      echo 100000000 > "$root/memory$path/memory.limit_in_bytes"
      echo 0 > "$root/memory$path/memory.usage_in_bytes"
    fi
  done < /proc/self/cgroup
  [ -d "$root" ] || { echo "cgroup v$version: this process is in no such cgroup; not checked"; continue; }
  out=$(GLSURF_CGROUP_ROOT="$root" "$glsurf" detect "$work/2048.pgm" -o "$work/out.txt" 2>&1)
  status=$?
  [ $status -eq 1 ] && echo "$out" | grep -q "its smallest tile (864x864) needs about .* GB; available is 0.10 GB$" ||
    fail "cgroup v$version limit: status $status, $out"
  [ ! -e "$work/out.txt" ] || fail "under the cgroup limit a feature file was left"
done
echo "all memory checks passed"
