#!/usr/bin/env bash
# harness/grade-tests/time-class.sh [N]: the speed measurement of
# GRADING.md ("Speed"), on a GPU machine. Makes a class of N (default 100)
# copies of the reference solution under /tmp, builds the probe and the
# driver for the local GPU (the course's build, once per machine), then
# times one whole grading run, setup included (the GPU probe, the
# driver's up-to-date check, the reference's compile and run), with
# --jobs $JOBS (default: the CPU count) and any $GRADE_FLAGS. Then prints,
# from OUT/timings.csv, grades.csv and shard.json: where the time went per
# stage (summed over the copies, and the median per copy), the total, and
# the spread of the copies' x_copy. Exits 1 unless every copy passed with
# full marks.
set -eu
n=${1:-100}
jobs=${JOBS:-$(nproc)}
root=$(cd "$(dirname "$0")/../.." && pwd)
class=$(mktemp -d /tmp/grade-class.XXXXXX)
out=$(mktemp -d /tmp/grade-class-out.XXXXXX)
for i in $(seq -w 1 "$n"); do
    mkdir "$class/student$i"
    cp "$root/day33-exercise-threeway/solution/threeway.cu" "$class/student$i/"
done
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d '. ')
nvcc --version | tail -n 2
echo "commit ${COMMIT:-$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)}"
echo "cpus $(nproc), --jobs $jobs, ARCH=$arch, GRADE_FLAGS=${GRADE_FLAGS:-}"
make -s -C "$root/harness" probe
make -s -C "$root/day33-exercise-threeway" threeway ARCH="$arch"
start=$(date +%s.%N)
# GRADE_FLAGS is split on spaces on purpose: it holds options.
# shellcheck disable=SC2086
rc=0
python3 "$root/harness/grade.py" "$class" --out "$out" --jobs "$jobs" \
    --arch "$arch" ${GRADE_FLAGS:-} > "$out.log" 2>&1 || rc=$?
end=$(date +%s.%N)
head -n 8 "$out.log"
echo "[... $(($(wc -l < "$out.log") - 10)) lines: the progress lines and the table, in $out.log ...]"
tail -n 2 "$out.log"
echo "grade.py exit $rc"
python3 - "$out" "$n" "$start" "$end" <<'PY'
import csv, json, os, statistics as st, sys
out, n, start, end = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), \
    float(sys.argv[4])
rows = list(csv.DictReader(open(os.path.join(out, "grades.csv"))))
times = list(csv.DictReader(open(os.path.join(out, "timings.csv"))))
meta = json.load(open(os.path.join(out, "shard.json")))
passed = sum(r["status"] == "pass" for r in rows)
full = sum(r["score"] == r["max_score"] for r in rows)
print("time-class: %d of %d passed; %d of %d with full marks"
      % (passed, n, full, len(rows)))
print("in all: %.1f s (setup %.1f s, then grading %.1f s)"
      % (end - start, meta["setup_s"], meta["grading_s"]))
for stage in ("compile", "load", "checks", "timing", "sanitize"):
    v = [float(t[stage + "_s"]) for t in times if t.get(stage + "_s")]
    if v:
        print("  %-8s summed over %3d copies %7.1f s, median %.2f s a copy, "
              "max %.2f s" % (stage, len(v), sum(v), st.median(v), max(v)))
ends = [float(t["end_at"]) for t in times if t.get("end_at")]
runs = [float(t["run_at"]) for t in times if t.get("run_at")]
if runs:
    print("  first driver started at %.1f s, last process ended at %.1f s "
          "(grading clock)" % (min(runs), max(ends)))
ref = {g: r.get("x_copy") for g, r in meta["reference"].items()}
x = sorted(float(r["x_copy"]) for r in rows if r["x_copy"])
if x:
    print("x_copy of the %d copies: min %.3f, median %.3f, max %.3f "
          "(max/min %.3f); the reference %s"
          % (len(x), x[0], st.median(x), x[-1], x[-1] / x[0], ref))
sys.exit(0 if passed == n and full == n else 1)
PY
echo "class $class, grades $out"
