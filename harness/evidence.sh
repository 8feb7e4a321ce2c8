#!/usr/bin/env bash
# evidence.sh DEST [PART...]: on a GPU machine, build every day and capture
# the transcripts the lessons quote, one file per part, into DEST:
#   day31      scan --check, the default run (timed), --variants, --sweep
#              (its CSV beside the transcript), compute-sanitizer
#   onepass    the exercise's one-pass split (solution/onepass.cu): its
#              check, its table and --variants (every configuration)
#   day33      compaction --check, the default size, --n 8387997, sanitizers
#   threeway   the reference passing, the starter failing, the two wrong
#              kernels' reports, memcheck of the reference
#   grading    the grading tool over its corpus, and its --sanitize option
#   class      a class of 100 copies of the reference solution, timed
# With no PART, all six. Set COMMIT to the commit being captured (the GPU
# machine's copy of the tree has no .git). Copy the files into the day
# folders (day31-scan/evidence-h200.txt, ...; named for the GPU) and commit them.
set -u
dest=${1:?usage: evidence.sh DEST [day31|onepass|day33|threeway|grading|class]...}
shift
parts=${*:-day31 onepass day33 threeway grading class}
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
        $cap "$t" bash -c "time ./day31-scan/scan"
        $cap "$t" ./day31-scan/scan --variants
        $cap "$t" ./day31-scan/scan --sweep --csv "$dest/scan-sweep-h200.csv"
        # The lesson's plot, where this machine has matplotlib (else one line).
        $cap "$t" python3 harness/plot.py "$dest/scan-sweep-h200.csv" --out "$dest/sweep-h200.png"
        # Small runs, the single pass over 130 tiles of 4096 (the debug
        # stalls on: windows of 32 move back; the 3-block runs loop over
        # tiles).
        $cap "$t" $san --tool memcheck --leak-check full ./day31-scan/scan --n 530001 --runs 2 --warmup 1
        for tool in memcheck racecheck synccheck initcheck; do
            $cap "$t" $san --tool $tool ./day31-scan/scan --check --n 530001
        done
        ;;
    onepass)
        # Maintainers' evidence: solution/ is not in the student copy.
        t=$dest/day33-onepass.txt
        ex=day33-exercise-threeway
        make -s -C $ex -f Makefile -f solution/onepass.mk threeway-onepass >>"$dest/build.log" 2>&1
        $cap "$t" ./$ex/threeway-onepass --check
        $cap "$t" ./$ex/threeway-onepass
        $cap "$t" ./$ex/threeway-onepass --variants
        $cap "$t" $san --tool memcheck ./$ex/threeway-onepass --check --n 530001
        $cap "$t" $san --tool racecheck ./$ex/threeway-onepass --check --n 530001
        ;;
    day33)
        t=$dest/day33-compaction.txt
        $cap "$t" ./day33-compaction/compaction --check
        $cap "$t" ./day33-compaction/compaction
        $cap "$t" ./day33-compaction/compaction --n 8387997
        for tool in memcheck racecheck synccheck; do
            $cap "$t" $san --tool $tool ./day33-compaction/compaction --n 100000 --runs 1 --warmup 0
        done
        $cap "$t" $san --tool memcheck ./day33-compaction/compaction --check --n 100001
        ;;
    threeway)
        t=$dest/day33-exercise-threeway.txt
        ex=day33-exercise-threeway
        $cap "$t" make -s -C $ex solution
        $cap "$t" ./$ex/threeway-solution
        $cap "$t" make -s -C $ex starter-fails
        $cap "$t" ./$ex/threeway --check
        for kind in boundary order; do
            $cap "$t" make -s -C $ex STUDENT=../harness/grade-tests/corpus/$kind/threeway.cu
            $cap "$t" ./$ex/threeway --check
        done
        $cap "$t" make -s -C $ex STUDENT=threeway.cu
        $cap "$t" $san --tool memcheck ./$ex/threeway-solution --n 100000 --check
        $cap "$t" $san --tool memcheck ./$ex/threeway-solution --n 65537 --check
        ;;
    grading)
        t=$dest/grading.txt
        $cap "$t" python3 harness/grade-tests/run_tests.py
        rm -rf /tmp/sc /tmp/sc-out; mkdir -p /tmp/sc
        cp -r harness/grade-tests/corpus/pass harness/grade-tests/corpus/out_of_bounds harness/grade-tests/corpus/order /tmp/sc/
        $cap "$t" python3 harness/grade.py /tmp/sc --out /tmp/sc-out --sanitize --jobs 3
        $cap "$t" cat /tmp/sc-out/grades.csv
        $cap "$t" cat /tmp/sc-out/order/results.json
        ;;
    class)
        t=$dest/class.txt
        $cap "$t" env JOBS=16 bash harness/grade-tests/time-class.sh 100
        ;;
    *) echo "evidence.sh: unknown part $part"; exit 2 ;;
    esac
done
