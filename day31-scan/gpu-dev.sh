#!/usr/bin/env bash
# gpu-dev.sh: the single-pass work of day 31 and the exercise's one-pass
# split, checked and measured in one GPU session before the evidence
# capture (harness/evidence.sh). Run from anywhere:
#   bash day31-scan/gpu-dev.sh          logs in $OUT, else ./gpu-dev-logs
# Steps, each logged to its own file; a line per step gives its exit code
# (and the one it should have), then the log's last lines:
#   build          make ARCH=90: scan, threeway-onepass
#   sass           the single-pass kernel's 16-byte loads and stores
#                  (LDG.E.128 / STG.E.128), where cuobjdump is installed
#   check          scan --check: ends "self-check: pass"
#   variants       scan --variants --n 2^28: every single-pass
#                  configuration, memcpy, copy and CUB, interleaved
#   table          scan: the lesson's table; "wall time" on its last line
#   sweep          scan --sweep: the CSV for the lesson's plot
#   onepass-check  threeway-onepass --check: ends "self-check: pass"
#   onepass        threeway-onepass: its table at the default size
#   broken-build   scan built with -DLOOKBACK_BROKEN (an aggregate taken
#                  for a prefix), into $OUT/scan-broken
#   broken         its --check must FAIL: exit 1
#   memcheck, racecheck   compute-sanitizer over scan --check at 530,001
#                  ints (130 tiles, a window moved back past 32 tiles)
set -u
cd "$(dirname "$0")/.." || exit 2
out=${OUT:-gpu-dev-logs}
mkdir -p "$out"
out=$(cd "$out" && pwd)
failed=0

step() {   # step NAME WANTED_EXIT COMMAND...
    local name=$1 want=$2
    shift 2
    local t0 t1 rc
    t0=$(date +%s%N)
    "$@" >"$out/$name.log" 2>&1
    rc=$?
    t1=$(date +%s%N)
    printf '== %-14s exit %d (want %d), %d.%03d s: %s\n' "$name" "$rc" \
        "$want" $(((t1 - t0) / 1000000000)) $(((t1 - t0) / 1000000 % 1000)) "$*"
    tail -n "${TAIL:-30}" "$out/$name.log" | sed 's/^/   /'
    [ "$rc" -eq "$want" ] || failed=1
    return 0
}

nvidia-smi --query-gpu=name,memory.total,compute_cap,driver_version \
    --format=csv,noheader 2>/dev/null | head -n 1
ex=day33-exercise-threeway
step build 0 bash -c "make -j ARCH=90 -C day31-scan && \
    make -j ARCH=90 -C $ex -f Makefile -f solution/onepass.mk threeway-onepass"
if command -v cuobjdump >/dev/null; then
    step sass 0 bash -c "cuobjdump -sass day31-scan/scan | awk \
        '/Function :/ { p = /singlePassScan/ } p' | \
        grep -oE '(LDG|STG)[.A-Z0-9]*' | sort | uniq -c"
fi
step check 0 ./day31-scan/scan --check
step variants 0 ./day31-scan/scan --variants --n 2^28
step table 0 ./day31-scan/scan
step sweep 0 ./day31-scan/scan --sweep --csv "$out/scan-sweep-h200.csv"
step onepass-check 0 ./$ex/threeway-onepass --check
step onepass 0 ./$ex/threeway-onepass
step broken-build 0 bash -c "nvcc -O3 -std=c++17 \
    -gencode arch=compute_90,code=sm_90 -Iharness -DLOOKBACK_BROKEN \
    -o '$out/scan-broken' day31-scan/scan.cu day31-scan/build/tile_scan.o \
    day31-scan/build/hx/*.o"
step broken 1 "$out/scan-broken" --check --n 1228803
san="compute-sanitizer --error-exitcode 99"
step memcheck 0 $san --tool memcheck ./day31-scan/scan --check --n 530001
step racecheck 0 $san --tool racecheck ./day31-scan/scan --check --n 530001

[ "$failed" -eq 0 ] && echo "gpu-dev: every step as expected" ||
    echo "gpu-dev: a step did not exit as expected (logs in $out)"
exit "$failed"
