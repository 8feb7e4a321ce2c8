#!/usr/bin/env bash
# harness/grade-tests/gpu-flow.sh [OUT]: on a GPU machine, grades the
# corpus with named tests (run_tests.py --keep OUT: the whole tool's tests,
# the corpus graded for real; GPU_ONLY=1: the GPU stage alone) and then
# checks the instructor's view of it:
#   - every results.json holds 13 tests (compile, signature, the ten
#     checks, performance);
#   - the starter (writes nothing) scores 10;
#   - some kernel fails one class of input and keeps the other tests'
#     points (a failing row with a score above 10 and fewer than ten
#     failing tests);
#   - gradescope.csv holds only graded rows; summary.txt ends with the
#     histogram, the verdict counts and each test's pass count;
#   - the grader and the driver wired: every passing row has its ratio
#     (the driver's r, timed against the reference's module given with
#     --ref-module) and an x_copy; slow_scatter's ratio is over 1.25 and
#     it loses performance points; the driver's "test" and "skip" events
#     are in a failing case's events.jsonl; corpus/crash was started again
#     once (--tests: a "plan-2" process) and corpus/timeout never was;
#     memcheck's run followed the crash.
# Prints the corpus's scores and failing tests, then "gpu-flow: PASS" or
# the first check that failed (exit 1). Needs the driver with named tests
# (events carrying "test"; --tests); with an older one the judge derives
# each run's test and the checks above can fail.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(realpath -m "${1:-/tmp/gpu-flow-out}")
rm -rf "$out"
python3 harness/grade-tests/run_tests.py --keep "$out" ${GPU_ONLY:+--gpu-only} | tail -n 40
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
by_case = {r["results"].split("/")[1]: r for r in rows}
for r in rows:
    if r["reason"] == "pass" and not (r["ratio"] and r["x_copy"]):
        bad.append("%s passes without a ratio or an x_copy" % r["submission"])
slow = by_case.get("slow_scatter")
if not slow or not slow["ratio"] or float(slow["ratio"]) <= 1.25 or \
        float(slow["score"]) >= 100:
    bad.append("slow_scatter: ratio %s, score %s (want over 1.25, under "
               "100)" % (slow and slow["ratio"], slow and slow["score"]))


def events(case):
    path = os.path.join(out, "submissions", case, "events.jsonl")
    return [json.loads(l) for l in open(path)] if os.path.exists(path) \
        else []


def processes(case):
    return sorted({e.get("_process") for e in events(case)})


wrong = events("wrong_octave")
if not any(e.get("event") == "test" for e in wrong) or \
        not any(e.get("event") == "skip" for e in wrong):
    bad.append("wrong_octave's events hold no test or no skip event")
if processes("crash") != ["plan", "plan-2", "sanitize"]:
    bad.append("crash: processes %s (want plan, plan-2, sanitize)"
               % processes("crash"))
if "plan-2" in processes("timeout"):
    bad.append("timeout was started again")
print("ratios: %s" % ", ".join("%s %s" % (k, r["ratio"]) for k, r in
                               sorted(by_case.items()) if r["ratio"]))
print("crash's processes: %s; timeout's: %s" % (processes("crash"),
                                                processes("timeout")))
print("kept the other tests' points: %s" % ", ".join(partial))
print("gpu-flow: " + ("PASS" if not bad else "FAIL: " + "; ".join(bad)))
sys.exit(1 if bad else 0)
PY
