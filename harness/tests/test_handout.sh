#!/usr/bin/env bash
# test_handout.sh: makes a student's copy (make handout) in a temporary
# folder and checks it as a student would use it. Maintainers' copy only
# (it needs the reference solution and the corpus; the handout leaves this
# script out). The top make check runs it.
#
#   bash harness/tests/test_handout.sh
#   HANDOUT_KEEP=1 bash harness/tests/test_handout.sh   (keeps the copy)
#   HANDOUT_SHOW=1 bash harness/tests/test_handout.sh   (prints every
#       command run in the copy and all it printed: a transcript)
#   HANDOUT_ARCH=90 HANDOUT_JOBS=16 ...   (the copy's ARCH and make -j)
#
# The copy is made from the last commit (as make handout makes it), so
# uncommitted changes are not what it tests. Checked:
#   1. none of what the handout leaves out is in the copy;
#   2. make check passes in it with the untouched starter (without a GPU:
#      "threeway.cu: compiles, signature ok; NOT run (no GPU)", "not yet
#      attempted", nothing that reads as the kernel passing);
#   3. with the reference kernel copied over threeway.cu, the CPU check
#      passes, and so does make check (on a GPU: the GPU check);
#   4. with a kernel that puts boundary 2 one slot early (the corpus's
#      "boundary"), the CPU check fails with the boundary report, both
#      positions named, and make check in the copy fails with that report.
# The copy's labs are built for ARCH=90 alone when there is no GPU (the
# build is the slow part; the maintainers' build/hx_probe says), for the
# default ARCH when there is one, unless HANDOUT_ARCH says.
# Last line "N passed, M failed"; exit 1 when M > 0.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
[ -n "${HANDOUT_KEEP:-}" ] && echo "test_handout: the copy stays in $scratch/h" ||
    trap 'rm -rf "$scratch"' EXIT
h=$scratch/h
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }

. "$top/harness/tests/expect.sh"

# expect NAME OUTPUT then lines: +text must appear, -text must not.
expect() {
    local name=$1 out=$2
    shift 2
    [ -z "${HANDOUT_SHOW:-}" ] || printf '%s\n' "$out" | sed 's/^/    > /'
    if expect_lines "$out" "$@"; then ok "$name"; else
        bad "$name"; printf '%s\n' "$out" | tail -n 30 | sed 's/^/    | /'; fi
}

start=$(date +%s)
if ! out=$(bash "$top/harness/handout.sh" "$h" 2>&1); then
    printf '%s\n' "$out" | tail -n 20
    bad "make handout"
    echo "test_handout: $passed passed, $failed failed"
    exit 1
fi
ok "make handout"

# 1. What the handout leaves out.
left=$(cd "$h" && find . \( -name GRADING.md -o -name NOTES.md -o -name dev \
        -o -name solution -o -name grade-tests -o -name gradescope \
        -o -name slurm -o -name gpu-dev.sh -o -name grade.py \
        -o -name evidence.sh -o -name capture.sh -o -name handout.sh \
        -o -name 'notes-*.txt' \) -print; \
        find harness/grader -type f ! -name compiler.py ! -name entries.py 2>/dev/null)
if [ -z "$left" ]; then ok "nothing left out is in the copy"
else bad "left out but copied: $(echo $left)"; fi

# The link check finds a broken link (and only it) in the copy.
cp "$h/README.md" "$scratch/README.md"
printf '\n[gone](no-such-file.md) `[code](not-a-link.md)`\n' >> "$h/README.md"
out=$(python3 "$h/harness/linkcheck.py" "$h" 2>&1); rc=$?
[ "$rc" -eq 1 ] && ok "link check: a broken link fails it" ||
    bad "link check: a broken link gave exit $rc"
expect "link check: names the broken link alone" "$out" \
    "+README.md:" "+no-such-file.md: no such file or folder in this copy" \
    "-not-a-link.md" "+1 broken"
cp "$scratch/README.md" "$h/README.md"

ex=$h/day33-exercise-threeway
if [ -x "$top/harness/build/hx_probe" ] &&
   "$top/harness/build/hx_probe" > /dev/null 2>&1; then
    gpu=1 arch=()
else
    gpu=0 arch=(ARCH=90)
fi
[ -z "${HANDOUT_ARCH:-}" ] || arch=(ARCH="$HANDOUT_ARCH")
jobs=-j${HANDOUT_JOBS:-2}
mk() {
    [ -z "${HANDOUT_SHOW:-}" ] || echo "\$ (in the copy) make $jobs $* ${arch[*]}"
    env -u MAKEFLAGS -u MAKELEVEL make "$jobs" "$@" "${arch[@]}"
}

# 2. The untouched starter.
out=$(mk -C "$h" check 2>&1); rc=$?
[ "$rc" -eq 0 ] && ok "make check in the copy, untouched starter: exit 0" ||
    bad "make check in the copy, untouched starter: exit $rc"
if [ "$gpu" -eq 0 ]; then
    expect "no GPU: the honest line, then not yet attempted" "$out" \
        "+threeway.cu: compiles, signature ok; NOT run (no GPU)" \
        "+threeway.cu: not yet attempted" "+link check of" \
        "-threeway.cu: passes" "-test_judge: "
else
    expect "GPU: not yet attempted" "$out" "+threeway.cu: not yet attempted"
fi

# 3. A correct kernel.
cp "$top/day33-exercise-threeway/solution/threeway.cu" "$ex/threeway.cu"
out=$(mk -s -C "$ex" cpu-check 2>&1); rc=$?
[ "$rc" -eq 0 ] && ok "CPU check of a correct kernel: exit 0" ||
    bad "CPU check of a correct kernel: exit $rc"
expect "CPU check of a correct kernel: passes" "$out" \
    "+CPU check: threeway.cu passes" \
    "+It checks indexing and boundaries, NOT races or speed" "-FAIL"

out=$(mk -C "$h" check 2>&1); rc=$?
[ "$rc" -eq 0 ] && ok "make check in the copy, a correct kernel: exit 0" ||
    bad "make check in the copy, a correct kernel: exit $rc"
if [ "$gpu" -eq 0 ]; then
    expect "make check, a correct kernel: the CPU check passes" "$out" \
        "+threeway.cu: compiles, signature ok; NOT run (no GPU)" \
        "+CPU check: threeway.cu passes" "+== exercise: CPU check: ok"
else
    expect "make check, a correct kernel: passes on the GPU" "$out" \
        "+threeway.cu: passes" "+GPU checks: all passed"
fi

# 4. Boundary 2 one slot early.
cp "$top/harness/grade-tests/corpus/boundary/threeway.cu" "$ex/threeway.cu"
out=$(mk -s -C "$ex" cpu-check 2>&1); rc=$?
[ "$rc" -ne 0 ] && ok "CPU check of boundary 2 early: fails" ||
    bad "CPU check of boundary 2 early: exit 0"
expect "CPU check of boundary 2 early: the boundary report" "$out" \
    "+[boundary] boundary 1 at" "+ WRONG" \
    "+boundary 2 (zeros|positives):  expected 0, found -1  WRONG (1 slot early)" \
    "+FAIL: out_of_bounds: 1 write before the start (nearest at index -1): boundary 2 is 1 slot early"
out=$(mk -C "$h" check 2>&1); rc=$?
[ "$rc" -ne 0 ] && ok "make check in the copy, boundary 2 early: fails" ||
    bad "make check in the copy, boundary 2 early: exit 0"
if [ "$gpu" -eq 0 ]; then
    expect "make check's report, boundary 2 early" "$out" \
        "+threeway.cu: compiles, signature ok; NOT run (no GPU)" \
        "+[boundary] boundary 1 at" \
        "+FAILED its CPU check (its report is above)"
else
    expect "make check's report, boundary 2 early" "$out" \
        "+boundary 2" "+== exercise: your threeway.cu: FAILED"
fi

echo "test_handout: $passed passed, $failed failed ($(( $(date +%s) - start )) s)"
[ "$failed" -eq 0 ]
