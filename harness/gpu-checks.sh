#!/usr/bin/env bash
# The GPU part of `make check`, run after everything is built.
#
# Without a usable GPU: prints "GPU checks skipped: <reason>", then of the
# student's exercise "threeway.cu: compiles, signature ok; NOT run (no
# GPU)" (make all compiled it to its device module and found the kernel),
# then its CPU check (`make -s -C day33-exercise-threeway cpu-status`:
# feedback only, never a grade; "not yet attempted" for the untouched
# starter). Exit 0, or 1 when the exercise does not compile or its CPU
# check fails (the report is printed).
# With one: every lab's self-check; then the student's exercise
# (`make -s -C day33-exercise-threeway status`: the untouched starter is
# "not yet attempted" and passes this step, a kernel that passes its check
# passes, one that fails fails with its report); then, only in the
# maintainers' copy (where day33-exercise-threeway/solution/ exists), the
# reference solution must pass and the committed starter must fail.
# Every step runs even after a failure; the last line says whether all
# passed, and the exit code is 1 if any failed.
#
#   bash harness/gpu-checks.sh        (from anywhere)
set -u
cd "$(dirname "$0")/.." || exit 2
# The makes below run one at a time: a parent make's job-server flags
# (make -j check) would only make each of them warn "jobserver
# unavailable". Its variables (make check ARCH=90) stay.
MAKEFLAGS=$(printf '%s' "${MAKEFLAGS:-}" |
    sed -E 's/(^| )-j[0-9]*( |$)/ /; s/ --jobserver-[a-z]+=[^ ]*//g')
export MAKEFLAGS
unset MFLAGS

probe_out=$(./harness/build/hx_probe 2>&1)
probe_rc=$?
ex=day33-exercise-threeway
if [ "$probe_rc" -eq 3 ]; then
    echo "GPU checks skipped: ${probe_out}"
    if ! built=$(make -s -C "$ex" all 2>&1); then
        printf '%s\n' "$built"
        echo "threeway.cu: FAILED: it does not compile to its device module (above)"
        exit 1
    fi
    echo "threeway.cu: compiles, signature ok; NOT run (no GPU)"
    echo "== exercise: the CPU check of your threeway.cu (feedback only; the GPU check is the real one): make -s -C $ex cpu-status"
    if make -s -C "$ex" cpu-status; then
        echo "== exercise: CPU check: ok"
        exit 0
    fi
    echo "== exercise: your threeway.cu: FAILED its CPU check (its report is above)"
    exit 1
elif [ "$probe_rc" -ne 0 ]; then
    echo "GPU probe failed (exit $probe_rc): ${probe_out}"
    exit 1
fi
echo "$probe_out"

failed=()
step() {
    local name=$1; shift
    echo "== $name: $*"
    "$@"
    local rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "== $name: FAILED (exit $rc)"
        failed+=("$name")
    else
        echo "== $name: ok"
    fi
}

step "day31-scan self-check" ./day31-scan/scan --check
step "day33-compaction self-check" ./day33-compaction/compaction --check

# The student's threeway.cu. status prints its report itself and ends
# with one verdict line, "threeway.cu: passes | fails | not yet attempted
# | not checked: no usable GPU"; make exits 2 whenever its recipe fails,
# so the verdict is read from that line, not from the exit code.
echo "== exercise: your threeway.cu: make -s -C $ex status"
status_log=$(mktemp)
make -s -C "$ex" status 2>&1 | tee "$status_log"
rc=${PIPESTATUS[0]}
# The verdict is status's last "threeway.cu: " line: make's own lines
# ("make[1]: *** ... Error 1", "Leaving directory") can follow it.
verdict=$(grep '^threeway.cu: ' "$status_log" | tail -n 1)
rm -f "$status_log"
case "$rc:$verdict" in
0:*) echo "== exercise: your threeway.cu: ok" ;;
*"threeway.cu: fails")
   echo "== exercise: your threeway.cu: FAILED (the kernel fails its check: its report is above)"
   failed+=("exercise: your threeway.cu") ;;
*"no usable GPU"*)
   echo "== exercise: your threeway.cu: FAILED (no usable GPU, though the probe found one)"
   failed+=("exercise: your threeway.cu") ;;
*) echo "== exercise: your threeway.cu: FAILED (exit $rc: the status target did not run)"
   failed+=("exercise: your threeway.cu") ;;
esac

if [ -d "$ex/solution" ]; then
    step "exercise: the reference solution passes" make -s -C "$ex" SOLUTION_FLAGS=--check solution
    step "exercise: the committed starter fails" make -s -C "$ex" starter-fails
else
    echo "== exercise: no solution/ in this copy: the reference and starter checks are the maintainers'"
fi

if [ "${#failed[@]}" -ne 0 ]; then
    echo "GPU checks: FAILED: $(printf '%s; ' "${failed[@]}" | sed 's/; $//')"
    exit 1
fi
echo "GPU checks: all passed"
