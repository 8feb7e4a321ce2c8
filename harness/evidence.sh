#!/usr/bin/env bash
# evidence.sh DEST [PART...]: on a GPU machine, build every day and capture
# the transcripts the lessons quote, one file per part, into DEST:
#   day31      scan --check, the default run (timed), --variants, --sweep
#              (its CSV beside the transcript), compute-sanitizer
#   onepass    the exercise's one-pass split (solution/onepass.cu): its
#              check, its table and --variants (every configuration)
#   day33      compaction --check, the default run under time, --variants,
#              --n 8387997, --sweep (its CSVs into DEST), sanitizers
#   threeway   the reference's check and timing, the starter failing, the
#              two wrong kernels' reports, the sanitizers on --plan sanitize,
#              a grade-mode result file
#   grading    the grading tool's tests with every corpus case graded on
#              the GPU, and that run's grades.csv, one results.json, timings
#              (harness/grade-tests/gpu-dev.sh --only grading)
#   class      a class of 100 copies of the reference solution, timed, with
#              and without compute-sanitizer's run (its cost)
#              (harness/grade-tests/gpu-dev.sh --only class)
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
        make -s -C $ex threeway-onepass >>"$dest/build.log" 2>&1
        $cap "$t" ./$ex/threeway-onepass --check
        $cap "$t" ./$ex/threeway-onepass
        $cap "$t" ./$ex/threeway-onepass --variants
        $cap "$t" $san --tool memcheck ./$ex/threeway-onepass --check --n 530001
        $cap "$t" $san --tool racecheck ./$ex/threeway-onepass --check --n 530001
        ;;
    day33)
        t=$dest/day33-compaction.txt
        $cap "$t" ./day33-compaction/compaction --check
        $cap "$t" bash -c 'time ./day33-compaction/compaction'
        $cap "$t" ./day33-compaction/compaction --variants
        $cap "$t" ./day33-compaction/compaction --n 8387997
        $cap "$t" ./day33-compaction/compaction --sweep --csv "$dest"
        # --check at 262147 runs every kernel, the single-pass ones over
        # 128 tiles (the smallest configuration) with and without stalls;
        # racecheck (shared memory, within a block) at a smaller size.
        for tool in memcheck synccheck initcheck; do
            $cap "$t" $san --tool $tool ./day33-compaction/compaction --check --n 262147
        done
        $cap "$t" $san --tool racecheck ./day33-compaction/compaction --check --n 65537
        $cap "$t" $san --tool memcheck --leak-check full ./day33-compaction/compaction --n 100000 --runs 1 --warmup 0
        ;;
    threeway)
        t=$dest/day33-exercise-threeway.txt
        ex=day33-exercise-threeway
        # make all compiled the modules for the default ARCH: fatbins.
        $cap "$t" make -s -C $ex solution
        $cap "$t" make -s -C $ex starter-fails
        $cap "$t" ./$ex/threeway --check --module $ex/build/starter.fatbin
        for kind in boundary order; do
            $cap "$t" python3 harness/grader/compiler.py harness/grade-tests/corpus/$kind/threeway.cu --out /tmp/threeway-$kind.fatbin
            $cap "$t" ./$ex/threeway --check --module /tmp/threeway-$kind.fatbin
        done
        for tool in memcheck racecheck initcheck synccheck; do
            $cap "$t" $san --tool $tool ./$ex/threeway --module $ex/build/solution.fatbin --plan sanitize --check --run-timeout 600
        done
        $cap "$t" ./$ex/threeway --grade --module $ex/build/solution.fatbin --result /tmp/threeway-grade.jsonl --seed 12345 --time
        $cap "$t" grep -v -e '"event":"start"' -e '"status":"pass","detail"' /tmp/threeway-grade.jsonl
        ;;
    grading|class)
        # The grading tool's own script: grading.txt and class.txt (see its
        # opening comment).
        bash harness/grade-tests/gpu-dev.sh --only "$part" "$dest"
        ;;
    *) echo "evidence.sh: unknown part $part"; exit 2 ;;
    esac
done
