#!/usr/bin/env python3
"""compiler.py: compiles one submission's threeway.cu to a device module,
and nothing else.

The one rule: no host code from a submission is ever compiled for the
host, linked or run. The file is copied (a regular file, never a link) into
a fresh empty folder and compiled there with `nvcc -cubin` (one
architecture) or `nvcc -fatbin` (several), with no -I into the course. The
course's driver (day33-exercise-threeway/driver.cu) loads the module and
launches `scatterThreeWay` by its mangled name. The grading tool and the
student's own `make` call this same function, so what a student sees is
what the grader sees.

The compile itself lists the files it reads: the preprocessor of each
device pass prints its include trace (gcc's -H: a line per file it
enters, as it enters it, so the list is whole up to the point where the
preprocessor stopped, even when it stopped on an error inside that file).
Each path is judged on its real path: allowed are the CUDA Toolkit's
include folders (next to the nvcc used: CUB, Thrust and
cooperative_groups live there), the host compiler's own system folders
(which cuda_runtime.h pulls in) and the copy of threeway.cu itself.
Anything else is `forbidden_include`, named by its path and never shown,
whatever else the compile did (failed, hit a limit, or succeeded: the
module is then thrown away). No host pass runs (-cubin and -fatbin
compile device code only), so the trace is every file the module is
made from. A file the preprocessor cannot read to its end (a device such
as /dev/zero, a pipe) is never entered: the compile stops at its memory
or time limit instead (compile_limit or compile_timeout), with nothing of
the file shown.

Every nvcc process runs under a wall-clock limit (its whole process group
is killed), an address-space limit, a file-size limit (its output and its
messages) and no core dumps. Messages shown to a student keep only the
lines about threeway.cu (and ptxas's own lines), capped in length.

Standard library only, Python 3.8 or newer; runs as a script:
    python3 compiler.py SRC --out MODULE [--arch "75 80 90"|90|sm_90]
                        [--nvcc PATH] [--time-limit SEC]
exit 0 compiled (one line, after nvcc's warnings about threeway.cu, each
shown once, when there are any), 1 rejected ("threeway.cu rejected: <verdict>:
<message>"), 2 usage error or no usable nvcc. The script's time limit is
60 s per architecture unless --time-limit says otherwise (a CUB-heavy file
for three architectures on a slow machine takes minutes); the grading tool
passes its own.
"""

import argparse
import dataclasses
import glob
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from typing import List, Optional

try:
    from . import entries as module_entries     # within the grader package
except ImportError:                             # run as a script: no
    sys.dont_write_bytecode = True              # __pycache__ beside it
    import entries as module_entries

NAME = "threeway.cu"
ENTRY = "_Z15scatterThreeWayPKiS0_S0_PimS0_S0_"
ENTRY_SIGNATURE = ("scatterThreeWay(const int*, const int*, const int*, "
                   "int*, size_t, const int*, const int*)")
DEFAULT_ARCH = "75 80 90"       # every GPU of the course, as harness.mk
SOURCE_MAX = 1 << 20            # bytes: a larger threeway.cu is refused
FLAGS = ["-O3", "-std=c++17"]   # the same for every submission
MESSAGE_LINES = 40              # of compiler diagnostics shown
MESSAGE_CHARS = 4000
LOG_READ = 1 << 20              # bytes of a compiler log read back
VERDICTS = ("no_file", "compile_error", "forbidden_include", "signature",
            "compile_timeout", "compile_limit")
# Phrases the compiler tools print when an allocation fails (gcc, cicc,
# cudafe++, ptxas, the C++ runtime): the address-space limit was hit.
OUT_OF_MEMORY = ("virtual memory exhausted", "out of memory",
                 "cannot allocate memory", "std::bad_alloc")


@dataclasses.dataclass
class Compiled:
    """What compile_submission did. verdict is None when ok, else one of
    VERDICTS; message is what the student is shown; module the path written
    (None unless ok); includes the real paths the preprocessor read;
    entries the module's kernel entries (mangled), once it was built."""
    ok: bool
    verdict: Optional[str]
    message: str
    module: Optional[str] = None
    includes: List[str] = dataclasses.field(default_factory=list)
    entries: List[str] = dataclasses.field(default_factory=list)
    seconds: float = 0.0
    warnings: str = ""      # when ok: the compiler's warnings about
                            # threeway.cu, as student_lines shows them


class CompilerUnavailable(Exception):
    """nvcc (or the host compiler it uses) cannot be found or run: the
    machine's problem, never a submission's verdict."""


def parse_arch(arch):
    """"75 80 90", "90", "sm_90", "compute_90" or a list of those: the
    compute capabilities as strings of digits, in order, without repeats.
    Raises ValueError for anything else."""
    words = arch.split() if isinstance(arch, str) else [str(a) for a in arch]
    out = []
    for w in words:
        m = re.fullmatch(r"(?:sm_|compute_)?([1-9][0-9]{1,2}[a-z]?)", w)
        if not m:
            raise ValueError("ARCH wants compute capabilities such as "
                             "\"75 80 90\", 86 or sm_86, not %r" % w)
        if m.group(1) not in out:
            out.append(m.group(1))
    if not out:
        raise ValueError("ARCH is empty: give at least one compute "
                         "capability, e.g. 90")
    return out


def ptx_of(arch):
    """The compute capabilities ARCH writes in the PTX form, compute_86:
    the module carries their PTX too, which a newer GPU compiles when it
    loads the module (with __CUDA_ARCH__ that capability's), as the labs'
    builds carry PTX (harness.mk). A list of numbers (parse_arch's
    reading) has none."""
    words = arch.replace(",", " ").split() if isinstance(arch, str) \
        else [str(a) for a in arch]
    return [n for n in parse_arch(words) if "compute_" + n in words]


def arch_flags(archs, ptx=()):
    """-cubin for one architecture (and no PTX form); else -fatbin with one
    -gencode each, plus PTX for the last (so later GPUs can compile it
    when loading) and for each of ptx."""
    if len(archs) == 1 and not ptx:
        return ["-cubin", "-arch=sm_%s" % archs[0]]
    flags = ["-fatbin"]
    for a in archs:
        flags += ["-gencode", "arch=compute_%s,code=sm_%s" % (a, a)]
    for a in archs:
        if a == archs[-1] or a in ptx:
            flags += ["-gencode", "arch=compute_%s,code=compute_%s" % (a, a)]
    return flags


def describe_arch(archs, ptx=()):
    text = " ".join("sm_%s" % a for a in archs)
    if len(archs) == 1 and not ptx:
        return text
    return text + " + PTX " + " ".join(
        "compute_%s" % a for a in archs if a == archs[-1] or a in ptx)


# ---- the limited process ------------------------------------------------

# The limits are set by a small exec wrapper, not by preexec_fn: the
# grading tool compiles and runs its drivers from threads, and Python code
# run between fork and exec in a threaded program can deadlock. Its
# arguments: the address space in bytes (0: left as it is), the file size
# in bytes, the nice increment, then the command. No core files; a limit
# above the hard one is lowered to it. Python ignores SIGPIPE and SIGXFSZ
# and an exec keeps what is ignored, so the command gets both back at
# their defaults, as subprocess gives them: a file over its limit stops it
# by SIGXFSZ. A command that cannot be started is reported on stderr,
# after CANNOT_RUN, with exit code 127.
CANNOT_RUN = "limit wrapper: cannot run "   # as LIMIT_WRAPPER writes it
LIMIT_WRAPPER = r"""
import os, resource, signal, sys
def cap(which, v):
    hard = resource.getrlimit(which)[1]
    if hard != resource.RLIM_INFINITY:
        v = min(v, hard)
    resource.setrlimit(which, (v, v))
mem, fsize, nice = (int(a) for a in sys.argv[1:4])
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
if mem:
    cap(resource.RLIMIT_AS, mem)
cap(resource.RLIMIT_FSIZE, fsize)
if nice:
    os.nice(nice)
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
try:
    os.execvp(sys.argv[4], sys.argv[4:])
except OSError as e:
    sys.stderr.write("limit wrapper: cannot run %s: %s\n" % (sys.argv[4], e))
    sys.exit(127)
"""


# ---- what must not outlive the tool ------------------------------------

# Every process group this tool starts (compiles and drivers alike) and
# every scratch folder it makes, until they end: stop_all() kills and
# removes them when the tool is stopped (SIGINT, SIGTERM), so that no
# nvcc, cicc (gigabytes each) or driver outlives it, and no scratch
# folder is left. Once stopping, nothing new starts.
_LIVE = {"groups": set(), "folders": set(), "stopping": False}
_LIVE_LOCK = threading.Lock()


class Stopping(Exception):
    """The tool is stopping: no process or folder may be started."""


def _refuse_if_stopping():
    """Under _LIVE_LOCK: raises Stopping once stop_all() has run."""
    if _LIVE["stopping"]:
        raise Stopping("the grading tool is stopping")


def start_group(*popen_args, **popen_kwargs):
    """subprocess.Popen in a process group of its own, recorded until
    end_group(proc.pid). Raises Stopping once stop_all() has run."""
    with _LIVE_LOCK:
        _refuse_if_stopping()
        proc = subprocess.Popen(*popen_args, start_new_session=True,
                                **popen_kwargs)
        _LIVE["groups"].add(proc.pid)
    return proc


def kill_group(pgid):
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def end_group(pgid):
    """Kills whatever is left of the group and forgets it."""
    kill_group(pgid)
    with _LIVE_LOCK:
        _LIVE["groups"].discard(pgid)


def scratch_folder(prefix, parent=None):
    """tempfile.mkdtemp, recorded until remove_folder()."""
    with _LIVE_LOCK:
        _refuse_if_stopping()
        path = tempfile.mkdtemp(prefix=prefix, dir=parent)
        _LIVE["folders"].add(path)
    return path


def remove_folder(path):
    shutil.rmtree(path, ignore_errors=True)
    with _LIVE_LOCK:
        _LIVE["folders"].discard(path)


def stop_all():
    """Kills every process group under way and removes every scratch
    folder; from now on nothing starts. For the tool's signal handler."""
    with _LIVE_LOCK:
        _LIVE["stopping"] = True
        groups, folders = list(_LIVE["groups"]), list(_LIVE["folders"])
    for pgid in groups:
        kill_group(pgid)
    # A compile thread woken by its group's death may still write into
    # its folders (a log) while they are removed: remove until gone
    # (nothing new starts now; at most a second a folder).
    for path in folders:
        for _ in range(100):
            shutil.rmtree(path, ignore_errors=True)
            if not os.path.lexists(path):
                break
            time.sleep(0.01)


def limited(cmd, fsize, mem=0, nice=0):
    """cmd, as run under LIMIT_WRAPPER's limits."""
    return [sys.executable, "-I", "-S", "-c", LIMIT_WRAPPER, str(mem),
            str(fsize), str(nice)] + list(cmd)


class _Ran:
    def __init__(self, rc, log, timed_out):
        self.rc, self.log, self.timed_out = rc, log, timed_out

    def hit_limit(self):
        """The output cap (SIGXFSZ) or the address-space limit."""
        if self.rc == -signal.SIGXFSZ:
            return True
        low = self.log.lower()
        return self.rc != 0 and any(p in low for p in OUT_OF_MEMORY)


def _run_limited(cmd, cwd, env, log_path, time_limit, mem_limit, out_cap,
                 nice=0):
    """Runs cmd in its own process group under the limits
    (LIMIT_WRAPPER) with stdin from /dev/null and stdout and stderr into
    log_path, nice added to its nice value; kills the whole group at
    time_limit seconds. Returns a _Ran whose log is the first LOG_READ
    bytes; CompilerUnavailable when cmd cannot be started."""
    timed_out = False
    with _LIVE_LOCK:
        _refuse_if_stopping()
    with open(log_path, "wb") as log:
        try:
            proc = start_group(limited(cmd, out_cap, mem_limit, nice),
                               cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                               stdout=log, stderr=subprocess.STDOUT)
        except OSError as e:
            raise CompilerUnavailable("cannot run %s: %s" % (cmd[0], e))
        try:
            proc.wait(timeout=max(time_limit, 0.1))
        except subprocess.TimeoutExpired:
            timed_out = True
        # The group outlives nvcc when a child hangs: kill whatever is left.
        kill_group(proc.pid)
        rc = proc.wait()
        end_group(proc.pid)
    with open(log_path, "rb") as f:
        text = f.read(LOG_READ).decode("utf-8", "replace")
    if rc == 127 and text.startswith(CANNOT_RUN):
        raise CompilerUnavailable(text.splitlines()[0][len(CANNOT_RUN):])
    return _Ran(rc, text, timed_out)


# ---- what the student is shown ------------------------------------------

_EDG = re.compile(r"^threeway\.cu\((\d+)\): (.*)$")       # cudafe++, cicc
_GCC = re.compile(r"^threeway\.cu:(\d+)(?::\d+)?: ?(.*)$")  # the preprocessor


def student_lines(log):
    """The diagnostics about threeway.cu alone, as "threeway.cu:LINE: ...",
    each with the indented lines that follow it (the quoted source line of
    threeway.cu and its caret), plus ptxas's own lines. Every line about
    another path is dropped with what follows it: no other file's text is
    ever shown. Capped at MESSAGE_LINES lines and MESSAGE_CHARS chars."""
    kept, dropped, keep_tail = [], 0, False
    for line in log.splitlines():
        if _TRACE.match(line.encode("utf-8", "replace")):
            continue            # the include trace (-H), judged apart
        m = _EDG.match(line) or _GCC.match(line)
        if m:
            kept.append("%s:%s: %s" % (NAME, m.group(1), m.group(2)))
            keep_tail = True
        elif line.startswith("ptxas"):
            kept.append(line)
            keep_tail = False
        elif keep_tail and line[:1] in (" ", "\t") and line.strip():
            kept.append(line.rstrip())
        else:
            keep_tail = False
            dropped += bool(line.strip())
    text, shown = [], 0
    for line in kept:
        if len(text) >= MESSAGE_LINES or shown + len(line) > MESSAGE_CHARS:
            break
        text.append(line)
        shown += len(line) + 1
    more = len(kept) - len(text)
    if more:
        text.append("(%d more lines not shown)" % more)
    if dropped and not text:
        text.append("(the compiler's messages name no line of %s)" % NAME)
    return "\n".join(text)


def _once(text):
    """text without its repeated messages: a message is a line that does
    not start with white space and the indented lines after it."""
    blocks, seen = [], set()
    for line in text.splitlines():
        if blocks and line[:1] in (" ", "\t"):
            blocks[-1].append(line)
        else:
            blocks.append([line])
    kept = []
    for b in blocks:
        key = "\n".join(b)
        if key not in seen:
            seen.add(key)
            kept.append(key)
    return "\n".join(kept)


# ---- include roots ------------------------------------------------------

_roots_cache = {}


def _toolkit_roots(nvcc_path):
    """The CUDA Toolkit's include folders next to this nvcc, real paths."""
    top = os.path.dirname(os.path.dirname(os.path.realpath(nvcc_path)))
    found = [os.path.join(top, "include")]
    found += glob.glob(os.path.join(top, "targets", "*", "include"))
    return [os.path.realpath(p) for p in found if os.path.isdir(p)]


def _host_compiler(env):
    """The host compiler nvcc runs: NVCC_CCBIN when set (a compiler or a
    folder holding gcc), else gcc on the PATH, as nvcc itself does."""
    ccbin = env.get("NVCC_CCBIN") or "gcc"
    if os.path.isdir(ccbin):
        ccbin = os.path.join(ccbin, "gcc")
    found = shutil.which(ccbin, path=env.get("PATH"))
    if not found:
        raise CompilerUnavailable("nvcc's host compiler %s is not on the "
                                  "PATH" % ccbin)
    return found


def _host_roots(cc, env, scratch):
    """The host compiler's system include folders, from its own report
    (cc -xc++ -E -v /dev/null), real paths."""
    log = os.path.join(scratch, "host-includes.log")
    ran = _run_limited([cc, "-xc++", "-E", "-v", os.devnull], scratch, env,
                       log, 30, 2 << 30, 1 << 20)
    if ran.rc != 0:
        raise CompilerUnavailable("%s -E -v failed (exit %d)" % (cc, ran.rc))
    roots, inside = [], False
    for line in ran.log.splitlines():
        if line.startswith("#include <...> search starts here"):
            inside = True
        elif line.startswith("End of search list"):
            break
        elif inside and line.startswith(" "):
            path = line.strip()
            if path.endswith("(framework directory)"):
                continue
            roots.append(os.path.realpath(path))
    if not roots:
        raise CompilerUnavailable("%s -E -v listed no system include "
                                  "folder" % cc)
    return roots


def allowed_roots(nvcc_path, env, scratch):
    """Every folder a submission may include from (cached per compiler)."""
    cc = _host_compiler(env)
    key = (os.path.realpath(nvcc_path), os.path.realpath(cc))
    if key not in _roots_cache:
        _roots_cache[key] = _toolkit_roots(nvcc_path) + _host_roots(
            cc, env, scratch)
    return _roots_cache[key]


_TRACE = re.compile(rb"^\.+ (.+?)\r?$")


def include_trace(log_path, cwd):
    """{real path: the path as the preprocessor opened it} for every file
    it entered, from its include trace in log_path (-H: per file, as many
    dots as its depth, a space, the path, relative to cwd when not
    absolute). The whole log is read, however long: a trace line past any
    cap would be a file let through unjudged."""
    paths = {}
    with open(log_path, "rb") as f:
        for line in f:
            m = _TRACE.match(line.rstrip(b"\n"))
            if m:
                opened = os.fsdecode(m.group(1))
                paths.setdefault(os.path.realpath(os.path.join(cwd, opened)),
                                 opened)
    return paths


def _named(real, opened):
    """A forbidden path as the verdict names it: the real path, and the
    path as opened when that differs (a link, "..", /dev/stdin)."""
    plain = os.path.normpath(opened)
    return real if plain == real else "%s (opened as %s)" % (real, plain)


def _under(path, roots):
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep)
               for r in roots)


# ---- the compile ----------------------------------------------------------

def _copy_source(src, dest):
    """Copies src to dest as a regular file. Returns None, or the Compiled
    that refuses it (missing, a link, not a regular file, too large)."""
    try:
        st = os.lstat(src)
    except OSError:
        return Compiled(False, "no_file", "no %s (nothing to compile)" % NAME)
    if stat.S_ISLNK(st.st_mode):
        return Compiled(False, "no_file", "%s is a symbolic link; submit "
                        "the file itself" % NAME)
    if not stat.S_ISREG(st.st_mode):
        return Compiled(False, "no_file", "%s is not a regular file" % NAME)
    try:
        fd = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as e:
        return Compiled(False, "no_file", "%s cannot be read (%s)"
                        % (NAME, e.strerror))
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            return Compiled(False, "no_file", "%s is not a regular file"
                            % NAME)
        data = f.read(SOURCE_MAX + 1)
    if len(data) > SOURCE_MAX:
        return Compiled(False, "compile_limit", "%s is larger than %d KiB"
                        % (NAME, SOURCE_MAX >> 10))
    with open(dest, "wb") as f:
        f.write(data)
    return None


def _limit_verdict(ran, what, time_limit, mem_limit, out_cap):
    """The Compiled for a process that hit a limit, or None."""
    if ran.timed_out:
        return Compiled(False, "compile_timeout", "the %s took longer than "
                        "%g s and was stopped" % (what, time_limit))
    if ran.hit_limit():
        return Compiled(False, "compile_limit", "the %s hit its limits (%s "
                        "of memory, %s of output) and was stopped"
                        % (what, _bytes(mem_limit), _bytes(out_cap)))
    return None


def _bytes(n):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return "%g %s" % (round(n / (1 << shift), 1), unit)
    return "%d bytes" % n


def _nvcc_env(work):
    """nvcc's environment: the PATH (for the host compiler) and the choice
    of host compiler, nothing that adds include folders or flags (CPATH,
    NVCC_PREPEND_FLAGS, ...); its temporary files go to work."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C",
           "TMPDIR": work}
    if os.environ.get("NVCC_CCBIN"):
        env["NVCC_CCBIN"] = os.environ["NVCC_CCBIN"]
    return env


def find_nvcc(nvcc="nvcc"):
    """nvcc's absolute path, the one finder of the grading tool: nvcc (a
    name on the PATH or a path); when it is the plain name nvcc (or
    empty), also $CUDA_HOME/bin/nvcc, then /usr/local/cuda/bin/nvcc.
    CompilerUnavailable when there is none."""
    cands = [nvcc] if nvcc else []
    if nvcc in (None, "", "nvcc"):
        home = os.environ.get("CUDA_HOME")
        cands += ["nvcc"] + ([os.path.join(home, "bin", "nvcc")] if home
                             else []) + ["/usr/local/cuda/bin/nvcc"]
    for cand in cands:
        found = shutil.which(cand)
        if found:
            return os.path.abspath(found)
    raise CompilerUnavailable("nvcc not found (%s): put the CUDA "
                              "Toolkit's bin folder on the PATH or pass "
                              "its path" % (nvcc or "nvcc"))


def module_ext(arch):
    """The module's kind for ARCH (parse_arch's forms): "cubin" for one
    architecture not written compute_NN, "fatbin" for several or for a
    PTX form. The one rule in Python; the exercise's Makefile states the
    same rule in make (MOD_EXT)."""
    return "cubin" if len(parse_arch(arch)) == 1 and not ptx_of(arch) \
        else "fatbin"


def compile_submission(src, out_module, arch, nvcc="nvcc", scratch=None,
                       time_limit=60, mem_limit=4 << 30, out_cap=64 << 20,
                       nice=0):
    """Compiles src (a threeway.cu) to the device module out_module for
    arch (see parse_arch): a cubin for one architecture, a fatbin for
    several or where a word is written compute_NN (with that PTX; see
    ptx_of). Returns a Compiled; never runs anything built from src.
    scratch: the folder in which the fresh compile folders are made
    (default: the system's temporary folder). time_limit (seconds) covers
    the whole compile; mem_limit (bytes) is the address space of each
    compiler process, out_cap (bytes) the most any of them may write;
    nice is added to their nice value (the grading tool lowers the
    compiles' priority below its drivers'). Raises ValueError for a bad
    arch, CompilerUnavailable when nvcc or its host compiler cannot be
    found or run."""
    t0 = time.monotonic()
    archs = parse_arch(arch)
    nvcc_path = find_nvcc(nvcc)
    # The source alone in one folder (the compile's working folder, so
    # that "threeway.cu" names the copy); the compiler's files in another.
    src_dir = scratch_folder("threeway-src-", scratch)
    try:
        work = scratch_folder("threeway-work-", scratch)
    except BaseException:
        remove_folder(src_dir)
        raise
    try:
        result = _compile(src, out_module, archs, ptx_of(arch), nvcc_path,
                          src_dir, work, t0, time_limit, mem_limit, out_cap,
                          nice)
    finally:
        remove_folder(src_dir)
        remove_folder(work)
    result.seconds = time.monotonic() - t0
    return result


def _compile(src, out_module, archs, ptx, nvcc_path, src_dir, work, t0,
             time_limit, mem_limit, out_cap, nice):
    copy = os.path.join(src_dir, NAME)
    refused = _copy_source(src, copy)
    if refused:
        return refused
    env = _nvcc_env(work)
    flags = arch_flags(archs, ptx) + FLAGS
    left = lambda: time_limit - (time.monotonic() - t0)  # noqa: E731

    # 1. The module, device code only, with the preprocessor's include
    # trace. What it read is judged first, whatever else happened.
    ext = "fatbin" if flags[0] == "-fatbin" else "cubin"
    built = os.path.join(work, "module." + ext)
    log = os.path.join(work, "compile.log")
    ran = _run_limited([nvcc_path] + flags + ["-Xcompiler", "-H", NAME,
                                              "-o", built],
                       src_dir, env, log, left(), mem_limit, out_cap, nice)
    log_text = ran.log
    trace = include_trace(log, src_dir)
    includes = sorted(trace)
    roots = allowed_roots(nvcc_path, env, work)
    own = os.path.realpath(copy)
    forbidden = [_named(p, trace[p]) for p in includes
                 if p != own and not _under(p, roots)]
    if forbidden:
        return Compiled(False, "forbidden_include", "%s includes %s outside "
                        "the CUDA Toolkit and the compiler's system folders: "
                        "%s (only those headers may be included)"
                        % (NAME, "a file" if len(forbidden) == 1 else
                           "files", ", ".join(forbidden)), includes=includes)

    # 2. Its limits, then its errors: only lines about threeway.cu shown.
    bad = _limit_verdict(ran, "compile", time_limit, mem_limit, out_cap)
    if bad:
        bad.includes = includes
        return bad
    if ran.rc != 0 or not os.path.exists(built):
        return Compiled(False, "compile_error", "the compile failed:\n"
                        + student_lines(ran.log), includes=includes)

    # 3. Its entries: every machine-code image must hold the fixed one.
    with open(built, "rb") as f:
        blob = f.read()
    images = [(archs[0], blob)] if ext == "cubin" else \
        module_entries.fatbin_elves(blob)
    if images is None:
        # Compressed images: inspect a cubin of the last architecture,
        # compiled the same way (nvcc's own fatbin is what gets loaded).
        probe = os.path.join(work, "probe.cubin")
        ran = _run_limited([nvcc_path] + arch_flags(archs[-1:]) + FLAGS +
                           [NAME, "-o", probe], src_dir, env,
                           os.path.join(work, "probe.log"), left(),
                           mem_limit, out_cap, nice)
        bad = _limit_verdict(ran, "compile", time_limit, mem_limit, out_cap)
        if bad or ran.rc != 0:
            return bad or Compiled(False, "compile_error", "the compile "
                                   "failed:\n" + student_lines(ran.log))
        with open(probe, "rb") as f:
            images = [(archs[-1], f.read())]
    per_image = [(sm, module_entries.elf_entries(elf))
                 for sm, elf in images]
    entries = sorted({e for _, names in per_image for e in names})
    lacking = ["sm_%s" % sm for sm, names in per_image if ENTRY not in names]
    if lacking or not per_image:
        if entries:
            have = "; its kernels: " + ", ".join(
                module_entries.demangle(entries))
        else:
            have = "; it has no kernel at all (scatterThreeWay must be " \
                   "__global__)"
        where = "" if len(lacking) == len(per_image) else \
            " for %s" % " ".join(lacking)
        return Compiled(False, "signature", "%s defines no kernel %s%s "
                        "(mangled %s)%s" % (NAME, ENTRY_SIGNATURE, where,
                                            ENTRY, have),
                        includes=includes, entries=entries)

    # 4. In place atomically: a reader never sees half a module.
    out_dir = os.path.dirname(os.path.abspath(out_module))
    os.makedirs(out_dir, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".module-", dir=out_dir)
    with os.fdopen(fd, "wb") as f:
        f.write(blob)
    os.replace(tmp, out_module)
    # The compile's own messages (warnings) about threeway.cu, as its
    # errors would be shown; nothing when none names a line of it.
    # Each architecture's pass repeats them: each message is shown once.
    named = any(_EDG.match(line) or _GCC.match(line)
                for line in log_text.splitlines())
    warnings = _once(student_lines(log_text)) if named else ""
    return Compiled(True, None, "", module=out_module, includes=includes,
                    entries=entries, warnings=warnings)


def main(argv):
    p = argparse.ArgumentParser(
        prog="compiler.py",
        description="Compiles threeway.cu to a device module (device code "
        "only, includes from the CUDA Toolkit and the compiler's system "
        "folders only) and checks that it holds the kernel scatterThreeWay "
        "with the fixed signature.")
    p.add_argument("src", help="the threeway.cu to compile")
    p.add_argument("--out", required=True, metavar="MODULE",
                   help="the module to write (.cubin or .fatbin)")
    p.add_argument("--arch", default=DEFAULT_ARCH,
                   help='compute capabilities: "75 80 90" (a fatbin), 90 or '
                   'sm_90 (a cubin), compute_75 (a fatbin with PTX, which '
                   'a newer GPU compiles when loading); default '
                   '"%(default)s"')
    p.add_argument("--nvcc", default="nvcc", help="the nvcc to use")
    p.add_argument("--time-limit", type=float, metavar="SEC",
                   help="seconds the whole compile may take (default: 60 "
                   "per architecture)")
    try:
        a = p.parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    try:
        archs = parse_arch(a.arch)
        limit = a.time_limit if a.time_limit else 60.0 * len(archs)
        if limit <= 0:
            raise ValueError("--time-limit wants seconds above 0")
        c = compile_submission(a.src, a.out, a.arch, nvcc=a.nvcc,
                               time_limit=limit)
    except (ValueError, CompilerUnavailable) as e:
        print("compiler.py: %s" % e, file=sys.stderr)
        return 2
    if c.ok:
        if c.warnings:
            print("%s: nvcc's warnings:\n%s" % (NAME, c.warnings))
        print("compiled %s -> %s for %s (%.1f s)"
              % (a.src, a.out, describe_arch(archs, ptx_of(a.arch)),
                 c.seconds))
        return 0
    print("%s rejected: %s: %s" % (NAME, c.verdict, c.message))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
