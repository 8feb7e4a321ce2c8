"""cli: the command line, the setup, and the files written at the end.

    grade.py CLASS [--out DIR] [--jobs N] [--gpus 0,1] [--shard i/N] ...
    grade.py merge OUT1 OUT2 ... --out DIR

The class is listed here; pipeline.py then does everything else side by
side: the machine's setup (setup_machine below: the GPU probe, with one
line at once and one at the end, exit 3 and no grades when no GPU is
usable; the driver's build), the compiles, the runs, the verdicts.
Exit codes: 0 graded (whatever the verdicts), 1 setup failed or OUT
could not be written, 2 bad command line or class folder, 3 no usable
GPU.
"""

import argparse
import datetime
import json
import os
import re
import secrets
import shutil
import signal
import sys
import threading
import time

from . import clean, listing, machine, merge, pipeline, reports, running

GRACE = 15.0            # s the grader waits beyond the driver's own watchdog
SANITIZE_SLOWDOWN = 4   # memcheck's run may take this many times longer
# compute-sanitizer memcheck's small run for every submission, unless
# --no-sanitize: the decision and its measured cost are in grader/MAINTAINERS.md
# ("Out-of-bounds writes").
SANITIZE_BY_DEFAULT = True


def parse_shard(text):
    """i/N: the shard i of N, 0 <= i < N. Re-running one shard (a failed
    array task) is the same i/N again, into its own OUT."""
    m = re.fullmatch(r"(\d+)/(\d+)", text or "")
    if not m or int(m.group(2)) < 1:
        raise argparse.ArgumentTypeError(
            "%r: --shard wants i/N, the shard i of N (0 <= i < N)" % text)
    i, n = int(m.group(1)), int(m.group(2))
    if i >= n:
        raise argparse.ArgumentTypeError(
            "%s: shards count from 0, so i must be below N; to grade shard "
            "%d of a class cut in %s again, pass --shard %d/N with the same "
            "N as before (e.g. --shard %d/%d)" % (text, i, "N" if n <= i
                                                  else n, i, i, i + 1 if
                                                  n <= i else n))
    return i, n


def positive(kind):
    def parse(text):
        try:
            v = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError("%r is not a number" % text)
        if not v > 0 or v != v or v == float("inf"):
            raise argparse.ArgumentTypeError("%r: a limit must be a finite "
                                             "number above 0" % text)
        return v
    return parse


def cpus():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


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
    a("--jobs", type=positive(int), default=cpus(), help="compiles and drivers at "
      "once (default: the CPUs this process may use, %(default)s)")
    a("--per-gpu", type=positive(int), default=12, help="drivers at once on one GPU, "
      "at most (default %(default)s)")
    a("--gpus", default=None, help='GPUs to spread the submissions over, '
      'e.g. "0,1" (CUDA_VISIBLE_DEVICES values; default: the visible one)')
    a("--shard", type=parse_shard, default=(0, 1), help="i/N: grade only "
      "the submissions whose index in the sorted class is i modulo N")
    a("--seed", type=int, default=None, help="grading seed (default: drawn "
      "at random and recorded in OUT/shard.json); each submission's plan "
      "comes from it and a hash of its file")
    a("--arch", default=None, help='compute capabilities, e.g. "90" or '
      '"75 80 90"; compute_75 adds its PTX, run by a newer GPU as a 7.5 '
      '(default: the GPUs\'; with --build-only and no GPU, '
      '"%s")' % machine.DEFAULT_ARCH)
    a("--nvcc", default=None, help="nvcc (default: on PATH, else "
      "/usr/local/cuda/bin/nvcc)")
    a("--build-only", action="store_true", help="run and record only the "
      "compile stage (no GPU needed; compiled submissions get not_run)")
    a("--sanitize", dest="sanitize", action="store_true",
      default=SANITIZE_BY_DEFAULT, help="run compute-sanitizer memcheck's "
      "small run for every submission whose plan ended normally (%s by "
      "default)" % ("on" if SANITIZE_BY_DEFAULT else "off"))
    a("--no-sanitize", dest="sanitize", action="store_false", help="skip "
      "memcheck's run")
    a("--no-perf", dest="perf", action="store_false", help="do not time "
      "(performance scores 0)")
    a("--run-timeout", type=positive(float), default=30.0, help="limit of one "
      "launch per 2^24 elements, s (the driver's watchdog; the grader's "
      "fires %g s after a run's launches; default %%(default)s)" % GRACE)
    a("--submission-timeout", type=positive(float), default=300.0, help="limit of one "
      "submission's driver process, s (default %(default)s)")
    a("--compile-timeout", type=positive(float), default=60.0, help="limit of one "
      "compile, s (default %(default)s)")
    a("--compile-mem", type=positive(int), default=4096, help="address-space limit "
      "of one compile, MiB (default %(default)s)")
    a("--driver", default=None, help="a driver already built (default: "
      "make -C day33-exercise-threeway threeway ARCH=... NVCC=...)")
    a("--reference-module", default=None, help="the reference solution's "
      "module, prebuilt (default: compile solution/threeway.cu)")
    a("--sanitizer", default=None, help="compute-sanitizer (default: next "
      "to nvcc, else on PATH)")
    a("--keep", action="store_true", help="keep every module under "
      "OUT/.grader/modules")
    a("--only", nargs="+", metavar="NAME", default=None, help="grade only "
      "these submissions (names as in grades.csv, or folders under "
      "OUT/submissions) into an existing OUT, replacing their rows and "
      "files and keeping every other row; the seed comes from OUT")
    a("--roster", default=None, metavar="FILE.csv", help="identities for "
      "a plain or Classroom class: a CSV with a folder, login or name "
      "column, and SID and Email (GRADING.md, \"Rosters\")")
    a("--due", default=None, metavar="TIME", help="the due time with its "
      "offset, e.g. 2025-03-07T23:59-08:00: fills the late column from a "
      "Gradescope export's submission times")
    a("--hide-until-due", action="store_true", help="results.json: every "
      "test but compile and signature visible to students only after the "
      "due date")
    return p


class Config:
    """Everything the stages read (set once, before the pools start)."""
    input_cache = None      # the drivers' shared inputs' folder, or None


class Log:
    def __init__(self, stream):
        self.stream, self.lock = stream, threading.Lock()

    def __call__(self, msg):
        with self.lock:
            print(clean.text(msg), file=self.stream, flush=True)


# The run's shared inputs' folder (machine.inputs_folder), while it exists.
INPUTS = []


def stop_now(signum, frame):
    """SIGINT, SIGTERM: every driver under way is killed with its process
    group, the inputs' folder removed, and the tool exits at once, writing
    nothing more."""
    running.kill_all()
    for folder in INPUTS:
        shutil.rmtree(folder, ignore_errors=True)
    os._exit(128 + signum)


def main(argv, out=None):
    if argv and argv[0] in ("merge", "--merge"):
        return merge.main(argv[1:])
    args = parser().parse_args(argv)
    saved = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            saved[sig] = signal.signal(sig, stop_now)
    log = Log(out or sys.stdout)
    try:
        return grade(args, log)
    except (ValueError, listing.ClassError) as e:
        log("grade.py: %s" % e)
        return 2
    except machine.SetupError as e:
        log("grade.py: setup failed, nothing graded: %s" % e)
        return 1
    except OSError as e:
        log("grade.py: %s" % e)
        return 1
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)


def grade(args, log):
    t0 = time.monotonic()
    clock = lambda: round(time.monotonic() - t0, 3)    # noqa: E731
    cfg, kind, subs, mine = configure(args, log)
    os.makedirs(os.path.join(cfg.state, "modules"), exist_ok=True)
    os.makedirs(os.path.join(cfg.out, "submissions"), exist_ok=True)
    if cfg.build_only:
        log_settings(cfg, log)
    pipe = pipeline.Pipeline(cfg, log, clock, len(mine))
    # The plan's inputs depend on the seed alone: the first driver to need
    # one writes it to this folder, every other reads it (--input-cache).
    cfg.input_cache = None if cfg.build_only else machine.inputs_folder()
    INPUTS[:] = [cfg.input_cache] if cfg.input_cache else []
    try:
        graded = pipe.grade(mine, lambda known: setup_machine(
            cfg, args, log, known), args.reference_module)
    finally:
        if cfg.input_cache:
            shutil.rmtree(cfg.input_cache, ignore_errors=True)
        INPUTS[:] = []
    wall = clock()
    if pipe.no_gpu:
        log("grade.py: no usable GPU, so nothing was graded and no grades "
            "were written (exit 3). Grading runs every kernel on a GPU; "
            "--build-only checks the compile stage alone.")
        return 3
    if pipe.failure:
        log("grade.py: nothing graded: %s" % pipe.failure)
        return 1
    meta = {"shard": "%d/%d" % args.shard, "kind": kind,
            "class": [s.name for s in subs],
            "folders": [s.out_dir for s in subs],
            "graded": [s.out_dir for s in mine], "seed": cfg.seed,
            "arch": cfg.arch, "build_only": cfg.build_only,
            "sanitize": cfg.sanitize and not cfg.build_only,
            "perf": cfg.perf and not cfg.build_only,
            "hide_until_due": cfg.hide_until_due, "due": args.due,
            "jobs": cfg.jobs, "gpus": cfg.gpus, "reference": pipe.reference,
            "machine_ready_s": pipe.marks.get("machine"),
            "reference_ready_s": pipe.marks.get("reference"),
            "wall_s": wall}
    if not cfg.keep:
        shutil.rmtree(os.path.join(cfg.state, "modules"), ignore_errors=True)
    write_outputs(cfg, subs, mine, graded, meta, log)
    log("%d submissions done in %.1f s, setup included (--jobs %d); "
        "wrote %s: grades.csv, %stimings.csv, summary.txt, "
        "submissions/*/results.json" % (len(mine), wall, cfg.jobs,
                                        listing.display(args.out),
                                        "" if cfg.build_only else
                                        "gradescope.csv, "))
    if cfg.build_only:
        log("grade.py: compile stage only (--build-only): %d compiled and "
            "not run (not_run), %d stopped at the compile stage" % (
                sum(graded[id(s)][0].reason == "not_run" for s in mine),
                sum(graded[id(s)][0].reason != "not_run" for s in mine)))
    return 0


def log_settings(cfg, log):
    log("  nvcc %s, ARCH=\"%s\", --jobs %d%s%s" % (
        cfg.nvcc, cfg.arch, cfg.jobs,
        "" if cfg.build_only or cfg.sanitize else ", --no-sanitize",
        "" if cfg.build_only or cfg.perf else ", --no-perf"))


def configure(args, log):
    """(cfg, class kind, every submission, this shard's) from the command
    line and the class folder; prints the first line."""
    cfg = Config()
    cfg.due = None
    if args.due:
        cfg.due = parse_time(args.due)
        if cfg.due is None:
            raise ValueError("--due %s: give a date, a time and its offset, "
                             "e.g. 2025-03-07T23:59-08:00" % args.due)
    cfg.hide_until_due = args.hide_until_due
    cfg.only = args.only
    cfg.out = os.path.abspath(args.out)
    klass = os.path.abspath(args.submissions)
    if (cfg.out + os.sep).startswith(klass + os.sep):
        raise ValueError("--out %s is inside the class folder"
                         % listing.display(args.out))
    kind, subs, notes = listing.list_class(klass)
    if args.roster:
        if kind == "gradescope":
            notes.append("--roster: not used (a Gradescope export names its "
                         "submitters)")
        else:
            listing.apply_roster(subs, listing.read_roster(args.roster),
                                 notes)
    folders = listing.folder_names([s.key for s in subs])
    for s in subs:
        s.out_dir = "submissions/" + folders[s.key]
    shard, count = args.shard
    mine = [s for k, s in enumerate(subs) if k % count == shard]
    cfg.seed = args.seed if args.seed is not None else secrets.randbits(48)
    for name in ("jobs", "per_gpu", "build_only", "sanitize", "perf",
                 "run_timeout", "submission_timeout", "compile_timeout",
                 "compile_mem", "keep"):
        setattr(cfg, name, getattr(args, name))
    if args.only:
        mine, cfg.seed = regrade_set(args, cfg, subs, mine)
    cfg.grace, cfg.sanitize_slowdown = GRACE, SANITIZE_SLOWDOWN
    cfg.state = os.path.join(cfg.out, ".grader")
    cfg.gpus = [g.strip() for g in args.gpus.split(",")] if args.gpus \
        else [None]
    cfg.nvcc = machine.find_nvcc(args.nvcc)
    cfg.arch = machine.normalise_arch(args.arch) if args.arch else None
    cfg.not_run_why = "--build-only: the compile stage only"
    if cfg.build_only:
        cfg.arch = cfg.arch or machine.DEFAULT_ARCH
    log("grade.py: %s: %d submissions%s; seed %d%s" % (
        listing.display(args.submissions), len(subs),
        "; shard %d/%d grades %d" % (shard, count, len(mine))
        if count > 1 else "", cfg.seed,
        "; compile stage only (--build-only)" if cfg.build_only else ""))
    for line in notes:
        log("  " + line)
    return cfg, kind, subs, mine


def regrade_set(args, cfg, subs, mine):
    """(the submissions --only names, the seed) for a regrade into the
    existing OUT: its seed, unless --seed gives the same; its settings
    (--build-only, memcheck, performance, --arch when given) must match,
    else ValueError with one line."""
    try:
        with open(os.path.join(cfg.out, "shard.json")) as f:
            old = json.load(f)
        reports.read_csv(os.path.join(cfg.out, "grades.csv"))
    except (OSError, ValueError):
        raise ValueError("--only grades into an existing OUT: %s has no "
                         "grades.csv and shard.json; grade the class first"
                         % listing.display(args.out))
    if args.seed is not None and args.seed != old.get("seed"):
        raise ValueError("--only: --seed %d differs from OUT's seed %s (a "
                         "regrade uses OUT's)" % (args.seed, old.get("seed")))
    now = {"build_only": cfg.build_only,
           "sanitize": cfg.sanitize and not cfg.build_only,
           "perf": cfg.perf and not cfg.build_only}
    if args.arch:
        now["arch"] = machine.normalise_arch(args.arch)
    diff = [k for k, v in now.items() if old.get(k) != v]
    if diff:
        raise ValueError("--only: OUT was graded with %s; give the same "
                         "settings to regrade into it" % ", ".join(
                             "%s=%s" % (k, old.get(k)) for k in diff))
    by = {}
    for s in subs:
        for name in (s.name, s.key, s.out_dir.split("/", 1)[1]):
            by.setdefault(name, s)
    unknown = [n for n in args.only if n not in by]
    if unknown:
        raise ValueError("--only: no submission named %s (names as in "
                         "grades.csv's submission column, or folders under "
                         "OUT/submissions)" % ", ".join(unknown))
    cfg.old_meta = old
    chosen = {id(by[n]) for n in args.only}
    return [s for s in subs if id(s) in chosen], old["seed"]


def setup_machine(cfg, args, log, arch_known):
    """The GPU probe, ARCH (when --arch did not give it; then
    arch_known(), so that the compiles start), the driver,
    compute-sanitizer. Raises pipeline.NoGpu, after its line, when a GPU
    of --gpus is not usable."""
    # With --arch the driver's make needs nothing from the probe: it runs
    # beside the probe's run (each takes about a second on a busy
    # machine), once the probe's own make has ended (two makes never build
    # the harness's objects at once).
    builds = []
    beside = None
    if cfg.arch and not args.driver:
        def beside():
            builds.append(_Build(cfg, True))
    try:
        found = machine.probe_gpus(cfg.gpus, cfg.nvcc, then=beside)
    finally:
        for b in builds:
            b.join()
    bad = ["%s%s" % ("GPU %s: " % g if g else "", line)
           for g, line, cc in found if cc is None]
    if bad:
        log("grade.py: no usable GPU: %s" % "; ".join(bad))
        raise pipeline.NoGpu("; ".join(bad))
    for g, line, _ in found:
        log("  %s%s" % ("GPU %s: " % g if g else "", line))
    cfg.locks = {g: machine.lock_path(g, machine.gpu_uuid(line))
                 for g, line, _ in found}
    cfg.arch = cfg.arch or " ".join(sorted({cc for _, _, cc in found},
                                           key=int))
    arch_known()
    log_settings(cfg, log)
    if args.driver:
        cfg.driver = os.path.abspath(args.driver)
    else:
        build = builds[0] if builds else _Build(cfg, False)
        build.join()
        cfg.driver = build.result()
        log("  driver %s (make, %.1f s%s)" % (
            os.path.relpath(cfg.driver, machine.REPO), build.seconds,
            ", beside the probe" if build.beside else ""))
    if cfg.sanitize:
        cfg.sanitizer = machine.find_sanitizer(args.sanitizer, cfg.nvcc)


class _Build(threading.Thread):
    """The driver's make (machine.build_driver) on a thread of its own;
    result() gives the driver's path or raises what the make raised."""

    def __init__(self, cfg, beside):
        super().__init__(daemon=True)
        self.cfg, self.path, self.error, self.seconds = cfg, None, None, 0.0
        self.beside = beside
        self.start()

    def run(self):
        t0 = time.monotonic()
        try:
            self.path = machine.build_driver(self.cfg.arch, self.cfg.nvcc,
                                             self.cfg.jobs)
        except Exception as e:      # noqa: BLE001 (raised by result())
            self.error = e
        self.seconds = time.monotonic() - t0

    def result(self):
        if self.error:
            raise self.error
        return self.path


def write_outputs(cfg, subs, mine, graded, meta, log):
    """grades.csv, gradescope.csv, timings.csv, shard.json, summary.txt.
    With --only, the rows of the submissions graded now replace theirs in
    OUT's files and every other row is kept."""
    rows = {s.out_dir: reports.grades_row(s, graded[id(s)][0],
                                          late_of(s, cfg.due))
            for s in mine}
    times = {s.out_dir: graded[id(s)][1] for s in mine}
    if cfg.only:
        order = {s.out_dir: k for k, s in enumerate(subs)}
        folder = lambda r: r["results"].rsplit("/", 1)[0]   # noqa: E731
        for name, table in (("grades.csv", rows), ("timings.csv", times)):
            for r in reports.read_csv(os.path.join(cfg.out, name)):
                table.setdefault(folder(r), r)
        rows = dict(sorted(rows.items(), key=lambda kv: order.get(
            kv[0], len(order))))
        meta["graded"] = [f for f in rows]
        meta["regraded"] = [s.out_dir for s in mine]
        meta["shard"] = cfg.old_meta.get("shard", meta["shard"])
    grades = list(rows.values())
    gs, refused, _ = reports.gradescope_rows(subs, grades)
    summary = reports.write_tables(cfg.out, grades, gs, [
        times[f] for f in rows if f in times], meta, refused)
    log(summary.rstrip("\n"))


# ---------------------------------------------------------------------------
# Times: --due, and a Gradescope export's submission times.

TIME = re.compile(r"(\d{4}-\d\d-\d\d)[ T](\d\d):(\d\d)(?::(\d\d))?"
                  r"(?:\.\d+)?\s*(Z|[+-]\d\d:?\d\d)?")


def parse_time(text):
    """An aware datetime from 2025-03-07T23:59-08:00, "2025-03-07
    23:59:00.123456789 -08:00" (Gradescope's) or ...Z; None when the text
    is not one, or has no offset."""
    m = TIME.fullmatch((text or "").strip())
    if not m or not m.group(5):
        return None
    off = m.group(5)
    if off == "Z":
        tz = datetime.timezone.utc
    else:
        sign = -1 if off[0] == "-" else 1
        hh, mm = int(off[1:3]), int(off[-2:])
        tz = datetime.timezone(sign * datetime.timedelta(hours=hh,
                                                         minutes=mm))
    y, mo, d = map(int, m.group(1).split("-"))
    try:
        return datetime.datetime(y, mo, d, int(m.group(2)), int(m.group(3)),
                                 int(m.group(4) or 0), tzinfo=tz)
    except ValueError:
        return None


def late_of(sub, due):
    """grades.csv's late cell: "" (no --due, or no submission time),
    "no", or how late in hours ("3.25h")."""
    at = parse_time(getattr(sub, "created_at", ""))
    if due is None or at is None:
        return ""
    late = (at - due).total_seconds()
    return "no" if late <= 0 else "%.2fh" % (late / 3600.0)
