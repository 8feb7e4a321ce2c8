#!/usr/bin/env bash
# harness/grade-tests/time-class.sh [N]: the speed measurement of
# GRADING.md. Makes a class of N (default 100) copies of the reference
# solution under /tmp, builds the driver's objects, then grades the class
# under `time` with --jobs $JOBS (default 16). Every copy must pass.
# Then prints, from the grades and the per-submission logs: the spread of
# the copies' x_copy (the same kernel timed N times while other runs share
# the GPU) and the spread of one run's wall time.
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
echo "commit ${COMMIT:-$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)}"
echo "cpus $(nproc)"
python3 "$root/harness/grade.py" "$class" --out "$out" --prepare-only
time python3 "$root/harness/grade.py" "$class" --out "$out" --jobs "$jobs"
python3 - "$out" "$n" <<'PY'
import csv, glob, os, re, statistics as st, sys
out, n = sys.argv[1], int(sys.argv[2])
rows = list(csv.DictReader(open(os.path.join(out, "grades.csv"))))
passed = sum(r["status"] == "pass" for r in rows)
full = sum(r["score"] == r["max_score"] for r in rows)
x = sorted(float(r["x_copy"]) for r in rows if r["x_copy"])
print("time-class: %d of %d passed; %d of %d with full marks" %
      (passed, n, full, len(rows)))
if x:
    print("x_copy of the %d copies: min %.2f, median %.2f, max %.2f "
          "(max/min %.3f)" % (len(x), x[0], st.median(x), x[-1], x[-1] / x[0]))
walls = []
for log in glob.glob(os.path.join(out, "*", "log.txt")):
    for line in open(log):
        m = re.match(r"run \d+: .*\(([0-9.]+) s\)$", line.strip())
        if m:
            walls.append(float(m.group(1)))
if walls:
    walls.sort()
    print("one run's wall time, %d runs: min %.1f s, median %.1f s, "
          "max %.1f s" % (len(walls), walls[0], st.median(walls), walls[-1]))
sys.exit(0 if passed == n else 1)
PY
echo "class $class, grades $out"
