"""test_hardening.py: the grading tool's tests of how drivers are started,
watched and stopped, of clean text in every output, and of the class
layouts; run by run_tests.py (run(rt, tmp), rt being run_tests itself,
for its check, grade and test doubles). No GPU: fake_driver.py stands in
for the driver, a fake nvcc for the compiler where a compile must hang.

- the reference runs, and passes, before any submission's driver starts;
- stallers (a kernel stuck in its timing holding the GPU lock exclusive,
  one stuck in a run) are killed at their limits, with their lock, and
  are those submissions' timeouts alone: every other one passes, and the
  class ends within the clean time plus one submission's limit;
- --gpus 0,1 --per-gpu 1: one driver at a time on each GPU, both used;
- memcheck's run frees its driver's slot: with --per-gpu 1 the next
  driver starts while it goes on;
- the GPU lock file is node-local (HX_LOCK_DIR here), named by the GPU's
  UUID from the probe's line, never under OUT;
- exit 5 (no room on the GPU) after a fault event is gpu_memory;
- a result status the tool does not know is one submission's tool_error;
- SIGTERM while compiling leaves no compiler process and no scratch folder;
- control bytes (a compile error quoting escape sequences, a BEL in
  answer.txt, a bidi override in a name) reach no output raw;
- a class is a folder of student folders whatever they are named
  (day33-exercise-threeway, threeway.cu); a course clone is one;
- the judge's event lookups are linear in the plan's runs;
- ARCH's PTX form (compute_75) gives a module that carries that PTX.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
UUID0 = "GPU-0a1b2c3d-0000-4000-8000-00000000aaaa"
UUID1 = "GPU-0a1b2c3d-0000-4000-8000-00000000bbbb"


def run(rt, tmp):
    test_clean(rt)
    test_layouts(rt, tmp)
    test_index(rt)
    with fakes(rt, tmp) as tools:
        test_reference_first_and_stallers(rt, tmp, tools)
        test_per_gpu(rt, tmp, tools)
        test_memcheck_slot(rt, tmp, tools)
        test_gpu_memory(rt, tmp, tools)
        test_unknown_status(rt, tmp, tools)
    test_stop_compiling(rt, tmp)
    test_control_bytes(rt, tmp)
    test_ptx_form(rt, tmp)
    test_staller_forms(rt, tmp)


class fakes:
    """The fake compile, probe (two GPUs with UUIDs) and driver, a short
    grace, and HX_LOCK_DIR in a folder of the test's own."""

    def __init__(self, rt, tmp):
        self.rt, self.tmp = rt, tmp

    def __enter__(self):
        rt = self.rt
        self.saved = (rt.compiling.compile_submission, rt.machine.probe_gpus,
                      rt.cli.GRACE, os.environ.get("HX_LOCK_DIR"))
        rt.compiling.compile_submission = slow_fake_compile(rt)
        rt.machine.probe_gpus = lambda gpus, nvcc, then=None: [
            (g, "GPU: Fake GPU (compute capability 9.0, 1 SMs), driver CUDA "
             "13.0, runtime CUDA 13.0, %s" % (UUID1 if g == "1" else UUID0),
             "90") for g in gpus]
        rt.cli.GRACE = 0.5
        self.locks = os.path.join(self.tmp, "node-local")
        os.makedirs(self.locks, exist_ok=True)
        os.environ["HX_LOCK_DIR"] = self.locks
        return rt.fake_tools(self.tmp)

    def __exit__(self, *exc):
        rt = self.rt
        (rt.compiling.compile_submission, rt.machine.probe_gpus,
         rt.cli.GRACE, lock_dir) = self.saved
        if lock_dir is None:
            os.environ.pop("HX_LOCK_DIR", None)
        else:
            os.environ["HX_LOCK_DIR"] = lock_dir
        os.environ.pop("FAKE_LOCK", None)


def slow_fake_compile(rt):
    """run_tests' fake compile; a file saying SLOW_COMPILE takes 1.5 s."""
    def compile_submission(src, out_module, arch, **kwargs):
        with open(src, "rb") as f:
            if b"SLOW_COMPILE" in f.read():
                time.sleep(1.5)
        return rt.fake_compile(src, out_module, arch, **kwargs)
    return compile_submission


def make_class(root, markers):
    """A class folder: one student folder per (name, fake behaviour)."""
    for name, marker in markers:
        os.makedirs(os.path.join(root, name))
        with open(os.path.join(root, name, "threeway.cu"), "w") as f:
            f.write("// FAKE:%s\n" % marker)
    return root


def begin_events(out, folder):
    """The plan's begin event of OUT/submissions/<folder>."""
    with open(os.path.join(out, "submissions", folder, "events.jsonl")) as f:
        for line in f:
            ev = json.loads(line)
            if ev.get("event") == "begin" and ev.get("_process") == "plan":
                return ev
    return {}


# ---------------------------------------------------------------------------

def test_reference_first_and_stallers(rt, tmp, tools):
    klass = make_class(os.path.join(tmp, "stallers"), [
        ("a", "pass"), ("b", "hang_timing"), ("c", "pass"),
        ("d", "batch_hang_run"), ("e", "pass"), ("f", "pass")])
    ref = os.path.join(tmp, "slow-reference.cu")
    with open(ref, "w") as f:
        f.write("// FAKE:sleep_1.5\n")
    out = os.path.join(tmp, "stallers-out")
    os.environ["FAKE_LOCK"] = "1"
    limit = 4.0
    t0 = time.monotonic()
    rc, text = rt.grade([klass, "--out", out, "--driver", tools["driver"],
                         "--no-sanitize", "--reference-module", ref,
                         "--jobs", "4", "--per-gpu", "4", "--seed", "7",
                         "--run-timeout", "1",
                         "--submission-timeout", "%g" % limit])
    took = time.monotonic() - t0
    os.environ.pop("FAKE_LOCK", None)
    rows = rt.by_folder(rt.read_rows(out))
    got = {k.split("/")[-1]: r.get("reason") for k, r in rows.items()}
    times = rt.read_rows(out, "timings.csv")
    with open(os.path.join(out, "shard.json")) as f:
        meta = json.load(f)
    ready = meta.get("reference_ready_s") or 0
    starts = [float(t["run_at"]) for t in times if t.get("run_at")]
    rt.check(rc == 0 and ready >= 1.5 and len(starts) == 6 and
             min(starts) >= ready, "the reference runs and passes before any "
             "submission's driver starts: reference ready at %s s, first "
             "driver at %s s" % (ready, min(starts) if starts else None))
    rt.check(got == {"a": "pass", "b": "timeout", "c": "pass",
                     "d": "timeout", "e": "pass", "f": "pass"},
             "stallers (stuck in the timing holding the GPU lock "
             "exclusive; stuck in a batch's run): each its own timeout, "
             "every other submission passes: %s" % got)
    # The clean class takes the reference (1.5 s) and the drivers' own
    # time; the staller adds at most its limit (4 s) and the grace.
    rt.check(took < 1.5 + limit + 6, "the class ends within the clean time "
             "plus one submission's limit: %.1f s" % took)
    b = rows.get("submissions/b", {})
    rt.check("not finished within 4 s" in b.get("detail", ""),
             "the staller in its timing is named by the per-submission "
             "watchdog: %s" % b.get("detail", "")[:100])
    locks = {begin_events(out, k).get("lock") for k in got}
    rt.check(len(locks) == 1 and all(
        l and l.startswith(os.path.join(tmp, "node-local") + os.sep) and
        UUID0 in l and not l.startswith(out) for l in locks),
             "the GPU lock is node-local, named by the GPU's UUID, not under "
             "OUT: %s" % sorted(map(str, locks)))


def test_per_gpu(rt, tmp, tools):
    """--gpus 0,1 --per-gpu 1: the slow compiles of b and d leave a and c
    ready first; one driver on each GPU at a time, both GPUs used."""
    klass = os.path.join(tmp, "per-gpu")
    for name, extra in (("a", ""), ("b", "SLOW_COMPILE"), ("c", ""),
                        ("d", "SLOW_COMPILE")):
        os.makedirs(os.path.join(klass, name))
        with open(os.path.join(klass, name, "threeway.cu"), "w") as f:
            f.write("// FAKE:sleep_1\n// %s\n" % extra)
    out = os.path.join(tmp, "per-gpu-out")
    rc, text = rt.grade([klass, "--out", out, "--driver", tools["driver"],
                         "--no-sanitize", "--gpus", "0,1", "--per-gpu", "1",
                         "--jobs", "4", "--seed", "7"])
    spans = []
    for t in rt.read_rows(out, "timings.csv"):
        folder = t["results"].split("/")[1]
        gpu = begin_events(out, folder).get("visible")
        spans.append((gpu, float(t["run_at"]), float(t["end_at"]), folder))
    overlap = [(x[3], y[3]) for x in spans for y in spans
               if x[3] < y[3] and x[0] == y[0] and x[1] < y[2] - 0.05 and
               y[1] < x[2] - 0.05]
    used = sorted({s[0] for s in spans if s[0] is not None})
    rt.check(rc == 0 and len(spans) == 4 and used == ["0", "1"] and
             not overlap, "--gpus 0,1 --per-gpu 1: GPUs used %s, drivers "
             "at once on one GPU: %s" % (used, overlap or "none"))
    locks = {begin_events(out, s[3]).get("visible"):
             begin_events(out, s[3]).get("lock") for s in spans}
    rt.check(UUID0 in str(locks.get("0")) and UUID1 in str(locks.get("1")),
             "each GPU's drivers share the lock named by its UUID")


def test_memcheck_slot(rt, tmp, tools):
    """--per-gpu 1 with memcheck's run: a submission's memcheck run frees
    its driver's slot, so the next driver starts before it ends (each
    fake run, plan or memcheck, takes 1 s)."""
    klass = os.path.join(tmp, "memcheck-slot")
    for name in ("a", "b"):
        os.makedirs(os.path.join(klass, name))
        with open(os.path.join(klass, name, "threeway.cu"), "w") as f:
            f.write("// FAKE:sleep_1\n")
    out = os.path.join(tmp, "memcheck-slot-out")
    rc, text = rt.grade([klass, "--out", out, "--driver", tools["driver"],
                         "--sanitizer", tools["sanitizer"], "--gpus", "0",
                         "--per-gpu", "1", "--jobs", "4", "--seed", "7"])
    rows = sorted((float(t["run_at"]), float(t["end_at"]),
                   float(t["sanitize_s"] or 0), t["submission"])
                  for t in rt.read_rows(out, "timings.csv"))
    rt.check(rc == 0 and len(rows) == 2 and rows[0][2] >= 0.9 and
             rows[1][0] < rows[0][1] - 0.5,
             "--per-gpu 1: the second driver starts while the first "
             "submission's memcheck run goes on (run, end, memcheck s): %s"
             % rows)


def test_unknown_status(rt, tmp, tools):
    klass = make_class(os.path.join(tmp, "unknown"), [
        ("a", "pass"), ("b", "unknown_status"), ("c", "pass")])
    out = os.path.join(tmp, "unknown-out")
    rc, text = rt.grade([klass, "--out", out, "--driver", tools["driver"],
                         "--no-sanitize", "--seed", "7"])
    got = {k.split("/")[-1]: r.get("reason")
           for k, r in rt.by_folder(rt.read_rows(out)).items()}
    rt.check(rc == 0 and got == {"a": "pass", "b": "tool_error",
                                 "c": "pass"}, "a result status the tool "
             "does not know is that submission's tool_error, the class goes "
             "on: exit %s, %s" % (rc, got))


def test_gpu_memory(rt, tmp, tools):
    klass = make_class(os.path.join(tmp, "nomem"), [("full_gpu", "nomem")])
    out = os.path.join(tmp, "nomem-out")
    rc, text = rt.grade([klass, "--out", out, "--driver", tools["driver"],
                         "--no-sanitize", "--seed", "7"])
    r = rt.read_rows(out)
    got = (r[0].get("reason"), r[0].get("status")) if r else None
    rt.check(got == ("gpu_memory", "error"), "exit 5 after a fault event "
             "(cudaMalloc failed: the GPU is full) is gpu_memory, an error, "
             "not the kernel's crash: %s" % (got,))


# ---------------------------------------------------------------------------

FAKE_NVCC = """#!/bin/sh
# A compiler that never ends: its child is called cicc, as nvcc's is.
"%s" 300 &
wait
"""


def live_with(marker):
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                if marker.encode() in f.read():
                    found.append(entry)
        except OSError:
            continue
    return found


def test_stop_compiling(rt, tmp):
    """SIGTERM (and Ctrl-C's SIGINT alike) while compiles run: no compiler
    process outlives the tool, no scratch folder is left."""
    root = os.path.join(tmp, "stop-compile")
    bin_dir, scratch = os.path.join(root, "bin"), os.path.join(root, "tmp")
    os.makedirs(bin_dir)
    os.makedirs(scratch)
    cicc = os.path.join(bin_dir, "cicc")
    shutil.copyfile(shutil.which("sleep"), cicc)
    os.chmod(cicc, 0o755)
    nvcc = os.path.join(bin_dir, "nvcc")
    with open(nvcc, "w") as f:
        f.write(FAKE_NVCC % cicc)
    os.chmod(nvcc, 0o755)
    klass = make_class(os.path.join(root, "class"), [("a", "pass"),
                                                     ("b", "pass")])
    out = os.path.join(root, "out")
    env = dict(os.environ, TMPDIR=scratch)
    for sig in (signal.SIGTERM, signal.SIGINT):
        p = subprocess.Popen([sys.executable, rt.GRADE, klass, "--out", out,
                              "--build-only", "--nvcc", nvcc, "--jobs", "2",
                              "--compile-timeout", "300"], env=env,
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and len(live_with(cicc)) < 2:
            time.sleep(0.1)
        before = live_with(cicc)
        left_before = os.listdir(scratch)
        p.send_signal(sig)
        rc = p.wait(timeout=30)
        time.sleep(0.3)
        after, left = live_with(cicc), os.listdir(scratch)
        rt.check(len(before) == 2 and left_before and not after and
                 not left and rc == 128 + sig, "%s while compiling: exit %s; "
                 "%d compiler processes before, %d left; %d scratch folders "
                 "before, %d left" % (signal.Signals(sig).name, rc,
                                      len(before), len(after),
                                      len(left_before), len(left)))
        for pid in after:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass


def test_ptx_form(rt, tmp):
    """ARCH written compute_75: the module is a fatbin with that PTX (a
    newer GPU compiles it when loading, and runs the T4's source path), as
    the labs' builds carry PTX; 75 alone stays a cubin without PTX."""
    from grader import compiler, entries, machine
    for arch, ext, ptx in (("compute_75", "fatbin", [75]), ("75", "cubin",
                                                            None),
                           ("compute_80 90", "fatbin", [80, 90]),
                           ("80 90", "fatbin", [90])):
        out = os.path.join(tmp, "ptx-form", arch.replace(" ", "-") + "." +
                           compiler.module_ext(arch))
        c = compiler.compile_submission(rt.STARTER, out, arch)
        with open(out, "rb") as f:
            blob = f.read() if c.ok else b""
        got = None if blob[:4] == b"\x7fELF" else \
            entries.fatbin_ptx(blob) if blob else "none"
        rt.check(c.ok and out.endswith(ext) and got == ptx and
              machine.normalise_arch(arch) == arch, "ARCH=\"%s\": a %s, PTX "
              "%s (want %s); normalised %r" % (arch, ext, got, ptx,
                                               machine.normalise_arch(arch)))


# ---------------------------------------------------------------------------

def raw_controls(text):
    """The control and format characters in text, but newlines and tabs."""
    return sorted({"%r" % c for c in text if c not in "\n\t" and
                   unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")})


def test_clean(rt):
    from grader import clean
    s = "a\x1b[2Jb\x07c\rd\x00e\x7ff\x9bg\u202eh\u2028i\tj\nk"
    got = clean.text(s)
    rt.check(got == "a\\x1b[2Jb\\x07c\\x0dd\\x00e\\x7ff\\x9bg\\u202eh"
             "\\u2028i\tj\nk", "clean.text escapes ESC BEL CR NUL DEL C1 "
             "bidi and separators visibly, keeps tabs and newlines: %r" % got)
    rt.check(clean.line("a\nb") == "a\\x0ab" and clean.cell("x\ty\n") ==
             "x\ty\\x0a" and clean.from_bytes(b"ok\xff\x1b") ==
             "ok\\xff\\x1b", "clean.line, clean.cell, clean.from_bytes")
    rt.check(clean.data({"k\x1b": ["v\x07", 3, {"w": "\u202e"}]}) ==
             {"k\\x1b": ["v\\x07", 3, {"w": "\\u202e"}]},
             "clean.data cleans every string of a JSON value, keys too")
    rt.check(rt.reports.neutralise(clean.cell("=1+1")) == "'=1+1" and
             clean.cell("=1+1") == "=1+1", "cleaning and the formula guard "
             "are separate: a clean cell may still need the guard")


def test_control_bytes(rt, tmp):
    """A compile error quoting escape sequences, a BEL in answer.txt, a bidi
    override in a folder's name: no output holds a raw control byte. The
    compile is real (nvcc's preprocessor stops at #error)."""
    klass = os.path.join(tmp, "controls")
    evil = "evil\u202e\x1b[31m"
    os.makedirs(os.path.join(klass, evil))
    with open(os.path.join(klass, evil, "threeway.cu"), "wb") as f:
        f.write(b'#error "\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x9b"\n')
    with open(os.path.join(klass, evil, "answer.txt"), "wb") as f:
        f.write(b"It is stable\x07 and\r hidden\x1b[8m.\n")
    os.makedirs(os.path.join(klass, "starter"))     # one that compiles
    shutil.copy(rt.STARTER, os.path.join(klass, "starter", "threeway.cu"))
    out = os.path.join(tmp, "controls-out")
    rc, text = rt.grade([klass, "--out", out, "--build-only", "--arch", "75",
                         "--seed", "7"])
    found = {"console": raw_controls(text)}
    for dirpath, _, files in os.walk(out):
        for name in files:
            if name.endswith((".csv", ".txt", ".json")):
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8", errors="replace",
                          newline="") as f:
                    body = f.read()
                if name.endswith(".csv"):
                    body = body.replace("\r\n", "\n")  # CSV's own line ends
                found[os.path.relpath(path, out)] = raw_controls(body)
    bad = {k: v for k, v in found.items() if v}
    rows = rt.read_rows(out)
    r = rows[0] if rows else {}     # "evil..." sorts before "starter"
    rt.check(rc == 0 and len(found) >= 6 and not bad, "control bytes in a "
             "compile error, answer.txt and a name: none raw in %d outputs "
             "(console, %s)%s" % (len(found), ", ".join(sorted(
                 k for k in found if k != "console")[:6]),
                 ": raw in %s" % bad if bad else ""))
    folder = os.path.join(out, ".grader", "modules")
    modules = os.listdir(folder) if os.path.isdir(folder) else []
    rt.check(rc == 0 and len(rows) == 2 and rows[1].get("reason") ==
             "not_run" and not modules, "--build-only leaves no module in "
             "OUT/.grader/modules (%d left)" % len(modules))
    rt.check(r.get("reason") == "compile_error" and
             "\\x1b" in r.get("detail", "") and
             "\\x07" in r.get("answer", "") and
             "\\u202e" in r.get("submission", ""), "...and shown as visible "
             "escapes: detail %r, answer %r" % (r.get("detail", "")[:60],
                                                r.get("answer", "")))


# ---------------------------------------------------------------------------

def test_layouts(rt, tmp):
    listing = rt.listing
    root = os.path.join(tmp, "layouts")

    def student(*path, kernel=True):
        folder = os.path.join(root, *path)
        os.makedirs(folder, exist_ok=True)
        if kernel:
            with open(os.path.join(folder, "threeway.cu"), "w") as f:
                f.write("// %s\n" % "/".join(path))

    student("class1", "alice")
    student("class1", "day33-exercise-threeway")
    student("class1", "threeway.cu")
    kind, subs, _ = listing.list_class(os.path.join(root, "class1"))
    names = sorted(s.name for s in subs)
    rt.check(kind == "folders" and names == ["alice",
                                             "day33-exercise-threeway",
                                             "threeway.cu"] and
             all(s.kernel for s in subs), "a class with students' folders "
             "named day33-exercise-threeway and threeway.cu is a class of "
             "3: %s %s" % (kind, names))
    student("class2", "bob")
    student("class2", "threeway.cu")
    kind, subs, _ = listing.list_class(os.path.join(root, "class2"))
    rt.check(kind == "folders" and len(subs) == 2, "a student's folder "
             "named threeway.cu beside another: a class of 2 (%s, %d)"
             % (kind, len(subs)))
    student("class3", "carol", "threeway.cu")     # a folder named threeway.cu
    student("class3", "dave")
    kind, subs, _ = listing.list_class(os.path.join(root, "class3"))
    carol = [s for s in subs if s.name == "carol"]
    rt.check(kind == "folders" and carol and carol[0].kernel and
             carol[0].kernel.endswith(os.path.join("threeway.cu",
                                                   "threeway.cu")),
             "a folder named threeway.cu inside a student's folder is looked "
             "into, not taken for the kernel")
    student("clone", "day33-exercise-threeway")
    student("clone", "harness", kernel=False)
    student("clone", "day31-scan", kernel=False)
    kind, subs, _ = listing.list_class(os.path.join(root, "clone"))
    rt.check(kind == "one" and len(subs) == 1, "a clone of the course "
             "(day33-exercise-threeway/threeway.cu, no other kernel) is one "
             "submission: %s, %d" % (kind, len(subs)))
    student("one")
    kind, subs, _ = listing.list_class(os.path.join(root, "one"))
    rt.check(kind == "one", "a folder holding threeway.cu is one submission")


def test_index(rt):
    """The judge's lookups by run: linear in the plan's runs (a plan of
    20000 runs looked up in a second or less; a scan of every event for
    each run takes minutes)."""
    r = rt.running.Run("big")
    n = 20000
    r.add({"event": "begin", "runs": n})
    for k in range(n):
        r.add({"event": "start", "run": k, "label": "n=%d" % k})
        r.add({"event": "result", "run": k, "status": "pass"})
    t0 = time.monotonic()
    hits = sum(1 for k in range(n) if r.first("result", run=k) and
               r.first("start", run=k))
    took = time.monotonic() - t0
    rt.check(hits == n and took < 5.0 and r.first("result", run=n) is None
             and len(r.find("start")) == n and
             r.first("result", run=3, status="fail") is None,
             "events indexed: %d runs looked up in %.3f s" % (n, took))
    r.add({"event": "result", "run": n, "status": "pass"})
    rt.check(r.first("result", run=n) is not None, "the index follows new "
             "events")


def test_staller_forms(rt, tmp):
    """stallers.py's memory staller: the corpus's 384 KiB a thread leaves
    the class its headroom on an H200 and not on an 80 GB H100, where the
    192 KiB form stands in under the same name (256 KiB was refused beside
    the class there); none on a 16 GB card; that form compiles."""
    stallers = rt.stallers
    line = "GPU: X (compute capability 9.0, 132 SMs), driver CUDA 13.0"
    saved = stallers.subprocess.run
    try:
        for mib, kib, want in ((143771, 384, True), (81559, 384, False),
                               (81559, 256, False), (81559, 224, False),
                               (81559, 192, True), (15360, 32, False)):
            stallers.subprocess.run = (
                lambda *a, _m=mib, **k: subprocess.CompletedProcess(
                    a, 0, stdout="%d\n" % _m))
            got = stallers.memory_reserve_fits(line, kib)
            rt.check(got is want, "stall_memory's %d KiB a thread on %d MiB "
                     "and 132 SMs: fits %s (want %s)" % (kib, mib, got, want))
        for mib, want in ((143771, 384), (81559, 192), (15360, None)):
            stallers.subprocess.run = (
                lambda *a, _m=mib, **k: subprocess.CompletedProcess(
                    a, 0, stdout="%d\n" % _m))
            got = stallers.memory_frame(line)
            rt.check(got == want, "stall_memory's frame on %d MiB: %s KiB "
                     "(want %s)" % (mib, got, want))
        stallers.subprocess.run = saved
        rt.check(stallers.memory_reserve_fits("no GPU line") is None and
                 stallers.memory_frame("no GPU line") == 384,
                 "stall_memory's fit unknown without the GPU line: the "
                 "corpus's form")
    finally:
        stallers.subprocess.run = saved
    klass = stallers.make_class(os.path.join(tmp, "staller-forms"), "stall",
                                ("stall_memory",), 192)
    small = os.path.join(klass, "stall_memory")
    with open(os.path.join(small, "threeway.cu")) as f:
        text = f.read()
    rt.check("scratch[49152]" in text and "98304" not in text and
             len(os.listdir(klass)) == stallers.COPIES + 1,
             "the 192 KiB form graded as stall_memory beside %d copies"
             % stallers.COPIES)
    out = os.path.join(tmp, "staller-80gb.cubin")
    p = subprocess.run([sys.executable, os.path.join(rt.HARNESS,
                                                     "grader", "compiler.py"),
                        os.path.join(small, "threeway.cu"), "--out", out,
                        "--arch", "90"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    rt.check(p.returncode == 0 and os.path.getsize(out) > 0,
             "the 192 KiB form compiles: %s" % p.stdout.strip()[-80:])
