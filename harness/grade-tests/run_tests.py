#!/usr/bin/env python3
"""run_tests.py: the tests of the grading tool (harness/grade.py).

    python3 harness/grade-tests/run_tests.py [--arch "90"] [--keep DIR]

1. The tool's own machinery, on the host: output capping under a flood,
   the wall-clock limit killing a whole process group, the file-size
   limit, folder names made safe, the source scan, and the performance
   test's retries (with a fake driver that reports chosen timings).
2. The corpus (corpus/<case>/threeway.cu, expected verdicts in
   expected.csv), graded into a temporary OUT with --jobs 2, plus copies of
   two cases under hostile folder names. Without a GPU: compile_error,
   signature and host_code must come out exactly, every runnable case must
   be no_gpu (status error), and no case may ever pass. With a GPU (a
   device listed by nvidia-smi -L): every case must get exactly its
   expected verdict.
3. grades.csv and every results.json against the schemas of GRADING.md
   (parsed with csv and json, never grepped).
4. Shards: a small class graded as --shard 0/2 and 1/2 and merged; a
   merge with a shard missing or a submission twice must fail.

Without a GPU the corpus is built for one architecture (ARCH 75) to keep
the test short; with a GPU, for the local GPU's. Ends with
"N passed, M failed" and exits 1 on any failure.
"""

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.dirname(HERE)
GRADE = os.path.join(HARNESS, "grade.py")
sys.dont_write_bytecode = True  # no __pycache__ in the repository
sys.path.insert(0, HARNESS)
import grade  # noqa: E402

RESULTS = {"passed": 0, "failed": 0}


def check(ok, what):
    RESULTS["passed" if ok else "failed"] += 1
    print("%s %s" % ("ok  " if ok else "FAIL", what), flush=True)
    return ok


def has_gpu():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        p = subprocess.run([smi, "-L"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return p.returncode == 0 and b"GPU" in p.stdout


# ---------------------------------------------------------------------------
# 1. The machinery.

def group_alive(pgid):
    """Whether a process of group pgid is still running (zombies, which a
    container's init may never reap, do not count). Reads /proc."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] != "Z":
            return True
    return False

def test_machinery(tmp):
    py = sys.executable
    # A flood of 64 MiB on stdout and on stderr: kept to head + tail.
    r = grade.run_limited([py, "-c", "import os\nb=b'x'*65536\n"
                           "for _ in range(1024): os.write(1,b); "
                           "os.write(2,b)"], tmp, 60)
    check(r["rc"] == 0 and r["out"].total == 64 << 20 and
          r["err"].total == 64 << 20, "flood: 64 MiB per stream read "
          "through (rc %s)" % r["rc"])
    text = r["out"].text()
    check(len(text) < 3 * grade.CAP and "bytes left out" in text,
          "flood: capture kept %d characters, head and tail" % len(text))

    # The wall-clock limit kills the whole group, children included.
    start = time.monotonic()
    r = grade.run_limited(["/bin/sh", "-c", "sleep 60 & sleep 60; wait"],
                          tmp, 1.0)
    wall = time.monotonic() - start
    check(r["timed_out"] and wall < 10, "timeout: killed after %.1f s "
          "(limit 1 s)" % wall)
    r = grade.run_limited(["/bin/sh", "-c", "(sleep 60 >/dev/null 2>&1 &) ; echo $$"],
                          tmp, 5.0)
    pid = int(r["out"].text().split()[0]) if r["out"].text().split() else 0
    deadline = time.monotonic() + 5
    while group_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    check(pid > 0 and not group_alive(pid), "process group: a background child is gone after "
          "the run")

    # The file-size limit.
    target = os.path.join(tmp, "big")
    r = grade.run_limited(["/bin/sh", "-c", "head -c 8388608 /dev/zero > "
                           + target], tmp, 30, fsize=1 << 20)
    size = os.path.getsize(target) if os.path.exists(target) else 0
    check(r["rc"] != 0 and size <= 1 << 20, "RLIMIT_FSIZE: a 8 MiB write "
          "stopped at %d bytes (rc %s)" % (size, r["rc"]))

    # Safe folder names.
    names = ["alice", "a b", "a_b", "..", "-rf", "ünï", "x" * 300, "A_B"]
    safe = grade.safe_names(names)
    vals = list(safe.values())
    check(len(set(v.lower() for v in vals)) == len(vals) and
          all(v and not v.startswith(".") and "/" not in v and
              len(v) <= 90 for v in vals),
          "safe names: unique, not hidden, no '/': %s" % vals[:6])

    # The source scan: comments and strings are not code.
    host, inc = grade.scan_source('// int main() { }\n'
                                  '__device__ void f() { printf("main("); }\n'
                                  '#include <cstdio>\n#include "hx_check.h"\n')
    check(host == [] and inc is None, "source scan: main( in a comment "
          "or a string is not host code")
    host, inc = grade.scan_source('int main (void) { return 0; }\n')
    check(host != [], "source scan: main is seen")
    for src in ('#include "../solution/threeway.cu"\n',
                '#  include </etc/passwd>\n', '#include <../x.h>\n',
                '#\\\ninclude "x.cu"\n', '%:include "x.cu"\n',
                '#include_next <cstdio>\n'):
        _, inc = grade.scan_source(src)
        check(inc is not None, "source scan: refuses %r" % src)


# ---------------------------------------------------------------------------
# 2 and 3. The corpus and the schemas.

def test_retiming():
    """The performance test's retries, with run_driver replaced by a fake
    that reports the given x_copy values in turn."""
    def fake(values):
        seq = iter(values)
        seeds = []

        def run_driver(cfg, binary, n, mix, gb, seed, gpu, timing=False,
                       sanitize=False):
            seeds.append(seed)
            return {"verdict": "pass", "detail": "pass", "cmd": "threeway",
                    "output": "", "result": {"x_copy": next(seq)}}
        return run_driver, seeds

    def grade_with(values):
        cfg = grade.Config()
        cfg.ref_x_copy, cfg.perf_n, cfg.perf_note = 10.0, 1 << 24, ""
        g = {"seed": 7, "log": [], "x_copy": None}
        tests, fails = [], []
        real = grade.run_driver
        grade.run_driver, seeds = fake(values)
        try:
            grade.grade_performance(
                cfg, "threeway", None, g,
                lambda name, ok, max_score, output, score=None:
                tests.append((ok, score, output)),
                lambda reason, detail: fails.append(reason))
        finally:
            grade.run_driver = real
        return g, tests, fails, seeds

    full = grade.PERF_FULL_AT * 10.0
    g, tests, fails, seeds = grade_with([full - 0.1, 99.0])
    check(len(seeds) == 1 and g["x_copy"] == full - 0.1 and
          tests[0][1] == grade.WEIGHTS["performance"] and not fails,
          "performance: full points at the first timing, no retry")
    g, tests, fails, seeds = grade_with([30.0, full + 1.0, full - 0.5])
    check(len(seeds) == 3 and len(set(seeds)) == 3 and
          g["x_copy"] == full - 0.5 and
          tests[0][1] == grade.WEIGHTS["performance"] and
          "best of 3 timing runs" in tests[0][2] and not fails,
          "performance: a slow timing is retried with fresh seeds; the "
          "best counts (%r)" % (tests[0][2],))
    g, tests, fails, seeds = grade_with([20.0, 25.0, 22.0, 1.0])
    want = grade.WEIGHTS["performance"] * (grade.PERF_ZERO_AT - 2.0) / (
        grade.PERF_ZERO_AT - grade.PERF_FULL_AT)
    check(len(seeds) == grade.PERF_TRIES and g["x_copy"] == 20.0 and
          abs(tests[0][1] - want) < 1e-9 and not fails,
          "performance: at most %d timing runs; a slow kernel keeps its best "
          "(%.2f of %.0f points)" % (grade.PERF_TRIES, tests[0][1],
                                     grade.WEIGHTS["performance"]))


def read_expected():
    with open(os.path.join(HERE, "expected.csv"), newline="") as f:
        return {r["case"]: r for r in csv.DictReader(f)}


def run_grade(args, timeout=3600):
    p = subprocess.run([sys.executable, GRADE] + args,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_schemas(out, rows):
    ok = True
    with open(os.path.join(out, "grades.csv"), newline="",
              encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader)
    ok &= check(tuple(header) == grade.CSV_COLUMNS,
                "grades.csv: columns %s" % ",".join(header))
    for r in rows:
        name = r["submission"]
        good = (r["reason"] in grade.REASONS and
                r["status"] == grade.status_of(r["reason"]))
        for col in ("found_b1", "found_b2", "first_bad"):
            good &= r[col] == "" or r[col].lstrip("-").isdigit()
        for col in ("x_copy", "score", "max_score"):
            if r[col] != "":
                try:
                    float(r[col])
                except ValueError:
                    good = False
        good &= len(r["answer"]) <= grade.ANSWER_MAX and "\n" not in \
            r["answer"]
        if not good:
            ok &= check(False, "grades.csv row %r: %r" % (name, r))
        path = os.path.join(out, r["results"])
        try:
            with open(path, encoding="utf-8") as f:
                res = json.load(f)
        except (OSError, ValueError) as e:
            ok &= check(False, "results.json of %r: %s" % (name, e))
            continue
        errs = []
        for key, typ in (("score", is_num), ("execution_time", is_num),
                         ("output", lambda v: isinstance(v, str)),
                         ("tests", lambda v: isinstance(v, list) and v)):
            if key not in res or not typ(res[key]):
                errs.append("top-level %s" % key)
        total = 0.0
        for t in res.get("tests", []):
            if not (isinstance(t.get("name"), str) and is_num(t.get("score"))
                    and is_num(t.get("max_score")) and
                    t.get("status") in ("passed", "failed") and
                    isinstance(t.get("output"), str) and
                    t.get("visibility") in ("visible", "hidden",
                                            "after_due_date",
                                            "after_published")):
                errs.append("test %r" % t.get("name"))
                continue
            if not 0 <= t["score"] <= t["max_score"]:
                errs.append("test %r score %s > max %s" % (
                    t["name"], t["score"], t["max_score"]))
            total += t["score"]
        if is_num(res.get("score")) and abs(total - res["score"]) > 0.011:
            errs.append("score %s != sum of tests %s" % (res["score"], total))
        if errs:
            ok &= check(False, "results.json of %r: %s" % (name, errs))
    check(ok, "schemas: grades.csv and %d results.json parse and match"
          % len(rows))


def test_corpus(tmp, arch, gpu, keep):
    expected = read_expected()
    klass = os.path.join(tmp, "class")
    shutil.copytree(os.path.join(HERE, "corpus"), klass)
    # Hostile folder names: the tool must neither break nor write outside
    # OUT, and must report them under their own names.
    hostile = {"weird name, -x 'q' \"dq\" ..": "pass",
               "ünïcødé $(touch pwned) ;": "host_main"}
    for name, case in hostile.items():
        shutil.copytree(os.path.join(klass, case), os.path.join(klass, name))
        expected[name] = dict(expected[case], case=name)
    out = keep or os.path.join(tmp, "out")
    args = [klass, "--out", out, "--jobs", "2", "--timeout", "20",
            "--build-dir", os.path.join(tmp, "build")]
    if arch:
        args += ["--arch", arch]
    start = time.monotonic()
    rc, text = run_grade(args)
    print(text, end="")
    check(rc == 0, "grade.py over the corpus exits 0 (%d) in %.0f s"
          % (rc, time.monotonic() - start))
    try:
        with open(os.path.join(out, "grades.csv"), newline="",
                  encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        check(False, "grades.csv: %s" % e)
        return
    got = {r["submission"]: r for r in rows}
    check(sorted(got) == sorted(expected), "every case graded once "
          "(%d rows)" % len(rows))
    for case in sorted(expected):
        want, r = expected[case], got.get(case)
        if r is None:
            check(False, "%s: not graded" % case)
            continue
        if gpu or want["needs_gpu"] == "no":
            check((r["status"], r["reason"]) == (want["status"],
                                                 want["reason"]),
                  "%s: %s %s (expected %s %s)" % (case, r["status"],
                                                  r["reason"], want["status"],
                                                  want["reason"]))
        else:
            check((r["status"], r["reason"]) == ("error", "no_gpu"),
                  "%s: %s %s without a GPU (expected error no_gpu)"
                  % (case, r["status"], r["reason"]))
    if not gpu:
        check(all(r["status"] != "pass" for r in rows),
              "no case passes without a GPU")
    answer = got.get("pass", {}).get("answer", "")
    check(answer.startswith("The positive base") and answer.endswith(
        "first positive.") and len(answer) <= grade.ANSWER_MAX,
        "answer column: the first sentence of answer.txt")
    check(not os.path.exists(os.path.join(tmp, "pwned")) and
          not os.path.exists("pwned"), "a folder name is never run by a "
          "shell")
    check_schemas(out, rows)


# ---------------------------------------------------------------------------
# 4. Shards and merge.

def test_shards(tmp, arch):
    klass = os.path.join(tmp, "small")
    for case in ("compile_error", "no_file", "signature_int_n"):
        shutil.copytree(os.path.join(HERE, "corpus", case),
                        os.path.join(klass, case))
    outs = []
    for i in range(2):
        out = os.path.join(tmp, "shard%d" % i)
        args = [klass, "--out", out, "--shard", "%d/2" % i,
                "--build-dir", os.path.join(tmp, "build")]
        if arch:
            args += ["--arch", arch]
        rc, text = run_grade(args)
        check(rc == 0, "--shard %d/2 exits 0 (%d)" % (i, rc))
        if rc:
            print(text)
        outs.append(out)
    merged = os.path.join(tmp, "merged")
    rc, text = run_grade(["merge"] + outs + ["--out", merged])
    check(rc == 0, "merge of 2 shards exits 0 (%d)" % rc)
    try:
        with open(os.path.join(merged, "grades.csv"), newline="",
                  encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except OSError:
        rows = []
    check(sorted(r["submission"] for r in rows) ==
          ["compile_error", "no_file", "signature_int_n"] and
          all(os.path.isfile(os.path.join(merged, r["results"]))
              for r in rows), "merged grades.csv: each submission once, "
          "with its results.json")
    rc, text = run_grade(["merge", outs[0], "--out",
                          os.path.join(tmp, "m2")])
    check(rc != 0 and "missing" in text, "merge with a shard missing "
          "fails: %s" % text.strip().splitlines()[-1:])
    rc, text = run_grade(["merge", outs[0], outs[0], outs[1], "--out",
                          os.path.join(tmp, "m3")])
    check(rc != 0 and "twice" in text, "merge with a submission twice "
          "fails")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--arch", default=None, help="ARCH for the corpus "
                   "(default: 75 without a GPU, the GPU's with one)")
    p.add_argument("--keep", default=None, help="grade the corpus into "
                   "this OUT folder and keep it (for the transcript)")
    p.add_argument("--skip-shards", action="store_true")
    args = p.parse_args()
    gpu = has_gpu()
    arch = args.arch or (None if gpu else "75")
    print("run_tests: %s; corpus built for %s" % (
        "a GPU is present: every verdict is asserted" if gpu else
        "no GPU: compile_error, signature, host_code and no_gpu asserted",
        "ARCH=" + arch if arch else "the local GPU"), flush=True)
    tmp = tempfile.mkdtemp(prefix="grade-tests-")
    try:
        test_machinery(tmp)
        test_retiming()
        test_corpus(tmp, arch, gpu, args.keep and os.path.abspath(args.keep))
        if not args.skip_shards:
            test_shards(tmp, arch)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (RESULTS["passed"], RESULTS["failed"]))
    return 1 if RESULTS["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
