#!/usr/bin/env bash
# evidence.sh DEST [PART...]: on a GPU machine, build every day and capture
# the transcripts the lessons quote, one file per part, into DEST:
#   top        `time make run`, then the top-level `make check` with the
#              reference solution copied over threeway.cu (restored after):
#              the host tests, every lab's --check, the student's status,
#              the maintainers' solution and starter checks and the grading
#              tool's tests with the GPU (its outputs kept for "grading")
#   day31      the default run (timed), dev/scan-variants (the single
#              pass's configurations), --sweep (its CSV and plot beside the
#              transcript), Nsight Compute on the single pass and CUB's
#              scan, the tile-time trace (dev/trace_tiles.cu),
#              compute-sanitizer, dev/racecheck_named.cu form by form
#   onepass    the exercise's one-pass split (solution/onepass.cu): its
#              table and build/onepass/split3-variants (its --check runs in top),
#              compute-sanitizer's memcheck, synccheck, initcheck, racecheck
#   day33      compaction: the default run under time, dev/compaction-variants,
#              --n 8387997, --sweep (its CSVs into DEST), sanitizers
#   threeway   the reference's check and timing, the starter failing, the
#              two wrong kernels' reports, the sanitizers on --plan sanitize,
#              a grade-mode result file
#   grading    grades.csv, one results.json and timings.csv of the grading
#              tool's corpus run in "top" (or, without it, that run)
#   class      a class of 100 copies of the reference solution, timed, with
#              and without compute-sanitizer's run (its cost)
#   broken     the planted fault (-DLOOKBACK_BROKEN: a look-back takes an
#              aggregate for a prefix) in each single pass, built as the
#              days' gpu-dev scripts build it (day 31's and the one-pass
#              split's for sm_90 only): scan, compaction and split3-variants
#              --check at 1228803, each of which must fail (exit 1)
#   ptx        harness/ptx-checks.sh: the course built as compute_75, then
#              compute_80 PTX and checked on this GPU (the older GPUs'
#              source paths); last, since it leaves the build at compute_80
# With no PART, all of them in that order. The labs' --check output is in
# top's transcript (make check runs each). Set COMMIT to the commit being
# captured (the GPU machine's copy of the tree has no .git) and ARCH to
# build for (default: the course's "75 80 90"). Copy the files into the
# folders (day31-scan/evidence-h200.txt, ...; named for the GPU) and commit
# them.
set -u
dest=${1:?usage: evidence.sh DEST [top|day31|onepass|day33|threeway|grading|class|broken|ptx]...}
shift
parts=${*:-top day31 onepass day33 threeway grading class broken ptx}
cd "$(dirname "$0")/.." || exit 2
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
export ARCH=${ARCH:-75 80 90}
# The GPU's short name in file names: h200, h100, t4, ... (else "gpu").
tag=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 |
      grep -oiE '\b(h|a|b|l|t|v)[0-9]+\b' | head -n 1 | tr 'A-Z' 'a-z')
tag=${tag:-gpu}
export BUILD_LINE="make -j all ARCH=\"$ARCH\""
make -j"$(nproc)" all >"$dest/build.log" 2>&1 || { tail -n 40 "$dest/build.log"; exit 1; }
make -j"$(nproc)" -C day31-scan dev >>"$dest/build.log" 2>&1 || { tail -n 40 "$dest/build.log"; exit 1; }
# The exercise's modules: a cubin for one architecture, else a fatbin.
ext=$([ "$(echo $ARCH | wc -w)" -gt 1 ] && echo fatbin || echo cubin)
ex=day33-exercise-threeway
cap=harness/capture.sh
san="compute-sanitizer --error-exitcode 99"

for part in $parts; do
    case $part in
    top)
        t=$dest/make.txt
        $cap "$t" bash -c "time make run"
        cp $ex/threeway.cu "$dest/threeway.cu.saved"
        cp $ex/solution/threeway.cu $ex/threeway.cu
        rm -rf "$dest/grade-corpus"
        $cap "$t" make check RUN_TESTS_FLAGS="--keep $dest/grade-corpus"
        cp "$dest/threeway.cu.saved" $ex/threeway.cu
        ;;
    day31)
        t=$dest/day31-scan.txt
        $cap "$t" bash -c "time ./day31-scan/scan"
        $cap "$t" ./day31-scan/dev/scan-variants
        $cap "$t" ./day31-scan/scan --sweep --csv "$dest/scan-sweep-$tag.csv"
        # The lesson's plot, where this machine has matplotlib (else one line).
        $cap "$t" python3 harness/plot.py "$dest/scan-sweep-$tag.csv" --out "$dest/sweep-$tag.png"
        # Small runs: at 620001 the single pass has 152 ring tiles of 4096
        # and 101 piped tiles of 6144 (the debug stalls on: windows of 32
        # move back; the 3-block runs loop over tiles). Nsight: a warm
        # launch of each path (the ring's third launch, the piped loop's
        # second: the checks run first) and of CUB's.
        ncu="ncu --clock-control none --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats"
        $cap "$t" $ncu --kernel-name regex:singlePassScanRing --launch-skip 2 ./day31-scan/scan --n 2^26 --runs 2 --warmup 1
        $cap "$t" $ncu --kernel-name regex:singlePassScanPiped --launch-skip 1 ./day31-scan/scan --n 2^26 --runs 2 --warmup 1
        $cap "$t" $ncu --kernel-name regex:DeviceScanKernel --launch-skip 1 ./day31-scan/scan --n 2^26 --runs 2 --warmup 1
        # Where a tile's time goes: clock64() stamps in instrumented copies
        # of the one-tile loop and the pipelined one (a development tool).
        $cap "$t" ./day31-scan/dev/trace-tiles 28
        $cap "$t" $san --tool memcheck --leak-check full ./day31-scan/scan --n 620001 --runs 2 --warmup 1
        for tool in memcheck synccheck initcheck; do
            $cap "$t" $san --tool $tool ./day31-scan/scan --check --n 620001
        done
        # racecheck (shared memory, within a block) over 23 production
        # tiles.
        $cap "$t" $san --tool racecheck ./day31-scan/scan --check --n 140001
        # The hand-over pattern of the piped kernels in one small kernel,
        # plain and under racecheck, one form at a time (racecheck_named.cu's
        # opening comment); racy is the control, a real race racecheck must
        # report.
        $cap "$t" ./day31-scan/dev/racecheck-named 2000
        for form in plain named mbar mball nmround racy; do
            $cap "$t" $san --tool racecheck --print-limit 1 ./day31-scan/dev/racecheck-named 2000 $form
        done
        ;;
    onepass)
        # Maintainers' evidence: solution/ is not in the student copy.
        t=$dest/day33-onepass.txt
        make -s -C $ex threeway-onepass >>"$dest/build.log" 2>&1
        $cap "$t" ./$ex/threeway-onepass
        make -s -C $ex dev >>"$dest/build.log" 2>&1
        $cap "$t" ./$ex/build/onepass/split3-variants
        # --check at 530001 runs every configuration over 130 tiles (the
        # look-back ones with stalls; 3 blocks: ranges of 43 or 44 tiles);
        # racecheck (shared memory, within a block) over 35 tiles.
        for tool in memcheck synccheck initcheck; do
            $cap "$t" $san --tool $tool ./$ex/threeway-onepass --check --n 530001
        done
        $cap "$t" $san --tool racecheck ./$ex/threeway-onepass --check --n 140001
        ;;
    day33)
        t=$dest/day33-compaction.txt
        $cap "$t" bash -c 'time ./day33-compaction/compaction'
        make -s -C day33-compaction dev >>"$dest/build.log" 2>&1
        $cap "$t" ./day33-compaction/dev/compaction-variants
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
        # make all compiled the modules (build/*.$ext).
        $cap "$t" bash -c "time ./$ex/threeway --module $ex/build/solution.$ext"
        $cap "$t" make -s -C $ex starter-fails
        $cap "$t" ./$ex/threeway --check --module $ex/build/starter.$ext
        for kind in boundary order; do
            $cap "$t" python3 harness/grader/compiler.py harness/grade-tests/corpus/$kind/threeway.cu --out /tmp/threeway-$kind.$ext --arch "$ARCH"
            $cap "$t" ./$ex/threeway --check --module /tmp/threeway-$kind.$ext
        done
        for tool in memcheck racecheck initcheck synccheck; do
            $cap "$t" $san --tool $tool ./$ex/threeway --module $ex/build/solution.$ext --plan sanitize --check --run-timeout 600
        done
        $cap "$t" ./$ex/threeway --grade --module $ex/build/solution.$ext --result /tmp/threeway-grade.jsonl --seed 12345 --time
        $cap "$t" grep -v -e '"event":"start"' -e '"status":"pass","detail"' /tmp/threeway-grade.jsonl
        ;;
    grading)
        if [ -d "$dest/grade-corpus" ]; then
            # The corpus graded by top's make check (run_tests.py --keep).
            t=$dest/grading.txt
            for f in grades.csv submissions/order/results.json timings.csv; do
                $cap "$t" cat "$dest/grade-corpus/$f"
            done
        else
            bash harness/grade-tests/gpu-dev.sh --only grading "$dest"
        fi
        ;;
    class)
        # The grading tool's own script: class.txt (see its opening comment).
        bash harness/grade-tests/gpu-dev.sh --only class "$dest"
        ;;
    broken)
        # Built quietly (their logs under DEST/broken), then each check
        # run: the transcript shows each failure and its exit code, 1.
        t=$dest/broken.txt
        OUT=$dest/broken bash day31-scan/gpu-dev.sh broken-build >/dev/null
        make -s -C day33-compaction dev/compaction-broken \
            >>"$dest/build.log" 2>&1
        OUT=$dest/broken bash $ex/solution/gpu-dev-onepass.sh broken-build \
            >/dev/null
        $cap "$t" ./day31-scan/build/broken/scan --check --n 1228803
        $cap "$t" ./day33-compaction/dev/compaction-broken --check --n 1228803
        $cap "$t" ./$ex/build/onepass/split3-variants-broken --check --n 1228803
        ;;
    ptx)
        BUILD_LINE="bash harness/ptx-checks.sh (make -j all ARCH=compute_75, then compute_80)" \
            $cap "$dest/ptx-checks.txt" bash harness/ptx-checks.sh
        ;;
    *) echo "evidence.sh: unknown part $part"; exit 2 ;;
    esac
done
