#!/usr/bin/env bash
# gpu-dev.sh: the single-pass work of day 31 and the exercise's one-pass
# split, checked and measured in one GPU session (about 4 minutes on an
# H200) before the evidence capture (harness/evidence.sh). Run from
# anywhere:
#   bash day31-scan/gpu-dev.sh     logs in $OUT, else ./gpu-dev-logs
# Writes two files: gpu-dev.log (every step's whole output, in order) and
# summary.txt (a line per step: its exit code, the one it should have, its
# time, then the log's last lines; also printed). Each step has a time
# limit, so a hang costs that step only (exit 124).
#   build            make ARCH=90: scan, threeway-onepass; in the
#                    background meanwhile, scan built with -DLOOKBACK_BROKEN
#                    (an aggregate taken for a prefix), into day31-scan/build
#   sass             per single-pass kernel: 16-byte loads and stores
#                    (LDG.E.128 / STG.E.128), and the fences (MEMBAR) and
#                    L1 invalidations (CCTL) that acquire-release costs,
#                    where cuobjdump is installed
#   check            scan --check: ends "self-check: pass"; every
#                    configuration with the stalled look-back
#   broken           the broken build's --check must FAIL: exit 1
#   variants         scan --variants --n 2^28: every single-pass
#                    configuration, memcpy, copy and CUB, interleaved
#   onepass-variants threeway-onepass --variants --n 2^28: every
#                    configuration of the split, memcpy, copy, both
#                    counting passes and CUB's three-way partition
#   ncu-scan, ncu-cub   Nsight Compute on one warm launch each of the
#                    production singlePassScan and of CUB's scan kernel at
#                    2^26 (from the default table run: the checks launch
#                    each first, the warm-ups next)
#   onepass-check    threeway-onepass --check at each size of its list but
#                    the random one and the one over 2^30 (the evidence
#                    capture runs those, and the split's sanitizers)
#   memcheck, racecheck   compute-sanitizer over scan --check at 530,001
#                    ints (87 production tiles, 130 of 4096; windows of 32
#                    moved back, the 3-block runs loop over tiles)
set -u
cd "$(dirname "$0")/.." || exit 2
out=${OUT:-gpu-dev-logs}
mkdir -p "$out"
out=$(cd "$out" && pwd)
log=$out/gpu-dev.log
summary=$out/summary.txt
: >"$log"
: >"$summary"
failed=0

step() {   # step NAME WANTED_EXIT SECONDS COMMAND...
    local name=$1 want=$2 limit=$3
    shift 3
    local t0 t1 rc part
    part=$(mktemp)
    t0=$(date +%s%N)
    timeout "$limit" "$@" >"$part" 2>&1
    rc=$?
    t1=$(date +%s%N)
    {
        printf '== %-17s exit %d (want %d), %d.%03d s: %s\n' "$name" "$rc" \
            "$want" $(((t1 - t0) / 1000000000)) \
            $(((t1 - t0) / 1000000 % 1000)) "$*"
        tail -n "${TAIL:-24}" "$part" | sed 's/^/   /'
    } | tee -a "$summary"
    { printf '\n######## %s: %s\n' "$name" "$*"; cat "$part"; } >>"$log"
    rm -f "$part"
    [ "$rc" -eq "$want" ] || failed=1
    return 0
}

nvidia-smi --query-gpu=name,memory.total,compute_cap,driver_version \
    --format=csv,noheader 2>/dev/null | head -n 1 | tee -a "$summary"
ex=day33-exercise-threeway
mkdir -p day31-scan/build
broken=day31-scan/build/scan-broken
nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -Iharness \
    -DLOOKBACK_BROKEN -c day31-scan/scan.cu -o "$broken.o" \
    >"$broken.log" 2>&1 &
brokenPid=$!
# The one-pass split lives in the maintainers' solution/ folder, which a
# student's copy of the course does not have: its steps run only with it.
onepass=$([ -d $ex/solution ] && echo yes)
[ -n "$onepass" ] || echo "no $ex/solution/ in this copy: the one-pass split's steps are skipped" | tee -a "$summary"
step build 0 300 bash -c "make -j ARCH=90 -C day31-scan & scan=\$!; \
    { [ -z '$onepass' ] || make -j ARCH=90 -C $ex threeway-onepass; } && \
    wait \$scan"
if command -v cuobjdump >/dev/null; then
    step sass 0 60 bash -c "for f in day31-scan/scan ${onepass:+$ex/threeway-onepass}; do
        cuobjdump -sass \$f | awk '
          /Function :/ { k = (\$0 ~ /singlePassScan|splitOnePass|splitRanges/) ? \$3 : \"\"
                         if (k != \"\") n[k] = 0 }
          k != \"\" && /LDG.E.128/ { l[k]++ }  k != \"\" && /STG.E.128/ { s[k]++ }
          k != \"\" && /MEMBAR/ { m[k]++ }     k != \"\" && /CCTL/ { c[k]++ }
          END { for (k in n) printf \"%4d LDG.128 %4d STG.128 %3d MEMBAR %3d CCTL  %s\n\",
                l[k], s[k], m[k], c[k], k }' | sort -k9
    done"
fi
step check 0 150 ./day31-scan/scan --check
wait "$brokenPid"
step broken-build 0 60 bash -c "cat $broken.log; nvcc -O3 \
    -std=c++17 -gencode arch=compute_90,code=sm_90 -o $broken $broken.o \
    day31-scan/build/tile_scan.o day31-scan/build/hx/*.o"
step broken 1 60 "$broken" --check --n 1228803
step variants 0 90 ./day31-scan/scan --variants --n 2^28
[ -z "$onepass" ] ||
    step onepass-variants 0 120 ./$ex/threeway-onepass --variants --n 2^28
ncu="ncu --clock-control none --launch-count 1 --section SpeedOfLight \
    --section MemoryWorkloadAnalysis --section WarpStateStats \
    --section SchedulerStats"
table="./day31-scan/scan --n 2^26 --runs 2 --warmup 1"
step ncu-scan 0 90 $ncu --kernel-name regex:singlePassScan --launch-skip 2 \
    $table
step ncu-cub 0 90 $ncu --kernel-name regex:DeviceScanKernel --launch-skip 1 \
    $table
[ -z "$onepass" ] ||
    step onepass-check 0 120 bash -o pipefail -c "for n in 0 1 2 3 255 256 \
    257 4095 4096 4097 65537 2457603 16777217; do ./$ex/threeway-onepass \
    --check --n \$n | grep -E 'pass \\(|FAIL|skipped' || exit; done"
san="compute-sanitizer --error-exitcode 99"
step memcheck 0 60 $san --tool memcheck ./day31-scan/scan --check --n 530001
step racecheck 0 150 $san --tool racecheck ./day31-scan/scan --check \
    --n 530001

[ "$failed" -eq 0 ] && echo "gpu-dev: every step as expected" ||
    echo "gpu-dev: a step did not exit as expected (logs in $out)"
exit "$failed"
