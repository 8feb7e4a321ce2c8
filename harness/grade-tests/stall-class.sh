#!/usr/bin/env bash
# harness/grade-tests/stall-class.sh N CASE... : no submission can stall the
# class, on a GPU machine.
#
#   bash harness/grade-tests/stall-class.sh 20 stall_timing stall_batch
#
# Grades twice with one seed: a clean class of N copies of the reference
# solution, then the same copies with the corpus cases CASE... (folders of
# harness/grade-tests/corpus/, the stallers) added. Then checks, from the
# two grades.csv and shard.json:
#   - every copy passes in both, with full marks;
#   - each copy's x_copy in the stalled class within 5% of the clean one's;
#   - the stalled class ended within the clean time plus one submission's
#     limit (--submission-timeout, default 300 s; pass a smaller one after
#     the cases to shorten the run, e.g. -- --submission-timeout 120);
# and prints each case's verdict. Exits 1 when a check fails, 2 when a
# grading run failed. Options after "--" go to both grade.py runs.
set -eu
n=${1:?usage: stall-class.sh N CASE... [-- GRADE.PY OPTIONS]}
shift
cases=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do cases+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
root=$(cd "$(dirname "$0")/../.." && pwd)
seed=${SEED:-$RANDOM$RANDOM}
work=$(mktemp -d /tmp/stall-class.XXXXXX)
clean="$work/clean" stalled="$work/stalled"
mkdir -p "$clean" "$stalled"
for i in $(seq -w 1 "$n"); do
    mkdir "$clean/copy$i"
    cp "$root/day33-exercise-threeway/solution/threeway.cu" "$clean/copy$i/"
done
cp -r "$clean"/. "$stalled/"
for c in "${cases[@]}"; do
    [ -d "$root/harness/grade-tests/corpus/$c" ] || { echo "stall-class: no corpus case $c"; exit 2; }
    cp -r "$root/harness/grade-tests/corpus/$c" "$stalled/zz-$c"
done
echo "stall-class: $n copies, cases: ${cases[*]:-(none)}; seed $seed; options: ${*:-(none)}; in $work"
for k in clean stalled; do
    t0=$(date +%s.%N)
    python3 "$root/harness/grade.py" "$work/$k" --out "$work/$k-out" \
        --seed "$seed" "$@" >"$work/$k.log" 2>&1 || {
        echo "stall-class: grading the $k class failed:"; tail -n 20 "$work/$k.log"; exit 2; }
    echo "$t0 $(date +%s.%N)" >"$work/$k.time"
    tail -n 1 "$work/$k.log"
done
python3 - "$work" "$n" "$*" <<'PY'
import csv, json, re, sys
work, n, opts = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def rows(k):
    with open("%s/%s-out/grades.csv" % (work, k), newline="") as f:
        return {r["results"].split("/")[1]: r for r in csv.DictReader(f)}
def took(k):
    a, b = open("%s/%s.time" % (work, k)).read().split()
    return float(b) - float(a)
clean, stalled = rows("clean"), rows("stalled")
m = re.search(r"--submission-timeout[= ](\S+)", opts)
limit = float(m.group(1)) if m else 300.0
bad = []
for name, r in sorted(clean.items()):
    s = stalled.get(name, {})
    if r["reason"] != "pass" or s.get("reason") != "pass" or \
            s.get("score") != r["score"]:
        bad.append("%s: clean %s %s, stalled %s %s" % (
            name, r["reason"], r["score"], s.get("reason"), s.get("score")))
    elif abs(float(s["x_copy"]) / float(r["x_copy"]) - 1) > 0.05:
        bad.append("%s: x_copy %s clean, %s stalled" % (
            name, r["x_copy"], s["x_copy"]))
for name, s in sorted(stalled.items()):
    if name.startswith("zz-"):
        print("  %-24s %-6s %-17s %s" % (name[3:], s["status"], s["reason"],
                                         s["detail"][:90]))
tc, ts = took("clean"), took("stalled")
print("stall-class: clean %.1f s, stalled %.1f s (allowed: %.1f s, the clean "
      "time plus one submission's limit, %g s)" % (tc, ts, tc + limit, limit))
if ts > tc + limit:
    bad.append("the stalled class took %.1f s > %.1f s" % (ts, tc + limit))
print("stall-class: %s" % ("every copy graded as alone" if not bad else
                           "FAIL: " + "; ".join(bad[:10])))
sys.exit(1 if bad else 0)
PY
