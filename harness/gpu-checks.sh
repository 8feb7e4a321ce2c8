#!/usr/bin/env bash
# Runs every lab's GPU self-check, in order, and stops at the first failure.
# Called by `make check` after everything is built. Without a usable GPU it
# prints one line saying the GPU checks were skipped, and why, and exits 0:
# the host tests and the builds have already run.
set -u
cd "$(dirname "$0")/.." || exit 2

probe_out=$(./harness/build/hx_probe 2>&1)
probe_rc=$?
if [ "$probe_rc" -eq 3 ]; then
    echo "GPU checks skipped: ${probe_out}"
    exit 0
elif [ "$probe_rc" -ne 0 ]; then
    echo "GPU probe failed (exit $probe_rc): ${probe_out}"
    exit 1
fi
echo "$probe_out"

fail=0
step() {
    local name=$1; shift
    echo "== $name: $*"
    "$@"
    local rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "== $name FAILED (exit $rc)"
        fail=1
    else
        echo "== $name ok"
    fi
}

step "day31-scan self-check" ./day31-scan/scan --check
step "day33-compaction self-check" ./day33-compaction/compaction --check
step "exercise: the reference solution passes" make -s -C day33-exercise-threeway solution
step "exercise: the starter fails with a boundary/unwritten report" make -s -C day33-exercise-threeway starter-fails

if [ "$fail" -ne 0 ]; then
    echo "GPU checks: FAILED"
    exit 1
fi
echo "GPU checks: all passed"
