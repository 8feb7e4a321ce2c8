"""cli: the command line, and the order the stages run in.

    grade.py CLASS [--out DIR] [--jobs N] [--gpus 0,1] [--shard i/N] ...
    grade.py merge OUT1 OUT2 ... --out DIR

Setup, once: the class is listed; the GPU probe runs (none usable: one
line now, one at the end, exit 3, no grades, unless --build-only); the
driver is built; the reference solution is compiled and run on every GPU
of --gpus, and must pass (its x_copy is the performance yardstick).
Then two pools of --jobs workers: one compiles every submission (CPU);
one runs each compiled submission's driver (after the reference passed),
then compute-sanitizer's small run. Each submission is judged and its
folder written as soon as it is done; the tables and CSV files at the
end. Exit codes: 0 graded (whatever the verdicts), 1 setup failed, 2 bad
command line or class folder, 3 no usable GPU.
"""

import argparse
import concurrent.futures
import json
import os
import re
import secrets
import sys
import threading
import time

from . import compiling, judge, listing, machine, merge, reports, running

GRACE = 15.0            # s the grader waits beyond the driver's own watchdog
SANITIZE_SLOWDOWN = 4   # memcheck's run may take this many times longer


def parse_shard(text):
    m = re.fullmatch(r"(\d+)/(\d+)", text or "")
    if not m or int(m.group(2)) < 1 or int(m.group(1)) >= int(m.group(2)):
        raise argparse.ArgumentTypeError("--shard wants i/N with 0 <= i < N")
    return int(m.group(1)), int(m.group(2))


def parser():
    p = argparse.ArgumentParser(
        prog="grade.py",
        description="Grades a class of day 33 three-way submissions on a GPU "
        "machine: a folder of submission folders (each holding threeway.cu "
        "and optionally answer.txt), one submission folder, a Gradescope "
        "export, or a folder of GitHub Classroom clones. No host code of a "
        "submission ever runs. See harness/GRADING.md.",
        epilog="Also: grade.py merge OUT1 OUT2 ... --out DIR (merges "
        "--shard runs).")
    a = p.add_argument
    a("submissions", metavar="CLASS", help="the class folder")
    a("--out", default="grades", help="output folder (default: grades)")
    a("--jobs", type=int, default=os.cpu_count() or 1, help="compiles, and "
      "drivers, at once (default: the CPU count, %(default)s)")
    a("--gpus", default=None, help='GPUs to spread the submissions over, '
      'e.g. "0,1" (CUDA_VISIBLE_DEVICES values; default: the visible one)')
    a("--shard", type=parse_shard, default=(0, 1), help="i/N: grade only "
      "the submissions whose index in the sorted class is i modulo N")
    a("--seed", type=int, default=None, help="grading seed (default: drawn "
      "at random and recorded in OUT/shard.json); each submission's plan "
      "comes from it and a hash of its file")
    a("--arch", default=None, help='compute capabilities, e.g. "90" or '
      '"75 80 90" (default: the GPUs\'; with --build-only and no GPU, '
      '"%s")' % machine.DEFAULT_ARCH)
    a("--nvcc", default=None, help="nvcc (default: on PATH, else "
      "/usr/local/cuda/bin/nvcc)")
    a("--build-only", action="store_true", help="run and record only the "
      "compile stage (no GPU needed; compiled submissions get not_run)")
    a("--no-sanitize", dest="sanitize", action="store_false", help="skip "
      "compute-sanitizer memcheck's small run (on by default)")
    a("--no-perf", dest="perf", action="store_false", help="do not time "
      "(performance scores 0)")
    a("--run-timeout", type=float, default=30.0, help="limit of one run of "
      "the plan, s (the driver's watchdog; the grader's fires %g s "
      "later; default %%(default)s)" % GRACE)
    a("--submission-timeout", type=float, default=300.0, help="limit of one "
      "submission's driver process, s (default %(default)s)")
    a("--compile-timeout", type=float, default=60.0, help="limit of one "
      "compile, s (default %(default)s)")
    a("--compile-mem", type=int, default=4096, help="address-space limit "
      "of one compile, MiB (default %(default)s)")
    a("--driver", default=None, help="a driver already built (default: "
      "make -C day33-exercise-threeway threeway ARCH=... NVCC=...)")
    a("--reference-module", default=None, help="the reference solution's "
      "module, prebuilt (default: compile solution/threeway.cu)")
    a("--sanitizer", default=None, help="compute-sanitizer (default: next "
      "to nvcc, else on PATH)")
    a("--keep", action="store_true", help="keep every module under "
      "OUT/.grader/modules")
    return p


class Config:
    """Everything the stages read (set once, before the pools start)."""


def main(argv, out=None):
    if argv and argv[0] in ("merge", "--merge"):
        return merge.main(argv[1:])
    args = parser().parse_args(argv)
    log = Log(out or sys.stdout)
    try:
        return grade(args, log)
    except (ValueError, listing.ClassError) as e:
        log("grade.py: %s" % e)
        return 2
    except machine.SetupError as e:
        log("grade.py: setup failed, nothing graded: %s" % e)
        return 1


class Log:
    def __init__(self, stream):
        self.stream, self.lock = stream, threading.Lock()

    def __call__(self, msg):
        with self.lock:
            print(msg, file=self.stream, flush=True)


def grade(args, log):
    t0 = time.monotonic()
    clock = lambda: time.monotonic() - t0      # noqa: E731
    if args.jobs < 1:
        raise ValueError("--jobs must be at least 1")
    cfg = Config()
    cfg.out = os.path.abspath(args.out)
    klass = os.path.abspath(args.submissions)
    if (cfg.out + os.sep).startswith(klass + os.sep):
        raise ValueError("--out %s is inside the class folder"
                         % listing.display(args.out))
    kind, subs, notes = listing.list_class(klass)
    folders = listing.folder_names([s.key for s in subs])
    for s in subs:
        s.out_dir = "submissions/" + folders[s.key]
    shard, count = args.shard
    mine = [s for k, s in enumerate(subs) if k % count == shard]
    cfg.seed = args.seed if args.seed is not None else secrets.randbits(48)
    for name in ("jobs", "build_only", "sanitize", "perf", "run_timeout",
                 "submission_timeout", "compile_timeout", "compile_mem",
                 "keep"):
        setattr(cfg, name, getattr(args, name))
    cfg.grace, cfg.sanitize_slowdown = GRACE, SANITIZE_SLOWDOWN
    cfg.state = os.path.join(cfg.out, ".grader")
    cfg.gpus = [g.strip() for g in args.gpus.split(",")] if args.gpus \
        else [None]
    cfg.nvcc = machine.find_nvcc(args.nvcc)
    cfg.arch = machine.normalise_arch(args.arch) if args.arch else None
    log("grade.py: %s: %d submissions%s; seed %d%s" % (
        listing.display(args.submissions), len(subs),
        "; shard %d/%d grades %d" % (shard, count, len(mine))
        if count > 1 else "", cfg.seed,
        "; compile stage only (--build-only)" if cfg.build_only else ""))
    for line in notes:
        log("  " + line)

    if cfg.build_only:
        cfg.arch = cfg.arch or machine.DEFAULT_ARCH
        cfg.not_run_why = "--build-only: the compile stage only"
    else:
        found = machine.probe_gpus(cfg.gpus, cfg.nvcc)
        bad = [(g, line) for g, line, cc in found if cc is None]
        if bad:
            why = "; ".join(("GPU %s: " % g if g else "") + line
                            for g, line in bad)
            log("grade.py: no usable GPU: %s" % why)
            log("grade.py: no usable GPU, so nothing was graded and no "
                "grades were written (exit 3). Grading runs every kernel on "
                "a GPU; --build-only checks the compile stage alone.")
            return 3
        for g, line, _ in found:
            log("  %s%s" % ("GPU %s: " % g if g else "", line))
        if not cfg.arch:
            cfg.arch = " ".join(sorted({cc for _, _, cc in found}, key=int))
        cfg.driver = args.driver or machine.build_driver(cfg.arch, cfg.nvcc,
                                                         cfg.jobs)
        if cfg.sanitize:
            cfg.sanitizer = machine.find_sanitizer(args.sanitizer, cfg.nvcc)
    log("  nvcc %s, ARCH=\"%s\", --jobs %d%s%s" % (
        cfg.nvcc, cfg.arch, cfg.jobs,
        "" if cfg.build_only or cfg.sanitize else ", --no-sanitize",
        "" if cfg.build_only or cfg.perf else ", --no-perf"))
    os.makedirs(os.path.join(cfg.state, "modules"), exist_ok=True)
    os.makedirs(os.path.join(cfg.out, "submissions"), exist_ok=True)

    pipe = Pipeline(cfg, log, clock, len(mine))
    if not cfg.build_only:
        pipe.start_reference(args.reference_module)
    start = clock()
    graded = pipe.grade_all(mine)
    wall = clock() - start
    if pipe.failure:
        log("grade.py: setup failed, nothing graded: %s" % pipe.failure)
        return 1

    rows = [reports.grades_row(s, graded[id(s)][0]) for s in mine]
    reports.write_csv(os.path.join(cfg.out, "grades.csv"),
                      reports.CSV_COLUMNS, rows)
    reports.write_csv(os.path.join(cfg.out, "gradescope.csv"),
                      reports.GRADESCOPE_COLUMNS,
                      [r for s in mine for r in
                       reports.gradescope_rows(s, graded[id(s)][0])])
    reports.write_csv(os.path.join(cfg.out, "timings.csv"),
                      reports.TIMING_COLUMNS, [graded[id(s)][1] for s in mine])
    meta = {"shard": "%d/%d" % args.shard, "kind": kind,
            "class": [s.name for s in subs],
            "folders": [s.out_dir for s in subs],
            "graded": [s.out_dir for s in mine], "seed": cfg.seed,
            "arch": cfg.arch, "build_only": cfg.build_only,
            "sanitize": cfg.sanitize and not cfg.build_only,
            "perf": cfg.perf and not cfg.build_only,
            "gpus": cfg.gpus, "reference": pipe.reference,
            "setup_s": round(start, 3), "grading_s": round(wall, 3)}
    with open(os.path.join(cfg.out, "shard.json"), "w") as f:
        json.dump(meta, f, indent=1)
    summary = reports.summary_text(rows)
    summary += "\n%d submissions graded in %.1f s after %.1f s of setup " \
        "(--jobs %d)\n" % (len(rows), wall, start, cfg.jobs)
    with open(os.path.join(cfg.out, "summary.txt"), "w",
              encoding="utf-8") as f:
        f.write(summary)
    log(summary.rstrip("\n"))
    log("wrote %s: grades.csv, gradescope.csv, timings.csv, and "
        "submissions/*/results.json" % listing.display(args.out))
    if cfg.build_only:
        log("grade.py: compile stage only (--build-only): %d compiled and "
            "not run, %d stopped at the compile stage" % (
                sum(r["reason"] == "not_run" for r in rows),
                sum(r["reason"] != "not_run" for r in rows)))
    return 0


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
        pools = [concurrent.futures.ThreadPoolExecutor(self.cfg.jobs)
                 for _ in range(2)]
        futures, flock = [], threading.Lock()

        def compiled(k, s):
            comp = compiling.compile_one(self.cfg, s, k, self.clock)
            if comp.ok and not self.cfg.build_only:
                with flock:
                    futures.append(pools[1].submit(self._run_one, k, s, comp,
                                                   graded))
            else:
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
        return graded

    def _run_one(self, k, s, comp, graded):
        self.ready.wait()
        if self.failure:
            return
        cfg = self.cfg
        gpu = cfg.gpus[k % len(cfg.gpus)]
        folder = os.path.join(cfg.state, "runs", str(k))
        os.makedirs(folder, exist_ok=True)
        at = self.clock()
        run = running.driver_run(cfg, comp.module,
                                 os.path.join(folder, "plan.jsonl"),
                                 comp.seed, gpu)
        run.at = at
        san, san_log = None, ""
        if cfg.sanitize and run.first("end") and not run.killed and \
                run.rc == 0 and (run.first("module") or {}).get(
                    "status") == "ok":
            log_file = os.path.join(folder, "memcheck.log")
            at = self.clock()
            san = running.driver_run(cfg, comp.module,
                                     os.path.join(folder, "sanitize.jsonl"),
                                     comp.seed, gpu, "sanitize", log_file)
            san.at = at
            try:
                with open(log_file, "rb") as f:
                    san_log = f.read(1 << 16).decode("utf-8", "replace")
            except OSError:
                san_log = ""
        if not cfg.keep:
            try:
                os.remove(comp.module)
            except OSError:
                pass
        self._finish(s, comp, run, san, san_log, graded, gpu)

    def _finish(self, s, comp, run, san, san_log, graded, gpu=None):
        try:
            v = judge.judge(comp, run, san, san_log, self.ref_x.get(gpu),
                            self.cfg)
        except Exception as e:      # a fault of this tool: this one only
            v = judge.Verdict()
            v.reason = "tool_error"
            v.detail = "the grading tool failed on this submission (%s); " \
                "grade again" % type(e).__name__
            self.log("grade.py: judging %s failed: %r" % (s.name, e))
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
