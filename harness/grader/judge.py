"""judge: verdicts and scores, from the compile record and the runs.

The verdict comes only from compiler.py's record, the driver's result
files (written by code the student cannot touch), the exit codes and
signals, and this tool's own watchdogs; never from what the submission
prints. Scores are points; the weights live here and nowhere else
(GRADING.md and the exercise README quote them).

Credit is by named tests. The driver's plan is grouped into the ten check
tests of CHECK_TESTS; every run of the plan belongs to exactly one (its
events carry "test"). Each test stops at its own first failing run and a
failing test never stops the others; a crash or a hang kills the driver
process, which costs the test it happened in, and the grader may start
the driver again for the tests not finished (unfinished_tests below):
judge() merges the events of every process of the plan. The tests, in the
order results.json shows them: compile, signature, the ten checks,
performance (13 boxes).
"""

import math
import signal

from .running import SANITIZE_EXIT

# The weights (total 100): compile 5, signature 5, each of the ten check
# tests 8 (80), performance 10.
WEIGHTS = {
    "compile": 5.0,        # a device module, toolkit headers only
    "signature": 5.0,      # the module has the kernel, and loads
    "check": 8.0,          # each named check test of CHECK_TESTS
    "performance": 10.0,   # the kernel's time against the reference's
}
# The named check tests, in plan order: (name, what it covers). The names
# are the driver's ("test" in its events, --tests name,name).
CHECK_TESTS = (
    ("tiny", "n = 0, 1, 2, 3 ... 64: empty and tiny inputs, every mix, "
     "a few grids"),
    ("single_group", "only negatives, only zeros or only positives, and "
     "the two-group mixes, from tiny sizes to large ones"),
    ("block_grid_edges", "sizes one below, at and one above a multiple of "
     "the block, of the grid, and of the elements a thread handles"),
    ("every_octave", "an even and an odd size in every power-of-two "
     "octave, random mixes"),
    ("block_shapes", "block sizes that are not multiples of 32 (1, 7, 33, "
     "100, 255, 1000, 1023) and 1024"),
    ("many_per_thread", "small grids at large sizes: a thread handles "
     "more than 2^16 elements"),
    ("input_shapes", "sorted, reverse sorted, alternating kinds, one "
     "element of a kind at either end, INT_MIN and INT_MAX"),
    ("large", "the plan's largest sizes, up to the timing size, every mix"),
    ("repeatability", "the same input launched again gives the same "
     "output; the timing's warm-up and timed rounds are checked too"),
    ("memory_safety", "compute-sanitizer memcheck's runs: no access "
     "outside the buffers"),
)
CHECK_NAMES = tuple(name for name, _ in CHECK_TESTS)
SANITIZER_TEST = "memory_safety"    # run by compute-sanitizer, not the plan
TIMING_TEST = "repeatability"       # owns the timing's checked rounds
# Performance: r = median(kernel) / median(reference), the two kernels
# timed alone, interleaved, on the same inputs in one driver process: full
# points when r <= PERF_FULL_AT, none when r >= PERF_ZERO_AT, linear in
# between. Only a submission whose every check test passed is timed for
# points; pass or fail never depends on the time.
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
    "out_of_bounds": "fail", "input_written": "fail", "unwritten": "fail",
    "boundary": "fail", "order": "fail", "mismatch": "fail",
    "nondeterministic": "fail",
    "no_gpu": "error", "gpu_memory": "error", "tool_error": "error",
    "not_run": "error",
}
CHECK_STATUSES = ("pass", "boundary", "order", "mismatch", "unwritten",
                  "out_of_bounds", "input_written", "nondeterministic")


def status_of(reason):
    """pass, fail or error; a reason this tool does not know is an error
    (grade again), never an exception that stops the class."""
    return REASONS.get(reason, "error")


class Verdict:
    def __init__(self):
        self.reason, self.detail, self.tests = None, "", []
        self.x_copy, self.report, self.score, self.max_score = None, {}, 0, 0
        self.ratio, self.failed = None, []   # failed: check test names

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
        if module.get("error") == "CUDA_ERROR_OUT_OF_MEMORY":
            # the device had no room for the module (another process's
            # memory): not the kernel's doing
            return "gpu_memory", "the module could not be loaded: the " \
                "GPU's memory is full (CUDA_ERROR_OUT_OF_MEMORY)"
        return "load_error", "the module does not load: %s" % (
            module.get("error") or module.get("status"))
    if any(e.get("state") == "gave_up" for e in run.find("lock")):
        return "tool_error", "the driver could not take the GPU lock " \
            "(%s): grade again" % _stderr_line(run)
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
    if bad and bad[0].get("status") not in CHECK_STATUSES:
        return "tool_error", "the result file holds the unknown status %r" \
            % (bad[0].get("status"),)
    if bad:
        return bad[0].get("status"), "%s: %s" % (
            label(run, bad[0].get("run")), describe(bad[0]))
    timing = run.first("timing")
    if timing and timing.get("status") != "pass":
        return timing_failure(timing)
    if status != "pass":
        return status, "the driver's end event says %s" % status
    return "pass", ""


def timing_failure(timing):
    """(reason, detail) of a timing event whose status is not pass: a
    check of one of its launches failed, warm-ups included (events.cu:
    status nondeterministic, input_written or out_of_bounds; bad_round,
    in_warmup, launch, buffer)."""
    status = timing.get("status")
    reason = status if status in CHECK_STATUSES else "nondeterministic"
    rnd = timing.get("bad_round")
    what = "a warm-up launch" if timing.get("in_warmup") else \
        "a timed launch"
    launch = {"scatter": " (scatterThreeWay alone)",
              "split": " (the whole split)"}.get(timing.get("launch"), "")
    if reason == "input_written":
        wrong = "wrote into %s" % (timing.get("buffer") or "an input")
    elif reason == "out_of_bounds":
        wrong = "wrote outside its buffers%s" % (
            " (beside %s)" % timing["buffer"] if timing.get("buffer")
            else "")
    else:
        wrong = "wrote a wrong output"
    return reason, "%s%s, round %s, %s: the kernel behaves differently " \
        "when timed or warming up" % (what, launch, rnd, wrong)


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
    if ev.get("group"):     # whatever the status (a lone zero never
        # written at a boundary is status boundary, group zeros)
        bits.append("the %s were never written" % ev.get("group"))
    if ev.get("status") == "input_written" and ev.get("buffer"):
        bits.append("the kernel wrote into %s" % ev.get("buffer"))
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
# Which named test a run belongs to.

SINGLE_GROUP_MIXES = ("all-negative", "all-zero", "all-positive",
                      "no-zeros", "no-negatives", "no-positives")


def derive_test(ev):
    """The named test of a "start" event that does not carry "test" (a
    driver older than the named tests), from the run's own fields. A
    fallback only: the driver's "test" always wins."""
    n, mix = ev.get("n"), ev.get("mix") or "thirds"
    blocks, block = ev.get("blocks"), ev.get("block")
    if not isinstance(n, int):
        return "every_octave"
    if n <= 64:
        return "tiny"
    if mix in SINGLE_GROUP_MIXES:
        return "single_group"
    if mix != "thirds":
        return "input_shapes"
    if isinstance(block, int) and block > 0 and (block % 32 or
                                                 block == 1024):
        return "block_shapes"
    threads = blocks * block if isinstance(blocks, int) and \
        isinstance(block, int) else 0
    if threads and n > threads << 16:
        return "many_per_thread"
    if n >= 1 << 23:
        return "large"
    if isinstance(block, int) and block > 0 and (
            min(n % block, block - n % block) <= 1 or threads and
            min(n % threads, threads - n % threads) <= 1):
        return "block_grid_edges"
    return "every_octave"


class Index:
    """One driver process's events, indexed once (the judge looks each
    run up by its number: a scan per run made judging quadratic in the
    plan's runs). starts/results/skips: run -> event; tested: test name ->
    its "test" event (written after the plan, one a test); test_of: run
    -> test."""

    def __init__(self, run):
        self.run, self.starts, self.results, self.order = run, {}, {}, []
        self.skips, self.tested = {}, {}
        self.begin = self.end = self.module = self.timing = None
        self.stops = []            # fault and timeout events, in order
        self.sanitize = False
        for e in run.events:
            kind = e.get("event")
            if kind == "start":
                k = e.get("run")
                if k not in self.starts:
                    self.starts[k] = e
                    self.order.append(k)
            elif kind == "result":
                self.results.setdefault(e.get("run"), e)
            elif kind == "skip":
                self.skips.setdefault(e.get("run"), e)
            elif kind == "test":
                self.tested.setdefault(str(e.get("test")), e)
            elif kind in ("fault", "timeout"):
                self.stops.append(e)
            elif kind in ("begin", "end", "module", "timing"):
                if getattr(self, kind) is None:
                    setattr(self, kind, e)
        self.sanitize = (self.begin or {}).get("plan") == "sanitize"
        self.test_of = {}
        for k, e in self.starts.items():
            self.test_of[k] = SANITIZER_TEST if self.sanitize else \
                e.get("test") or derive_test(e)
        for events in (self.results, self.skips):
            for k, e in events.items():
                if k not in self.test_of:
                    self.test_of[k] = SANITIZER_TEST if self.sanitize else \
                        e.get("test") or "every_octave"

    def finished_before_death(self):
        """The tests this process finished although it died: the plan
        runs test after test (a test's runs are consecutive, in run
        order), so a test whose every started run has its result, and
        after whose last run a run of another test was started or
        skipped, was done. Only for a driver with named tests."""
        if not self.named():
            return set()
        last, done = {}, {}
        for k, name in self.test_of.items():
            if isinstance(k, int):
                last[name] = max(last.get(name, k), k)
                done[name] = done.get(name, True) and (
                    k in self.results or k in self.skips)
        return {name for name in last if done[name] and any(
            k > last[name] and other != name
            for k, other in self.test_of.items() if isinstance(k, int))}

    def not_run(self, name):
        """How many of test name's runs this process skipped (its test
        had stopped at its first failure)."""
        e = self.tested.get(name)
        if e is not None and isinstance(e.get("not_run"), int):
            return e["not_run"]
        return sum(1 for k in self.skips if self.test_of.get(k) == name)

    def asked(self):
        """The tests this process was asked to run: its begin event's
        "tests" (the names, as the driver writes them), else what
        running.py recorded in run.tests (--tests), else every check
        test but memcheck's."""
        tests = (self.begin or {}).get("tests")
        if isinstance(tests, list):
            return [str(t) for t in tests]
        given = getattr(self.run, "tests", None)
        if given:
            return list(given)
        return [t for t in CHECK_NAMES if t != SANITIZER_TEST]

    def label(self, k):
        ev = self.starts.get(k)
        return "run %s (%s)" % (k, ev.get("label")) if ev else "run %s" % k

    def named(self):
        """Whether the driver groups its plan into named tests."""
        return "tests" in (self.begin or {}) or bool(self.tested) or any(
            "test" in e for e in self.starts.values())

    def ended_normally(self):
        r = self.run
        return self.end is not None and not r.killed and r.rc == 0 and \
            not self.stops

    def stopped_in(self):
        """The run the process stopped in: its fault's or timeout's run,
        else the first started run with no result; None when unknown."""
        for e in self.stops:
            if e.get("run") is not None:
                return e.get("run")
            if e.get("phase") == "timing":
                return "timing"
        for k in self.order:
            if k not in self.results:
                return k
        return None


class TestState:
    """One check test across every process of the plan."""

    def __init__(self, name):
        self.name, self.state = name, "open"    # open, pass or fail
        self.reason, self.detail, self.event, self.index = None, "", None, None
        self.runs, self.passed = 0, 0

    def fail(self, reason, detail, event=None, index=None):
        if self.state != "fail":
            self.state, self.reason, self.detail = "fail", reason, detail
            self.event, self.index = event, index


def test_states(runs):
    """{test name: TestState} for the check tests the plan's processes
    ran (runs: their Runs in the order they ran; None entries skipped).
    A test passes when a process asked for it ended normally without a
    failure in it (or, when the begin event gives its number of runs,
    when that many passed); fails at its first failing result, or with
    the crash or hang of the process in one of its runs; else stays
    open (the process died before it finished)."""
    states = {name: TestState(name) for name in CHECK_NAMES}
    for run in [r for r in runs if r is not None]:
        ix = Index(run)
        for k in ix.order:
            t = states.get(ix.test_of[k])
            if t is not None and t.state == "open":
                t.runs += 1
        for k in ix.order + [k for k in ix.results if k not in ix.starts]:
            e = ix.results.get(k)
            if e is None:
                continue
            name = e.get("test") or ix.test_of.get(k)
            t = states.get(name)
            if t is None:
                t = states.setdefault(name, TestState(name))
            if t.state != "open":
                continue
            status = e.get("status")
            if status == "pass":
                t.passed += 1
            elif status in CHECK_STATUSES:
                t.fail(status, "%s: %s" % (ix.label(k), describe(e)), e, ix)
            else:
                t.fail("tool_error", "%s: the result file holds the unknown "
                       "status %r" % (ix.label(k), status), e, ix)
        for name, e in ix.tested.items():
            # The driver's own word on a test it finished: a pass, or its
            # first failure (whose result event is the report).
            t = states.setdefault(name, TestState(name))
            if t.state != "open":
                continue
            if e.get("status") == "pass":
                t.state = "pass"
            else:
                bad = ix.results.get(e.get("failed_run"))
                t.fail(e.get("status") if e.get("status") in CHECK_STATUSES
                       else "tool_error", "%s: %s" % (
                           ix.label(e.get("failed_run")), describe(bad))
                       if bad else "the driver says %s" % e.get("status"),
                       bad, ix)
        asked = ix.asked()
        if ix.ended_normally():
            legacy = not ix.named() and any(
                e.get("status") != "pass" for e in ix.results.values())
            for name in asked:
                t = states.setdefault(name, TestState(name))
                if t.state == "open" and legacy:
                    # A driver without named tests stops its whole plan at
                    # the first failure: the tests after it never ran.
                    t.fail(None, "not run: the driver's plan stopped at its "
                           "first failure (a driver without named tests)")
                elif t.state == "open":
                    t.state = "pass"
            continue
        for name in ix.finished_before_death():
            t = states.get(name)
            if t is not None and t.state == "open":
                t.state = "pass"
        if ix.module is not None and ix.module.get("status") != "ok":
            continue            # the whole submission's verdict, not a test's
        reason, detail = classify(run)
        if REASONS.get(reason) != "fail":
            continue            # an error of the machine: left open
        where = ix.stopped_in()
        if where == "timing":
            # The timing comes after every run of the plan: the tests
            # asked are done, and the timing's checks are repeatability's.
            name = TIMING_TEST
            for t in asked:
                if t in states and t != name and states[t].state == "open":
                    states[t].state = "pass"
        elif where is not None:
            # a run of a batch never started has no start event: its test
            # is the one the stop event names
            name = ix.test_of.get(where) or next(
                (e.get("test") for e in ix.stops if e.get("test")), None)
        else:                   # between batches, or before any run
            name = next((t for t in asked if t in states and
                         states[t].state == "open"), None)
        if name in states:
            states[name].fail(reason, detail, None, ix)
    return states


def unfinished_tests(runs):
    """The check tests (not memcheck's) no process of the plan has
    finished: what a new driver process should be asked for with --tests
    name,name (same seed, same plan). Empty when the last process ended
    normally, or when its death left nothing open."""
    states = test_states(runs)
    return [name for name in CHECK_NAMES if name != SANITIZER_TEST and
            states[name].state == "open"]


def rerun_alone(runs):
    """True when the plan's one process so far was stopped by the bound
    on a hold of the GPU lock it shared with other drivers (its timeout
    event's "hold": "shared"): their kernels shared the GPU's time with
    its own, so the slowness may be theirs. The tool then grades it again
    alone (--exclusive: every hold of the lock exclusive) and judges that
    process, not this one (pipeline.py marks this one superseded). A
    stop in the process alone is the kernel's own."""
    runs = [r for r in runs if r is not None]
    if len(runs) != 1 or getattr(runs[0], "exclusive", False):
        return False
    stop = runs[0].first("timeout")
    return bool(stop) and stop.get("hold") == "shared"


def current(runs):
    """The processes the verdict is made from: all but those a second,
    alone try superseded (rerun_alone)."""
    return [r for r in runs or [] if r is not None and
            not getattr(r, "superseded", False)]


def tests_to_rerun(runs):
    """What the grader should start the driver again for after the
    plan's processes so far (runs): the unfinished check tests, or []
    when there is nothing to gain: the last process ended normally, its
    death is an error of the machine (no_gpu, gpu_memory, tool_error:
    the submission is graded again whole), its module did not load, the
    driver has no named tests (it cannot run a subset), or it finished
    no test the one before it had left open. Never after a timeout: a
    kernel that stalls costs at most one process's limit, so the tests
    it left open stay not run."""
    runs = [r for r in runs if r is not None]
    if not runs:
        return []
    last = Index(runs[-1])
    if last.ended_normally() or last.module is None or \
            last.module.get("status") != "ok" or not last.named():
        return []
    reason = classify(runs[-1])[0]
    if REASONS.get(reason) != "fail" or reason == "timeout":
        return []
    left = unfinished_tests(runs)
    if len(runs) > 1 and set(left) >= set(unfinished_tests(runs[:-1])):
        return []
    return left


# ---------------------------------------------------------------------------
# The verdict and the tests of one submission.

def judge(comp, runs, san, san_log, ref_x, cfg):
    """The Verdict. comp: the compile record; runs: the plan's Run, or the
    list of Runs of every driver process of the plan in the order they
    ran (the first, then those started again for unfinished tests), or
    None when not run; san: the sanitizer's Run or None; ref_x: the
    reference's x_copy on the same GPU (the yardstick when the timing
    event holds no ratio of its own)."""
    if runs is not None and not isinstance(runs, (list, tuple)):
        runs = [runs]
    runs = current(runs)
    run = runs[0] if runs else None
    v = Verdict()
    test = _tests(v, getattr(cfg, "hide_until_due", False))
    compiled = comp.ok or comp.verdict == "signature"
    test("compile: a device module, toolkit headers only",
         WEIGHTS["compile"], compiled,
         "compiled to a device module for ARCH=\"%s\"" % cfg.arch
         if compiled else comp.message, always_visible=True)
    module = {}
    for r in runs:
        module = r.first("module") or module
        if module:
            break
    sig_ok = comp.ok and module.get("status") != "signature"
    test("signature: the __global__ kernel scatterThreeWay",
         WEIGHTS["signature"], sig_ok,
         "the module holds the kernel" if sig_ok else
         comp.message if comp.verdict == "signature" else
         "not checked: the compile failed" if not comp.ok else "",
         always_visible=True)
    whole = _whole(comp, runs, cfg)
    if whole:
        v.reason, v.detail = whole
        if not v.tests[1]["output"]:
            v.tests[1]["output"] = v.detail
        why = "not run: " + (v.detail if v.reason != "not_run" else
                             "--build-only: the compile stage only"
                             if cfg.build_only else v.detail)
        for name, about in CHECK_TESTS:
            test(_box(name, about), WEIGHTS["check"], False, why)
        v.failed = list(CHECK_NAMES)
        _performance(v, None, ref_x, cfg, test)
        return _total(v)
    states = test_states(runs)
    memcheck = _memcheck(states, san, san_log, cfg)
    timing = None
    for r in runs:
        timing = r.first("timing") or timing
    if timing and timing.get("status") not in (None, "pass"):
        reason, detail = timing_failure(timing)
        states[TIMING_TEST].fail(reason, "the timing: " + detail, timing)
    last = runs[-1]
    death = None if Index(last).ended_normally() else classify(last)
    shown = False
    for name, about in CHECK_TESTS:
        t = states[name]
        if name == SANITIZER_TEST:
            ok, out = memcheck
            test(_box(name, about), WEIGHTS["check"], ok, out)
            if not ok and t.state == "fail":
                v.failed.append(name)
            continue
        if t.state == "pass":
            test(_box(name, about), WEIGHTS["check"], True,
                 "pass: %d runs" % t.passed if t.passed else "pass")
            continue
        if t.state == "open":
            # Its process died before it finished and it was not started
            # again: the machine's error is the submission's (grade
            # again); a death in another test is that test's verdict.
            machine = death and REASONS.get(death[0]) == "error"
            t.fail(death[0] if machine else None, "not run: the driver "
                   "stopped before this test finished (%s)" % (
                       death[1] if death else "no end event"))
            out = t.detail
        elif t.reason is None:
            out = t.detail
        else:
            skipped = t.index.not_run(name) if t.index is not None else 0
            out = t.detail + "\n(the test stopped at its first failure: " \
                "its later runs were not run%s)" % (
                    ": %d of them" % skipped if skipped else "")
            if not shown and t.index is not None:
                out += "\n\nthe driver's output (escaped):\n" + \
                    t.index.run.output()[:3000]
                shown = True
        v.failed.append(name)
        test(_box(name, about), WEIGHTS["check"], False, out)
    first = next((states[n] for n in CHECK_NAMES if states[n].state ==
                  "fail" and states[n].reason), None)
    # The submission's reason: an error of the machine first (grade
    # again), else the first failing test's, else pass.
    errors = [states[n] for n in CHECK_NAMES if states[n].state == "fail"
              and REASONS.get(states[n].reason) == "error"]
    pick = errors[0] if errors else first
    if pick is None and v.failed:
        # a test failed with no reason of its own (a process stopped where
        # no test can be named): never a pass
        v.reason, v.detail = death if death else (
            "tool_error", "tests failed without a verdict: %s" %
            ", ".join(v.failed))
        v.report = {}
    elif pick is None:
        v.reason, v.detail = "pass", ""
    elif errors and death and REASONS.get(death[0]) == "error":
        # the machine stopped the plan (a full GPU, no GPU): its own line
        v.reason, v.detail = death
        v.report = {}
    else:
        v.reason = pick.reason if pick.reason in REASONS else "tool_error"
        v.detail = "%s: %s" % (pick.name, pick.detail)
        if len(v.failed) > 1:
            v.detail += " (and %d other failing tests: %s)" % (
                len(v.failed) - 1, ", ".join(n for n in v.failed
                                             if n != pick.name))
        v.report = pick.event or {}
    if not v.report:
        results = [e for r in runs for e in r.find("result")]
        v.report = results[-1] if results and v.reason == "pass" else \
            v.report
    _performance(v, timing, ref_x, cfg, test)
    return _total(v)


def _whole(comp, runs, cfg):
    """(reason, detail) when the submission as a whole stopped before its
    tests: the compile, the module, no run, the machine. Else None."""
    if not comp.ok:
        return comp.verdict, comp.message
    if not runs:
        return "not_run", "compiled; not run (%s)" % cfg.not_run_why
    first = Index(runs[0])
    if first.module is not None and first.module.get("status") != "ok" \
            or first.begin is None or first.module is None:
        reason, detail = classify(runs[0])
        if reason == "pass":
            reason, detail = "tool_error", "the driver wrote no module " \
                "event: grade again"
        return reason, detail
    return None


def _memcheck(states, san, san_log, cfg):
    """(passed, output) of the memory_safety test, recording its state."""
    t = states[SANITIZER_TEST]
    if not getattr(cfg, "sanitize", False):
        t.state = "not_run"
        return False, "not run: --no-sanitize (0 points; the other tests " \
            "are unchanged)"
    if san is None:
        t.fail(None, "not run: the plan's driver did not end normally, so "
               "memcheck's run was not started")
        return False, t.detail
    reason, detail = classify_sanitizer(san, san_log)
    if reason == "pass":
        t.state = "pass"
        return True, "no finding (%s)" % ((san.first("start") or {}).get(
            "label", "memcheck's runs"))
    t.fail(reason, detail)
    return False, detail + _output(san)


def _box(name, about):
    return "%s: %s" % (name, about)


def _total(v):
    v.score = round(sum(t["score"] for t in v.tests), 2)
    v.max_score = round(sum(t["max_score"] for t in v.tests), 2)
    return v


def _tests(v, hide):
    def test(name, max_score, ok, output, score=None, always_visible=False):
        v.tests.append({"name": name, "max_score": max_score,
                        "score": round(max_score if ok and score is None
                                       else score or 0.0, 2),
                        "status": "passed" if ok else "failed",
                        "output": output,
                        "visibility": "after_due_date" if hide and not
                        always_visible else "visible"})
    return test


def _output(run):
    return "\n\nthe driver's output (escaped):\n" + run.output()[:3000]


def _num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and \
        math.isfinite(x) and x > 0


def _ratio(timing, ref_x):
    """(ratio, how it was measured) from the driver's timing event
    (events.cu): "r", the median of the student's scatterThreeWay over
    the reference's ("scatter_ms" / "ref_scatter_ms"), both timed alone
    on the same inputs, interleaved, in one process (--ref-module); else
    its two medians; else, from a driver not given --ref-module, the
    whole split's x_copy against the reference's x_copy measured by the
    grader on the same GPU."""
    num = _num
    alone = "the kernel alone against the reference's, timed interleaved " \
        "in one process"
    mine, theirs = timing.get("scatter_ms"), timing.get("ref_scatter_ms")
    ms = " (medians %.4g ms and %.4g ms)" % (mine, theirs) \
        if num(mine) and num(theirs) else ""
    if num(timing.get("r")):
        return timing["r"], alone + ms
    if num(mine) and num(theirs):
        return mine / theirs, alone + ms
    if num(timing.get("x_copy")) and num(ref_x):
        return timing["x_copy"] / ref_x, "the whole split's x copy " \
            "against the reference's, %.2fx, on the same GPU" % ref_x
    return None, ""


def _performance(v, timing, ref_x, cfg, test):
    name, weight = "performance: the kernel's time against the " \
        "reference's", WEIGHTS["performance"]
    if v.failed or v.reason != "pass":
        test(name, weight, False, "not timed for points: only a submission "
             "whose every check test passed is")
        return
    if not cfg.perf:
        test(name, weight, False, "not timed (--no-perf)")
        return
    ratio, how = _ratio(timing or {}, ref_x)
    if ratio is None:
        v.reason = "tool_error"
        v.detail = "every check passed but the result file holds no " \
            "timing: grade again"
        test(name, weight, False, v.detail)
        return
    x = timing.get("x_copy")
    v.x_copy = x if isinstance(x, (int, float)) else None
    v.ratio = ratio
    frac = 1.0 if ratio <= PERF_FULL_AT else 0.0 if ratio >= PERF_ZERO_AT \
        else (PERF_ZERO_AT - ratio) / (PERF_ZERO_AT - PERF_FULL_AT)
    info = "; the whole split took %.2fx a copy of the same n (median of " \
        "%s rounds, n=%s)" % (x, timing.get("rounds"), timing.get("n")) \
        if v.x_copy else ""
    test(name, weight, frac > 0,
         "ratio %.2f (%s): full points up to %.2f, none from %.2f%s" % (
             ratio, how, PERF_FULL_AT, PERF_ZERO_AT, info),
         score=weight * frac)
