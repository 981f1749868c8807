#!/bin/sh
# Runs a command with stdout and stderr together, prints what it printed, then
# "[exit status N, L lines]", so that a ctest PASS_REGULAR_EXPRESSION can check
# the output, the exit status and that an error is one line.
out=$("$@" 2>&1)
status=$?
printf '%s\n' "$out"
echo "[exit status $status, $(printf '%s\n' "$out" | wc -l) lines]"
