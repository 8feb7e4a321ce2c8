"""running: one driver process per submission, watched.

The driver (threeway --grade) runs the whole plan in one process and
writes its events, one JSON object a line, into a result file that only
it writes. Its stdout and stderr carry the student's device printf too,
so they are never parsed: they are kept (the first and last CAP bytes of
each), escaped, and shown as the run's output.

While the process runs the result file is read as it grows, and two
watchdogs look at the clock:
  - per run: a "start" event opens run k; if no "result" (or "fault",
    "timeout") for it follows within its limit (the driver's own watchdog
    for that run's launches and size, plus a grace), the process group is
    killed and run k is named;
  - per submission: the whole process, its context creation, module load
    and timing included, within the per-submission limit.
Both count the driver's time less its waits for the GPU lock (its "lock"
events): a driver queued behind another's stall is not charged for it.
The killed process's group goes whole, so its GPU lock (an fcntl lock,
which the kernel drops with the process) is free at once.
Whatever happens (any exit code, signal, output or silence) is returned
as facts in a Run; judge.py turns them into the verdict.
"""

import json
import os
import selectors
import subprocess
import time

from . import clean, compiler
from .compiler import limited

CAP = 4096                      # bytes kept of each stream's head and tail
POLL = 0.05                     # seconds between looks at the result file
EVENTS_MAX = 1 << 20            # bytes of the result file read at most
SANITIZE_EXIT = 86              # compute-sanitizer --error-exitcode
# RLIMIT_FSIZE of the driver and sanitizer. The largest file a driver
# writes is a shared input (--input-cache), the largest the timing's: as
# many ints as the L2 has bytes (2^24 at least), 240 MiB on an H200. A
# larger input is made by each driver, not written (planFillCached).
FSIZE = 1 << 30
# A driver's waits for the GPU lock are not charged to its limits (see
# _DriverClock), but its whole life, waits included, is capped at this
# many times the per-submission limit.
LOCK_WAIT_CAP = 3

# The limits are compiler.py's exec wrapper's (compiler.limited): no core
# files, no file above FSIZE. RLIMIT_AS is not set: CUDA reserves tens of
# GiB of address space at start-up. No limit on processes: the driver is
# the course's code, and the submission has no host code that could fork.


def kill_all():
    """Kills every process group still under way, compiles and drivers,
    and removes the compiles' scratch folders: the tool is stopping
    (SIGINT or SIGTERM) and none of them may outlive it."""
    compiler.stop_all()


class Capped:
    """The first and last CAP bytes of a stream, and its length."""

    def __init__(self):
        self.head, self.tail, self.total = bytearray(), bytearray(), 0

    def add(self, data):
        self.total += len(data)
        room = CAP - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            del self.tail[:max(len(self.tail) - CAP, 0)]

    def text(self):
        """Escaped text: printable but for newlines and tabs (clean.py)."""
        if self.total <= CAP:
            return clean.from_bytes(self.head)
        skipped = self.total - len(self.head) - len(self.tail)
        return "%s\n[... %d bytes left out ...]\n%s" % (
            clean.from_bytes(self.head), skipped,
            clean.from_bytes(self.tail))


class Run:
    """What one process did. rc: exit code (negative: the signal);
    killed: None, ("run", k, limit) or ("submission", None, limit);
    events: the result file's objects, each with "_t" (seconds after
    the start when it was read); junk: unreadable lines."""

    def __init__(self, shown):
        self.shown, self.rc, self.killed = shown, None, None
        self.events, self.junk, self.wall = [], 0, 0.0
        self._by = None         # the events indexed (_index)
        self.out, self.err = Capped(), Capped()
        self.ended = 0.0
        self.at = 0.0           # when it started, on the grading run's clock
        self.tests = None       # the tests it was asked for (--tests)
        self.exclusive = False  # --exclusive (judge.rerun_alone's try)
        self.superseded = False  # a later try alone replaced it

    def add(self, ev):
        self.events.append(ev)
        self._by = None

    def _index(self):
        """{event name: [events]} and {(name, run): [events]}, built once
        for the events read so far: the judge looks each run's events up
        by its number, and a scan of every event for each run made it
        quadratic in the plan's runs."""
        if self._by is None:
            by, by_run = {}, {}
            for e in self.events:
                name = e.get("event")
                if not isinstance(name, str):
                    continue
                by.setdefault(name, []).append(e)
                k = e.get("run")
                try:
                    by_run.setdefault((name, k), []).append(e)
                except TypeError:           # a run that is not hashable
                    pass
            self._by = (by, by_run)
        return self._by

    def find(self, name, **match):
        by, by_run = self._index()
        if "run" in match:
            try:
                found = by_run.get((name, match["run"]), [])
            except TypeError:
                found = [e for e in by.get(name, [])
                         if e.get("run") == match["run"]]
        else:
            found = by.get(name, [])
        return [e for e in found if all(e.get(k) == v
                                        for k, v in match.items())]

    def first(self, name, **match):
        found = self.find(name, **match)
        return found[0] if found else None

    def open_run(self):
        """The first started run with no outcome yet, or None: the driver
        submits a batch of runs at once and they run in order, so the
        first one open is the one under way."""
        done = {e.get("run") for e in self.events
                if e.get("event") in ("result", "fault", "timeout")}
        started = [e for e in self.find("start") if e.get("run") not in done]
        return started[0] if started else None

    def output(self):
        return "--- stdout\n%s\n--- stderr\n%s" % (self.out.text(),
                                                  self.err.text())


class _Tail:
    """Reads whole lines of a file another process is appending to."""

    def __init__(self, path):
        self.path, self.f, self.buf, self.read = path, None, b"", 0

    def lines(self):
        if self.f is None:
            try:
                self.f = open(self.path, "rb")
            except OSError:
                return []
        chunk = self.f.read(max(EVENTS_MAX - self.read, 0))
        self.read += len(chunk)
        self.buf += chunk
        *whole, self.buf = self.buf.split(b"\n")
        return whole

    def close(self):
        if self.f is not None:
            self.f.close()


def run_process(cmd, shown, result_path, env, run_limit, sub_limit):
    """Runs cmd in its own process group under the two watchdogs and
    returns a Run. run_limit: seconds, or a function of a "start" event
    giving that run's seconds. Never raises for what the process does."""
    if not callable(run_limit):
        run_limit = (lambda seconds: lambda ev: seconds)(run_limit)
    run = Run(shown)
    full = limited(cmd, FSIZE)
    start = time.monotonic()
    proc = compiler.start_group(full, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
    tail = _Tail(result_path)
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, run.out)
    sel.register(proc.stderr, selectors.EVENT_READ, run.err)
    opened = _Opened()          # run k -> (when its "start" was read, limit)
    clock = _DriverClock(start)
    drain_until = None
    try:
        while True:
            for key, _ in sel.select(POLL):
                chunk = os.read(key.fileobj.fileno(), 65536)
                if chunk:
                    key.data.add(chunk)
                else:
                    sel.unregister(key.fileobj)
            now = time.monotonic()
            _read_events(run, tail, now - start, opened, run_limit, clock)
            if proc.poll() is not None or run.killed:
                # The leader is gone: whatever is left of its group goes
                # too, and the pipes get a moment to drain.
                _kill_group(proc.pid)
                drain_until = drain_until or now + 2.0
                if not sel.get_map() or now > drain_until:
                    break
                continue
            late = _late_run(opened, clock.now())
            if late:
                run.killed = ("run",) + late
            elif clock.now() > sub_limit:
                run.killed = ("submission", None, sub_limit)
            elif now - start > sub_limit * LOCK_WAIT_CAP:
                run.killed = ("submission", None, sub_limit * LOCK_WAIT_CAP)
            if run.killed:
                _kill_group(proc.pid)
    finally:
        sel.close()
        proc.stdout.close()
        proc.stderr.close()
        _kill_group(proc.pid)
        proc.wait()
        compiler.end_group(proc.pid)
        run.ended = time.monotonic()
        _read_events(run, tail, run.ended - start, opened, run_limit, clock)
        tail.close()
    run.rc, run.wall = proc.returncode, run.ended - start
    return run


class _DriverClock:
    """Seconds since the driver started, less the time it waited for the
    GPU lock: between its {"event":"lock","state":"wait"} and the next
    lock event ("held", or any other state). A driver queued behind
    another's stall (a timing that holds the lock exclusive until its
    watchdog stops it) is not charged for it; the holder is, and is
    stopped at its own limit."""

    def __init__(self, start):
        self.start, self.waited, self.since = start, 0.0, None

    def now(self):
        t = time.monotonic()
        paused = t - self.since if self.since is not None else 0.0
        return t - self.start - self.waited - paused

    def lock_event(self, state):
        t = time.monotonic()
        if state == "wait":
            if self.since is None:
                self.since = t
        elif self.since is not None:
            self.waited += t - self.since
            self.since = None


class _Opened(dict):
    """Open runs: run -> (when its start was read, its limit); closed:
    when a run was last closed."""
    closed = 0.0


def _late_run(opened, now):
    """(run, seconds) when the open runs are past their limit, else None.
    The driver submits a batch of runs at once and they run in order, its
    results come when the batch ends, and its own watchdog stops a launch
    that runs too long: this is the backstop. The open runs share one
    clock, from their starts or the last run closed, whichever is later,
    and must all end within their limits summed; the one named is the
    first open run, the one under way."""
    if not opened:
        return None
    first = min(opened, key=lambda k: (0, k) if isinstance(k, int)
                else (1, 0))
    base = max(min(t for t, _ in opened.values()), opened.closed)
    total = sum(lim for _, lim in opened.values())
    return (first, total) if now - base > total else None


def _read_events(run, tail, t, opened, run_limit, clock):
    for line in tail.lines():
        try:
            ev = json.loads(line.decode("utf-8"))
        except ValueError:
            run.junk += 1
            continue
        if not isinstance(ev, dict):
            run.junk += 1
            continue
        ev["_t"] = round(t, 3)
        run.add(ev)
        if ev.get("event") == "start":
            opened[ev.get("run")] = (clock.now(), run_limit(ev))
        elif ev.get("event") in ("result", "fault", "timeout"):
            if opened.pop(ev.get("run"), None) is not None:
                opened.closed = clock.now()
        elif ev.get("event") == "lock":
            clock.lock_event(ev.get("state"))


_kill_group = compiler.kill_group


def driver_run(cfg, module, result, seed, gpu, plan="full", log_file=None,
               ref_module=None, tests=None, limit=None, exclusive=False,
               run_timeout=None):
    """Runs the driver's grade mode on one module: the full plan (timed
    unless --no-perf, against ref_module, the reference solution's
    module: --ref-module) or, under compute-sanitizer memcheck, the
    sanitize plan. tests: only these named tests (--tests a,b: a process
    started again after a crash; not timed, its points being lost
    already). limit: the process's limit, if not the per-submission one.
    exclusive: --exclusive, every hold of the GPU lock alone (the second
    try of judge.rerun_alone). run_timeout: one launch's limit per 2^24
    elements, if not cfg.run_timeout (memcheck's run after a hang:
    pipeline.py).
    Returns the Run (run.tests: the tests asked for, or None); its shown
    command leaves out the grader's own paths."""
    per_launch = cfg.run_timeout if run_timeout is None else run_timeout
    args = ["--grade", "--module", module, "--result", result,
            "--seed", str(seed), "--plan", plan,
            "--lock", cfg.locks[gpu],
            "--run-timeout", "%g" % per_launch]
    if exclusive:
        args.append("--exclusive")
    if cfg.input_cache:
        args += ["--input-cache", cfg.input_cache]
    if tests:
        args += ["--tests", ",".join(tests)]
    elif plan == "full" and cfg.perf:
        args.append("--time")
        if ref_module:
            args += ["--ref-module", ref_module]
    cmd = [cfg.driver] + args
    slow = cfg.sanitize_slowdown if plan == "sanitize" else 1

    def run_limit(ev):
        """The driver stops a launch after --run-timeout seconds per 2^24
        elements (never less); this fires a grace period after all of a
        run's launches could have run that long."""
        n, launches = ev.get("n"), ev.get("launches")
        n = n if isinstance(n, int) and n > 0 else 0
        launches = launches if isinstance(launches, int) and \
            0 < launches < 1000 else 1
        per = per_launch * max(1.0, n / float(1 << 24))
        return (per * launches + cfg.grace) * slow

    if plan == "sanitize":
        # Only the submission's kernel is instrumented: the driver's own
        # kernels run at full speed, and a bad access can only be its.
        cmd = [cfg.sanitizer, "--tool", "memcheck", "--kernel-name",
               "kns=scatterThreeWay", "--error-exitcode",
               str(SANITIZE_EXIT), "--print-limit", "10", "--log-file",
               log_file] + cmd
    shown = "threeway --grade --seed %d --plan %s%s%s%s%s" % (
        seed, plan, " --exclusive" if exclusive else "",
        " --time" if "--time" in args else "",
        " --ref-module (the reference's)" if "--ref-module" in args else "",
        " --tests " + ",".join(tests) if tests else "")
    if plan == "sanitize":
        shown = "compute-sanitizer --tool memcheck " + shown
    env = dict(os.environ)
    if gpu is not None:
        env["CUDA_VISIBLE_DEVICES"] = gpu
    # One hardware queue a context (the default is 8): the driver uses one
    # stream. With 16 drivers at once on the H200, context creation and
    # module load took a median of 0.20 s a copy with it, 0.65 s without
    # (grader/MAINTAINERS.md, "Speed").
    env["CUDA_DEVICE_MAX_CONNECTIONS"] = "1"
    for path in (result, log_file):
        if path and os.path.lexists(path):
            os.remove(path)
    run = run_process(cmd, shown, result, env, run_limit,
                      limit or cfg.submission_timeout)
    run.tests = list(tests) if tests else None
    run.exclusive = exclusive
    return run
