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
Whatever happens (any exit code, signal, output or silence) is returned
as facts in a Run; judge.py turns them into the verdict.
"""

import json
import os
import selectors
import signal
import subprocess
import threading
import time

from .compiler import limited
from .listing import display

CAP = 4096                      # bytes kept of each stream's head and tail
POLL = 0.05                     # seconds between looks at the result file
EVENTS_MAX = 1 << 20            # bytes of the result file read at most
SANITIZE_EXIT = 86              # compute-sanitizer --error-exitcode
FSIZE = 64 << 20                # RLIMIT_FSIZE of the driver and sanitizer

# The limits are compiler.py's exec wrapper's (compiler.limited): no core
# files, no file above FSIZE. RLIMIT_AS is not set: CUDA reserves tens of
# GiB of address space at start-up. No limit on processes: the driver is
# the course's code, and the submission has no host code that could fork.


_LIVE, _LIVE_LOCK = set(), threading.Lock()   # process groups under way


def kill_all():
    """Kills every process group still under way: the tool is stopping
    (SIGINT or SIGTERM) and none of them may outlive it."""
    with _LIVE_LOCK:
        groups = list(_LIVE)
    for pgid in groups:
        _kill_group(pgid)


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
        """Escaped text: printable but for newlines and tabs."""
        def clean(b):
            s = bytes(b).decode("utf-8", "surrogateescape")
            return "\n".join("\t".join(display(part) for part in
                                       line.split("\t"))
                             for line in s.split("\n"))
        if self.total <= CAP:
            return clean(self.head)
        skipped = self.total - len(self.head) - len(self.tail)
        return "%s\n[... %d bytes left out ...]\n%s" % (
            clean(self.head), skipped, clean(self.tail))


class Run:
    """What one process did. rc: exit code (negative: the signal);
    killed: None, ("run", k, limit) or ("submission", None, limit);
    events: the result file's objects, each with "_t" (seconds after
    the start when it was read); junk: unreadable lines."""

    def __init__(self, shown):
        self.shown, self.rc, self.killed = shown, None, None
        self.events, self.junk, self.wall = [], 0, 0.0
        self.out, self.err = Capped(), Capped()
        self.ended = 0.0
        self.at = 0.0           # when it started, on the grading run's clock

    def find(self, name, **match):
        return [e for e in self.events if e.get("event") == name and
                all(e.get(k) == v for k, v in match.items())]

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
    with _LIVE_LOCK:
        proc = subprocess.Popen(full, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE,
                                start_new_session=True)
        _LIVE.add(proc.pid)
    tail = _Tail(result_path)
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, run.out)
    sel.register(proc.stderr, selectors.EVENT_READ, run.err)
    opened = _Opened()          # run k -> (when its "start" was read, limit)
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
            _read_events(run, tail, now - start, opened, run_limit)
            if proc.poll() is not None or run.killed:
                # The leader is gone: whatever is left of its group goes
                # too, and the pipes get a moment to drain.
                _kill_group(proc.pid)
                drain_until = drain_until or now + 2.0
                if not sel.get_map() or now > drain_until:
                    break
                continue
            late = _late_run(opened, now)
            if late:
                run.killed = ("run",) + late
            elif now - start > sub_limit:
                run.killed = ("submission", None, sub_limit)
            if run.killed:
                _kill_group(proc.pid)
    finally:
        sel.close()
        proc.stdout.close()
        proc.stderr.close()
        _kill_group(proc.pid)
        proc.wait()
        with _LIVE_LOCK:
            _LIVE.discard(proc.pid)
        run.ended = time.monotonic()
        _read_events(run, tail, run.ended - start, opened, run_limit)
        tail.close()
    run.rc, run.wall = proc.returncode, run.ended - start
    return run


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


def _read_events(run, tail, t, opened, run_limit):
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
        run.events.append(ev)
        if ev.get("event") == "start":
            opened[ev.get("run")] = (time.monotonic(), run_limit(ev))
        elif ev.get("event") in ("result", "fault", "timeout"):
            if opened.pop(ev.get("run"), None) is not None:
                opened.closed = time.monotonic()


def _kill_group(pgid):
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def driver_run(cfg, module, result, seed, gpu, plan="full", log_file=None):
    """Runs the driver's grade mode on one module: the full plan (timed
    unless --no-perf) or, under compute-sanitizer memcheck, the sanitize
    plan. Returns the Run; its shown command leaves out the grader's own
    paths."""
    from .machine import lock_path
    args = ["--grade", "--module", module, "--result", result,
            "--seed", str(seed), "--plan", plan,
            "--lock", lock_path(cfg.state, gpu),
            "--run-timeout", "%g" % cfg.run_timeout]
    if plan == "full" and cfg.perf:
        args.append("--time")
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
        per = cfg.run_timeout * max(1.0, n / float(1 << 24))
        return (per * launches + cfg.grace) * slow

    if plan == "sanitize":
        # Only the submission's kernel is instrumented: the driver's own
        # kernels run at full speed, and a bad access can only be its.
        cmd = [cfg.sanitizer, "--tool", "memcheck", "--kernel-name",
               "kns=scatterThreeWay", "--error-exitcode",
               str(SANITIZE_EXIT), "--print-limit", "10", "--log-file",
               log_file] + cmd
    shown = "threeway --grade --seed %d --plan %s%s" % (
        seed, plan, " --time" if "--time" in args else "")
    if plan == "sanitize":
        shown = "compute-sanitizer --tool memcheck " + shown
    env = dict(os.environ)
    if gpu is not None:
        env["CUDA_VISIBLE_DEVICES"] = gpu
    # One hardware queue a context (the default is 8): the driver uses one
    # stream. With 16 drivers at once on the H200, context creation and
    # module load took a median of 0.20 s a copy with it, 0.65 s without
    # (grader/DESIGN.md, "Speed").
    env["CUDA_DEVICE_MAX_CONNECTIONS"] = "1"
    for path in (result, log_file):
        if path and os.path.lexists(path):
            os.remove(path)
    return run_process(cmd, shown, result, env, run_limit,
                       cfg.submission_timeout)
