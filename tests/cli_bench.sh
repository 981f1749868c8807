#!/bin/sh
# bench (everything) with --json: a record per frame size and per matcher
# size; with --json - the JSON alone on standard output (the table goes to
# standard error); a stage that did not run (select, without --max-features)
# is null, not a time. Usage: cli_bench.sh GLSURF ASSETS
. "$(dirname "$0")/cli_common.sh"

"$glsurf" bench --runs 1 --json - >"$work/bench.json" 2>"$work/table.txt" || fail "bench: $(tail -n 3 "$work/table.txt")"
[ "$(head -c 1 "$work/bench.json")" = "{" ] && [ "$(tail -n 1 "$work/bench.json")" = "}" ] ||
  fail "bench --json - mixed the table into the JSON: $(head -n 3 "$work/bench.json")"
[ "$(grep -c '"size": "[0-9]*x[0-9]*"' "$work/bench.json")" -eq 4 ] || fail "four frame sizes: $(grep size "$work/bench.json")"
[ "$(grep -c '"m": [0-9]*, "fused_gpu_ms": [0-9.]*, "cpu_ms": \([0-9.]*\|null\)}' "$work/bench.json")" -eq 5 ] ||
  fail "five matcher sizes: $(grep '"m"' "$work/bench.json")"
grep -q '"select": null' "$work/bench.json" || fail "select did not run, so no time: $(grep -o '"stages_ms": {[^}]*}' "$work/bench.json" | head -n 1)"
grep -q '"integral": [0-9][0-9.]*, "hessian": [0-9][0-9.]*, "extrema": [0-9][0-9.]*,' "$work/bench.json" ||
  fail "stage times: $(grep -o '"stages_ms": {[^}]*}' "$work/bench.json" | head -n 1)"
grep -q '^640x480 ' "$work/table.txt" || fail "the table on standard error: $(head -n 5 "$work/table.txt")"
echo "all bench checks passed"
