#!/usr/bin/env bash
# gpu-dev.sh: day 31 checked and measured in one GPU session, before the
# evidence capture (harness/evidence.sh). Run from anywhere:
#   bash day31-scan/gpu-dev.sh [STEP...]    logs in $OUT, else ./gpu-dev-logs
# With STEPs, only those run (a later call finds the build of an earlier
# one): e.g. "build kernels sass check broken-build broken table sweep
# dev-check variants", then "memcheck racecheck synccheck initcheck", each
# within ten minutes on an H200.
# Writes gpu-dev.log (every step's whole output, in order) and summary.txt
# (a line per step: its exit code, the one it should have, its time, then
# the log's last lines; also printed), through harness/dev-steps.sh. Each
# step has a time limit, so a hang costs that step only (exit 124).
#   build        make ARCH=90 of scan and dev/ (make dev); in the
#                background meanwhile, scan built with -DLOOKBACK_BROKEN
#                (an aggregate taken for a prefix), into day31-scan/build
#   kernels      the ELFs of scan (cuobjdump --list-elf: one per
#                translation unit and architecture), and the kernels of its
#                sm_90 ones, counted and named: the default rows' kernels,
#                the __restrict__ example's two and the harness's compare,
#                where cuobjdump is installed
#   sass         per single-pass kernel (scan and dev/scan-variants):
#                16-byte loads and stores (LDG.E.128 / STG.E.128), and the
#                fences (MEMBAR) and L1 invalidations (CCTL) that
#                acquire-release costs
#   check        scan --check: ends "self-check: pass"
#   broken       the broken build's --check must FAIL: exit 1
#   yours-broken dev/scan-solved-broken (the reference fill of
#                your_turn.cu, its inclusive scan off by one) --check must
#                FAIL: exit 1, with a first-bad-index report
#   table        scan: the default table (the lesson's rows)
#   sweep        scan --sweep: 2^10 up, into $OUT/scan-sweep.csv
#   dev-check    make dev-check: dev/scan-variants --check (every
#                configuration, stalled), dev/trace-tiles, dev/racecheck-named,
#                dev/scan-solved --check (no "not yet attempted")
#   variants     dev/scan-variants --n 2^28: every configuration, memcpy,
#                copy and CUB, interleaved
#   memcheck, synccheck, initcheck   compute-sanitizer over scan --check
#                --n 620001 (101 production tiles: windows of 32 that must
#                move back under the stalls; the 3-block runs loop over
#                tiles)
#   racecheck    the same over scan --check --n 140001 (23 production
#                tiles; racecheck is the slow one)
#   ring-*       only when named: the ring of bulk copies (at the end of
#                this file), its check, timing, Nsight and sanitizers
set -u
cd "$(dirname "$0")/.." || exit 2
. harness/dev-steps.sh
steps_begin "${OUT:-gpu-dev-logs}" "$@" || exit 2
out=$steps_out

nvidia-smi --query-gpu=name,memory.total,compute_cap,driver_version \
    --format=csv,noheader 2>/dev/null | head -n 1 | tee -a "$out/summary.txt"
mkdir -p day31-scan/build/broken
broken=day31-scan/build/broken/scan
brokenPid=
if step_wanted broken-build || step_wanted broken; then
    nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -Iharness \
        -DLOOKBACK_BROKEN -include day31-scan/scan_check.cu \
        -c day31-scan/scan.cu -o "$broken.o" \
        >"$broken.log" 2>&1 &
    brokenPid=$!
fi
step build 0 400 make -j ARCH=90 -C day31-scan all dev
if command -v cuobjdump >/dev/null; then
    step kernels 0 60 bash -c "cuobjdump --list-elf day31-scan/scan; \
        cuobjdump -arch sm_90 -sass day31-scan/scan | grep -c 'Function :' | \
        sed 's/^/kernels in the sm_90 cubins of scan: /'; \
        cuobjdump -arch sm_90 -sass day31-scan/scan | grep 'Function :' | \
        sed 's/.*Function : //' | cut -c1-100"
    step sass 0 60 bash -c "for f in day31-scan/scan day31-scan/dev/scan-variants; do
        cuobjdump -sass \$f | awk '
          /Function :/ { k = (\$0 ~ /singlePassScan/) ? \$3 : \"\"
                         if (k != \"\") n[k] = 0 }
          k != \"\" && /LDG.E.128/ { l[k]++ }  k != \"\" && /STG.E.128/ { s[k]++ }
          k != \"\" && /MEMBAR/ { m[k]++ }     k != \"\" && /CCTL/ { c[k]++ }
          END { for (k in n) printf \"%4d LDG.128 %4d STG.128 %3d MEMBAR %3d CCTL  %s\n\",
                l[k], s[k], m[k], c[k], k }' | sort -k9
    done"
fi
step check 0 300 ./day31-scan/scan --check
[ -z "$brokenPid" ] || wait "$brokenPid"
step broken-build 0 60 bash -c "cat $broken.log; nvcc -O3 \
    -std=c++17 -gencode arch=compute_90,code=sm_90 -o $broken $broken.o \
    day31-scan/build/shared/tile_scan.o \
    day31-scan/build/your_turn.o harness/build/hx/*.o"
step broken 1 60 "$broken" --check --n 1228803
step yours-broken 1 120 bash -c "make -s ARCH=90 -C day31-scan \
    dev/scan-solved-broken && ./day31-scan/dev/scan-solved-broken --check \
    --n 70001"
step table 0 120 ./day31-scan/scan
step sweep 0 300 ./day31-scan/scan --sweep --csv "$out/scan-sweep.csv"
step dev-check 0 600 env OUT="$out" make -C day31-scan dev-check
step variants 0 120 ./day31-scan/dev/scan-variants --n 2^28
san="compute-sanitizer --error-exitcode 99"
small="./day31-scan/scan --check --n 620001"
step memcheck 0 200 $san --tool memcheck $small
step racecheck 0 200 $san --tool racecheck ./day31-scan/scan --check \
    --n 140001
step synccheck 0 200 $san --tool synccheck $small
step initcheck 0 200 $san --tool initcheck $small

# The ring of bulk copies (ring_pipeline.cuh, production on sm_90 and
# newer; day31-scan/NOTES.md): its steps run only when named, never in
# the default run: ring-check ring-variants ring-ncu ring-memcheck
# ring-racecheck ring-synccheck ring-initcheck.
if [[ "$steps_only" == *" ring-"* ]]; then
    ring=env
    vars=./day31-scan/dev/scan-variants
    step ring-check 0 300 $ring $vars --check
    step ring-variants 0 120 $ring $vars --n 2^28
    step ring-ncu 0 300 $ring ncu --clock-control none \
        --section SpeedOfLight --section MemoryWorkloadAnalysis \
        --section WarpStateStats --launch-count 12 \
        --kernel-name 'regex:singlePassScan(Ring|Piped)|DeviceScanKernel' \
        $vars --n 2^26 --runs 1 --warmup 0
    step ring-memcheck 0 300 $ring $san --tool memcheck $vars --check \
        --n 1000003
    step ring-racecheck 0 300 $ring $san --tool racecheck $vars --check \
        --n 140001
    step ring-synccheck 0 300 $ring $san --tool synccheck $vars --check \
        --n 1000003
    step ring-initcheck 0 300 $ring $san --tool initcheck $vars --check \
        --n 1000003
fi

steps_end
