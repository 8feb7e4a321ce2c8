#!/usr/bin/env bash
# harness/solved-check.sh: runs a lab built with the reference fill of its
# your_turn.cu (make dev-check) and passes only when it exits 0 and prints
# no "not yet attempted" line: every slot filled, and every one checked.
#   bash harness/solved-check.sh PROGRAM ARGS...
set -u
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if printf '%s\n' "$out" | grep -q "not yet attempted"; then
    echo "solved-check: a slot reads \"not yet attempted\" with the reference fill"
    exit 1
fi
exit "$rc"
