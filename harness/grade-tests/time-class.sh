#!/usr/bin/env bash
# harness/grade-tests/time-class.sh [N] [GRADE.PY OPTIONS...]: the speed
# measurement of grader/MAINTAINERS.md ("Speed"), on a GPU machine.
#
# Makes a class of N (default 100) copies of the reference solution under
# /tmp, builds the probe and the driver for the local GPU (the course's own
# build, once per machine, not part of grading), then times one whole
# grading run, setup included (the GPU probe, the driver's up-to-date
# check, the reference's compile and run), with --jobs $JOBS (default: the
# CPU count) and the options given (e.g. --no-sanitize). Then prints, from
# OUT/timings.csv, grades.csv and shard.json:
#   - the time in all, and when the machine and the reference were ready;
#   - where the time went, per stage (compile, context and module load,
#     checks, timing, sanitize): summed over the copies, and the median and
#     the largest per copy;
#   - the spread of the copies' x_copy: min, median, max and max/min;
#   - how busy the machine's CPUs were over the grading (/proc/stat);
#   - with HX_PROFILE=1, each part of the drivers' profile lines (their
#     log.txt), its median and sum over the copies.
# Exits 1, saying which, when a copy did not pass with full marks, when the
# time in all is over $LIMIT_S (default 60) seconds, or when max/min is
# over $SPREAD (default 1.05); 2 when grading itself failed. The OUT folder
# is $KEEP when set (an empty or new folder), else a new one under /tmp.
# STOP_S=S stops the grading (SIGTERM) after S seconds and prints how many
# copies it had graded by then, from its progress lines (exit 1), so that
# a run under a device call's limit still gives a figure. REPEAT=K runs
# the whole measurement K times in a row (each as above, KEEP aside) and
# ends with a line a run and whether every one was within both limits
# (exit 1 if not): the issue's "three consecutive runs".
set -eu
if [ "${REPEAT:-1}" -gt 1 ]; then
    rc=0
    lines=()
    for k in $(seq "$REPEAT"); do
        echo "=== time-class run $k of $REPEAT"
        log=$(mktemp)
        REPEAT=1 KEEP= bash "$0" "$@" > "$log" 2>&1 || rc=1
        cat "$log"
        took=$(grep -E '^(in all|time-class: stopped)' "$log" | head -n 1 ||
               true)
        spread=$(grep -E '^x_copy of' "$log" | grep -oE 'max/min [0-9.]+' ||
                 true)
        lines+=("run $k: ${took:-no time}; ${spread:-no x_copy}")
        rm -f "$log"
    done
    printf 'time-class: %s\n' "${lines[@]}"
    if [ "$rc" -eq 0 ]; then
        echo "time-class: $REPEAT runs in a row, every one within its limits"
    else
        echo "time-class: $REPEAT runs in a row, NOT every one within its limits"
    fi
    exit $rc
fi
n=${1:-100}
shift || true
jobs=${JOBS:-$(nproc)}
root=$(cd "$(dirname "$0")/../.." && pwd)
class=$(mktemp -d /tmp/grade-class.XXXXXX)
if [ -n "${KEEP:-}" ]; then
    mkdir -p "$KEEP" && out=$(cd "$KEEP" && pwd)
else
    out=$(mktemp -d /tmp/grade-class-out.XXXXXX)
fi
for i in $(seq -w 1 "$n"); do
    mkdir "$class/student$i"
    cp "$root/day33-exercise-threeway/solution/threeway.cu" "$class/student$i/"
done
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d '. ')
nvcc --version | tail -n 2
echo "commit ${COMMIT:-$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)}"
echo "time-class: $n copies; cpus $(nproc), --jobs $jobs, ARCH=$arch, options: ${*:-(none)}"
# The drivers' experiment switches the environment passes on (runs.cu).
env | grep -E '^HX_(TURNS|PROFILE|PIPELINE|PER_THREAD_MAX)=' | sed 's/^/time-class: environment: /' || true
make -s -C "$root/harness" probe
make -s -C "$root/day33-exercise-threeway" threeway ARCH="$arch"
rc=0
# The machine's CPU time, busy and idle, from /proc/stat (jiffies; empty
# where there is none): whether the class was bound by the host's cores.
cpu_now() { awk '/^cpu /{print $2+$3+$4+$7+$8, $5+$6}' /proc/stat 2>/dev/null; }
cpu_busy() {
    [ -n "$1" ] && [ -n "$2" ] || return 0
    echo "$1 $2" | awk -v c="$(nproc)" '{ b = $3 - $1; i = $4 - $2;
        if (b + i > 0) printf "the CPUs: %.0f%% busy over the grading " \
            "(%d cores)\n", 100 * b / (b + i), c }'
}
cpu0=$(cpu_now)
start=$(date +%s.%N)
stop=()
[ -z "${STOP_S:-}" ] || stop=(timeout --signal=TERM --kill-after=10 "$STOP_S")
"${stop[@]}" python3 "$root/harness/grade.py" "$class" --out "$out" \
    --jobs "$jobs" --arch "$arch" "$@" > "$out.log" 2>&1 || rc=$?
end=$(date +%s.%N)
cpu1=$(cpu_now)
if [ -n "${STOP_S:-}" ] && { [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; }; then
    graded=$(grep -cE '^\[[0-9]+/[0-9]+\] .* \.\.\. ' "$out.log" || true)
    passing=$(grep -cE '^\[[0-9]+/[0-9]+\] .* \.\.\. pass$' "$out.log" || true)
    tail -n 3 "$out.log"
    echo "time-class: stopped by STOP_S after $(awk -v a="$start" \
        -v b="$end" 'BEGIN { printf "%.1f", b - a }') s, $graded of $n" \
        "copies graded ($passing passing); the rest not graded"
    cpu_busy "$cpu0" "$cpu1"
    exit 1
fi
lines=$(wc -l < "$out.log")
if [ "$lines" -le 12 ]; then
    cat "$out.log"
else
    head -n 8 "$out.log"
    echo "[... $((lines - 10)) lines: the progress lines and the table, in $out.log ...]"
    tail -n 2 "$out.log"
fi
echo "grade.py exit $rc"
cpu_busy "$cpu0" "$cpu1"
[ "$rc" -eq 0 ] || exit 2
verdict=0
python3 - "$out" "$n" "$start" "$end" "${LIMIT_S:-60}" "${SPREAD:-1.05}" <<'PY' || verdict=1
import csv, json, os, re, statistics as st, sys
out, n, start, end = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), \
    float(sys.argv[4])
limit, spread = float(sys.argv[5]), float(sys.argv[6])
rows = list(csv.DictReader(open(os.path.join(out, "grades.csv"))))
times = list(csv.DictReader(open(os.path.join(out, "timings.csv"))))
meta = json.load(open(os.path.join(out, "shard.json")))
total = end - start
passed = sum(r["status"] == "pass" for r in rows)
full = sum(r["score"] == r["max_score"] for r in rows)
print("time-class: %d of %d passed; %d of %d with full marks; memcheck's "
      "run %s" % (passed, n, full, len(rows),
                  "on" if meta["sanitize"] else "off"))
print("in all: %.1f s (grade.py's own clock: %.1f s); machine ready at "
      "%s s, reference passed at %s s" % (total, meta["wall_s"],
                                          meta["machine_ready_s"],
                                          meta["reference_ready_s"]))
names = {"compile": "compile", "load": "context/load", "checks": "checks",
         "timing": "timing", "sanitize": "sanitize"}
for stage, name in names.items():
    v = [float(t[stage + "_s"]) for t in times if t.get(stage + "_s")]
    if v:
        print("  %-13s summed over %3d copies %7.1f s, median %.2f s a "
              "copy, max %.2f s" % (name, len(v), sum(v), st.median(v),
                                    max(v)))
col = lambda name: [float(t[name]) for t in times if t.get(name)]  # noqa
if col("run_at"):
    comp_end = [float(t["compile_at"]) + float(t["compile_s"])
                for t in times]
    print("  compiles from %.1f s to %.1f s; drivers from %.1f s to %.1f s; "
          "results written by %.1f s (grade.py's clock)"
          % (min(col("compile_at")), max(comp_end), min(col("run_at")),
             max(col("end_at")), max(col("done_at"))))
# HX_PROFILE=1: each copy's first profile line (its plan's driver, in
# its log.txt), each part's median and sum over the copies.
parts = {}
for sub in sorted(os.listdir(os.path.join(out, "submissions"))):
    try:
        log = open(os.path.join(out, "submissions", sub, "log.txt"),
                   errors="replace").read()
    except OSError:
        continue
    line = next((x for x in log.splitlines() if "profile (s):" in x), "")
    # "name S" parts, split at the commas outside parentheses
    for part in re.split(r",(?![^()]*\))",
                         line.partition("profile (s):")[2]):
        name, _, value = part.strip().rpartition(" ")
        try:
            value = float(value)
        except ValueError:
            continue
        parts.setdefault(name, []).append(value)
for name, v in parts.items():
    print("  profile: %-40s median %.3f s, summed %.1f s over %d copies"
          % (name, st.median(v), sum(v), len(v)))
ref = {g: r.get("x_copy") for g, r in meta["reference"].items()}
x = sorted(float(r["x_copy"]) for r in rows if r["x_copy"])
bad = []
if x:
    print("x_copy of the %d copies: min %.3f, median %.3f, max %.3f "
          "(max/min %.4f); the reference %s"
          % (len(x), x[0], st.median(x), x[-1], x[-1] / x[0], ref))
    if x[-1] / x[0] > spread:
        bad.append("x_copy max/min %.4f is over %g" % (x[-1] / x[0], spread))
else:
    bad.append("no copy was timed")
if total > limit:
    bad.append("%.1f s in all is over %g s" % (total, limit))
if passed != n or full != n:
    bad.append("%d of %d copies did not pass with full marks"
               % (n - min(passed, full), n))
print("time-class: %s" % ("; ".join(bad) if bad else
                          "ok (%.1f s <= %g s, max/min <= %g)"
                          % (total, limit, spread)))
sys.exit(1 if bad else 0)
PY
echo "class $class, grades $out"
exit $verdict
