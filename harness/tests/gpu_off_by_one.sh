#!/usr/bin/env bash
# gpu_off_by_one.sh: on a GPU, the three-way report against the four
# off-by-one kernels, with the races resolved by the hardware.
#
#   bash harness/tests/gpu_off_by_one.sh        (maintainers' copy, a GPU)
#   ARCH=90 OUT=dir bash harness/tests/gpu_off_by_one.sh
#
# Makes each kernel from the reference solution by one edit (the zeros'
# or the positives' base one slot early or late), puts it in place of
# threeway.cu in a scratch copy of the course, builds the exercise there
# (make) and runs its check (./threeway --check, which finds the kernel
# make built). Each must fail (exit 1); every failing run must be
# named a boundary error, or out_of_bounds where the group had nothing
# before or after it, on the right boundary, in the right direction; no
# run may be called unwritten, order, mismatch, swapped or group_missing.
# The logs go to $OUT (default: a temporary folder, printed). Exit 0 when
# all four hold, 1 when one does not, 2 when it cannot run here, 3 without
# a GPU.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
ex=day33-exercise-threeway
sol=$top/$ex/solution/threeway.cu
[ -f "$sol" ] || { echo "gpu_off_by_one: needs the reference solution ($ex/solution/)"; exit 2; }
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$top" && tar --exclude=./.git --exclude='*/build' -cf - .) | (cd "$work" && tar -xf -)

# name | sed edit | the verdict's words | the line the edit must change
kernels=(
    "zeros-early|s/dst = a + zero;/dst = a - 1 + zero;/|boundary 1 is 1 slot early"
    "zeros-late|s/dst = a + zero;/dst = a + 1 + zero;/|boundary 1 is 1 slot late"
    "positives-early|s/dst = ab + (i - neg - zero);/dst = ab - 1 + (i - neg - zero);/|boundary 2 is 1 slot early"
    "positives-late|s/dst = ab + (i - neg - zero);/dst = ab + 1 + (i - neg - zero);/|boundary 2 is 1 slot late"
)
failed=0
for k in "${kernels[@]}"; do
    IFS='|' read -r name edit verdict <<< "$k"
    sed "$edit" "$sol" > "$work/$ex/threeway.cu"
    if [ "$(diff "$sol" "$work/$ex/threeway.cu" | grep -c '^>')" -ne 1 ]; then
        echo "gpu_off_by_one: the edit for $name no longer matches the reference: update this script"
        exit 2
    fi
    log=$out/$name.txt
    if ! make -s -C "$work/$ex" ${ARCH:+ARCH="$ARCH"} all > "$log" 2>&1; then
        echo "FAIL  $name: the exercise did not build ($log)"
        failed=1
        continue
    fi
    (cd "$work/$ex" && ./threeway --check) >> "$log" 2>&1
    rc=$?
    if [ "$rc" -eq 3 ]; then
        echo "gpu_off_by_one: no usable GPU: $(tail -n 1 "$log")"
        exit 3
    fi
    problems=()
    [ "$rc" -ne 0 ] || problems+=("its check passed")
    grep -q "^FAIL: \(boundary\|out_of_bounds\): .*$verdict" "$log" ||
        problems+=("no full report ends '$verdict'")
    if grep -Eq 'FAIL.*\[(unwritten|order|mismatch|swapped|group_missing)' "$log"; then
        problems+=("a run named something other than boundary or out_of_bounds")
    fi
    if [ "${#problems[@]}" -eq 0 ]; then
        echo "ok    $name: exit $rc, $(grep -c 'FAIL' "$log") FAIL lines, verdict '$verdict' ($log)"
    else
        echo "FAIL  $name: $(printf '%s; ' "${problems[@]}")($log)"
        failed=1
    fi
done
echo "gpu_off_by_one: logs in $out"
exit "$failed"
