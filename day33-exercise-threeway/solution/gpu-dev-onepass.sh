#!/usr/bin/env bash
# gpu-dev-onepass.sh: the one-pass three-way split's checks on a GPU
# machine, in one call. Run from anywhere:
#   bash day33-exercise-threeway/solution/gpu-dev-onepass.sh
# Steps (ARCH, default 90):
#   build        make threeway-onepass and build/onepass/split3-variants,
#                timed; then, in the background, split3-variants built with
#                -DLOOKBACK_BROKEN (the look-back takes an aggregate for a
#                prefix: its --check must fail)
#   kernels      the sm_90 kernels of threeway-onepass (dev/cubin_kernels.py)
#   check        ./threeway-onepass --check: every size (0 to 2^30 + 12345)
#                and mix; ends "self-check: pass", exit 0
#   table        ./threeway-onepass: the timing table at the default n
#   dev-check    split3-variants --check: every configuration, the stalled
#                look-back, the planted errors; ends
#                "split3-variants: pass", exit 0
#   variants     split3-variants: every configuration timed (n = 2^28)
#   broken       the broken build's --check at n = 1228803 must exit 1
#   memcheck, synccheck, initcheck   threeway-onepass --check --n 530001
#   racecheck    threeway-onepass --check --n 140001
#   dev-memcheck, dev-racecheck      split3-variants --check --n 140001
#                (the look-back configuration among them)
#   each under compute-sanitizer --error-exitcode 99: exit 0, "0 errors"
#   (racecheck: "0 hazards")
# Logs go to $OUT/gpu-dev-onepass when OUT is set, else to
# /tmp/gpu-dev-onepass. One line per step, "ok" or "FAILED"; the exit code
# is the number of failed steps.
set -u
cd "$(dirname "$0")/.." || exit 2
logs=${OUT:+$OUT/gpu-dev-onepass}
logs=${logs:-/tmp/gpu-dev-onepass}
mkdir -p "$logs"
export ARCH=${ARCH:-90}
failed=0
variants=build/onepass/split3-variants
broken=build/onepass/split3-variants-broken

# step NAME WANT SECONDS COMMAND...: runs COMMAND, its output in
# $logs/NAME.log; ok when it exits WANT within SECONDS.
step() {
    local name=$1 want=$2 limit=$3; shift 3
    timeout "$limit" "$@" >"$logs/$name.log" 2>&1
    local rc=$?
    if [ "$rc" -eq "$want" ]; then
        echo "ok      $name (exit $rc)"
    else
        echo "FAILED  $name: exit $rc, want $want (see $logs/$name.log)"
        tail -n 8 "$logs/$name.log" | sed 's/^/        /'
        failed=$((failed + 1))
    fi
    tail -n 3 "$logs/$name.log" | sed 's/^/        /'
}

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader \
    >"$logs/gpu.txt" 2>&1
echo "GPU: $(head -n 1 "$logs/gpu.txt"), ARCH=$ARCH, commit $(git rev-parse --short HEAD 2>/dev/null), logs in $logs"

step build 0 600 bash -c "time make -j\$(nproc) ARCH=$ARCH threeway-onepass dev"
# The broken build, while the checks run: objects of the build above.
nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -I../harness \
    -DLOOKBACK_BROKEN -o "$broken" solution/dev/split3_variants.cu \
    build/onepass/threeway.o build/onepass/tile_scan.o build/hx/*.o \
    >"$logs/broken-build.log" 2>&1 &
brokenPid=$!
step kernels 0 60 python3 solution/dev/cubin_kernels.py ./threeway-onepass 90
step check 0 600 ./threeway-onepass --check
step table 0 120 ./threeway-onepass
step dev-check 0 600 "$variants" --check
step variants 0 300 "$variants" --n 2^28
wait "$brokenPid" || { echo "FAILED  broken-build (see $logs/broken-build.log)"; failed=$((failed + 1)); }
step broken 1 120 "$broken" --check --n 1228803
san="compute-sanitizer --error-exitcode 99"
step memcheck 0 300 $san --tool memcheck ./threeway-onepass --check --n 530001
step synccheck 0 300 $san --tool synccheck ./threeway-onepass --check --n 530001
step initcheck 0 300 $san --tool initcheck ./threeway-onepass --check --n 530001
step racecheck 0 600 $san --tool racecheck ./threeway-onepass --check --n 140001
step dev-memcheck 0 300 $san --tool memcheck "$variants" --check --n 140001
step dev-racecheck 0 600 $san --tool racecheck "$variants" --check --n 140001

[ "$failed" -eq 0 ] && echo "gpu-dev-onepass: every step as expected" ||
    echo "gpu-dev-onepass: $failed step(s) not as expected (logs in $logs)"
exit "$failed"
