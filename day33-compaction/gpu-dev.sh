#!/usr/bin/env bash
# gpu-dev.sh: the day 33 development run, in one call on a GPU machine,
# before the evidence is captured: build for sm_90 only, the self-check,
# the single-pass configurations side by side at n = 2^28 (which one should
# be passConfigs[0] in compaction.cu), and the default run under `time`
# (it must answer in 15 s or less on the H200). Each step's output goes to
# the terminal and to a log under $OUT (or /tmp/day33-dev); the last lines
# say which steps failed. Run from anywhere: bash day33-compaction/gpu-dev.sh
set -u
cd "$(dirname "$0")/.." || exit 2
out=${OUT:-/tmp/day33-dev}
mkdir -p "$out"
failed=""

step() {
    local name=$1; shift
    echo "== $name: $*"
    "$@" 2>&1 | tee "$out/$name.log"
    local rc=${PIPESTATUS[0]}
    echo "== $name: exit $rc"
    [ "$rc" -eq 0 ] || failed="$failed $name"
}

step build make -j"$(nproc)" -C day33-compaction ARCH=90
[ -z "$failed" ] || { echo "gpu-dev: the build failed"; exit 1; }
step check ./day33-compaction/compaction --check
step variants ./day33-compaction/compaction --variants --n 2^28
step default bash -c 'time ./day33-compaction/compaction'
if [ -n "$failed" ]; then
    echo "gpu-dev: FAILED:$failed (logs in $out)"
    exit 1
fi
echo "gpu-dev: all steps passed (logs in $out)"
