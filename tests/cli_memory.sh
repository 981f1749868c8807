#!/bin/sh
# The memory check before a large image counts every limit the process is
# under, not only the machine's free memory: an address-space limit
# (ulimit -v) and the memory cgroups of containers and batch schedulers
# (v1 and v2, faked under GLSURF_CGROUP_ROOT). Each refuses the image at
# once, with the one-line reason, where the work would otherwise fail late
# (GL_OUT_OF_MEMORY) or be killed. Usage: cli_memory.sh GLSURF ASSETS
. "$(dirname "$0")/cli_common.sh"

noise() {  # noise SIDE FILE: a SIDE x SIDE grey image of random pixels
  { printf 'P5 %d %d 255\n' "$1" "$1"; head -c $(($1 * $1)) /dev/urandom; } > "$2"
}
noise 4096 "$work/4096.pgm"
noise 2048 "$work/2048.pgm"

# ulimit -v 2 GB: 4096 x 4096 on the GPU backend needs about 2.4 GB.
start=$(date +%s%N)
out=$(ulimit -v 2000000; "$glsurf" detect "$work/4096.pgm" -o "$work/out.txt" 2>&1)
status=$?
ms=$((($(date +%s%N) - start) / 1000000))
[ $status -eq 1 ] && echo "$out" | grep -q "image of 4096x4096 needs about .* GB is available$" ||
  fail "under ulimit -v: status $status, $out"
[ $ms -lt 5000 ] || fail "under ulimit -v the refusal took $ms ms"
[ ! -e "$work/out.txt" ] || fail "under ulimit -v a feature file was left"

# A fake cgroup tree with a 0.5 GB limit at this process's own cgroup (as
# /proc/self/cgroup names it): 2048 x 2048 needs about 0.7 GB.
for version in 1 2; do
  root="$work/cgroup$version"
  while IFS=: read -r id controllers path; do
    if [ $version = 2 ] && [ -z "$controllers" ]; then
      mkdir -p "$root$path"
      echo 500000000 > "$root$path/memory.max"
      echo 0 > "$root$path/memory.current"
    elif [ $version = 1 ] && echo ",$controllers," | grep -q ",memory,"; then
      mkdir -p "$root/memory$path"
      echo 500000000 > "$root/memory$path/memory.limit_in_bytes"
      echo 0 > "$root/memory$path/memory.usage_in_bytes"
    fi
  done < /proc/self/cgroup
  [ -d "$root" ] || { echo "cgroup v$version: this process is in no such cgroup; not checked"; continue; }
  out=$(GLSURF_CGROUP_ROOT="$root" "$glsurf" detect "$work/2048.pgm" -o "$work/out.txt" 2>&1)
  status=$?
  [ $status -eq 1 ] && echo "$out" | grep -q "needs about .* GB of memory .*; 0.5 GB is available$" ||
    fail "cgroup v$version limit: status $status, $out"
  [ ! -e "$work/out.txt" ] || fail "under the cgroup limit a feature file was left"
done
echo "all memory checks passed"
