"""machine: what grading needs from the machine, found or built once.

nvcc and compute-sanitizer; the GPU probe (harness/build/hx_probe, the
course's one test for a usable GPU: exit 0 and a "GPU: ..." line, or
exit 3 and one line saying why not); the driver
(day33-exercise-threeway/threeway, built by its Makefile, holding no
submission code); and the GPU lock files, one per GPU, that every driver
on the node shares (harness/hx_lock.h), on node-local storage.
"""

import os
import re
import shutil
import subprocess
import tempfile

from . import compiler

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.dirname(HERE)
REPO = os.path.dirname(HARNESS)
EXERCISE = os.path.join(REPO, "day33-exercise-threeway")
DRIVER = os.path.join(EXERCISE, "threeway")
REFERENCE = os.path.join(EXERCISE, "solution", "threeway.cu")
PROBE = os.path.join(HARNESS, "build", "hx_probe")
DEFAULT_ARCH = compiler.DEFAULT_ARCH   # --build-only's without --arch


class SetupError(Exception):
    """Grading cannot start or go on (never one submission's doing)."""


def find_nvcc(given):
    """nvcc's absolute path, found as compiler.find_nvcc finds it (--nvcc:
    a name on PATH or a path; the plain name nvcc, or none, also tries
    $CUDA_HOME/bin/nvcc and /usr/local/cuda/bin/nvcc); SetupError when
    there is none."""
    try:
        return compiler.find_nvcc(given)
    except compiler.CompilerUnavailable:
        raise SetupError("nvcc not found%s: put the CUDA Toolkit's bin "
                         "folder on PATH or pass --nvcc"
                         % (" as %r" % given if given else "")) from None


def find_sanitizer(given, nvcc):
    for cand in ([given] if given else
                 [os.path.join(os.path.dirname(nvcc), "compute-sanitizer"),
                  "compute-sanitizer"]):
        found = shutil.which(cand)
        if found:
            return os.path.abspath(found)
    raise SetupError("compute-sanitizer not found (it ships with the CUDA "
                     "Toolkit, next to nvcc): pass --sanitizer PATH, or "
                     "--no-sanitize to grade without it")


def normalise_arch(text):
    """"90", "sm_90", "75,80 90" -> "90" / "75 80 90" (compiler.parse_arch's
    reading; ValueError for anything else); a capability written
    compute_75 stays so (the module then carries its PTX:
    compiler.ptx_of)."""
    ptx = compiler.ptx_of(text)
    return " ".join("compute_" + n if n in ptx else n
                    for n in compiler.parse_arch(text.replace(",", " ")))


def _run(cmd, timeout, env=None):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout,
                           env=env, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SetupError("%s: %s" % (" ".join(cmd), e))
    return p.returncode, p.stdout.decode("utf-8", "replace")


# GRADE_NO_BUILD=1 in the environment (a Slurm array's tasks): the probe
# and the driver must be built already; the tool never runs make, which in
# a repository the tasks share would build at once in several of them, or
# again whenever a node's nvcc path differs from where they were built.
NO_BUILD = "GRADE_NO_BUILD"


def _prebuilt(path, how):
    if os.environ.get(NO_BUILD) != "1":
        return False
    if not os.access(path, os.X_OK):
        raise SetupError("%s is not built, and %s=1 says not to build it "
                         "here: build it once first (%s)" % (
                             os.path.relpath(path, REPO), NO_BUILD, how))
    return True


def probe_gpus(gpus, nvcc, then=None):
    """[(gpu, line, cc)] for each GPU of --gpus (None: the default one):
    cc "90" when usable, None with the probe's one line when not.
    then(): called once the probe is built, before it runs."""
    rc, text = (0, "") if _prebuilt(PROBE, "make -C harness probe") else \
        _run(["make", "--no-print-directory", "-C", HARNESS, "probe",
              "NVCC=" + nvcc], 600)
    if rc != 0 or not os.access(PROBE, os.X_OK):
        raise SetupError("building the GPU probe (make -C harness probe) "
                         "failed:\n" + text[-3000:])
    if then:
        then()
    found = []
    for gpu in gpus:
        env = dict(os.environ)
        if gpu is not None:
            env["CUDA_VISIBLE_DEVICES"] = gpu
        rc, text = _run([PROBE], 120, env)
        line = (text.strip().splitlines() or ["(no output)"])[-1].strip()
        if rc == 3:
            found.append((gpu, line, None))
            continue
        m = re.search(r"compute capability (\d+)\.(\d+)", text)
        if rc != 0 or not m:
            raise SetupError("the GPU probe exited %d: %s" % (rc, line))
        found.append((gpu, line, m.group(1) + m.group(2)))
    return found


def build_driver(arch, nvcc, jobs):
    """Builds ./threeway for arch with the exercise's Makefile (make
    reuses what is up to date). Returns the driver's path."""
    if _prebuilt(DRIVER, "make -C day33-exercise-threeway threeway "
                 "ARCH=\"%s\"" % arch):
        return DRIVER
    cmd = ["make", "--no-print-directory", "-j%d" % max(jobs, 1), "-C",
           EXERCISE, "threeway", "ARCH=" + arch, "NVCC=" + nvcc]
    rc, text = _run(cmd, 3600)
    if rc != 0 or not os.access(DRIVER, os.X_OK):
        raise SetupError("building the driver failed: %s\n%s"
                         % (" ".join(cmd), text[-3000:]))
    return DRIVER


# The GPU lock files' folder: node-local, shared by every grading run and
# every user on the node (never OUT, which on a cluster is a shared file
# system where two nodes' runs would exclude each other, and never
# $TMPDIR, which a cluster often makes per job, so that two jobs on one
# node would not). /run/lock first: Slurm's job_container/tmpfs gives each
# job a /tmp and a /dev/shm of its own. The first that this user may
# write; HX_LOCK_DIR in the environment overrides them.
LOCK_DIRS = ("/run/lock", "/var/lock", "/dev/shm", "/tmp")
UUID = re.compile(r"\b(GPU-[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-"
                  r"[0-9a-fA-F]{12})\b")


def gpu_uuid(probe_line):
    """The GPU's UUID ("GPU-8f0e...") from the probe's line, or None."""
    m = UUID.search(probe_line or "")
    return m.group(1) if m else None


def lock_dir():
    given = os.environ.get("HX_LOCK_DIR")
    for d in ([given] if given else []) + list(LOCK_DIRS):
        if os.path.isdir(d) and os.access(d, os.W_OK | os.X_OK):
            return d
    raise SetupError("no folder for the GPU lock files: set HX_LOCK_DIR to "
                     "a node-local folder this user may write")


def inputs_folder():
    """A fresh folder for one grading run's inputs, which every driver of
    the run shares (the driver's --input-cache): node-local, under
    TMPDIR (else /tmp), where a class's inputs (up to a few GiB, in the
    page cache while they are read) have room. The caller removes it."""
    return tempfile.mkdtemp(prefix="threeway-inputs-")


def lock_path(gpu, uuid=None, folder=None):
    """The lock file every driver on this GPU shares, whichever grading run
    or user started it: named by the GPU's UUID when the probe gave it,
    else by the CUDA_VISIBLE_DEVICES value (safe, if coarser: two jobs of
    a cluster that each see their GPU as "0" then share one lock). The
    file is created readable and writable by all (a lock another user
    made is used as it is); one this user cannot open for writing falls
    back to a name of this user's own."""
    folder = folder or lock_dir()
    name = uuid or ("visible-" + ("default" if gpu is None else
                                  re.sub(r"[^A-Za-z0-9_-]", "_", gpu)))
    path = os.path.join(folder, "threeway-%s.lock" % name)
    for cand in (path, "%s.uid%d" % (path, os.getuid())):
        try:
            fd = os.open(cand, os.O_RDWR | os.O_CREAT |
                         getattr(os, "O_NOFOLLOW", 0), 0o666)
        except OSError:
            continue
        try:
            if os.fstat(fd).st_uid == os.getuid():
                os.fchmod(fd, 0o666)
        finally:
            os.close(fd)
        return cand
    raise SetupError("cannot open a GPU lock file in %s: set HX_LOCK_DIR "
                     "to a node-local folder this user may write" % folder)
