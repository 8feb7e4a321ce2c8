#!/usr/bin/env bash
# harness/grade-tests/time-class.sh [N]: the speed measurement of
# GRADING.md. Makes a class of N (default 100) copies of the reference
# solution under /tmp, builds the driver's objects, then grades the class
# under `time` with --jobs $JOBS (default 16). Every copy must pass.
set -eu
n=${1:-100}
jobs=${JOBS:-16}
root=$(cd "$(dirname "$0")/../.." && pwd)
class=$(mktemp -d /tmp/grade-class.XXXXXX)
out=$(mktemp -d /tmp/grade-class-out.XXXXXX)
for i in $(seq -w 1 "$n"); do
    mkdir "$class/student$i"
    cp "$root/day33-exercise-threeway/solution/threeway.cu" "$class/student$i/"
done
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader || true
nvcc --version | tail -n 2
git -C "$root" log -1 --format='commit %H' || true
python3 "$root/harness/grade.py" "$class" --out "$out" --prepare-only
time python3 "$root/harness/grade.py" "$class" --out "$out" --jobs "$jobs"
passed=$(python3 -c "import csv,sys; print(sum(r['status']=='pass' for r in csv.DictReader(open(sys.argv[1]))))" "$out/grades.csv")
echo "time-class: $passed of $n passed (class $class, grades $out)"
[ "$passed" -eq "$n" ]
