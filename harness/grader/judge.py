"""judge: verdicts and scores, from the compile record and the runs.

The verdict comes only from compiler.py's record, the driver's result
file (written by code the student cannot touch), the exit codes and
signals, and this tool's own watchdogs; never from what the submission
prints. Scores are points; the weights live here and nowhere else
(GRADING.md mirrors them).
"""

import signal

from .running import SANITIZE_EXIT

# The weights (total 100). The check runs share CHECKS equally (to the
# cent); the compute-sanitizer run, when on, counts as one more run.
WEIGHTS = {
    "compile": 5.0,        # a device module, toolkit headers only
    "signature": 5.0,      # the module has the kernel, and loads
    "checks": 80.0,        # every run of the plan (and memcheck's)
    "performance": 10.0,   # x_copy against the reference's
}
# r = x_copy(submission) / x_copy(reference), both timed by the driver on
# the same GPU in the same grading run: full points when r <= FULL_AT,
# none when r >= ZERO_AT, linear in between. Only a submission whose every
# check passed is timed; pass or fail never depends on the time.
PERF_FULL_AT = 1.25
PERF_ZERO_AT = 3.0

# status pass: every check passed. fail: the student's kernel (or file).
# error: not a verdict on the student; grade again (the environment, the
# tool, or --build-only).
REASONS = {
    "pass": "pass",
    "no_file": "fail", "compile_error": "fail", "forbidden_include": "fail",
    "compile_timeout": "fail", "compile_limit": "fail", "signature": "fail",
    "load_error": "fail", "timeout": "fail", "crash": "fail",
    "out_of_bounds": "fail", "unwritten": "fail", "boundary": "fail",
    "order": "fail", "mismatch": "fail", "nondeterministic": "fail",
    "no_gpu": "error", "gpu_memory": "error", "tool_error": "error",
    "not_run": "error",
}
CHECK_STATUSES = ("pass", "boundary", "order", "mismatch", "unwritten",
                  "out_of_bounds", "nondeterministic")


def status_of(reason):
    return REASONS[reason]


class Verdict:
    def __init__(self):
        self.reason, self.detail, self.tests = None, "", []
        self.x_copy, self.report, self.score, self.max_score = None, {}, 0, 0

    @property
    def status(self):
        return status_of(self.reason)


# ---------------------------------------------------------------------------
# What one process did, as a verdict.

def label(run, k, phase=None):
    """"run 3 (n=257 mix=thirds grid=3x64)"; runs count from 0. An event
    with no run (k None) happened in the timing or before the runs."""
    if k is None:
        return "the timing" if phase == "timing" else where(run)
    ev = run.first("start", run=k) if run else None
    return "run %s (%s)" % (k, ev.get("label")) if ev else "run %s" % k


def where(run):
    """Which part of the plan a process was in when it stopped: between
    two batches every run started has its result, and the plan's runs
    are not all done (the timing comes only after the last)."""
    ev = run.open_run()
    if ev is not None:
        return "in " + label(run, ev.get("run"))
    starts = run.find("start")
    if not starts:
        return "before the first run (context creation or module load)"
    if not run.first("end"):
        runs = (run.first("begin") or {}).get("runs")
        if isinstance(runs, int) and len(starts) < runs:
            return "after %s, before the next batch's runs started" % (
                label(run, starts[-1].get("run")))
        return "after the last check, while timing"
    return "after its end event"


def classify(run):
    """(reason, detail) for one driver process, sanitizer or not."""
    if run.killed:
        kind, k, limit = run.killed
        if kind == "run":
            return "timeout", "%s did not finish within %g s: killed" % (
                label(run, k), limit)
        return "timeout", "not finished within %g s (the per-submission " \
            "limit), %s: killed" % (limit, where(run))
    module = run.first("module")
    if module and module.get("status") == "signature":
        return "signature", "the module has no kernel scatterThreeWay with " \
            "the fixed parameters; its entries: %s" % (
                ", ".join(map(str, module.get("entries") or [])) or "none")
    if module and module.get("status") != "ok":
        return "load_error", "the module does not load: %s" % (
            module.get("error") or module.get("status"))
    if run.rc == 5:     # before any fault event: its atexit handler writes
        # one for this exit too, yet a GPU without room (another process's
        # memory, or a plan too large) is never the kernel's doing
        return "gpu_memory", "the plan does not fit the GPU's memory " \
            "(exit 5): " + _stderr_line(run)
    fault, stop = run.first("fault"), run.first("timeout")
    if fault:
        return "crash", "%s: %s failed: %s" % (
            label(run, fault.get("run"), fault.get("phase")),
            fault.get("call"), fault.get("error"))
    if stop:
        return "timeout", "%s: stopped by the driver's watchdog after %s s" \
            % (label(run, stop.get("run"), stop.get("phase")),
               stop.get("seconds"))
    why = _stderr_line(run)
    rc = run.rc
    if rc == 3:
        return "no_gpu", "the driver found no usable GPU (exit 3): " + why
    if rc == 5:
        return "gpu_memory", "the plan does not fit the GPU's memory " \
            "(exit 5): " + why
    if rc == 2:
        return "tool_error", "the driver refused its command line or files " \
            "(exit 2): " + why
    if rc == 4:
        return "crash", "a CUDA fault (exit 4) %s: %s" % (where(run), why)
    if rc == 6:
        return "timeout", "the driver's watchdog (exit 6) %s" % where(run)
    if rc is not None and rc < 0:
        try:
            name = signal.Signals(-rc).name
        except ValueError:
            name = "signal %d" % -rc
        return "crash", "killed by %s %s" % (name, where(run))
    if rc != 0:
        return "crash", "exit code %s %s: %s" % (rc, where(run), why)
    end = run.first("end")
    if end is None:
        return "tool_error", "the driver exited 0 without finishing its " \
            "result file"
    status = end.get("status")
    if status not in CHECK_STATUSES:
        return "tool_error", "the result file holds the unknown status %r" \
            % (status,)
    bad = [e for e in run.find("result") if e.get("status") != "pass"]
    if bad:
        return bad[0].get("status"), "%s: %s" % (
            label(run, bad[0].get("run")), describe(bad[0]))
    timing = run.first("timing")
    if timing and timing.get("status") != "pass":
        return "nondeterministic", "a timed launch (round %s) wrote a " \
            "wrong output: the kernel behaves differently when timed" % (
                timing.get("bad_round"),)
    if status != "pass":
        return status, "the driver's end event says %s" % status
    return "pass", ""


def classify_sanitizer(run, log_text):
    """(reason, detail) for the compute-sanitizer memcheck run."""
    if not run.killed and run.rc == SANITIZE_EXIT:
        lines = [l.strip(" =") for l in log_text.splitlines()]
        found = [l for l in lines if "Invalid" in l or "out of bounds" in l
                 or "Misaligned" in l or "Address" in l][:3]
        if found:
            return "out_of_bounds", "compute-sanitizer memcheck: " + \
                " | ".join(found)
        errors = [l for l in lines if l and "ERROR SUMMARY" not in l][:2]
        return "crash", "compute-sanitizer memcheck reported: " + \
            " | ".join(errors)
    return classify(run)


def _stderr_line(run):
    lines = [l for l in run.err.text().splitlines() if l.strip()]
    return lines[-1].strip()[:300] if lines else "(nothing on stderr)"


def describe(ev):
    """One line for a failing result event."""
    bits = [str(ev.get("status"))]
    if ev.get("detail"):
        bits[0] += " (%s)" % ev.get("detail")
    if ev.get("status") == "unwritten" and ev.get("group"):
        bits.append("the %s were never written" % ev.get("group"))
    bits.append("boundaries found %s, %s; want %s, %s" % (
        ev.get("found_b1"), ev.get("found_b2"), ev.get("want_b1"),
        ev.get("want_b2")))
    if ev.get("first_bad") not in (None, -1):
        bits.append("first bad index %s: got %s, want %s" % (
            ev.get("first_bad"), ev.get("got"), ev.get("want")))
    for key in ("bad", "unwritten", "order_errors", "guard_before",
                "guard_after"):
        if ev.get(key):
            bits.append("%s %s" % (key.replace("_", " "), ev.get(key)))
    if ev.get("guard_first_offset") is not None:
        bits.append("first write outside the output at offset %s"
                    % ev.get("guard_first_offset"))
    if ev.get("disagree_run") not in (None, -1):
        bits.append("launch %s differed from the first" % ev["disagree_run"])
    return "; ".join(bits)[:600]


# ---------------------------------------------------------------------------
# The verdict and the tests of one submission.

def judge(comp, run, san, san_log, ref_x, cfg):
    """The Verdict. comp: the compile record; run: the full plan's Run
    (None when not run); san: the sanitizer's Run or None; ref_x: the
    reference's x_copy on the same GPU."""
    v = Verdict()
    test = _tests(v)
    test("compile: a device module, toolkit headers only", WEIGHTS["compile"],
         comp.ok or comp.verdict == "signature",
         "compiled to a device module for ARCH=\"%s\"" % cfg.arch
         if comp.ok or comp.verdict == "signature" else comp.message)
    module = (run.first("module") if run else None) or {}
    sig_ok = comp.ok and module.get("status") != "signature"
    test("signature: the __global__ kernel scatterThreeWay",
         WEIGHTS["signature"], sig_ok,
         "the module holds the kernel" if sig_ok else
         comp.message if comp.verdict == "signature" else
         "not checked: the compile failed" if not comp.ok else "")
    if not comp.ok:
        v.reason, v.detail = comp.verdict, comp.message
    elif run is None:
        v.reason = "not_run"
        v.detail = "compiled; not run (%s)" % cfg.not_run_why
    else:
        v.reason, v.detail = classify(run)
    memcheck = classify_sanitizer(san, san_log) if san else None
    if memcheck and (memcheck[0] == "out_of_bounds" and v.reason in
                     CHECK_STATUSES or v.reason == "pass" and
                     memcheck[0] != "pass"):
        v.reason, v.detail = memcheck
    if not v.tests[1]["output"]:
        v.tests[1]["output"] = v.detail
    _check_tests(v, run, san, memcheck, cfg, test)
    _performance(v, run, ref_x, cfg, test)
    v.score = round(sum(t["score"] for t in v.tests), 2)
    v.max_score = round(sum(t["max_score"] for t in v.tests), 2)
    results = run.find("result") if run else []
    failing = [e for e in results if e.get("status") != "pass"]
    v.report = failing[0] if failing else (results[-1] if results else {})
    return v


def _tests(v):
    def test(name, max_score, ok, output, score=None):
        v.tests.append({"name": name, "max_score": max_score,
                        "score": round(max_score if ok and score is None
                                       else score or 0.0, 2),
                        "status": "passed" if ok else "failed",
                        "output": output, "visibility": "visible"})
    return test


def shares(total, m):
    """total split into m shares that differ by at most a cent and add
    up to total exactly."""
    cents = int(round(total * 100))
    return [(cents // m + (1 if i < cents % m else 0)) / 100.0
            for i in range(m)]


def _check_tests(v, run, san, memcheck, cfg, test):
    begin = run.first("begin") if run else None
    runs = begin.get("runs") if begin else None
    if not isinstance(runs, int) or runs < 0 or runs > 10000:
        why = "the plan did not start: " + v.detail if run else \
            "not run (%s)" % cfg.not_run_why if v.reason == "not_run" else \
            "not run: the compile stage gave %s" % v.reason
        test("checks: the plan", WEIGHTS["checks"], False, why)
        return
    ids = [e.get("run") for e in run.find("start")]
    ids += [None] * (runs - len(ids))
    # The run the process stopped in: the one its fault or timeout names,
    # else the first one left open. Runs started after it (submitted in
    # the same batch) never ran to a result.
    stop = run.first("fault") or run.first("timeout") or \
        (None if run.first("end") else run.open_run())
    stopped_in = stop.get("run") if stop else None
    points = shares(WEIGHTS["checks"], runs + (1 if cfg.sanitize else 0))
    shown = False                   # the driver's output, once
    for i, k in enumerate(ids[:runs]):
        ev = run.first("result", run=k) if k is not None else None
        name = label(run, k) if k is not None else \
            "run %d: not reached" % i
        if ev is None:
            test(name, points[i], False, v.detail if k is not None and
                 k == stopped_in else "not run: the driver stopped before "
                 "it (%s)" % v.detail)
        elif ev.get("status") == "pass":
            test(name, points[i], True, "pass")
        else:
            test(name, points[i], False, describe(ev) +
                 ("" if shown else _output(run)))
            shown = True
    if cfg.sanitize:
        if san is None:
            test("compute-sanitizer memcheck", points[-1], False,
                 "not run: the plan did not end normally")
        else:
            ok = memcheck[0] == "pass"
            test("compute-sanitizer memcheck (%s)" % (
                (san.first("start") or {}).get("label", "the small run")),
                points[-1], ok, "no finding" if ok else memcheck[1] +
                _output(san))


def _output(run):
    return "\n\nthe driver's output (escaped):\n" + run.output()[:3000]


def _performance(v, run, ref_x, cfg, test):
    name, weight = "performance vs the reference", WEIGHTS["performance"]
    timing = run.first("timing") if run else None
    if v.reason != "pass":
        test(name, weight, False, "not timed: only a submission whose "
             "every check passed is timed")
        return
    if not cfg.perf:
        test(name, weight, False, "not timed (--no-perf)")
        return
    x = timing.get("x_copy") if timing else None
    if not isinstance(x, (int, float)) or x <= 0 or not ref_x:
        v.reason = "tool_error"
        v.detail = "every check passed but the result file holds no " \
            "timing: grade again"
        test(name, weight, False, v.detail)
        return
    v.x_copy = x
    ratio = x / ref_x
    frac = 1.0 if ratio <= PERF_FULL_AT else 0.0 if ratio >= PERF_ZERO_AT \
        else (PERF_ZERO_AT - ratio) / (PERF_ZERO_AT - PERF_FULL_AT)
    test(name, weight, frac > 0,
         "the split took %.2fx a copy of the same n (median of %s rounds, "
         "min %s, max %s, n=%s); the reference %.2fx on the same GPU: "
         "ratio %.2f (full points up to %.2f, none from %.2f)" % (
             x, timing.get("rounds"), timing.get("x_copy_min"),
             timing.get("x_copy_max"), timing.get("n"), ref_x, ratio,
             PERF_FULL_AT, PERF_ZERO_AT), score=weight * frac)
