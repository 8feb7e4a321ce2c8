"""pipeline: the order one grading run's work happens in, and its pools.

Setup work first: the reference solution is compiled at once and run on
every GPU of --gpus in a thread of its own; it must pass, and its x_copy
is the performance yardstick of every submission on that GPU. Meanwhile
one pool of --jobs workers compiles every submission (CPU-bound). A
compiled submission goes to the second pool, of at most --per-gpu
drivers per GPU, which waits for the reference, runs the driver's full
plan, then compute-sanitizer's small run when the plan ended normally.
Each submission is judged and its folder written as soon as it is done.
If the reference fails, nothing is graded.
"""

import concurrent.futures
import os
import threading

from . import compiling, judge, listing, machine, reports, running


class Pipeline:
    """The two pools, and the reference every run waits for."""

    def __init__(self, cfg, log, clock, total):
        self.cfg, self.log, self.clock, self.total = cfg, log, clock, total
        self.reference, self.ref_x = {}, {}
        self.ready = threading.Event()
        self.failure, self.done, self.lock = None, 0, threading.Lock()
        if cfg.build_only:
            self.ready.set()

    def start_reference(self, prebuilt):
        """Compiles the reference now; runs it on every GPU in a thread
        (the class's compiles go on meanwhile)."""
        cfg = self.cfg
        if prebuilt:
            comp = compiling.Compiled(True, None, "", os.path.abspath(
                prebuilt))
            comp.seed = compiling.submission_seed(cfg.seed, prebuilt)
        elif not os.path.isfile(machine.REFERENCE):
            raise machine.SetupError("no reference solution: %s is absent; "
                                     "pass --reference-module FILE"
                                     % machine.REFERENCE)
        else:
            ref = listing.Submission("reference", "reference",
                                     os.path.dirname(machine.REFERENCE))
            ref.kernel = machine.REFERENCE
            comp = compiling.compile_one(cfg, ref, "reference", self.clock)
            if not comp.ok:
                raise machine.SetupError("the reference solution does not "
                                         "compile: %s: %s" % (comp.verdict,
                                                              comp.message))
        threading.Thread(target=self._run_reference, args=(comp,),
                         daemon=True).start()

    def _run_reference(self, comp):
        try:
            for gpu in self.cfg.gpus:
                result = os.path.join(self.cfg.state, "reference-%s.jsonl"
                                      % (gpu or "default"))
                run = running.driver_run(self.cfg, comp.module, result,
                                         comp.seed, gpu)
                reason, detail = judge.classify(run)
                timing = run.first("timing") or {}
                if reason != "pass" or (self.cfg.perf and
                                        not timing.get("x_copy")):
                    raise machine.SetupError(
                        "the reference solution does not pass%s: %s: %s\n%s"
                        % (" on GPU %s" % gpu if gpu else "", reason,
                           detail or "no timing", run.output()[-3000:]))
                self.ref_x[gpu] = timing.get("x_copy")
                self.reference[gpu or "default"] = {
                    "x_copy": timing.get("x_copy"),
                    "x_copy_min": timing.get("x_copy_min"),
                    "x_copy_max": timing.get("x_copy_max"),
                    "n": timing.get("n"), "seconds": round(run.wall, 3),
                    "begin": {k: v for k, v in (run.first("begin") or
                                                {}).items() if k != "_t"}}
                self.log("  reference%s: pass, split %sx copy (the "
                         "performance yardstick), %.1f s" % (
                             " on GPU %s" % gpu if gpu else "",
                             timing.get("x_copy", "-"), run.wall))
        except Exception as e:      # the setup failed: no one is graded
            self.failure = str(e)
        finally:
            self.ready.set()

    def grade_all(self, mine):
        graded = {}
        cfg = self.cfg
        pools = [concurrent.futures.ThreadPoolExecutor(n) for n in (
            cfg.jobs, min(cfg.jobs, cfg.per_gpu * len(cfg.gpus)))]
        futures, flock = [], threading.Lock()

        def compiled(k, s):
            comp = compiling.compile_one(cfg, s, k, self.clock)
            if comp.ok and not cfg.build_only:
                with flock:
                    futures.append(pools[1].submit(self._run_one, k, s, comp,
                                                   graded))
                return
            self.ready.wait()       # nothing is written before the setup
            if not self.failure:    # is known to be sound
                self._finish(s, comp, None, None, "", graded)

        try:
            firsts = [pools[0].submit(compiled, k, s)
                      for k, s in enumerate(mine)]
            for f in firsts:
                f.result()
            with flock:
                later = list(futures)
            for f in later:
                f.result()
        except machine.SetupError as e:
            self.failure = str(e)
        finally:
            for p in pools:
                p.shutdown(wait=True)
        self.ready.wait()           # an empty shard checks the reference too
        return graded

    def _run_one(self, k, s, comp, graded):
        self.ready.wait()
        if self.failure:
            return
        cfg = self.cfg
        gpu = cfg.gpus[k % len(cfg.gpus)]
        folder = os.path.join(cfg.state, "runs", str(k))
        os.makedirs(folder, exist_ok=True)
        run = san = None
        san_log, broken = "", None
        try:
            run = self._driver(comp, os.path.join(folder, "plan.jsonl"), gpu)
            if cfg.sanitize and run.first("end") and not run.killed and \
                    run.rc == 0 and (run.first("module") or {}).get(
                        "status") == "ok":
                log_file = os.path.join(folder, "memcheck.log")
                san = self._driver(comp, os.path.join(folder,
                                                      "sanitize.jsonl"),
                                   gpu, "sanitize", log_file)
                san_log = _read(log_file, 1 << 16)
        except OSError as e:        # the tool could not start a process
            broken = e
        if not cfg.keep:
            try:
                os.remove(comp.module)
            except OSError:
                pass
        self._finish(s, comp, run, san, san_log, graded, gpu, broken)

    def _driver(self, comp, result, gpu, plan="full", log_file=None):
        at = self.clock()
        run = running.driver_run(self.cfg, comp.module, result, comp.seed,
                                 gpu, plan, log_file)
        run.at = at
        return run

    def _finish(self, s, comp, run, san, san_log, graded, gpu=None,
                broken=None):
        try:
            if broken:
                raise broken
            v = judge.judge(comp, run, san, san_log, self.ref_x.get(gpu),
                            self.cfg)
        except Exception as e:      # a fault of this tool: this one only
            v = judge.judge(comp, None, None, "", None, self.cfg)
            v.reason = "tool_error"
            v.detail = "the grading tool failed on this submission (%s); " \
                "grade again" % type(e).__name__
            self.log("grade.py: grading %s failed: %r" % (s.name, e))
        elapsed = (comp.t1 - comp.t0) + (run.wall if run else 0) + \
            (san.wall if san else 0)
        reports.write_submission(self.cfg.out, s, comp, run, san, san_log, v,
                                 elapsed, self.cfg.seed)
        row = reports.timing_row(s, comp, run, san)
        with self.lock:
            graded[id(s)] = (v, row)
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
