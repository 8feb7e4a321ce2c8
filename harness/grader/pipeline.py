"""pipeline: the order one grading run's work happens in, and its pools.

Nothing waits for a whole other stage. At once, side by side:
  - the setup thread: the GPU probe (it gives ARCH when --arch does not),
    the driver's build (make reuses what is up to date), compute-sanitizer;
  - the compile pool (--jobs workers): the reference solution first, then
    every submission, each compile at a lower CPU priority (NICE) than
    the drivers, so that it fills the time they leave and never delays
    one (a driver's timing holds the GPU alone for milliseconds);
  - the run pool (--jobs drivers in all, at most --per-gpu on any one
    GPU: each driver takes a slot of the least busy GPU of --gpus and
    keeps it for its full plan; its memcheck run then takes one of that
    GPU's SANITIZE_PER_GPU slots of its own, and frees the driver's for
    the next submission: memcheck's run is mostly the tool's own start,
    on the CPU, and its sizes are small). The reference
    solution runs first, on every GPU of --gpus, and must pass before
    any submission's driver starts: no submission can delay it or share
    the GPU with it. Then a submission runs as soon as it is compiled:
    the driver's full plan (timed against the reference's module,
    --ref-module, unless --no-perf); after a crash, once, the driver
    again for the tests the crash left unfinished (--tests; never after
    a timeout: a staller costs one process's limit at most, except that
    a driver stopped by the bound on a shared hold of the GPU lock, which
    other drivers' kernels may have slowed, is run again whole and alone,
    --exclusive, and judged on that try); then
    compute-sanitizer's small run whenever the module loaded. Every
    driver is under running.py's watchdogs: one that stalls is killed
    with its process group (its GPU lock goes with it) and is that
    submission's timeout alone;
  - the finisher (one thread): judges each submission (performance from
    the driver's r, its kernel's time over the reference's; the
    reference's x_copy on its GPU only for a timing without r) and
    writes its folder at once.
If no GPU is usable, or the reference fails, every task still queued
stops, the tasks under way end on their own, and nothing is written.
"""

import concurrent.futures
import os
import threading

from . import compiling, judge, listing, machine, reports, running

NICE = 10       # the compiles' nice value: the drivers come first
SANITIZE_PER_GPU = 4    # memcheck's runs at once on a GPU, beside its
                        # --per-gpu drivers
AFTER_HANG_RUN_TIMEOUT = 2.0    # memcheck's run after a hang: one launch's
                                # limit per 2^24 elements (the plan's own
                                # --run-timeout when that is less)


class NoGpu(Exception):
    """The probe found no usable GPU (the tool exits 3)."""


class Pipeline:
    """The pools, the reference every verdict waits for, and the graded
    submissions: graded[id(sub)] = (Verdict, timings.csv row)."""

    def __init__(self, cfg, log, clock, total):
        self.cfg, self.log, self.clock, self.total = cfg, log, clock, total
        self.reference, self.ref_x = {}, {}
        self.ref_module = None  # the reference's module: --ref-module
        self.arch_ready = threading.Event()     # cfg.arch is known
        self.machine_ready = threading.Event()  # the driver is built
        self.ref_ready = threading.Event()      # the reference passed
        self.failure, self.no_gpu = None, None
        self.graded, self.done, self.lock = {}, 0, threading.Lock()
        self.futures, self.ref_left = [], 0
        self.held = {g: 0 for g in cfg.gpus}    # drivers on each GPU now
        self.san_held = {g: 0 for g in cfg.gpus}    # memcheck's runs
        self.slot_free = threading.Condition(self.lock)
        self.waiting = []   # compiled submissions waiting for the reference
        self.marks = {}     # when the machine, the reference were ready
        if cfg.arch:
            self.arch_ready.set()
        if cfg.build_only:
            self.machine_ready.set()
            self.ref_ready.set()

    # ---- the whole run --------------------------------------------------

    def grade(self, mine, setup, prebuilt=None):
        """Grades mine. setup(arch_known): the machine's setup (raises
        NoGpu or machine.SetupError); it sets cfg.arch when --arch did not,
        then calls arch_known(). prebuilt: the reference's module, or None
        to compile solution/threeway.cu."""
        cfg = self.cfg
        self.pools = {
            "compile": concurrent.futures.ThreadPoolExecutor(cfg.jobs),
            "run": concurrent.futures.ThreadPoolExecutor(
                min(cfg.jobs, cfg.per_gpu * len(cfg.gpus)) +
                SANITIZE_PER_GPU * len(cfg.gpus)),
            "finish": concurrent.futures.ThreadPoolExecutor(1),
            "setup": concurrent.futures.ThreadPoolExecutor(1)}
        try:
            if not cfg.build_only:
                self._submit("setup", self._setup, setup)
                self._start_reference(prebuilt)
            for k, s in enumerate(mine):
                self._submit("compile", self._compile, k, s)
            self._wait_all()
        finally:
            for pool in self.pools.values():
                pool.shutdown(wait=True)
        return self.graded

    def _submit(self, pool, fn, *args):
        with self.lock:
            self.futures.append(self.pools[pool].submit(self._guard, fn,
                                                        *args))

    def _guard(self, fn, *args):
        """Runs one task. A failure of the setup, or of this tool (OUT
        cannot be written, say), stops everything; one submission's
        trouble never reaches here (it is that submission's verdict)."""
        try:
            fn(*args)
        except NoGpu as e:
            self._stop(None, str(e))
        except machine.SetupError as e:
            self._stop(str(e))
        except Exception as e:      # noqa: BLE001 (reported, then stop)
            self._stop("the grading tool failed: %s: %s"
                       % (type(e).__name__, e))

    def _stop(self, failure, no_gpu=None):
        with self.lock:
            self.failure = self.failure or failure or "no usable GPU"
            self.no_gpu = self.no_gpu or no_gpu
            self.waiting = []
        for ev in (self.arch_ready, self.machine_ready, self.ref_ready):
            ev.set()

    def _reference_passed(self):
        """The reference passed on every GPU: the submissions' drivers
        that waited for it start now."""
        with self.lock:
            self.marks["reference"] = round(self.clock(), 3)
            self.ref_ready.set()
            waiting, self.waiting = self.waiting, []
        for args in waiting:
            self._submit("run", self._run, *args)

    def _take_gpu(self, want=None):
        """A driver slot on GPU want, or on the least busy GPU of --gpus
        (the first such in --gpus' order); waits while none is free.
        --per-gpu drivers at most on any one GPU."""
        with self.slot_free:
            while True:
                free = [g for g in ([want] if want in self.held else
                                    self.cfg.gpus)
                        if self.held[g] < self.cfg.per_gpu]
                if free:
                    gpu = min(free, key=lambda g: self.held[g])
                    self.held[gpu] += 1
                    return gpu
                self.slot_free.wait()

    def _give_gpu(self, gpu):
        with self.slot_free:
            self.held[gpu] -= 1
            self.slot_free.notify_all()

    def _sanitize_slot(self, gpu, take):
        """Takes (waiting while none is free) or gives back one of gpu's
        SANITIZE_PER_GPU slots for memcheck's runs."""
        with self.slot_free:
            if take:
                while self.san_held[gpu] >= SANITIZE_PER_GPU:
                    self.slot_free.wait()
            self.san_held[gpu] += 1 if take else -1
            self.slot_free.notify_all()

    def _wait_all(self):
        """Until every task, and every task they started, has ended."""
        while True:
            with self.lock:
                pending = [f for f in self.futures if not f.done()]
            if not pending:
                return
            concurrent.futures.wait(pending)

    # ---- the stages -----------------------------------------------------

    def _setup(self, setup):
        setup(self.arch_ready.set)
        self.marks["machine"] = round(self.clock(), 3)
        self.arch_ready.set()
        self.machine_ready.set()

    def _start_reference(self, prebuilt):
        cfg = self.cfg
        self.ref_left = len(cfg.gpus)
        if prebuilt:
            comp = compiling.Compiled(True, None, "", os.path.abspath(
                prebuilt))
            self.ref_module = comp.module
            comp.seed = compiling.submission_seed(cfg.seed, prebuilt)
            for gpu in cfg.gpus:
                self._submit("run", self._run_reference, comp, gpu)
            return
        if not os.path.isfile(machine.REFERENCE):
            raise machine.SetupError("no reference solution: %s is absent; "
                                     "pass --reference-module FILE"
                                     % machine.REFERENCE)
        self._submit("compile", self._compile_reference)

    def _compile_reference(self):
        ref = listing.Submission("reference", "reference",
                                 os.path.dirname(machine.REFERENCE))
        ref.kernel = machine.REFERENCE
        comp = self._compile_one(ref, "reference")
        if comp is None:
            return
        if not comp.ok:
            raise machine.SetupError("the reference solution does not "
                                     "compile: %s: %s" % (comp.verdict,
                                                          comp.message))
        self.ref_module = comp.module
        for gpu in self.cfg.gpus:
            self._submit("run", self._run_reference, comp, gpu)

    def _compile_one(self, s, index):
        """The compile record, or None when the run has stopped."""
        self.arch_ready.wait()
        if self.failure:
            return None
        return compiling.compile_one(self.cfg, s, index, self.clock, NICE)

    def _compile(self, k, s):
        comp = self._compile_one(s, k)
        if comp is None:
            return
        if comp.ok and not self.cfg.build_only:
            with self.lock:
                if not self.ref_ready.is_set():
                    self.waiting.append((k, s, comp))
                    return
            self._submit("run", self._run, k, s, comp)
        else:
            if not self.cfg.keep and comp.ok and comp.module:
                _remove(comp.module)    # never run (--build-only): not kept
            self._submit("finish", self._finish, s, comp, None, None, "",
                         None, None)

    def _run_reference(self, comp, gpu):
        self.machine_ready.wait()
        if self.failure:
            return
        result = os.path.join(self.cfg.state, "reference-%s.jsonl"
                              % (gpu or "default"))
        self._take_gpu(gpu)
        try:
            run = self._driver(comp, result, gpu)
        finally:
            self._give_gpu(gpu)
        reason, detail = judge.classify(run)
        timing = run.first("timing") or {}
        where = " on GPU %s" % gpu if gpu else ""
        if reason == "pass" and self.cfg.perf and not (
                timing.get("x_copy") and timing.get("r")):
            # timed against itself (--ref-module): r near 1 says the
            # driver times the two modules as the judge expects
            reason, detail = "tool_error", "its timing has no x_copy or " \
                "no r (the kernel's time over the reference's): %s" % (
                    {k: v for k, v in timing.items() if k != "_t"} or
                    "no timing event")
        if reason != "pass":
            raise machine.SetupError(
                "the reference solution does not pass%s: %s: %s\n%s"
                % (where, reason, detail, run.output()[-3000:]))
        self.reference[gpu or "default"] = {
            "x_copy": timing.get("x_copy"),
            "x_copy_min": timing.get("x_copy_min"),
            "x_copy_max": timing.get("x_copy_max"),
            "n": timing.get("n"), "seconds": round(run.wall, 3),
            "began_at": round(run.at, 3),
            "begin": {k: v for k, v in (run.first("begin") or {}).items()
                      if k != "_t"}}
        self.log("  reference%s: pass, split %sx copy, r %s against "
                 "itself, %.1f s" % (where, timing.get("x_copy", "-"),
                                     timing.get("r", "-"), run.wall))
        with self.lock:
            self.ref_x[gpu] = timing.get("x_copy")
            self.ref_left -= 1
            last = self.ref_left == 0
        if last:
            self._reference_passed()

    def _run(self, k, s, comp):
        self.machine_ready.wait()
        self.ref_ready.wait()
        if self.failure:
            return
        gpu = self._take_gpu()
        held = [True]   # the driver's slot, until memcheck's run
        try:
            self._run_on(k, s, comp, gpu, held)
        finally:
            if held[0]:
                self._give_gpu(gpu)

    def _run_on(self, k, s, comp, gpu, held):
        """The plan's driver; once, when the bound on a hold of the lock
        it shared with other drivers stopped it (judge.rerun_alone), the
        whole plan again alone (--exclusive), judged in its place; once,
        after a crash, a driver for the tests it left unfinished
        (judge.tests_to_rerun: never after a timeout or an error of the
        machine); memcheck's run whenever the module
        loaded, but not after an error of the machine (the submission is
        graded again whole), and after a timeout only within what is left
        of the submission's limit."""
        cfg = self.cfg
        folder = os.path.join(cfg.state, "runs", str(k))
        os.makedirs(folder, exist_ok=True)
        runs, san = [], None
        san_log, broken = "", None
        try:
            runs.append(self._driver(comp, os.path.join(folder,
                                                        "plan.jsonl"), gpu))
            alone = judge.rerun_alone(runs)
            if alone:
                # Stopped by the bound on a hold it shared with other
                # drivers: graded again alone, and judged on that try.
                runs[0].superseded = True
                runs.append(self._driver(
                    comp, os.path.join(folder, "plan-alone.jsonl"), gpu,
                    exclusive=True))
            again = judge.tests_to_rerun(judge.current(runs))
            if again:
                runs.append(self._driver(
                    comp, os.path.join(folder, "plan-2.jsonl"), gpu,
                    tests=again, exclusive=alone))
            loaded = any((r.first("module") or {}).get("status") == "ok"
                         for r in runs)
            reason = judge.classify(runs[-1])[0]
            budget = cfg.submission_timeout
            if reason == "timeout":
                budget -= sum(r.wall for r in runs)
            if cfg.sanitize and loaded and \
                    judge.status_of(reason) != "error" and budget >= 1:
                log_file = os.path.join(folder, "memcheck.log")
                # The driver's slot to the next submission, a memcheck
                # slot for this run.
                self._give_gpu(gpu)
                held[0] = False
                self._sanitize_slot(gpu, True)
                # After a hang the kernel is likely to hang again: its
                # memcheck run's launches get AFTER_HANG_RUN_TIMEOUT (the
                # sanitize plan's sizes take milliseconds even under
                # memcheck), so a staller does not hold its place in the
                # class for a second whole limit.
                try:
                    san = self._driver(
                        comp, os.path.join(folder, "sanitize.jsonl"), gpu,
                        "sanitize", log_file,
                        limit=min(budget, cfg.submission_timeout),
                        run_timeout=min(cfg.run_timeout,
                                        AFTER_HANG_RUN_TIMEOUT)
                        if reason == "timeout" else None)
                finally:
                    self._sanitize_slot(gpu, False)
                san_log = _read(log_file, 1 << 16)
        except OSError as e:        # the tool could not start a process
            broken = e
        if not cfg.keep:
            _remove(comp.module)
        self._submit("finish", self._finish, s, comp, runs or None, san,
                     san_log, gpu, broken)

    def _driver(self, comp, result, gpu, plan="full", log_file=None,
                tests=None, limit=None, exclusive=False, run_timeout=None):
        at = self.clock()
        run = running.driver_run(self.cfg, comp.module, result, comp.seed,
                                 gpu, plan, log_file,
                                 ref_module=self.ref_module, tests=tests,
                                 limit=limit, exclusive=exclusive,
                                 run_timeout=run_timeout)
        run.at = at
        return run

    def _finish(self, s, comp, run, san, san_log, gpu, broken):
        """Judges one submission and writes its folder, once the reference
        has passed (nothing is written before the setup is known sound)."""
        self.ref_ready.wait()
        if self.failure:
            return
        try:
            if broken:
                raise broken
            v = judge.judge(comp, run, san, san_log, self.ref_x.get(gpu),
                            self.cfg)
            if v.reason not in judge.REASONS:
                raise ValueError("the verdict %r is not one the tool knows"
                                 % (v.reason,))
        except Exception as e:      # a fault of this tool: this one only
            v = judge.judge(comp, None, None, "", None, self.cfg)
            v.reason = "tool_error"
            v.detail = "the grading tool failed on this submission (%s); " \
                "grade again" % type(e).__name__
            self.log("grade.py: grading %s failed: %r" % (s.name, e))
        elapsed = (comp.t1 - comp.t0) + sum(r.wall for r in run or []) + \
            (san.wall if san else 0)
        reports.write_submission(self.cfg.out, s, comp, run, san, san_log, v,
                                 elapsed, self.cfg.seed)
        row = reports.timing_row(s, comp, run, san, self.clock())
        with self.lock:
            self.graded[id(s)] = (v, row)
            self.done += 1
            self.log("[%d/%d] %s ... %s%s" % (
                self.done, self.total, s.name, v.reason,
                "" if v.reason == "pass" else ": " + " ".join(
                    v.detail.split())[:110]))


def _read(path, limit):
    try:
        with open(path, "rb") as f:
            return f.read(limit).decode("utf-8", "replace")
    except OSError:
        return ""


def _remove(path):
    try:
        os.remove(path)
    except OSError:
        pass
