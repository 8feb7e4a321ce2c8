#!/usr/bin/env bash
# harness/grade-tests/gpu-dev.sh [--only driver|grading|stallers|class]
# [DEST]: the grading tool's and the driver's checks on a GPU machine, in
# one call (about 10 minutes on an H200 with 16 cores). DEST defaults to
# $OUT, else /tmp/grade-gpu-dev. Builds the GPU probe and the driver for
# the local GPU, then writes:
#   driver.txt    day33-exercise-threeway/gpu-dev.sh: the driver alone
#                 (named tests, --tests, the hostile kernels and the
#                 stallers in grade mode, the sanitizers), its logs in
#                 DEST/gpu-dev
#   grading.txt   run_tests.py with the GPU (every corpus case graded for
#                 real and checked against expected.csv, with memcheck's
#                 run; oob_mib again without it), then that run's
#                 grades.csv, corpus/order's results.json and timings.csv
#   stallers.txt  a class of 12 copies of the reference solution graded
#                 alone, then with each staller of the corpus beside them
#                 (same seed): every copy graded as alone (pass, x_copy
#                 within 5% of its clean run), every staller its expected
#                 verdict, the whole within the clean time plus one
#                 submission's limit (harness/grade-tests/stallers.py)
#   class.txt     time-class.sh 100 twice, memcheck's run on (the default)
#                 and off (--no-sanitize): the time in all, where it went,
#                 the x_copy spread, each run's own verdict line
#   outs.tar.gz   the OUT folders of those grading runs (their
#                 submissions/ folders left out, but the corpus's)
#   build.log, summary.txt (the lines printed last)
# The .txt files are transcripts (harness/capture.sh): they are what
# evidence.sh's parts "class" and "grading" capture, since those parts run
# this script with --only. Set COMMIT to the commit being run.
# Exit code: the number of steps that failed (0: every check held).
set -u
only=
if [ "${1:-}" = --only ]; then only=$2; shift 2; fi
dest=${1:-${OUT:-/tmp/grade-gpu-dev}}
cd "$(dirname "$0")/../.." || exit 2
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
work=$(mktemp -d /tmp/grade-gpu-dev.XXXXXX)
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d '. ')
export BUILD_LINE="make -C harness probe; make -C day33-exercise-threeway threeway ARCH=$arch"
cap=harness/capture.sh
failed=0
summary=()

# step NAME LIMIT COMMAND...: runs COMMAND under a time limit (seconds),
# notes "ok" or "FAILED" (with the exit code) for the summary.
step() {
    local name=$1 limit=$2; shift 2
    local t0=$SECONDS rc=0
    timeout "$limit" "$@" || rc=$?
    if [ "$rc" -eq 0 ]; then
        summary+=("ok      $name ($((SECONDS - t0)) s)")
    else
        summary+=("FAILED  $name: exit $rc$([ "$rc" -eq 124 ] && echo ", stopped at $limit s") ($((SECONDS - t0)) s)")
        failed=$((failed + 1))
    fi
}

{ make -s -C harness probe && make -s -C day33-exercise-threeway threeway ARCH="$arch"; } \
    >"$dest/build.log" 2>&1 || { echo "FAILED  build (see $dest/build.log)"; tail -n 20 "$dest/build.log"; exit 1; }

if [ -z "$only" ] || [ "$only" = driver ]; then
    step "the driver: day33-exercise-threeway/gpu-dev.sh" 900 \
        env OUT="$dest" $cap "$dest/driver.txt" bash day33-exercise-threeway/gpu-dev.sh
fi
if [ -z "$only" ] || [ "$only" = grading ]; then
    step "run_tests.py with the GPU" 600 \
        $cap "$dest/grading.txt" python3 harness/grade-tests/run_tests.py --keep "$work/corpus"
    for f in grades.csv submissions/order/results.json timings.csv; do
        $cap "$dest/grading.txt" cat "$work/corpus/$f"
    done
fi
if [ -z "$only" ] || [ "$only" = stallers ]; then
    step "the staller class" 600 \
        $cap "$dest/stallers.txt" python3 harness/grade-tests/stallers.py "$work/stallers"
fi
if [ -z "$only" ] || [ "$only" = class ]; then
    # Alone on the machine: these are the measurements.
    step "time-class.sh 100 --sanitize" 150 \
        env KEEP="$work/class" $cap "$dest/class.txt" bash harness/grade-tests/time-class.sh 100 --sanitize
    step "time-class.sh 100 --no-sanitize" 150 \
        env KEEP="$work/class-no-sanitize" $cap "$dest/class.txt" bash harness/grade-tests/time-class.sh 100 --no-sanitize
fi
[ -n "$only" ] && exit "$failed"

tar -czf "$dest/outs.tar.gz" -C "$work" --exclude='class*/submissions' --exclude='*/.grader' . 2>/dev/null
{
    echo "gpu-dev: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1), ARCH=$arch, $(nproc) CPUs, commit ${COMMIT:-unknown}"
    printf '%s\n' "${summary[@]}"
    grep -h -e '^time-class:' -e '^in all:' -e '^  [a-z/]* *summed' -e '^x_copy of' -e '^  compiles from' "$dest/class.txt" 2>/dev/null
    grep -h -e '^FAIL ' -e '^[0-9]* passed, [0-9]* failed' "$dest/grading.txt" 2>/dev/null
    grep -h -e '^gpu-dev: ' -e '^FAILED ' "$dest/driver.txt" 2>/dev/null
    grep -h -e '^BAD ' -e '^clean class' -e '^stallers:' "$dest/stallers.txt" 2>/dev/null
} >"$dest/summary.txt"
cat "$dest/summary.txt"
exit "$failed"
