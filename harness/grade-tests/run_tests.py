#!/usr/bin/env python3
"""run_tests.py: the tests of the grading tool (harness/grade.py and the
package harness/grader/).

    python3 harness/grade-tests/run_tests.py [--keep DIR]

1. Machinery, on the host: the watched process (output capped under a
   flood, the per-run and per-submission watchdogs, the group kill, the
   file-size limit), names and OUT folders, the class kinds (a class of
   one, Gradescope exports with and without PyYAML, Classroom clones),
   CSV neutralisation, the weights, GRADING.md's verdict table
   against the judge's.
2. The run stage and the judge, with test doubles: fake_driver.py stands
   in for the driver (events, exit codes, signals, hangs, floods) and a
   fake compile copies each file into its "module". Every verdict the
   driver's events, exit codes and signals can give, the watchdogs, the
   performance points, the reference failing, identical submissions
   scoring alike; SIGTERM killing every driver under way.
   test_hardening.py: the reference first, stallers, --per-gpu, the lock's
   place, gpu_memory, SIGTERM while compiling, control bytes in every
   output, class layouts, the events' index.
3. The compile stage through harness/grader/compiler.py: the corpus
   (corpus/, expected verdicts in expected.csv) graded with --build-only
   for ARCH 75, every compile-stage verdict exact and every other case
   not_run; hostile names; then test_outputs.py: no byte of /etc/passwd
   in OUT, the schemas of grades.csv and results.json, shards and merge.
   Then test_flow.py: the
   named tests, identities, regrades, the summary, merges refused.
4. Without a GPU: grade.py without --build-only says so at the start and
   at the end, exits 3 and writes no grades.
5. With a GPU (the probe finds one): the corpus graded for real, with
   memcheck's run, every case's final verdict exact; crash, trap and
   timeout named by the driver at the run they stop in, after one result
   for each run before it; then oob_mib without memcheck's run, which
   passes (the guards cannot see it).
Ends with "N passed, M failed"; exits 1 on any failure.
"""

import argparse
import codecs
import contextlib
import csv
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.dirname(HERE)
REPO = os.path.dirname(HARNESS)
GRADE = os.path.join(HARNESS, "grade.py")
# The pristine starter where the exercise keeps one apart from the
# student's working file, else the working file as committed.
STARTER = next(p for p in (
    os.path.join(REPO, "day33-exercise-threeway", "starter", "threeway.cu"),
    os.path.join(REPO, "day33-exercise-threeway", "threeway.cu"))
    if os.path.isfile(p))
sys.dont_write_bytecode = True  # no __pycache__ in the repository
sys.path.insert(0, HARNESS)
from grader import (cli, compiler, compiling, judge,  # noqa: E402
                    listing, machine, reports, running)
import stallers  # noqa: E402
import test_flow  # noqa: E402
import test_hardening  # noqa: E402
import test_outputs  # noqa: E402

RESULTS = {"passed": 0, "failed": 0}
THIS = sys.modules[__name__]   # what the test modules are given (rt)


def check(ok, what):
    RESULTS["passed" if ok else "failed"] += 1
    print("%s %s" % ("ok  " if ok else "FAIL", what), flush=True)
    return ok


def grade(argv):
    """grade.py in this process: (exit code, everything it printed)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        try:
            rc = cli.main(argv, out=buf)
        except SystemExit as e:
            rc = e.code
    return rc, buf.getvalue()


def read_rows(out, name="grades.csv"):
    try:
        return reports.read_csv(os.path.join(out, name))
    except OSError:
        return []


def by_folder(rows):
    return {r["results"].rsplit("/", 1)[0]: r for r in rows}


# ---------------------------------------------------------------------------
# 1. Machinery.

def group_alive(pgid):
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/stat" % entry) as f:
                    fields = f.read().rsplit(")", 1)[-1].split()
            except OSError:
                continue
            if len(fields) > 2 and fields[2] == str(pgid) and \
                    fields[0] != "Z":
                return True
    return False


def test_process(tmp):
    py, res = sys.executable, os.path.join(tmp, "events.jsonl")
    r = running.run_process([py, "-c", "import os\nb=b'x'*65536\n"
                             "for _ in range(512): os.write(1,b); "
                             "os.write(2,b)"], "flood", res, None, 60, 60)
    check(r.rc == 0 and r.out.total == 32 << 20 and
          len(r.output()) < 5 * running.CAP, "flood: 32 MiB per stream read "
          "through, %d characters kept" % len(r.output()))
    check("\\x1b" in _capped(b"\x1b[31mred\x00"), "output: control "
          "characters escaped")
    hang = ("import json,time\nf=open(%r,'w')\nf.write(json.dumps({'event':"
            "'start','run':7,'label':'n=9'})+'\\n')\nf.flush()\n"
            "time.sleep(60)" % res)
    start = time.monotonic()
    r = running.run_process([py, "-c", hang], "hang", res, None, 1.0, 30)
    check(r.killed == ("run", 7, 1.0) and time.monotonic() - start < 10 and
          judge.classify(r)[0] == "timeout" and "run 7 (n=9)" in
          judge.classify(r)[1], "per-run watchdog: run 7 named, killed "
          "after %.1f s" % (time.monotonic() - start))
    # A batch: three runs started at once, run in order. Runs 7 and 8
    # end at 0.5 s; run 9 is under way and never ends: it is named once
    # its own limit (1.0 s) has passed after they closed.
    batch = ("import json,time\nf=open(%r,'w')\nw=lambda e: (f.write("
             "json.dumps(e)+'\\n'), f.flush())\nfor k in (7,8,9): "
             "w({'event':'start','run':k,'label':'n=%%d' %% k})\n"
             "time.sleep(0.5)\nw({'event':'result','run':7,"
             "'status':'pass'})\nw({'event':'result','run':8,"
             "'status':'pass'})\ntime.sleep(60)" % (res + "b"))
    start = time.monotonic()
    r = running.run_process([py, "-c", batch], "batch", res + "b", None,
                            1.0, 30)
    took = time.monotonic() - start
    check(r.killed and r.killed[:2] == ("run", 9) and took >= 1.4 and
          took < 10 and "run 9 (n=9)" in judge.classify(r)[1],
          "per-run watchdog, a batch: run 9 named after %.1f s, its limit "
          "counted from when the runs before it closed" % took)
    both = running._Opened({3: (0.0, 2.0), 4: (0.0, 1.0)})
    check(running._late_run(both, 2.5) is None and
          running._late_run(both, 3.5) == (3, 3.0),
          "per-run watchdog: runs open together share their limits, "
          "summed; the first open one is named")
    # Stopped between two batches: every run started has its result, but
    # the plan's 4 runs are not all done, so the timing has not begun.
    between = ("import json,time\nf=open(%r,'w')\nw=lambda e: (f.write("
               "json.dumps(e)+'\\n'), f.flush())\nw({'event':'begin',"
               "'runs':4})\nfor k in (0,1): w({'event':'start','run':k,"
               "'label':'n=%%d' %% k}); w({'event':'result','run':k,"
               "'status':'pass'})\ntime.sleep(60)" % (res + "c"))
    r = running.run_process([py, "-c", between], "between", res + "c", None,
                            30, 1.0)
    check(r.killed == ("submission", None, 1.0) and "after run 1 (n=1), "
          "before the next batch" in judge.classify(r)[1],
          "stopped between two batches: %s" % judge.classify(r)[1])
    r = running.run_process([py, "-c", "import time; time.sleep(60)"],
                            "silent", res + "2", None, 1.0, 1.5)
    check(r.killed == ("submission", None, 1.5) and "before the first run"
          in judge.classify(r)[1], "per-submission watchdog: %s"
          % judge.classify(r)[1])
    r = running.run_process(["/bin/sh", "-c", "(sleep 60 >/dev/null 2>&1 &)"
                             "; echo $$"], "bg", res + "3", None, 5, 5)
    pid = int((r.out.text().split() or ["0"])[0])
    deadline = time.monotonic() + 5
    while group_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    check(pid > 0 and not group_alive(pid), "process group: a background "
          "child is gone after the run")
    keep, running.FSIZE = running.FSIZE, 1 << 20
    try:
        target = os.path.join(tmp, "big")
        r = running.run_process(["/bin/sh", "-c", "head -c 8388608 "
                                 "/dev/zero > " + target], "big", res + "4",
                                None, 30, 30)
    finally:
        running.FSIZE = keep
    check(r.rc != 0 and os.path.getsize(target) <= 1 << 20, "RLIMIT_FSIZE: "
          "an 8 MiB write stopped at %d bytes" % os.path.getsize(target))


def _capped(data):
    c = running.Capped()
    c.add(data)
    return c.text()


def test_names():
    keys = ["alice", "Alice", "a b", ".hidden", "-rf", "grades.csv",
            "ünï", "x" * 300, "a%20b", os.fsdecode(b"bad\xff\n\x1b[0m")]
    names = listing.folder_names(keys)
    vals = list(names.values())
    check(len({v.lower() for v in vals}) == len(vals) and all(
        v and not v.startswith(".") and "/" not in v and len(v) <= 130 and
        all(c.isalnum() and c.isascii() or c in "._-%~" for c in v)
        for v in vals), "folder names: unique ignoring case, safe bytes "
          "only, never hidden: %s" % sorted(vals)[:5])
    check(names["a b"] != names["a%20b"], "folder names: escapes are "
          "unambiguous (%s, %s)" % (names["a b"], names["a%20b"]))
    shown = listing.display(os.fsdecode(b"bad\xff\n\x1b[0m") + "\u202e")
    check(shown.isprintable() and "\\xff" in shown, "display names: "
          "printable: %r" % shown)
    for cell, want in (("=1+1", "'=1+1"), ("+x", "'+x"), ("-rf", "'-rf"),
                       ("@SUM(A1)", "'@SUM(A1)"), ("\tx", "'\tx"),
                       ("  =x", "'  =x"), ("plain", "plain"), ("", "")):
        check(reports.neutralise(cell) == want, "CSV cell %r -> %r"
              % (cell, reports.neutralise(cell)))
    with open(os.path.join(HARNESS, "GRADING.md"), encoding="utf-8") as f:
        table = dict(re.findall(r"(?m)^\| `([a-z_]+)` \| (pass|fail|error) \|",
                                f.read()))
    check(table == judge.REASONS, "GRADING.md's verdict table holds every "
          "reason the judge gives, with its status (%s)" % sorted(
              set(table.items()) ^ set(judge.REASONS.items())))
    w = judge.WEIGHTS
    check(w["compile"] + w["signature"] + w["check"] * len(
        judge.CHECK_TESTS) + w["performance"] == 100 and len(
            judge.CHECK_TESTS) == 10, "weights: 5 + 5 + 10 tests x 8 + 10")


META = """\
submission_111:
  :submitters:
  - :name: Jane Doe
    :sid: '0042'
    :email: jane@example.edu
  :created_at: 2025-03-01 10:00:00.000000000 -08:00
  :score: !ruby/object:BigDecimal 18:0.1e2
  :history:
  - :name: not a submitter
submission_222:
  :submitters:
  - :name: "Pair \\"One\\""
    :sid: '200'
    :email: one@example.edu
  - :name: Pair Two
    :sid: '201'
    :email: two@example.edu
  :status: processed
submission_333:
  :submitters:
  - :name: Jane Doe
    :sid: '0043'
    :email: jane2@example.edu
"""


def test_classes(tmp):
    # The metadata readers themselves: test_flow.py (the export's real
    # shape, with and without PyYAML).
    export = os.path.join(tmp, "gs", "assignment_9_export")
    for sub, where in (("submission_111", "threeway.cu"),
                       ("submission_222", "repo/day33-exercise-threeway/"
                        "threeway.cu"), ("submission_333", "x/threeway.cu")):
        path = os.path.join(export, sub, where)
        os.makedirs(os.path.dirname(path))
        shutil.copy(os.path.join(HERE, "corpus", "pass", "threeway.cu"), path)
    with open(os.path.join(export, listing.GRADESCOPE_META), "w") as f:
        f.write(META)
    kind, subs, notes = listing.list_class(os.path.join(tmp, "gs"))
    names = sorted(s.name for s in subs)
    check(kind == "gradescope" and names == [
        "Jane Doe (submission_111)", "Jane Doe (submission_333)",
        'Pair "One", Pair Two'] and all(s.kernel for s in subs) and
        any("export" in n for n in notes), "Gradescope export: named by "
          "submitters, kernels found: %s" % names)

    clones = os.path.join(tmp, "classroom")
    for repo in ("threeway-alice", "threeway-bob"):
        path = os.path.join(clones, repo, "day33-exercise-threeway")
        os.makedirs(path)
        shutil.copy(os.path.join(HERE, "corpus", "pass", "threeway.cu"), path)
    os.makedirs(os.path.join(clones, ".git"))
    kind, subs, notes = listing.list_class(clones)
    check(kind == "folders" and [s.name for s in subs] == [
        "threeway-alice", "threeway-bob"] and all(s.kernel for s in subs)
          and any("Classroom" in n for n in notes), "GitHub Classroom "
          "clones: kernel at <repo>/day33-exercise-threeway/")
    kind, subs, notes = listing.list_class(os.path.join(clones,
                                                        "threeway-bob"))
    check(kind == "one" and len(subs) == 1 and subs[0].kernel and
          "class of one" in notes[0], "a folder that is one submission: "
          "graded as a class of one (%s)" % notes[0])
    empty = os.path.join(tmp, "empty-class")
    os.makedirs(os.path.join(empty, ".hidden"))
    try:
        listing.list_class(empty)
        check(False, "an empty class is refused")
    except listing.ClassError as e:
        check("no submission" in str(e), "an empty class: %s" % e)
    fifo = os.path.join(tmp, "fifo-class", "f")
    os.makedirs(fifo)
    os.mkfifo(os.path.join(fifo, "threeway.cu"))
    path, problem, _ = listing.find_kernel(fifo)
    check(path is None and "not a regular file" in problem, "a FIFO named "
          "threeway.cu is never opened: %s" % problem)


# ---------------------------------------------------------------------------
# 2. The run stage and the judge, with the fake driver.

def fake_tools(tmp):
    wrappers = {}
    for name, extra in (("driver", ""), ("sanitizer", " sanitizer")):
        path = os.path.join(tmp, "fake-" + name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\nexec %s %s%s \"$@\"\n" % (
                sys.executable, os.path.join(HERE, "fake_driver.py"), extra))
        os.chmod(path, 0o755)
        wrappers[name] = path
    return wrappers


def fake_compile(src, out_module, arch, **kwargs):
    """The compile stage's test double: the "module" is the source."""
    os.makedirs(os.path.dirname(out_module), exist_ok=True)
    shutil.copyfile(src, out_module)
    return compiler.Compiled(True, None, "", module=out_module,
                             entries=[compiler.ENTRY], seconds=0.01)


FAKE_CASES = {   # marker: (reason, status)
    "pass": ("pass", "pass"), "boundary": ("boundary", "fail"),
    "unwritten_group": ("unwritten", "fail"), "fault": ("crash", "fail"),
    "driver_timeout": ("timeout", "fail"), "hang_run": ("timeout", "fail"),
    "hang_begin": ("timeout", "fail"), "segv": ("crash", "fail"),
    "exit2": ("tool_error", "error"), "exit3": ("no_gpu", "error"),
    "exit0_noend": ("tool_error", "error"), "exit7": ("crash", "fail"),
    "exit4_silent": ("crash", "fail"), "flood": ("pass", "pass"),
    "signature": ("signature", "fail"), "load_error": ("load_error", "fail"),
    "timing_bad": ("nondeterministic", "fail"), "slow_20": ("pass", "pass"),
    "timing_fault": ("crash", "fail"),
    "memcheck": ("out_of_bounds", "fail"), "pass.copy": ("pass", "pass"),
    "batch_fault": ("crash", "fail"), "batch_boundary": ("boundary", "fail"),
}


def test_fake_runs(tmp):
    tools = fake_tools(tmp)
    klass = os.path.join(tmp, "fake-class")
    for marker in FAKE_CASES:
        os.makedirs(os.path.join(klass, marker))
        with open(os.path.join(klass, marker, "threeway.cu"), "w") as f:
            f.write("// FAKE:%s\n" % marker.replace(".copy", ""))
    os.makedirs(os.path.join(klass, "no_kernel"))
    out = os.path.join(tmp, "fake-out")
    saved = (compiling.compile_submission, machine.probe_gpus, cli.GRACE)
    compiling.compile_submission = fake_compile
    machine.probe_gpus = lambda gpus, nvcc, then=None: [
        (g, "GPU: Fake GPU (compute capability 9.0, 1 SMs)", "90")
        for g in gpus]
    cli.GRACE = 0.5
    try:
        start = time.monotonic()
        rc, text = grade([klass, "--out", out, "--driver", tools["driver"],
                          "--sanitizer", tools["sanitizer"], "--jobs", "4",
                          "--run-timeout", "1", "--submission-timeout", "6",
                          "--seed", "7"])
        took = time.monotonic() - start
        rows = by_folder(read_rows(out))
        check(rc == 0 and len(rows) == len(FAKE_CASES) + 1, "fake driver: "
              "a class with every behaviour graded, exit %s, %.1f s"
              % (rc, took))
        if rc != 0:
            print(text)
        for marker, (reason, status) in FAKE_CASES.items():
            r = rows.get("submissions/" + marker, {})
            check((r.get("reason"), r.get("status")) == (reason, status),
                  "fake driver %-16s -> %s %s: %s" % (
                      marker, r.get("status"), r.get("reason"),
                      r.get("detail", "")[:90]))
        r = rows.get("submissions/no_kernel", {})
        check(r.get("reason") == "no_file" and r.get("score") == "0",
              "no kernel: no_file, 0 points")
        _check_fake_details(out, rows)
        test_outputs.check_schemas(THIS, out, list(rows.values()))
        shutil.rmtree(out)
        two = os.path.join(tmp, "two-gpus")
        for marker in ("pass", "memcheck"):
            shutil.copytree(os.path.join(klass, marker),
                            os.path.join(two, marker))
        rc, text = grade([two, "--out", out, "--driver", tools["driver"],
                          "--gpus", "0,1", "--no-sanitize", "--seed", "7"])
        rows = by_folder(read_rows(out))
        with open(os.path.join(out, "shard.json")) as f:
            meta = json.load(f)
        with open(os.path.join(out, "submissions", "pass",
                               "results.json")) as f:
            res = json.load(f)
        mem = [t for t in res["tests"] if t["name"].startswith(
            "memory_safety")]
        check(rc == 0 and sorted(meta["reference"]) == ["0", "1"] and
              [r["reason"] for r in rows.values()] == ["pass", "pass"] and
              len(mem) == 1 and mem[0]["score"] == 0 and "--no-sanitize" in
              mem[0]["output"] and res["score"] == 92, "--gpus 0,1 "
              "--no-sanitize: the reference timed on each GPU; memcheck's "
              "test not run, 0 points, the others unchanged (%s)"
              % res["score"])
        shutil.rmtree(out)
        test_stop(tmp, klass, tools)
        ref = os.path.join(tmp, "ref.cu")
        with open(ref, "w") as f:
            f.write("// FAKE:boundary\n")
        rc, text = grade([klass, "--out", out, "--driver", tools["driver"],
                          "--no-sanitize", "--reference-module", ref,
                          "--run-timeout", "1", "--submission-timeout", "6"])
        check(rc == 1 and "reference solution does not pass" in text and
              not os.path.exists(os.path.join(out, "grades.csv")),
              "a reference that fails stops the setup: exit %s, no grades"
              % rc)
    finally:
        compiling.compile_submission, machine.probe_gpus, cli.GRACE = saved


STOPPED = """
import sys
sys.path.insert(0, %r)
import run_tests as rt
rt.compiling.compile_submission = rt.fake_compile
rt.machine.probe_gpus = lambda gpus, nvcc, then=None: [
    (g, "GPU: Fake GPU (compute capability 9.0, 1 SMs)", "90") for g in gpus]
sys.exit(rt.cli.main(sys.argv[1:]))
"""


def test_stop(tmp, klass, tools):
    """SIGTERM: every driver under way dies, the inputs' folder too."""
    few, scratch = os.path.join(tmp, "stop"), os.path.join(tmp, "stop-tmp")
    shutil.copytree(os.path.join(klass, "hang_run"), os.path.join(few, "h"))
    os.makedirs(scratch)
    out = os.path.join(tmp, "stop-out")
    p = subprocess.Popen([sys.executable, "-c", STOPPED % HERE, few, "--out",
                          out, "--driver", tools["driver"], "--no-sanitize",
                          "--submission-timeout", "120", "--run-timeout",
                          "100", "--seed", "7"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL,
                         env=dict(os.environ, TMPDIR=scratch))
    # The submission's driver (events in runs/); the reference's ends alone.
    deadline = time.monotonic() + 60
    before = []
    while time.monotonic() < deadline and not before:
        time.sleep(0.1)
        before = drivers_of(out, os.sep + "runs" + os.sep)
    p.send_signal(signal.SIGTERM)
    rc = p.wait(timeout=20)
    time.sleep(0.5)
    after = drivers_of(out)
    check(before and not after and rc == 128 + signal.SIGTERM and
          not os.path.exists(os.path.join(out, "grades.csv")) and
          not os.listdir(scratch), "SIGTERM: the tool exits %s, its %d "
          "drivers under way are gone (%d left), no grades, TMPDIR empty "
          "(%s)" % (rc, len(before), len(after), os.listdir(scratch)))


def drivers_of(out, also=""):
    """The live drivers (grade mode, a module under OUT), those whose
    command line holds ALSO too where it is given."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                cmd = f.read()
            if out.encode() in cmd and b"--grade" in cmd and \
                    also.encode() in cmd:
                found.append(entry)
        except OSError:
            continue
    return found


def _check_fake_details(out, rows):
    def detail(m):
        return rows.get("submissions/" + m, {}).get("detail", "")

    def results(m):
        with open(os.path.join(out, "submissions", m, "results.json")) as f:
            return json.load(f)
    check(detail("timing_fault").startswith("repeatability: the timing: "
                                            "cuEventSync"),
          "a fault while timing names the timing: %s"
          % detail("timing_fault"))
    check("run 2 (n=4096 mix=ends grid=2x128)" in detail("fault") and
          "CUDA_ERROR_ILLEGAL_ADDRESS" in detail("fault"), "a crash names "
          "its run and the error: %s" % detail("fault"))
    check("run 1 (n=257" in detail("hang_run") and "killed" in
          detail("hang_run"), "a hang is killed and named: %s"
          % detail("hang_run"))
    check("SIGSEGV" in detail("segv") and "run 1" in detail("segv"),
          "a signal is named with its run: %s" % detail("segv"))
    check("zeros" in detail("unwritten_group"), "unwritten names the "
          "group: %s" % detail("unwritten_group"))
    check("Invalid __global__ write" in detail("memcheck"), "memcheck's "
          "finding: %s" % detail("memcheck"))
    check("round 4" in detail("timing_bad"), "a wrong timed launch: %s"
          % detail("timing_bad"))
    full, slow = rows["submissions/pass"], rows["submissions/slow_20"]
    want = 100 - 10 * (1 - (3.0 - 2.0) / (3.0 - 1.25))
    check(full["score"] == "100" and abs(float(slow["score"]) - want) < 0.01
          and slow["x_copy"] == "20.000", "performance: full points at the "
          "reference's speed, %s at twice its x_copy" % slow["score"])
    check(rows["submissions/pass.copy"]["score"] == full["score"] and
          rows["submissions/flood"]["score"] == full["score"],
          "identical kernels score alike; a flood of fake results on stdout "
          "changes nothing")
    res = results("boundary")
    boxes = {t["name"].split(":")[0]: t for t in res["tests"]}
    check(len(res["tests"]) == 13 and boxes["block_grid_edges"]["status"] ==
          "failed" and "boundaries found 10, 19" in boxes[
              "block_grid_edges"]["output"] and boxes["memory_safety"][
                  "status"] == "passed" and abs(res["score"] - 18) < 0.011,
          "a driver without named tests: the failing run's test (derived "
          "from its size and grid) fails, the plan's later tests are not "
          "run, memcheck's passes: %s points" % res["score"])
    res = results("exit3")
    check("not a verdict" in res["output"], "an environment error says it "
          "is not a verdict on the kernel")
    # A batch: the fault's run is the one the test named fails in.
    for m, test, why in (("batch_fault", "block_grid_edges",
                          "CUDA_ERROR_ILLEGAL_ADDRESS"),
                         ("batch_boundary", "block_grid_edges",
                          "boundaries found 10, 19")):
        boxes = {t["name"].split(":")[0]: t for t in results(m)["tests"]}
        check(boxes[test]["status"] == "failed" and why in
              boxes[test]["output"] and detail(m).startswith(test + ": "),
              "%s: test %s fails with the verdict: %s" % (m, test,
                                                          detail(m)[:80]))
    text = open(os.path.join(out, "submissions", "flood", "log.txt")).read()
    check("bytes left out" in text and "1 unreadable lines" in text,
          "flood: output capped in log.txt, the junk line counted")


# ---------------------------------------------------------------------------
# 3. The corpus's compile stage, names, schemas, shards.

def read_expected():
    with open(os.path.join(HERE, "expected.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["key"] = os.fsdecode(codecs.escape_decode(r["case"])[0])
    return rows


def make_class(tmp, expected):
    klass = os.path.join(tmp, "class")
    os.makedirs(klass)
    for r in expected:
        dest = os.path.join(klass, r["key"])
        src = os.path.join(HERE, "corpus", r["case"])
        made = r["made"]
        if os.path.isdir(src):
            shutil.copytree(src, dest)
        else:
            os.makedirs(dest)
        if made.startswith("kernel:"):
            shutil.copy(os.path.join(HERE, "corpus", made[7:], "threeway.cu"),
                        dest)
        elif made.startswith("symlink:"):
            os.symlink(made[8:], os.path.join(dest, "threeway.cu"))
        elif made == "starter":
            shutil.copy(STARTER, os.path.join(dest, "threeway.cu"))
        elif made == "template":
            with open(os.path.join(src, "threeway.cu.in")) as f:
                text = f.read()
            os.remove(os.path.join(dest, "threeway.cu.in"))
            with open(os.path.join(dest, "threeway.cu"), "w") as f:
                f.write(text.replace("@REPO@", REPO).replace(
                    "@REPO_REL@", REPO.lstrip("/")))
    os.makedirs(os.path.join(klass, ".hidden"))
    with open(os.path.join(klass, "a plain file"), "w") as f:
        f.write("not a submission\n")
    return klass


def test_corpus_compile(tmp):
    expected = read_expected()
    klass = make_class(tmp, expected)
    out = os.path.join(tmp, "out")
    start = time.monotonic()
    rc, text = grade([klass, "--out", out, "--build-only", "--arch", "75",
                      "--compile-mem", "1024", "--seed", "1"])
    print(text, end="")
    check(rc == 0, "the corpus's compile stage, --build-only: exit %s, %.0f s"
          % (rc, time.monotonic() - start))
    rows = read_rows(out)
    folders = listing.folder_names([r["key"] for r in expected])
    got = by_folder(rows)
    check(len(rows) == len(expected), "every case graded once (%d rows; "
          "hidden folders and plain files skipped)" % len(rows))
    for r in expected:
        row = got.get("submissions/" + folders[r["key"]], {})
        want = (r["status"], r["reason"]) if r["needs_gpu"] == "no" else \
            ("error", "not_run")
        check((row.get("status"), row.get("reason")) == want,
              "%-22s %s %s (expected %s %s) %s" % (
                  listing.display(r["key"])[:22], row.get("status"),
                  row.get("reason"), want[0], want[1],
                  row.get("detail", "")[:60]))
    test_outputs.check_outputs(THIS, out, rows, got, folders)
    test_outputs.check_schemas(THIS, out, rows)
    return klass, out


# ---------------------------------------------------------------------------
# 4 and 5. With and without a GPU.

def probe():
    """(cc, line): cc None when no usable GPU."""
    found = machine.probe_gpus([None], machine.find_nvcc(None))
    return found[0][2], found[0][1]


def test_no_gpu(tmp):
    klass = os.path.join(tmp, "nogpu")
    shutil.copytree(os.path.join(HERE, "corpus", "pass"),
                    os.path.join(klass, "pass"))
    out = os.path.join(tmp, "nogpu-out")
    p = subprocess.run([sys.executable, GRADE, klass, "--out", out],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    text = p.stdout.decode("utf-8", "replace")
    lines = text.strip().splitlines()
    check(p.returncode == 3 and "no usable GPU" in lines[1] and
          "no usable GPU" in lines[-1] and "exit 3" in lines[-1] and
          not os.path.exists(os.path.join(out, "grades.csv")),
          "no GPU: said at the start and at the end, exit %s, no grades:\n"
          "    %s" % (p.returncode, "\n    ".join(lines)))


def test_gpu(tmp, keep):
    expected = read_expected()
    klass = make_class(os.path.join(tmp, "gpu"), expected)
    out = keep or os.path.join(tmp, "gpu-out")
    start = time.monotonic()
    # memcheck's run on, whatever the tool's default: oob_mib's verdict
    # comes from it.
    rc, text = grade([klass, "--out", out, "--compile-mem", "1024",
                      "--run-timeout", "10", "--seed", "31033",
                      "--sanitize"])
    print(text, end="")
    check(rc == 0, "the corpus graded on the GPU: exit %s, %.0f s"
          % (rc, time.monotonic() - start))
    rows = read_rows(out)
    got = by_folder(rows)
    folders = listing.folder_names([r["key"] for r in expected])
    # stall_memory's reservation does not fit an 80 GB card: its launch is
    # refused there (stallers.py).
    small = stallers.memory_reserve_fits(probe()[1]) is False
    for r in expected:
        row = got.get("submissions/" + folders[r["key"]], {})
        want = ("fail", "crash") if small and r["case"] == "stall_memory" \
            else (r["status"], r["reason"])
        # A reason may name alternatives ("boundary|unwritten") where the
        # drawn input decides which of two right verdicts the check gives.
        check(row.get("status") == want[0] and
              row.get("reason") in want[1].split("|"),
              "%-22s %s %s (expected %s %s) %s" % (
                  listing.display(r["key"])[:22], row.get("status"),
                  row.get("reason"), want[0], want[1],
                  row.get("detail", "")[:70]))
    # A case with a score_below (slow_scatter) passes every check and
    # must lose performance points; every other passing case has them all.
    slow = {"submissions/" + folders[r["key"]]: float(r["score_below"])
            for r in expected if r.get("score_below")}
    for folder, below in sorted(slow.items()):
        score = got.get(folder, {}).get("score")
        check(score is not None and float(score) < below, "%s scores %s, "
              "below %g" % (folder, score, below))
    passing = [x for x in rows if x["reason"] == "pass" and
               x["results"].rsplit("/", 1)[0] not in slow]
    check(passing and all(x["score"] == "100" for x in passing),
          "every passing case has full marks (%s)" % sorted(
              {x["score"] for x in passing}))
    test_outputs.check_schemas(THIS, out, rows)
    row = got.get("submissions/oob_mib", {})
    check("memcheck" in row.get("detail", ""), "oob_mib's finding is "
          "memcheck's: %s" % row.get("detail", "")[:90])
    _check_gpu_stops(out, got, folders)
    test_gpu_no_sanitize(tmp)


def _check_gpu_stops(out, got, folders):
    """A fault or a hang inside a batch: each of these kernels stops in
    the plan's first run with n > 0 (its first launch); the driver itself
    names that run, after one passing result for every run before it."""
    for case, said in (("crash", "scatterThreeWay failed"),
                       ("trap", "scatterThreeWay failed"),
                       ("timeout", "stopped by the driver's watchdog")):
        detail = got.get("submissions/" + folders[case], {}).get("detail", "")
        named = re.match(r"(?:[a-z_]+: )?run (\d+) \(n=1 mix=thirds "
                         r"grid=1x256\): ", detail)
        k = int(named.group(1)) if named else -1
        try:
            with open(os.path.join(out, "submissions", folders[case],
                                   "events.jsonl")) as f:
                events = [e for e in map(json.loads, f)
                          if e.get("_process") == "plan"]
        except (OSError, ValueError):
            events = []
        results = [(e.get("run"), e.get("status")) for e in events
                   if e.get("event") == "result"]
        stops = [e.get("run") for e in events
                 if e.get("event") in ("fault", "timeout", "end")]
        check(named and said in detail and stops == [k] and
              results == [(r, "pass") for r in range(k)],
              "%s: the driver names run %d and reports the %d runs before "
              "it once each (results %s, stops %s): %s" % (
                  case, k, max(k, 0), [r for r, _ in results], stops,
                  detail[:90]))


def test_gpu_no_sanitize(tmp):
    """What memcheck's run adds: oob_mib's stray write lies past every
    guard, so without memcheck it passes."""
    klass = os.path.join(tmp, "gpu-no-sanitize")
    shutil.copytree(os.path.join(HERE, "corpus", "oob_mib"),
                    os.path.join(klass, "oob_mib"))
    out = os.path.join(tmp, "gpu-no-sanitize-out")
    rc, text = grade([klass, "--out", out, "--seed", "31033",
                      "--no-sanitize"])
    rows = read_rows(out)
    check(rc == 0 and [(r["reason"], r["score"]) for r in rows] == [
        ("pass", "92")], "oob_mib with --no-sanitize: %s (the write past "
          "the guards is memcheck's alone to see; its test, not run, "
          "scores 0)" % [
              (r["reason"], r["score"]) for r in rows])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--keep", default=None, help="grade the corpus on the "
                   "GPU into this OUT folder and keep it")
    p.add_argument("--gpu-only", action="store_true", help="the GPU "
                   "stage alone (the corpus graded on the GPU), without "
                   "the host tests make check runs")
    args = p.parse_args()
    cc, line = probe()
    print("run_tests: %s" % ("GPU: %s" % line if cc else "no GPU (%s): the "
                             "GPU stages run with the fake driver only"
                             % line), flush=True)
    tmp = tempfile.mkdtemp(prefix="grade-tests-")
    os.environ["HX_LOCK_DIR"] = tmp     # the tests' GPU locks, not the node's
    try:
        if args.gpu_only:
            if not cc:
                print("run_tests: --gpu-only needs a GPU")
                return 1
            test_gpu(tmp, args.keep and os.path.abspath(args.keep))
            print("%d passed, %d failed (the GPU stage alone)" % (
                RESULTS["passed"], RESULTS["failed"]))
            return 1 if RESULTS["failed"] else 0
        test_process(tmp)
        test_names()
        test_classes(tmp)
        test_fake_runs(tmp)
        test_corpus_compile(tmp)
        test_outputs.test_shards(THIS, tmp)
        test_hardening.run(sys.modules[__name__], tmp)
        test_flow.run(sys.modules[__name__], tmp)
        if cc:
            test_gpu(tmp, args.keep and os.path.abspath(args.keep))
        else:
            test_no_gpu(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (RESULTS["passed"], RESULTS["failed"]))
    return 1 if RESULTS["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
