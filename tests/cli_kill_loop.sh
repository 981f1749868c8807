#!/bin/sh
# A batch killed outright (SIGKILL) at random times, 20 times, into one
# output directory: one uninterrupted rerun then leaves exactly what a run
# that was never killed leaves, and no temporary of any killed run (each is
# removed by the next run into the directory). Usage: cli_kill_loop.sh GLSURF ASSETS
. "$(dirname "$0")/cli_common.sh"

mkdir "$work/in"
for name in box box_in_scene graf1 graf3; do cp "$assets/$name.png" "$work/in/"; done
"$glsurf" detect "$work/in" -o "$work/reference" --backend cpu --max-features 300 >/dev/null 2>&1 ||
  fail "the uninterrupted run"
kills=0
for i in $(seq 20); do
  "$glsurf" detect "$work/in" -o "$work/out" --backend cpu --max-features 300 >/dev/null 2>&1 &
  pid=$!
  # 0 to 0.4 s: before, during and after the writes (a whole run takes about 0.4 s here).
  sleep "$(awk -v seed="$i$$" 'BEGIN { srand(seed); printf "%.3f", rand() * 0.4 }')"
  kill -KILL $pid 2>/dev/null && kills=$((kills + 1))
  wait $pid 2>/dev/null
done
"$glsurf" detect "$work/in" -o "$work/out" --backend cpu --max-features 300 >/dev/null 2>&1 || fail "the rerun"
diff -r "$work/reference" "$work/out" >/dev/null || fail "after $kills kills the rerun's files differ: $(ls -A "$work/out")"
[ "$(ls -A "$work/out")" = "$(ls -A "$work/reference")" ] || fail "left beside the outputs: $(ls -A "$work/out")"
echo "all kill-loop checks passed ($kills of 20 runs killed)"
