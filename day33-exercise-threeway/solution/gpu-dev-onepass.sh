#!/usr/bin/env bash
# gpu-dev-onepass.sh: the one-pass three-way split's checks on a GPU
# machine. Run from anywhere:
#   bash day33-exercise-threeway/solution/gpu-dev-onepass.sh [STEP...]
# With STEP names only those steps run; a later call finds the first's
# build. In three calls of under ten minutes each:
#   ... build kernels check table
#   ... dev-check variants broken-build broken
#   ... memcheck synccheck initcheck racecheck dev-memcheck dev-racecheck
# Steps (ARCH, default 90), each with the exit code it must have:
#   build        0  make threeway-onepass dev, timed
#   kernels      0  the sm_90 kernels of threeway-onepass, listed and
#                   counted (dev/cubin_kernels.py)
#   check        0  ./threeway-onepass --check: every size (0 to
#                   2^30 + 12345) and mix; ends "self-check: pass"
#   table        0  ./threeway-onepass: the timing table at the default n
#   dev-check    0  split3-variants --check: every configuration, the
#                   stalled look-back, then the planted errors, each
#                   "caught"; ends "split3-variants: pass"
#   variants     0  split3-variants --n 2^28: every configuration timed
#   broken-build 0  split3-variants built for sm_90 with -DLOOKBACK_BROKEN
#                   (the look-back takes an aggregate for a prefix)
#   broken       1  its --check at n = 1228803 (300 tiles) must fail
#   memcheck, synccheck, initcheck   0  threeway-onepass --check --n 530001
#   racecheck    0  threeway-onepass --check --n 140001
#   dev-memcheck, dev-racecheck      0  split3-variants --check --n 140001
#                   (the look-back configuration among them)
#   the sanitizers with --error-exitcode 99; their logs end "0 errors"
#   (racecheck: "0 hazards displayed")
# Logs: $OUT/gpu-dev-onepass when OUT is set, else /tmp/gpu-dev-onepass
# (gpu-dev.log, every step's output; summary.txt, a line per step). The
# exit code is 0 when every step run exited as it must, else 1.
set -u
cd "$(dirname "$0")/.." || exit 2
. ../harness/dev-steps.sh
logs=${OUT:+$OUT/gpu-dev-onepass}
steps_begin "${logs:-/tmp/gpu-dev-onepass}" "$@" || exit 2
export ARCH=${ARCH:-90}
variants=build/onepass/split3-variants
broken=build/onepass/split3-variants-broken
san="compute-sanitizer --error-exitcode 99"

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 |
    head -n 1 | tee -a "$steps_out/summary.txt"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
echo "ARCH=$ARCH, commit $commit" | tee -a "$steps_out/summary.txt"

step build 0 600 bash -c "time make -j\$(nproc) ARCH=$ARCH threeway-onepass dev"
step kernels 0 60 python3 solution/dev/cubin_kernels.py ./threeway-onepass 90
step check 0 600 ./threeway-onepass --check
step table 0 120 ./threeway-onepass
step dev-check 0 600 "$variants" --check
step variants 0 300 "$variants" --n 2^28
# With the objects the build step made.
step broken-build 0 300 nvcc -O3 -std=c++17 \
    -gencode arch=compute_90,code=sm_90 -I../harness -DLOOKBACK_BROKEN \
    -include solution/threeway.cu -o "$broken" \
    solution/dev/split3_variants.cu \
    ../day31-scan/build/shared/tile_scan.o ../harness/build/hx/*.o
step broken 1 120 "$broken" --check --n 1228803
step memcheck 0 300 $san --tool memcheck ./threeway-onepass --check --n 530001
step synccheck 0 300 $san --tool synccheck ./threeway-onepass --check --n 530001
step initcheck 0 300 $san --tool initcheck ./threeway-onepass --check --n 530001
step racecheck 0 600 $san --tool racecheck ./threeway-onepass --check --n 140001
step dev-memcheck 0 300 $san --tool memcheck "$variants" --check --n 140001
step dev-racecheck 0 600 $san --tool racecheck "$variants" --check --n 140001
steps_end
