#!/usr/bin/env python3
"""grade.py: grades a class of day 33 three-way submissions.

A submission is a folder holding threeway.cu (and optionally answer.txt);
a class is a folder of such folders. Each submission is compiled on its
own, checked for host code, linked with the course's driver (compiled
once per grading run) and run, each run in its own process, by the
driver's grade mode, which writes the verdict into a result file. The
verdict comes only from that file and from the checks of this tool, never
from what the submission prints. Documentation: harness/GRADING.md.

    python3 harness/grade.py CLASS [--out DIR] [--jobs N] [--gpus 0,1] ...
    python3 harness/grade.py merge OUT1 OUT2 ... --out DIR

Standard library only (python3 >= 3.8).
"""

import argparse
import concurrent.futures
import csv
import hashlib
import json
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

# ---------------------------------------------------------------------------
# The grading weights: the ONE place they live (mirrored in GRADING.md).
# Scores are points; a submission's score is the sum over its tests.
WEIGHTS = {
    "build": 5.0,          # threeway.cu compiles alone and links
    "signature": 5.0,      # defines the exact kernel scatterThreeWay
    "host_code": 5.0,      # defines no host code
    "run": 5.0,            # each run of RUN_PLAN (15 runs: 75 points)
    "performance": 10.0,   # x_copy against the reference's x_copy
}
# Performance: r = x_copy(submission) / x_copy(reference), both measured by
# this grading run on the same GPU. Full points when r <= PERF_FULL_AT, none
# when r >= PERF_ZERO_AT, linear in between. Only a submission whose every
# run passed is timed; pass or fail never depends on the time.
PERF_FULL_AT = 1.25
PERF_ZERO_AT = 3.0
# A timing shares the GPU with other runs' context creation and memory
# allocation (the GPU lock covers only their kernels and copies), which can
# slow either row of the ratio. A submission short of full points is timed
# again, up to PERF_TRIES timing runs in all, and keeps its best ratio.
PERF_TRIES = 3

# ---------------------------------------------------------------------------
# The run plan: every submission runs each line below, in order, each in its
# own process, and stops at the first run that does not pass. Columns: n,
# input mix (hx_mix_name in harness/hx_input.c), (blocks, threads per
# block): blocks 0 is the driver's normal grid of 256-thread blocks, SMALL
# the driver's small grid of 3 blocks of 64 threads. ODD_N is a random odd
# size drawn from the submission's seed. Sizes: 0 and 1 (edges), 257 (one
# 256-element scan tile plus one), 65537 (a third scan level), 16777217
# (2^24 + 1: a fourth scan level).
# Order: after n = 0, the mixed ("thirds") runs come first, so that the run
# reported is the most telling one: a positive base one slot early is a
# boundary error at n = 257, while with no negatives and no zeros (n = 1, or
# the all-positive mix) the same kernel writes out[-1].
# Every run launches the kernel twice on the same input (--repeat 2): if the
# two outputs differ the driver reports nondeterministic. The grader trusts
# that comparison inside one process; it does not compare processes.
ODD_N = "odd"
SMALL = (3, 64)
NORMAL = (0, 256)
RUN_PLAN = [
    (0, "thirds", NORMAL),
    (257, "thirds", NORMAL),
    (257, "thirds", SMALL),
    (65537, "thirds", NORMAL),
    (65537, "thirds", SMALL),
    (ODD_N, "thirds", NORMAL),
    (ODD_N, "thirds", SMALL),
    (16777217, "thirds", NORMAL),
    (16777217, "thirds", SMALL),
    (1, "thirds", NORMAL),
    (1, "all-positive", SMALL),
    (257, "ends", NORMAL),
    (257, "all-zero", SMALL),
    (257, "all-negative", NORMAL),
    (65537, "no-zeros", SMALL),
]
REPEAT = 2
# --sanitize: compute-sanitizer memcheck on this configuration, after the
# plan passed (memcheck sees reads and writes outside any allocation; the
# driver's guard regions see writes just outside the output).
SANITIZE_RUN = (65537, "thirds", SMALL)

# Verdicts (the reason column). status: pass, fail, or error (no_gpu: the
# environment, not the student; re-grade on a machine with a GPU).
REASONS = ("pass", "compile_error", "signature", "host_code", "timeout",
           "crash", "out_of_bounds", "unwritten", "boundary", "order",
           "mismatch", "nondeterministic", "no_gpu")
DRIVER_STATUSES = ("pass", "boundary", "order", "mismatch", "unwritten",
                   "out_of_bounds", "nondeterministic")
CSV_COLUMNS = ("submission", "status", "reason", "found_b1", "found_b2",
               "first_bad", "x_copy", "answer", "score", "max_score",
               "detail", "results")

KERNEL = ("scatterThreeWay(int const*, int const*, int const*, int*, "
          "unsigned long, int const*, int const*)")
KERNEL_MANGLED = "_Z15scatterThreeWayPKiS0_S0_PimS0_S0_"

CAP = 4096                      # bytes kept of each stream's head and tail
SOURCE_MAX = 1 << 20            # threeway.cu larger than this: rejected
ANSWER_MAX = 300                # characters kept of answer.txt's sentence
DEFAULT_ARCH = "75 80 90"

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
EXERCISE = os.path.join(REPO, "day33-exercise-threeway")


class GraderError(Exception):
    """The grading setup is broken (never the student's doing)."""


# ---------------------------------------------------------------------------
# Running a command: own process group, wall-clock limit, resource limits,
# output capped to the first and last CAP bytes of each stream.

# Applied in a small exec wrapper rather than preexec_fn: preexec_fn is not
# safe in a process with threads (the worker pool), and the wrapper costs a
# few milliseconds. RLIMIT_AS is not used: CUDA reserves tens of GiB of
# virtual address space at start-up and fails under it; RLIMIT_DATA counts
# only private writable memory. RLIMIT_NPROC is not used: it counts every
# thread of the user (CUDA starts several per process, and parallel runs
# share the user), so it fails runs at random, and a fork needs host code,
# which is rejected before anything runs.
LIMIT_WRAPPER = r"""
import os, resource, sys
def cap(res, v):
    if v <= 0:
        return
    soft, hard = resource.getrlimit(res)
    if hard != resource.RLIM_INFINITY:
        v = min(v, hard)
    resource.setrlimit(res, (v, v))
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
cap(resource.RLIMIT_FSIZE, int(sys.argv[1]))
cap(resource.RLIMIT_DATA, int(sys.argv[2]))
os.execv(sys.argv[3], sys.argv[3:])
"""


class Capped:
    """First and last CAP bytes of a stream, and its total length."""

    def __init__(self):
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, data):
        self.total += len(data)
        room = CAP - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > CAP:
                del self.tail[:len(self.tail) - CAP]

    def text(self):
        head = self.head.decode("utf-8", "replace")
        if self.total <= CAP:
            return head
        skipped = self.total - len(self.head) - len(self.tail)
        tail = self.tail.decode("utf-8", "replace")
        if skipped <= 0:
            return head + tail
        return "%s\n[... %d bytes left out ...]\n%s" % (head, skipped, tail)


def run_limited(cmd, cwd, timeout, env=None, fsize=64 << 20, data=0):
    """Runs cmd (a list) and returns a dict: rc (negative: the signal),
    timed_out, out, err (Capped), wall (s). Never raises for the child's
    behaviour; at the limit kills the whole process group."""
    full = [sys.executable, "-I", "-S", "-c", LIMIT_WRAPPER, str(fsize),
            str(data), cmd[0]] + list(cmd[1:])
    if not os.path.isabs(cmd[0]):
        found = shutil.which(cmd[0])
        if found is None:
            raise GraderError("command not found: %s" % cmd[0])
        full[7] = found
    start = time.monotonic()
    proc = subprocess.Popen(full, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    out, err = Capped(), Capped()
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, out)
    sel.register(proc.stderr, selectors.EVENT_READ, err)
    deadline = start + timeout
    timed_out = False
    try:
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                if not timed_out:
                    timed_out = True
                    kill_group(proc.pid)
                    # The pipes close once the group is dead; give them a
                    # moment, then stop reading whatever holds them open.
                    deadline = time.monotonic() + 2.0
                    continue
                break
            for key, _ in sel.select(min(left, 1.0)):
                chunk = os.read(key.fileobj.fileno(), 65536)
                if chunk:
                    key.data.add(chunk)
                else:
                    sel.unregister(key.fileobj)
        left = deadline - time.monotonic()
        try:
            proc.wait(timeout=max(left, 0.1) if not timed_out else 5)
        except subprocess.TimeoutExpired:
            timed_out = True
            kill_group(proc.pid)
            proc.wait()
    finally:
        sel.close()
        proc.stdout.close()
        proc.stderr.close()
        if proc.poll() is None:
            kill_group(proc.pid)
            proc.wait()
        else:
            # A finished leader may leave children behind in its group.
            kill_group(proc.pid)
    return {"rc": proc.returncode, "timed_out": timed_out, "out": out,
            "err": err, "wall": time.monotonic() - start}


def kill_group(pgid):
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# ---------------------------------------------------------------------------
# The GPU lock: checking runs share a GPU; a timing run's timed loops have
# it alone. The drivers take it themselves (--lock, harness/hx_lock.h),
# only around their GPU work: creating a CUDA context, which the driver
# does one process at a time (about 0.2 s each on an H200), and the host
# work of every run overlap, timing runs included. One lock file per GPU
# in the grading run's state folder; the kernel drops a dead run's lock.

def gpu_lock_path(cfg, gpu):
    name = "gpu-%s.lock" % (re.sub(r"[^A-Za-z0-9_-]", "_", gpu)
                            if gpu is not None else "default")
    return os.path.join(cfg.state, name)


# ---------------------------------------------------------------------------
# Small helpers.

def derive_seed(*parts):
    """A 48-bit seed from the parts (printed with every run)."""
    h = hashlib.sha256("/".join(str(p) for p in parts).encode("utf-8",
                                                                "replace"))
    return int(h.hexdigest()[:12], 16)


def display(name):
    """A name as text (undecodable bytes become U+FFFD)."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def safe_names(names):
    """Maps each submission name to a folder name under OUT made of
    [A-Za-z0-9._-] only, never hidden, unique within the class."""
    used, result = set(), {}
    for name in names:
        base = re.sub(r"[^A-Za-z0-9._-]", "_", display(name))[:80]
        if not base or base.startswith("."):
            base = "_" + base
        cand, k = base, 2
        while cand.lower() in used:
            cand, k = "%s~%d" % (base, k), k + 1
        used.add(cand.lower())
        result[name] = cand
    return result


def relative_paths(text, work):
    """Compiler messages with the grader's folders left out."""
    for path, short in ((work + os.sep, ""), (REPO + os.sep, "")):
        text = text.replace(path, short)
    return text


def trim_message(text, lines=40, size=4096):
    kept = text.splitlines()[:lines]
    out = "\n".join(kept)
    if len(out) > size:
        out = out[:size]
    if out != text.rstrip("\n"):
        out += "\n[... trimmed ...]"
    return out


def gencode(arch):
    caps = arch.split()
    flags = []
    for a in caps:
        flags += ["-gencode", "arch=compute_%s,code=sm_%s" % (a, a)]
    flags += ["-gencode", "arch=compute_%s,code=compute_%s" % (caps[-1],
                                                                caps[-1])]
    return flags


def detect_arch():
    """The local GPUs' compute capabilities ("90"), or DEFAULT_ARCH."""
    smi = shutil.which("nvidia-smi")
    if smi:
        try:
            p = subprocess.run([smi, "--query-gpu=compute_cap",
                                "--format=csv,noheader"],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, timeout=30)
            caps = sorted({l.strip().replace(".", "")
                           for l in p.stdout.decode().splitlines()
                           if re.fullmatch(r"\d+\.\d+", l.strip())}, key=int)
            if p.returncode == 0 and caps:
                return " ".join(caps), "the local GPU"
        except (OSError, subprocess.SubprocessError):
            pass
    return DEFAULT_ARCH, "no GPU found: the default"


def read_answer(folder):
    """answer.txt's first sentence, one line, at most ANSWER_MAX chars."""
    path = os.path.join(folder, "answer.txt")
    if not os.path.isfile(path) or os.path.islink(path):
        return ""
    try:
        with open(path, "rb") as f:
            text = f.read(65536).decode("utf-8", "replace")
    except OSError:
        return ""
    text = " ".join(text.split())
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    sentence = m.group(1) if m else text
    return sentence[:ANSWER_MAX]


# ---------------------------------------------------------------------------
# The source scan: explains a host_code verdict in the student's terms and
# refuses files that reach outside the submission. The object check below
# is what decides host_code; this scan only adds reasons to it.

def strip_comments_and_strings(src):
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            out.append(" ")
            i = n if j < 0 else j + 2
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


SOURCE_HOST_PATTERNS = [
    (r"\bmain\s*\(", "defines or calls main"),
    (r"\b__host__\b", "declares a __host__ function"),
    (r"__attribute__\s*\(\(\s*(__)?(constructor|destructor)",
     "has a constructor or destructor attribute"),
    (r"\bstd\s*::\s*(system|fopen|ofstream|thread)\b|\b(system|fopen|popen|"
     r"fork|execv|execl)\s*\(", "calls a host library function"),
]


def scan_source(src):
    """Returns (host_reasons, include_problem or None)."""
    code = strip_comments_and_strings(src)
    reasons = [why for pat, why in SOURCE_HOST_PATTERNS
               if re.search(pat, code)]
    # Strings are blanked above, so "file" includes are checked on the raw
    # lines that start with a directive.
    # Backslash-newlines are spliced first, as the preprocessor does; "%:" is
    # the digraph of "#".
    for line in src.replace("\\\r\n", "").replace("\\\n", "").splitlines():
        m = re.match(r"\s*(?:#|%:)\s*(include_next|include|import|embed)\b"
                     r"\s*(.*)", line)
        if not m:
            continue
        what = m.group(2).split("//")[0].split("/*")[0].strip()
        if m.group(1) != "include":
            return reasons, "#%s is not allowed" % m.group(1)
        ok = (re.fullmatch(r"<[A-Za-z0-9_./+-]+>", what) and ".." not in what
              and not what.startswith("</")) or \
            re.fullmatch(r'"hx_[a-z]+\.h"', what)
        if not ok:
            return reasons, ("#include %s: only toolkit headers <...> and "
                             "the harness's \"hx_*.h\" may be included"
                             % what)
    return reasons, None


# ---------------------------------------------------------------------------
# The object check: which symbols the submission's object defines.
#
# nvcc's host object for a kernel file holds: for each __global__ function,
# its launch wrapper (the kernel's own symbol) and a __device_stub__; for
# each __device__ function, a host "shell" whose body only calls exit(1);
# for __device__/__constant__ variables, local shadows; the fat binary and
# its registration (one .init_array entry). Everything else is host code:
# main, host functions, constructors and destructors, objects with dynamic
# initialisation (_GLOBAL__sub_I_*), global host data (which could
# interpose on a library's), ifuncs. The starter and the reference solution,
# compiled with the same flags, give nvcc's own local names.

ENTRY_SECTIONS = (".init_array", ".fini_array", ".preinit_array", ".ctors",
                  ".dtors", ".init", ".fini")
BAD_MNEMONICS = {"syscall", "sysenter", "int", "svc", "hvc", "smc", "blr",
                 "br", "ljmp", "lcall"}
RESERVED_MANGLED = re.compile(r"_Z(St|NSt|NKSt|n[wa]|d[la]|N9__gnu_cxx|"
                              r"N10__cxxabiv1|N6cudart|Th|Tv|TV|TI|TS|GV)")


def tool(name, nvcc):
    """A binutils tool: next to nvcc's host compiler, or on PATH."""
    found = shutil.which(name)
    if not found:
        raise GraderError("%s not found (binutils are needed to inspect "
                          "objects)" % name)
    return found


def nm_symbols(obj, nm):
    """[(name, type)] of every defined symbol, in symbol-table order."""
    p = subprocess.run([nm, "--defined-only", "-p", "-P", obj],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=60)
    if p.returncode != 0:
        raise GraderError("nm failed on %s: %s" % (obj, p.stderr.decode()))
    syms = []
    for line in p.stdout.decode("utf-8", "replace").splitlines():
        parts = line.split()
        if len(parts) >= 2:
            syms.append((parts[0], parts[1]))
    return syms


def demangle(names, cxxfilt):
    if not names or not cxxfilt:
        return list(names)
    p = subprocess.run([cxxfilt], input="\n".join(names).encode(),
                       stdout=subprocess.PIPE, timeout=60)
    out = p.stdout.decode("utf-8", "replace").splitlines()
    return out if len(out) == len(names) else list(names)


def section_sizes(obj, objdump):
    p = subprocess.run([objdump, "-h", obj], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    sizes = {}
    for line in p.stdout.decode("utf-8", "replace").splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[0].isdigit():
            name = parts[1]
            for s in ENTRY_SECTIONS:
                if name == s or name.startswith(s + "."):
                    sizes[s] = sizes.get(s, 0) + int(parts[2], 16)
    return sizes


def function_bodies(obj, objdump):
    """{symbol: (mnemonics, relocation targets, indirect)} from objdump."""
    p = subprocess.run([objdump, "-d", "-r", "--no-show-raw-insn", obj],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=120)
    bodies, cur = {}, None
    for line in p.stdout.decode("utf-8", "replace").splitlines():
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            cur = bodies.setdefault(m.group(1), ([], set(), [False]))
            continue
        if cur is None or not line.strip():
            continue
        m = re.match(r"^\s+[0-9a-f]+:\s+R_\S+\s+(\S+)", line)
        if m:
            target = re.split(r"[+-]0x", m.group(1))[0]
            cur[1].add(target)
            continue
        m = re.match(r"^\s+[0-9a-f]+:\s+(.*)$", line)
        if m:
            ins = m.group(1).split("#")[0].split("//")[0].strip()
            if not ins or ins.startswith("("):
                continue
            words = ins.split()
            # Prefixes such as data16, cs, rep, notrack come first.
            while words and words[0] in ("data16", "cs", "ds", "rep",
                                         "repz", "repnz", "notrack", "bnd",
                                         "lock"):
                words = words[1:]
            if not words:
                continue
            cur[0].append(words[0])
            if words[0].startswith(("call", "jmp")) and "*" in ins:
                cur[2][0] = True
    return bodies


def analyse_object(obj, baseline, tools):
    """Returns (host_findings, signature_problem or None)."""
    nm, objdump, cxxfilt = tools
    syms = nm_symbols(obj, nm)
    names = [s for s, _ in syms]
    pretty = dict(zip(names, demangle(names, cxxfilt)))
    bodies = function_bodies(obj, objdump)
    functions = {s for s, t in syms if t in "TtWwi"}
    base = lambda s: s[:-5] if s.endswith(".cold") else s
    stubs = {s for s in functions if re.match(r"_Z[L]?\d+__device_stub__",
                                              base(s))}
    # A kernel is a function for which nvcc wrote a __device_stub__: the stub
    # function itself, or (for a static kernel whose stub was inlined) the
    # stub's static __handle.
    evidence = [s for s, _ in syms if "__device_stub__" in s]
    kernels = set()
    for s in functions:
        b = base(s)
        if b in stubs:
            continue
        if b.startswith("_ZL"):
            key = "Z" + b[3:]
        elif b.startswith("_Z"):
            key = b[1:]
        else:
            key = "Z%d%s" % (len(b), b)
        if any(("__device_stub__" + key) in e for e in evidence):
            kernels.add(b)

    # Shells: call only exit or other shells, make no other reference, no
    # system call, no indirect branch.
    cands = {}
    for s in functions:
        b = base(s)
        if b in kernels or b in stubs or b in baseline["names"]:
            continue
        mn, rel, ind = bodies.get(s, ([], set(), [False]))
        if ind[0] or any(m in BAD_MNEMONICS for m in mn):
            continue
        cands[s] = rel
    shells = set(cands)
    changed = True
    while changed:
        changed = False
        for s in list(shells):
            allowed = {"exit"} | shells | {base(x) for x in shells}
            if not cands[s] <= allowed or "exit" not in cands[s] and \
                    not (cands[s] & shells):
                shells.discard(s)
                changed = True

    findings = []
    for s, t in syms:
        b = base(s)
        show = pretty.get(b, b)
        if t == "i":
            findings.append("an ifunc %s (runs at load time)" % show)
        elif t in "TtWw":
            if s != b:
                continue            # a .cold part: reported with its function
            if b == "main":
                findings.append("main")
                continue
            if t in "TW" and b != KERNEL_MANGLED and (
                    RESERVED_MANGLED.match(b) or (
                        not b.startswith("_Z") and b not in kernels)):
                findings.append("%s: a global function with a library's "
                                "name" % show)
                continue
            if b in kernels or b in stubs or b in shells:
                continue
            if t in "tw" and b in baseline["names"]:
                continue
            if b.startswith("_GLOBAL__"):
                findings.append("a global constructor or destructor (a static "
                                "object with dynamic initialisation, e.g. "
                                "from <iostream>)")
            elif b == "main":
                findings.append("main")
            else:
                findings.append("the host function %s" % show)
        elif t in "BDRGSC":
            if s not in baseline["names"]:
                findings.append("the global host variable %s" % show)
        elif t == "V":
            if s not in baseline["names"]:
                findings.append("the weak host object %s" % show)
        elif t == "u":
            if not re.match(r"_ZN(4cuda|6thrust|3cub)\d", s):
                findings.append("the unique host object %s" % show)
        # b, d, r (local data): __device__ variable shadows, stub statics.
    sizes = section_sizes(obj, objdump)
    for sec in ENTRY_SECTIONS:
        if sizes.get(sec, 0) > baseline["sections"].get(sec, 0):
            findings.append("code run before or after main (%s holds %d "
                            "bytes, nvcc's own use %d)"
                            % (sec, sizes[sec],
                               baseline["sections"].get(sec, 0)))

    signature = None
    if KERNEL_MANGLED not in kernels:
        near = sorted({pretty.get(s, s) for s, _ in syms
                       if "scatterThreeWay" in s and
                       "__device_stub__" not in s and
                       not s.endswith(".cold")})
        if KERNEL_MANGLED in functions:
            signature = ("scatterThreeWay has the right parameters but is "
                         "not a __global__ kernel")
        elif near:
            signature = ("found %s; expected the __global__ kernel %s"
                         % ("; ".join(near), KERNEL))
        else:
            signature = "no kernel named scatterThreeWay; expected %s" % KERNEL
    return findings, signature


def build_baseline(cfg, tools):
    """nvcc's own symbols and entry sections, from the starter and the
    reference solution compiled like a submission."""
    names, sections = set(), {}
    work = os.path.join(cfg.state, "baseline")
    os.makedirs(work, exist_ok=True)
    for label, src in (("starter", os.path.join(EXERCISE, "threeway.cu")),
                       ("reference", cfg.reference)):
        if not os.path.isfile(src):
            continue
        obj = os.path.join(work, label + ".o")
        r = run_limited(compile_cmd(cfg, src, obj), work, cfg.compile_timeout,
                        fsize=512 << 20)
        if r["rc"] != 0:
            raise GraderError("the %s (%s) does not compile:\n%s"
                              % (label, src, r["err"].text()))
        for s, t in nm_symbols(obj, tools[0]):
            if t in "tbdrVB" or t == "D":
                names.add(s[:-5] if s.endswith(".cold") else s)
        for sec, size in section_sizes(obj, tools[1]).items():
            sections[sec] = max(sections.get(sec, 0), size)
    names = {s for s in names if "scatterThreeWay" not in s or
             "__device_stub__" in s}
    return {"names": names, "sections": sections}


def compile_cmd(cfg, src, obj):
    return [cfg.nvcc, "-O3", "-std=c++17"] + gencode(cfg.arch) + \
        ["-I" + os.path.join(REPO, "harness"), "-c", src, "-o", obj]


# ---------------------------------------------------------------------------
# One run of the driver's grade mode.

def run_driver(cfg, binary, n, mix, grid_block, seed, gpu, timing=False,
               sanitize=False):
    """Returns a run record: verdict (a reason code), detail, result (the
    driver's JSON or None), cmd, output (capped text), wall."""
    grid, block = grid_block
    tmp = tempfile.mkdtemp(prefix="grade-run-")
    try:
        result_path = os.path.join(tmp, "result.json")
        cmd = [binary, "--grade", "--n", str(n), "--seed", str(seed),
               "--mix", mix, "--grid", str(grid), "--block", str(block),
               "--repeat", str(1 if timing else REPEAT), "--result",
               result_path, "--lock", gpu_lock_path(cfg, gpu)]
        if timing:
            cmd.append("--time")
        timeout = cfg.timeout
        if sanitize:
            cmd = [cfg.sanitizer, "--tool", "memcheck", "--error-exitcode",
                   "86", "--print-limit", "10"] + cmd
            timeout = cfg.timeout * 5
        env = dict(os.environ)
        if gpu is not None:
            env["CUDA_VISIBLE_DEVICES"] = gpu
        r = run_limited(cmd, tmp, timeout, env=env, fsize=64 << 20,
                        data=cfg.mem_limit << 20)
        result = None
        if os.path.isfile(result_path):
            try:
                with open(result_path, "rb") as f:
                    result = json.loads(f.read(1 << 16).decode("utf-8"))
                if not isinstance(result, dict):
                    result = None
            except (OSError, ValueError):
                result = None
        shown = [c for c in cmd if c != result_path]
        if "--lock" in shown:
            del shown[shown.index("--lock"):shown.index("--lock") + 2]
        rec = {"cmd": " ".join(shown),
               "output": "--- stdout\n%s\n--- stderr\n%s"
                         % (r["out"].text(), r["err"].text()),
               "wall": r["wall"], "result": result, "rc": r["rc"]}
        verdict, detail = classify(r, result, n, timeout, sanitize)
        rec["verdict"], rec["detail"] = verdict, detail
        return rec
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def cuda_error_line(err_text):
    for line in err_text.splitlines():
        if "CUDA error" in line or "error:" in line.lower():
            return line.strip()[:300]
    lines = [l for l in err_text.splitlines() if l.strip()]
    return lines[-1].strip()[:300] if lines else "(nothing on stderr)"


def classify(r, result, n, timeout, sanitize):
    rc = r["rc"]
    if r["timed_out"]:
        return "timeout", "killed after %g s (wall-clock limit)" % timeout
    err = r["err"].text()
    if sanitize and rc == 86:
        found = [l.strip() for l in (r["out"].text() + "\n" + err).splitlines()
                 if re.search(r"Invalid|out of bounds|Address .* is",
                              l)][:3]
        return "out_of_bounds", "compute-sanitizer memcheck: " + (
            " | ".join(found) if found else "an error (see the output)")
    if rc == 3:
        return "no_gpu", cuda_error_line(err)
    if rc == 5:
        return "no_gpu", "n=%d does not fit the GPU's memory (exit 5)" % n
    if rc == 2:
        raise GraderError("the driver rejected the grader's arguments "
                          "(exit 2): %s" % cuda_error_line(err))
    if rc == 4:
        return "crash", cuda_error_line(err)
    if rc < 0:
        try:
            name = signal.Signals(-rc).name
        except ValueError:
            name = "signal %d" % -rc
        return "crash", "killed by %s" % name
    if rc != 0:
        return "crash", "exit code %d: %s" % (rc, cuda_error_line(err))
    if result is None:
        return "crash", "exit 0 without a readable result file"
    status = result.get("status")
    if status not in DRIVER_STATUSES:
        return "crash", "the result file holds an unknown status %r" % status
    return status, describe_result(result)


def describe_result(res):
    if res.get("status") == "pass":
        return "pass"
    bits = ["%s (check: %s)" % (res.get("status"), res.get("detail"))]
    bits.append("boundaries found %s, %s; want %s, %s" % (
        res.get("found_b1"), res.get("found_b2"), res.get("want_b1"),
        res.get("want_b2")))
    if res.get("first_bad", -1) not in (-1, None):
        bits.append("first bad index %s: got %s, want %s" % (
            res.get("first_bad"), res.get("got"), res.get("want")))
    for key in ("bad", "unwritten", "order_errors", "guard_before",
                "guard_after"):
        if res.get(key):
            bits.append("%s %s" % (key.replace("_", " "), res.get(key)))
    if res.get("guard_first_offset") is not None:
        bits.append("first write outside at offset %s"
                    % res.get("guard_first_offset"))
    if res.get("disagree_run", -1) not in (-1, None):
        bits.append("launch %s differed from launch 0" % res["disagree_run"])
    return "; ".join(str(b) for b in bits)


def plan_for(sub_seed):
    """The plan with ODD_N resolved and a seed per run."""
    odd = 100001 + 2 * (sub_seed % 450000)
    runs = []
    for k, (n, mix, gb) in enumerate(RUN_PLAN):
        runs.append((odd if n == ODD_N else n, mix, gb,
                     derive_seed(sub_seed, k)))
    return runs


def run_label(k, n, mix, gb):
    grid = "normal grid" if gb[0] == 0 else "grid %dx%d" % gb
    return "run %02d: n=%d, %s, %s" % (k + 1, n, mix, grid)


# ---------------------------------------------------------------------------
# Grading one submission.

def grade_one(cfg, name, folder, index):
    safe = cfg.safe[name]
    subdir = os.path.join(cfg.out, safe)
    work = os.path.join(subdir, "work")
    shutil.rmtree(subdir, ignore_errors=True)
    os.makedirs(work)
    started = time.monotonic()
    sub_seed = derive_seed(cfg.seed, display(name))
    gpu = cfg.gpus[index % len(cfg.gpus)]
    g = {"submission": display(name), "safe": safe, "seed": sub_seed,
         "reason": None, "detail": "", "tests": [], "report_run": None,
         "x_copy": None, "answer": read_answer(folder), "log": []}

    def test(tname, ok, max_score, output, score=None):
        g["tests"].append({
            "name": tname,
            "score": round(max_score if ok and score is None
                           else (score or 0.0), 2),
            "max_score": max_score, "status": "passed" if ok else "failed",
            "output": output, "visibility": "visible"})

    def fail(reason, detail):
        if g["reason"] is None:
            g["reason"], g["detail"] = reason, detail

    try:
        grade_steps(cfg, name, folder, work, gpu, g, test, fail)
    except GraderError:
        raise
    except Exception as e:  # never stop the class for one submission
        fail("crash", "grader error: %r" % e)
    if g["reason"] is None:
        g["reason"] = "pass"
    # Tests not reached are listed (failed, 0 points) so every
    # results.json has the same tests.
    have = {t["name"] for t in g["tests"]}
    for tname, w in all_test_names(sub_seed):
        if tname not in have:
            test(tname, False, w, "not run: " + (
                "an earlier check failed" if g["reason"] != "pass" else
                "skipped"))
    order = [t for t, _ in all_test_names(sub_seed)]
    g["tests"].sort(key=lambda t: order.index(t["name"])
                    if t["name"] in order else len(order))
    g["execution_time"] = round(time.monotonic() - started, 2)
    if not cfg.keep:
        for f in ("threeway", "sub.o"):
            try:
                os.remove(os.path.join(work, f))
            except OSError:
                pass
    write_results(cfg, g, subdir)
    return g


def all_test_names(sub_seed):
    names = [("build", WEIGHTS["build"]), ("signature", WEIGHTS["signature"]),
             ("host code", WEIGHTS["host_code"])]
    for k, (n, mix, gb, _) in enumerate(plan_for(sub_seed)):
        names.append((run_label(k, n, mix, gb), WEIGHTS["run"]))
    names.append(("performance vs the reference", WEIGHTS["performance"]))
    return names


def grade_steps(cfg, name, folder, work, gpu, g, test, fail):
    src = os.path.join(folder, "threeway.cu")
    log = g["log"]
    log.append("submission %s, seed %d (from --seed %d and the name)"
               % (display(name), g["seed"], cfg.seed))
    if os.path.islink(src):
        msg = "threeway.cu is a symbolic link"
    elif not os.path.isfile(src):
        msg = "no threeway.cu"
    elif os.path.getsize(src) > SOURCE_MAX:
        msg = "threeway.cu is larger than %d bytes" % SOURCE_MAX
    else:
        msg = None
    if msg:
        test("build", False, WEIGHTS["build"], msg)
        return fail("compile_error", msg)
    with open(src, "rb") as f:
        raw = f.read()
    with open(os.path.join(work, "threeway.cu"), "wb") as f:
        f.write(raw)
    text = raw.decode("utf-8", "replace")
    host_reasons, include_problem = scan_source(text)
    if include_problem:
        test("build", False, WEIGHTS["build"], include_problem)
        return fail("compile_error", include_problem)

    obj = os.path.join(work, "sub.o")
    r = run_limited(compile_cmd(cfg, "threeway.cu", "sub.o"), work,
                    cfg.compile_timeout, fsize=512 << 20)
    log.append("compile: %s (%.1f s)" % (" ".join(compile_cmd(
        cfg, "threeway.cu", "sub.o")), r["wall"]))
    if r["timed_out"] or r["rc"] != 0:
        msg = ("compilation took longer than %g s" % cfg.compile_timeout
               if r["timed_out"] else trim_message(relative_paths(
                   r["err"].text() + r["out"].text(), work)))
        test("build", False, WEIGHTS["build"], msg)
        first = next((l for l in msg.splitlines() if "error" in l), msg)
        return fail("compile_error", first.strip()[:300])

    findings, signature = analyse_object(obj, cfg.baseline, cfg.tools)
    if findings:
        why = "; ".join(list(dict.fromkeys(findings))[:6])
        if host_reasons:
            why += " (the source %s)" % ", ".join(host_reasons)
        test("build", True, WEIGHTS["build"], "compiled")
        test("signature", signature is None, WEIGHTS["signature"],
             signature or "defines " + KERNEL)
        test("host code", False, WEIGHTS["host_code"],
             "rejected before running: it defines host code: " + why +
             ". Write only __global__ and __device__ functions.")
        return fail("host_code", why)
    if signature:
        test("build", True, WEIGHTS["build"], "compiled")
        test("signature", False, WEIGHTS["signature"], signature)
        return fail("signature", signature)

    binary = os.path.join(work, "threeway")
    link = [cfg.nvcc] + gencode(cfg.arch) + ["-o", binary, obj] + \
        cfg.driver_objs
    r = run_limited(link, work, cfg.compile_timeout, fsize=512 << 20)
    if r["timed_out"] or r["rc"] != 0:
        msg = "link failed: " + trim_message(relative_paths(
            r["err"].text() + r["out"].text(), work))
        test("build", False, WEIGHTS["build"], msg)
        if "undefined reference" in msg and "scatterThreeWay" in msg:
            return fail("signature", "link: undefined scatterThreeWay")
        return fail("compile_error", msg.splitlines()[0][:300])
    test("build", True, WEIGHTS["build"], "compiled and linked")
    test("signature", True, WEIGHTS["signature"], "defines " + KERNEL)
    test("host code", True, WEIGHTS["host_code"],
         "no host code beyond nvcc's own")

    for k, (n, mix, gb, seed) in enumerate(plan_for(g["seed"])):
        label = run_label(k, n, mix, gb)
        rec = run_driver(cfg, binary, n, mix, gb, seed, gpu)
        log.append("%s: %s -> %s: %s (%.1f s)" % (label, rec["cmd"],
                                                   rec["verdict"],
                                                   rec["detail"],
                                                   rec["wall"]))
        g["report_run"] = rec
        out = "%s\nseed %d; %s\n%s" % (rec["detail"], seed, rec["cmd"],
                                       rec["output"] if rec["verdict"] !=
                                       "pass" else "")
        test(label, rec["verdict"] == "pass", WEIGHTS["run"], out.strip())
        if rec["verdict"] != "pass":
            return fail(rec["verdict"], "%s: %s" % (label, rec["detail"]))

    if cfg.sanitize:
        n, mix, gb = SANITIZE_RUN
        rec = run_driver(cfg, binary, n, mix, gb, g["seed"], gpu,
                         sanitize=True)
        log.append("sanitize: %s -> %s: %s" % (rec["cmd"], rec["verdict"],
                                                rec["detail"]))
        g["sanitize"] = rec["verdict"]
        if rec["verdict"] != "pass":
            test("compute-sanitizer memcheck", False, 0.0,
                 rec["detail"] + "\n" + rec["output"])
            return fail(rec["verdict"], "compute-sanitizer (n=%d, %s): %s"
                        % (n, mix, rec["detail"]))
        test("compute-sanitizer memcheck", True, 0.0, "no finding")

    grade_performance(cfg, binary, gpu, g, test, fail)


def grade_performance(cfg, binary, gpu, g, test, fail):
    """The performance test of a submission whose every run passed."""
    log = g["log"]
    if cfg.ref_x_copy is None:
        test("performance vs the reference", False, WEIGHTS["performance"],
             "not measured: " + cfg.perf_note)
        return
    tries = []
    while len(tries) < PERF_TRIES:
        rec = run_driver(cfg, binary, cfg.perf_n, "thirds", NORMAL,
                         derive_seed(g["seed"], "timing", len(tries)), gpu,
                         timing=True)
        log.append("timing %d: %s -> %s: %s" % (len(tries) + 1, rec["cmd"],
                                                rec["verdict"],
                                                rec["detail"]))
        if rec["verdict"] != "pass":
            test("performance vs the reference", False,
                 WEIGHTS["performance"], rec["detail"] + "\n" + rec["output"])
            return fail(rec["verdict"], "timing run (n=%d): %s"
                        % (cfg.perf_n, rec["detail"]))
        x = rec["result"].get("x_copy")
        if not isinstance(x, (int, float)) or x <= 0:
            test("performance vs the reference", False,
                 WEIGHTS["performance"], "the timing run reported no x_copy")
            return
        tries.append(x)
        if min(tries) / cfg.ref_x_copy <= PERF_FULL_AT:
            break
    x = min(tries)
    g["x_copy"] = x
    ratio = x / cfg.ref_x_copy
    frac = 1.0 if ratio <= PERF_FULL_AT else 0.0 if ratio >= PERF_ZERO_AT \
        else (PERF_ZERO_AT - ratio) / (PERF_ZERO_AT - PERF_FULL_AT)
    note = "" if len(tries) == 1 else \
        "; best of %d timing runs (%s)" % (
            len(tries), ", ".join("%.2fx" % t for t in tries))
    test("performance vs the reference", frac > 0, WEIGHTS["performance"],
         "split %.2fx copy at n=%d; the reference %.2fx: ratio %.2f "
         "(full points up to %.2f, none from %.2f)%s"
         % (x, cfg.perf_n, cfg.ref_x_copy, ratio, PERF_FULL_AT,
            PERF_ZERO_AT, note), score=WEIGHTS["performance"] * frac)


def status_of(reason):
    return "pass" if reason == "pass" else "error" if reason == "no_gpu" \
        else "fail"


def write_results(cfg, g, subdir):
    score = round(sum(t["score"] for t in g["tests"]), 2)
    g["score"] = score
    g["max_score"] = round(sum(t["max_score"] for t in g["tests"]), 2)
    status = status_of(g["reason"])
    head = "%s: %s (%s)" % (g["submission"], status, g["reason"])
    if g["reason"] == "no_gpu":
        head += ": the grading machine has no usable GPU; not your code"
    output = "%s\n%s\nseed %d; graded by harness/grade.py" % (
        head, g["detail"], g["seed"])
    results = {"score": score, "execution_time": g["execution_time"],
               "output": output, "visibility": "visible",
               "tests": g["tests"]}
    with open(os.path.join(subdir, "results.json"), "w",
              encoding="utf-8") as f:
        json.dump(results, f, indent=1, ensure_ascii=False)
        f.write("\n")
    with open(os.path.join(subdir, "log.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(g["log"]) + "\n")
        if g["report_run"] is not None:
            f.write("\nlast run's output:\n%s\n" % g["report_run"]["output"])


def csv_row(g):
    res = (g["report_run"] or {}).get("result") or {}
    fmt = lambda v: "" if v is None else str(v)
    return {"submission": g["submission"], "status": status_of(g["reason"]),
            "reason": g["reason"], "found_b1": fmt(res.get("found_b1")),
            "found_b2": fmt(res.get("found_b2")),
            "first_bad": fmt(res.get("first_bad")),
            "x_copy": "" if g["x_copy"] is None else "%.3f" % g["x_copy"],
            "answer": g["answer"], "score": "%g" % g["score"],
            "max_score": "%g" % g["max_score"],
            "detail": " ".join(g["detail"].split())[:500],
            "results": g["safe"] + "/results.json"}


# ---------------------------------------------------------------------------
# Grading a class.

def parse_shard(text):
    m = re.fullmatch(r"(\d+)/(\d+)", text or "")
    if not m or int(m.group(2)) < 1 or int(m.group(1)) >= int(m.group(2)):
        raise argparse.ArgumentTypeError("--shard wants i/N with 0 <= i < N")
    return int(m.group(1)), int(m.group(2))


def grade_parser():
    p = argparse.ArgumentParser(
        prog="grade.py",
        description="Grades a class of day 33 three-way submissions "
                    "(each a folder holding threeway.cu and optionally "
                    "answer.txt). See harness/GRADING.md. Also: "
                    "'grade.py merge OUT1 OUT2 ... --out DIR' merges shards.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("submissions", help="the class folder: one folder per "
                   "submission (hidden folders and plain files are skipped)")
    p.add_argument("--out", default="grades", help="output folder: "
                   "grades.csv, summary.txt, <submission>/results.json")
    p.add_argument("--arch", default=None, help='compute capabilities, e.g. '
                   '"90" (default: the local GPU\'s, else "%s")'
                   % DEFAULT_ARCH)
    p.add_argument("--jobs", type=int, default=1, help="submissions graded "
                   "at once (compiles and correctness runs)")
    p.add_argument("--gpus", default=None, help='GPUs to spread submissions '
                   'over round-robin, e.g. "0,1" (CUDA_VISIBLE_DEVICES)')
    p.add_argument("--shard", type=parse_shard, default=(0, 1),
                   help="i/N: grade only the submissions whose index in the "
                   "sorted class is i modulo N")
    p.add_argument("--timeout", type=float, default=60.0,
                   help="wall-clock limit of one run, seconds")
    p.add_argument("--compile-timeout", type=float, default=180.0,
                   help="wall-clock limit of one compile or link, seconds")
    p.add_argument("--seed", type=int, default=31033, help="base seed; each "
                   "submission's seed derives from it and the name")
    p.add_argument("--perf-n", type=int, default=1 << 24,
                   help="size of the timing run")
    p.add_argument("--no-perf", action="store_true",
                   help="skip the timing runs (performance scores 0)")
    p.add_argument("--sanitize", action="store_true",
                   help="also run compute-sanitizer memcheck once per "
                   "submission (n=%d)" % SANITIZE_RUN[0])
    p.add_argument("--mem-limit", type=int, default=16384,
                   help="RLIMIT_DATA of each run in MiB (0: none)")
    p.add_argument("--reference", default=os.path.join(
        EXERCISE, "solution", "threeway.cu"), help="the reference solution "
        "(baseline symbols and the x_copy every submission is compared to)")
    p.add_argument("--build-dir", default=None, help="where the driver's "
                   "objects are built (default OUT/.grader/build); reused "
                   "when up to date")
    p.add_argument("--nvcc", default=None, help="nvcc (default: on PATH, "
                   "else /usr/local/cuda/bin/nvcc)")
    p.add_argument("--keep", action="store_true", help="keep each "
                   "submission's binary and object")
    p.add_argument("--prepare-only", action="store_true",
                   help="build the driver's objects and stop (Gradescope's "
                   "setup.sh)")
    return p


class Config:
    pass


def find_nvcc(given):
    for cand in (given, shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc"):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return os.path.abspath(cand)
    raise GraderError("nvcc not found (use --nvcc)")


def prepare(cfg, log):
    """Builds the driver's objects once for this grading run."""
    tag = "sm" + "-".join(cfg.arch.split())
    build = os.path.join(cfg.build_dir, tag)
    os.makedirs(build, exist_ok=True)
    cmd = ["make", "--no-print-directory", "-C", EXERCISE, "grade-objs",
           "ARCH=" + cfg.arch, "BUILD=" + build, "NVCC=" + cfg.nvcc]
    log("building the driver's objects for ARCH=\"%s\" in %s"
        % (cfg.arch, build))
    r = run_limited(cmd, REPO, 1800, fsize=1 << 30)
    if r["rc"] != 0:
        raise GraderError("make grade-objs failed:\n%s\n%s"
                          % (r["out"].text(), r["err"].text()))
    hx = os.path.join(build, "hx")
    objs = [os.path.join(build, "driver.o"),
            os.path.join(build, "tile_scan.o")]
    if os.path.isdir(hx):
        objs += sorted(os.path.join(hx, f) for f in os.listdir(hx)
                       if f.endswith(".o"))
    missing = [o for o in objs if not os.path.isfile(o)]
    if missing or not os.path.isdir(hx):
        raise GraderError("make grade-objs did not leave %s"
                          % (missing or [hx]))
    return objs


def reference_probe(cfg, log):
    """Times the reference once (x_copy for the performance test) and
    probes the memory limit: if the reference fails only under
    RLIMIT_DATA, the limit is dropped for this grading run."""
    work = os.path.join(cfg.state, "reference")
    os.makedirs(work, exist_ok=True)
    obj, binary = os.path.join(work, "ref.o"), os.path.join(work, "threeway")
    r = run_limited(compile_cmd(cfg, cfg.reference, obj), work,
                    cfg.compile_timeout, fsize=512 << 20)
    if r["rc"] == 0:
        r = run_limited([cfg.nvcc] + gencode(cfg.arch) +
                        ["-o", binary, obj] + cfg.driver_objs, work,
                        cfg.compile_timeout, fsize=512 << 20)
    if r["rc"] != 0:
        raise GraderError("the reference solution does not build:\n"
                          + r["err"].text())
    gpu = cfg.gpus[0]
    # The probe runs the plan's largest size: a memory limit that breaks
    # CUDA only for large buffers shows here, not in the middle of a class.
    big = max(n for n, _, _ in RUN_PLAN if n != ODD_N)
    probe = run_driver(cfg, binary, big, "thirds", NORMAL, cfg.seed, gpu)
    if probe["verdict"] == "no_gpu":
        cfg.perf_note = "no GPU"
        log("no usable GPU (%s): every submission that builds is graded "
            "no_gpu" % probe["detail"])
        return
    if probe["verdict"] != "pass" and cfg.mem_limit:
        keep = cfg.mem_limit
        cfg.mem_limit = 0
        again = run_driver(cfg, binary, big, "thirds", NORMAL, cfg.seed, gpu)
        if again["verdict"] == "pass":
            log("WARNING: the reference fails under RLIMIT_DATA=%d MiB (%s) "
                "and passes without: runs get no memory limit"
                % (keep, probe["detail"]))
            probe = again
        else:
            cfg.mem_limit = keep
    if probe["verdict"] != "pass":
        raise GraderError("the reference solution does not pass on this "
                          "machine: %s: %s\n%s" % (probe["verdict"],
                                                   probe["detail"],
                                                   probe["output"]))
    if cfg.no_perf:
        cfg.perf_note = "--no-perf"
        return
    rec = run_driver(cfg, binary, cfg.perf_n, "thirds", NORMAL, cfg.seed, gpu,
                     timing=True)
    x = (rec["result"] or {}).get("x_copy")
    if rec["verdict"] != "pass" or not isinstance(x, (int, float)) or x <= 0:
        raise GraderError("the reference's timing run failed: %s: %s"
                          % (rec["verdict"], rec["detail"]))
    cfg.ref_x_copy = x
    log("reference: split %.2fx copy at n=%d (the performance yardstick)"
        % (x, cfg.perf_n))


def list_class(folder):
    names = []
    for entry in os.listdir(folder):
        if entry.startswith("."):
            continue
        path = os.path.join(folder, entry)
        if os.path.isdir(path) and not os.path.islink(path):
            names.append(entry)
    return sorted(names, key=lambda s: s.encode("utf-8", "surrogateescape"))


def grade_main(argv):
    args = grade_parser().parse_args(argv)
    if args.jobs < 1:
        print("grade.py: --jobs must be >= 1", file=sys.stderr)
        return 2
    if not os.path.isdir(args.submissions):
        print("grade.py: %s is not a folder" % args.submissions,
              file=sys.stderr)
        return 2

    def log(msg):
        print(msg, flush=True)

    cfg = Config()
    cfg.out = os.path.abspath(args.out)
    cfg.state = os.path.join(cfg.out, ".grader")
    cfg.build_dir = os.path.abspath(args.build_dir or
                                    os.path.join(cfg.state, "build"))
    cfg.nvcc = find_nvcc(args.nvcc)
    if args.arch:
        cfg.arch, why = " ".join(args.arch.replace(",", " ").split()), \
            "--arch"
    else:
        cfg.arch, why = detect_arch()
    if not re.fullmatch(r"\d+( \d+)*", cfg.arch):
        print("grade.py: --arch wants numbers such as \"90\" or \"75 90\"",
              file=sys.stderr)
        return 2
    cfg.timeout, cfg.compile_timeout = args.timeout, args.compile_timeout
    cfg.seed, cfg.perf_n, cfg.no_perf = args.seed, args.perf_n, args.no_perf
    cfg.sanitize, cfg.mem_limit, cfg.keep = args.sanitize, args.mem_limit, \
        args.keep
    cfg.reference = os.path.abspath(args.reference)
    cfg.gpus = [g.strip() for g in args.gpus.split(",")] if args.gpus \
        else [None]
    cfg.ref_x_copy, cfg.perf_note = None, "not measured"
    os.makedirs(cfg.state, exist_ok=True)
    log("grade.py: nvcc %s, ARCH=\"%s\" (%s), seed %d, timeout %g s, "
        "jobs %d" % (cfg.nvcc, cfg.arch, why, cfg.seed, cfg.timeout,
                     args.jobs))
    try:
        cfg.tools = (tool("nm", cfg.nvcc), tool("objdump", cfg.nvcc),
                     shutil.which("c++filt"))
        cfg.driver_objs = prepare(cfg, log)
        if args.prepare_only:
            log("prepared: %d objects" % len(cfg.driver_objs))
            return 0
        if cfg.sanitize:
            cfg.sanitizer = shutil.which("compute-sanitizer") or os.path.join(
                os.path.dirname(cfg.nvcc), "compute-sanitizer")
            if not os.path.isfile(cfg.sanitizer):
                raise GraderError("--sanitize: compute-sanitizer not found")
        cfg.baseline = build_baseline(cfg, cfg.tools)
        reference_probe(cfg, log)

        everyone = list_class(args.submissions)
        cfg.safe = safe_names(everyone)
        i, count = args.shard
        mine = [(k, s) for k, s in enumerate(everyone) if k % count == i]
        log("%d submissions in %s%s" % (
            len(everyone), args.submissions,
            "; shard %d/%d grades %d" % (i, count, len(mine))
            if count > 1 else ""))
        graded, done = [], [0]
        lock = threading.Lock()

        def work(item):
            k, name = item
            g = grade_one(cfg, name, os.path.join(args.submissions, name), k)
            with lock:
                done[0] += 1
                print("[%d/%d] %s ... %s%s" % (
                    done[0], len(mine), g["submission"], g["reason"],
                    "" if g["reason"] == "pass" else ": " +
                    g["detail"][:120]), flush=True)
            return g

        start = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for g in pool.map(work, mine):
                graded.append(g)
        wall = time.monotonic() - start
    except GraderError as e:
        print("grade.py: %s" % e, file=sys.stderr, flush=True)
        return 1

    rows = [csv_row(g) for g in graded]
    write_csv(os.path.join(cfg.out, "grades.csv"), rows)
    with open(os.path.join(cfg.out, "shard.json"), "w") as f:
        json.dump({"shard": "%d/%d" % args.shard,
                   "class": [display(s) for s in everyone],
                   "graded": [r["submission"] for r in rows],
                   "seed": cfg.seed, "arch": cfg.arch,
                   "reference_x_copy": cfg.ref_x_copy}, f, indent=1)
    summary = summary_text(rows)
    summary += "\n%d submissions in %.1f s (%.1f s each, --jobs %d)\n" % (
        len(rows), wall, wall / max(len(rows), 1), args.jobs)
    with open(os.path.join(cfg.out, "summary.txt"), "w",
              encoding="utf-8") as f:
        f.write(summary)
    print(summary, end="", flush=True)
    print("wrote %s/grades.csv and %d results.json" % (args.out, len(rows)))
    return 0


def write_csv(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=CSV_COLUMNS,
                           quoting=csv.QUOTE_MINIMAL)
        w.writeheader()
        for r in rows:
            w.writerow(r)


def summary_text(rows):
    width = max([len("submission")] + [len(r["submission"][:40])
                                       for r in rows])
    lines = ["", "%-*s  %-6s  %-16s  %6s  %s" % (width, "submission",
                                                "status", "reason", "score",
                                                "detail")]
    for r in rows:
        lines.append("%-*s  %-6s  %-16s  %6s  %s" % (
            width, r["submission"][:40], r["status"], r["reason"],
            r["score"], r["detail"][:90]))
    lines.append("")
    counts = {}
    for r in rows:
        counts[r["reason"]] = counts.get(r["reason"], 0) + 1
    lines.append("per reason: " + ", ".join(
        "%s %d" % (k, counts[k]) for k in REASONS if k in counts))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# Merging shards.

def merge_main(argv):
    p = argparse.ArgumentParser(
        prog="grade.py merge",
        description="Merges the OUT folders of grade.py --shard i/N runs "
        "into one: grades.csv (checked: every submission of the class "
        "exactly once, every shard present), the per-submission folders "
        "and summary.txt.")
    p.add_argument("shards", nargs="+", help="the shards' OUT folders")
    p.add_argument("--out", required=True, help="the merged OUT folder")
    args = p.parse_args(argv)
    rows, seen, classes, shard_ids = [], {}, set(), set()
    problems = []
    for d in args.shards:
        try:
            with open(os.path.join(d, "shard.json")) as f:
                meta = json.load(f)
            with open(os.path.join(d, "grades.csv"), newline="",
                      encoding="utf-8") as f:
                part = list(csv.DictReader(f))
        except (OSError, ValueError) as e:
            problems.append("%s: not a grade.py OUT folder (%s)" % (d, e))
            continue
        classes.add(tuple(meta["class"]))
        shard_ids.add(meta["shard"])
        for r in part:
            if r["submission"] in seen:
                problems.append("%s graded twice (%s and %s)" % (
                    r["submission"], seen[r["submission"]], d))
            seen[r["submission"]] = d
            rows.append((d, r))
    if len(classes) > 1:
        problems.append("the shards graded different classes")
    if classes:
        everyone = list(next(iter(classes)))
        missing = [s for s in everyone if s not in seen]
        if missing:
            problems.append("%d submissions missing: %s" % (
                len(missing), ", ".join(missing[:10])))
        counts = {s.split("/")[1] for s in shard_ids}
        if len(counts) == 1:
            n = int(next(iter(counts)))
            want = {"%d/%d" % (i, n) for i in range(n)}
            if want - shard_ids:
                problems.append("shards missing: %s"
                                % ", ".join(sorted(want - shard_ids)))
    if problems:
        for msg in problems:
            print("grade.py merge: " + msg, file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)
    out_rows = []
    for d, r in sorted(rows, key=lambda x: x[1]["submission"].encode()):
        sub = r["results"].split("/")[0]
        src = os.path.join(d, sub)
        dst = os.path.join(args.out, sub)
        if os.path.abspath(src) != os.path.abspath(dst):
            shutil.rmtree(dst, ignore_errors=True)
            shutil.copytree(src, dst, symlinks=True)
        out_rows.append(r)
    write_csv(os.path.join(args.out, "grades.csv"), out_rows)
    summary = summary_text(out_rows)
    with open(os.path.join(args.out, "summary.txt"), "w",
              encoding="utf-8") as f:
        f.write(summary)
    print(summary, end="")
    print("merged %d shards, %d submissions into %s/grades.csv"
          % (len(args.shards), len(out_rows), args.out))
    return 0


def main(argv):
    if argv and argv[0] == "merge":
        return merge_main(argv[1:])
    if argv and argv[0] == "--merge":
        return merge_main(argv[1:])
    return grade_main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
