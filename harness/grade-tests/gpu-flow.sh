#!/usr/bin/env bash
# harness/grade-tests/gpu-flow.sh [OUT]: on a GPU machine, grades the
# corpus with named tests (run_tests.py --keep OUT: the whole tool's tests,
# the corpus graded for real) and then checks the instructor's view of it:
#   - every results.json holds 13 tests (compile, signature, the ten
#     checks, performance);
#   - the starter (writes nothing) scores 10;
#   - some kernel fails one class of input and keeps the other tests'
#     points (a failing row with a score above 10 and fewer than ten
#     failing tests);
#   - gradescope.csv holds only graded rows; summary.txt ends with the
#     histogram, the verdict counts and each test's pass count.
# Prints the corpus's scores and failing tests, then "gpu-flow: PASS" or
# the first check that failed (exit 1). Needs the driver with named tests
# (events carrying "test"; --tests); with an older one the judge derives
# each run's test and the checks above can fail.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(realpath -m "${1:-/tmp/gpu-flow-out}")
rm -rf "$out"
python3 harness/grade-tests/run_tests.py --keep "$out" | tail -n 40
python3 - "$out" <<'PY'
import csv, json, os, sys
out = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(out, "grades.csv"))))
gs = list(csv.DictReader(open(os.path.join(out, "gradescope.csv"))))
summary = open(os.path.join(out, "summary.txt")).read()
bad = []
for r in rows:
    res = json.load(open(os.path.join(out, r["results"])))
    print("%-24s %-6s %-17s %6s  %s" % (r["submission"][:24], r["status"],
                                        r["reason"], r["score"],
                                        r["failed_tests"]))
    if len(res["tests"]) != 13:
        bad.append("%s: %d tests in results.json" % (r["submission"],
                                                     len(res["tests"])))
starter = [r for r in rows if r["submission"] == "starter"]
if not starter or starter[0]["score"] != "10":
    bad.append("the starter scores %s, not 10" % (
        starter[0]["score"] if starter else "nothing"))
partial = [r["submission"] for r in rows if r["status"] == "fail" and
           float(r["score"]) > 10 and
           0 < len(r["failed_tests"].split()) < 10]
if not partial:
    bad.append("no failing kernel kept the other tests' points")
graded = [r for r in rows if r["status"] in ("pass", "fail")]
refused = summary.count("gradescope.csv: ")   # formula-like names
if len(gs) + refused != len(graded):
    bad.append("gradescope.csv has %d rows (%d refused) for %d graded "
               "submissions" % (len(gs), refused, len(graded)))
for need in ("scores of the", "verdicts:", "check tests passed:"):
    if need not in summary:
        bad.append("summary.txt lacks %r" % need)
print("kept the other tests' points: %s" % ", ".join(partial))
print("gpu-flow: " + ("PASS" if not bad else "FAIL: " + "; ".join(bad)))
sys.exit(1 if bad else 0)
PY
