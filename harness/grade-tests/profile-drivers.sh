#!/usr/bin/env bash
# harness/grade-tests/profile-drivers.sh [K...]: where a grading driver's
# time goes (grader/MAINTAINERS.md, "Speed"), on a GPU machine.
#
# Builds the driver and the reference's module for the local GPU, then
# runs the reference's driver as the grading tool does (grade mode, the
# full plan, --seed 5, timed against itself, one shared inputs' folder,
# CUDA_DEVICE_MAX_CONNECTIONS=1) with HX_PROFILE=gpu: twice alone (the
# first fills the inputs' folder), then K at once for each K given
# (default: 12). For each driver: "== NAME wall MS" (side by side: the
# group's), its result file's
# end event, and its two profile lines (the batches' stream time step by
# step; the process's parts). Exits 1 when a driver did not pass.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d '. ')
make -s -C "$root/harness" probe
make -s -C "$root/day33-exercise-threeway" modules ARCH="$arch"
ex=$root/day33-exercise-threeway
mod=$(ls "$ex"/build/solution.cubin "$ex"/build/solution.fatbin 2>/dev/null | head -n 1)
work=$(mktemp -d /tmp/profile-drivers.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/inputs"
bad=0
drv() {     # NAME: one driver, its stderr in NAME.err
    CUDA_DEVICE_MAX_CONNECTIONS=1 HX_PROFILE=gpu "$ex/threeway" --grade \
        --module "$mod" --result "$work/$1.jsonl" --seed 5 --plan full \
        --lock "$work/gpu.lock" --run-timeout 10 \
        --input-cache "$work/inputs" --time --ref-module "$mod" \
        ${DRIVER_ARGS:-} > /dev/null 2> "$work/$1.err" || true
}
show() {    # NAME START_NS END_NS
    local last
    last=$(tail -n 1 "$work/$1.jsonl" 2>/dev/null || true)
    echo "== $1 wall $(( ($3 - $2) / 1000000 )) ms; $last"
    cat "$work/$1.err"
    case $last in *'"status":"pass"'*) ;; *) bad=1 ;; esac
}
echo "profile-drivers: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1); ARCH=$arch; module $mod"
for i in 1 2; do
    s=$(date +%s%N); drv "alone$i"; e=$(date +%s%N); show "alone$i" "$s" "$e"
done
for k in ${@:-12}; do
    s=$(date +%s%N)
    for i in $(seq "$k"); do drv "k${k}_$i" & done
    wait
    e=$(date +%s%N)
    echo "== $k side by side: wall $(( (e - s) / 1000000 )) ms"
    for i in $(seq "$k"); do show "k${k}_$i" "$s" "$e"; done
done
exit $bad
