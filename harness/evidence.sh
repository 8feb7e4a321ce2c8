#!/usr/bin/env bash
# evidence.sh DEST [PART...]: on a GPU machine, build every day and capture
# the transcripts the lessons quote, one file per part, into DEST:
#   day31      scan --check, the default size, --n 8387997, compute-sanitizer
#   day33      compaction --check, the default size, --n 8387997, sanitizers
#   threeway   the reference passing, the starter failing, the two wrong
#              kernels' reports, memcheck of the reference
#   grading    the grading tool over its corpus, and a class of 100 copies of
#              the reference solution, timed
# With no PART, all four. Set COMMIT to the commit being captured (the GPU
# machine's copy of the tree has no .git). Copy the files into the day
# folders (day31-scan/evidence.txt, ...) and commit them.
set -u
dest=${1:?usage: evidence.sh DEST [day31|day33|threeway|grading]...}
shift
parts=${*:-day31 day33 threeway grading}
cd "$(dirname "$0")/.." || exit 2
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
export BUILD_LINE="make -j all   (default ARCH: 75 80 90, + PTX 90)"
make -j"$(nproc)" all >"$dest/build.log" 2>&1 || { tail -n 40 "$dest/build.log"; exit 1; }
cap=harness/capture.sh
san="compute-sanitizer --error-exitcode 99"

for part in $parts; do
    case $part in
    day31)
        t=$dest/day31-scan.txt
        $cap "$t" ./day31-scan/scan --check
        $cap "$t" ./day31-scan/scan
        $cap "$t" ./day31-scan/scan --n 8387997
        for tool in memcheck racecheck synccheck initcheck; do
            $cap "$t" $san --tool $tool ./day31-scan/scan --n 100000 --runs 1 --warmup 0
        done
        ;;
    day33)
        t=$dest/day33-compaction.txt
        $cap "$t" ./day33-compaction/compaction --check
        $cap "$t" ./day33-compaction/compaction
        $cap "$t" ./day33-compaction/compaction --n 8387997
        for tool in memcheck racecheck synccheck; do
            $cap "$t" $san --tool $tool ./day33-compaction/compaction --n 100000 --runs 1 --warmup 0
        done
        ;;
    threeway)
        t=$dest/day33-exercise-threeway.txt
        $cap "$t" make -s -C day33-exercise-threeway solution
        $cap "$t" ./day33-exercise-threeway/threeway-solution
        $cap "$t" ./day33-exercise-threeway/threeway --check
        $cap "$t" make -s -C day33-exercise-threeway STUDENT=../harness/grade-tests/corpus/boundary/threeway.cu BIN=threeway-boundary
        $cap "$t" ./day33-exercise-threeway/threeway-boundary --check
        $cap "$t" make -s -C day33-exercise-threeway STUDENT=../harness/grade-tests/corpus/order/threeway.cu BIN=threeway-order
        $cap "$t" ./day33-exercise-threeway/threeway-order --check
        $cap "$t" $san --tool memcheck ./day33-exercise-threeway/threeway-solution --n 100000 --check
        ;;
    grading)
        t=$dest/grading.txt
        $cap "$t" python3 harness/grade-tests/run_tests.py
        $cap "$t" bash harness/grade-tests/class100.sh
        ;;
    *) echo "evidence.sh: unknown part $part"; exit 2 ;;
    esac
done
