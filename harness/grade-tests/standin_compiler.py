"""standin_compiler.py: a TEST DOUBLE of harness/grader/compiler.py.

run_tests.py uses it, and says so, only while harness/grader/compiler.py
(the real compile stage) is absent; it is not part of the grading tool.
It follows the same contract so that the grader's compile stage and the
corpus's compile-stage cases can be tested:

    compile_submission(src, out_module, arch, nvcc="nvcc", scratch=None,
                       time_limit=60, mem_limit=4 << 30,
                       out_cap=64 << 20) -> Compiled

with one architecture only (a -cubin), which is what the tests use.
"""

import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

ENTRY = "_Z15scatterThreeWayPKiS0_S0_PimS0_S0_"
LIMITS = r"""
import os, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]),) * 2)
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[2]),) * 2)
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
os.execv(sys.argv[3], sys.argv[3:])
"""


class Compiled:
    def __init__(self, ok, verdict, message, module=None, includes=(),
                 entries=(), seconds=0.0):
        self.ok, self.verdict, self.message = ok, verdict, message
        self.module, self.includes = module, list(includes)
        self.entries, self.seconds = list(entries), seconds


def _run(cmd, cwd, time_limit, mem_limit, out_cap):
    p = subprocess.Popen([sys.executable, "-I", "-S", "-c", LIMITS,
                          str(mem_limit), str(out_cap)] + cmd, cwd=cwd,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         start_new_session=True)
    try:
        out, _ = p.communicate(timeout=time_limit)
        return p.returncode, out.decode("utf-8", "replace"), False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return p.returncode, "", True


def _allowed_roots(nvcc):
    cuda = os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
    roots = [os.path.join(cuda, "include")]
    targets = os.path.join(cuda, "targets")
    if os.path.isdir(targets):
        roots += [os.path.join(targets, t, "include")
                  for t in os.listdir(targets)]
    p = subprocess.run(["g++", "-xc++", "-E", "-v", "-"], input=b"",
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    text = p.stderr.decode()
    inside = text.split("search starts here:")[-1].split("End of search")[0]
    roots += [l.strip() for l in inside.splitlines()
              if l.strip().startswith("/")]
    return [os.path.realpath(r) + os.sep for r in roots]


def _own_lines(text):
    keep, on = [], False
    for line in text.splitlines():
        if line.startswith("threeway.cu"):
            on = True
        elif not line.startswith(" "):
            on = False
        if on:
            keep.append(line)
    return "\n".join(keep[:40])


def _entries(path):
    b = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", b, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", b, 0x3a)
    secs = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize)
            for i in range(shnum)]
    out = []
    for s in secs:
        if s[1] != 2:
            continue
        strtab = secs[s[6]][4]
        for i in range(s[5] // 24):
            nm, info, other = struct.unpack_from("<IBB", b, s[4] + i * 24)
            if info & 0xf == 2 and other & 0x10:
                out.append(b[strtab + nm:b.index(b"\0", strtab + nm)].decode())
    return out


def compile_submission(src, out_module, arch, nvcc="nvcc", scratch=None,
                       time_limit=60, mem_limit=4 << 30, out_cap=64 << 20):
    start = time.monotonic()
    if len(arch.split()) != 1:
        raise NotImplementedError("the test double compiles one arch only")
    sm = "sm_" + arch.replace("sm_", "")
    if os.path.islink(src) or not os.path.isfile(src):
        return Compiled(False, "no_file", "no threeway.cu")
    work = scratch or tempfile.mkdtemp(prefix="standin-compile-")
    try:
        shutil.copyfile(src, os.path.join(work, "threeway.cu"))
        nvcc = shutil.which(nvcc) or nvcc
        # The headers the preprocessor opened (-H lists them as it goes,
        # even when a later include fails), decided before any error.
        rc, text, late = _run([nvcc, "-E", "-x", "cu", "-arch=" + sm,
                               "-Xcompiler", "-H", "-o", os.devnull,
                               "threeway.cu"], work, time_limit, mem_limit,
                              out_cap)
        if late:
            return Compiled(False, "compile_timeout", "the preprocessor took "
                            "longer than %g s" % time_limit)
        roots = _allowed_roots(nvcc)
        includes = sorted({os.path.realpath(os.path.join(work, m.group(1)))
                           for m in re.finditer(r"(?m)^\.+ (.+)$", text)})
        for real in includes:
            if not any(real.startswith(r) for r in roots):
                return Compiled(False, "forbidden_include", "#include of %s: "
                                "only the CUDA Toolkit's headers may be "
                                "included" % real, includes=includes)
        if rc != 0:
            return Compiled(False, "compile_error", _own_lines(text) or
                            "the preprocessor failed")
        os.makedirs(os.path.dirname(out_module), exist_ok=True)
        rc, text, late = _run([nvcc, "-cubin", "-arch=" + sm, "-O3",
                               "-std=c++17", "-o", out_module, "threeway.cu"],
                              work, time_limit, mem_limit, out_cap)
        if late:
            return Compiled(False, "compile_timeout", "the compile took "
                            "longer than %g s" % time_limit)
        if rc != 0 and (rc < 0 or "out of memory" in text or
                        "std::bad_alloc" in text or "Killed" in text):
            return Compiled(False, "compile_limit", "the compile went past "
                            "its memory or output limit")
        if rc != 0:
            return Compiled(False, "compile_error", _own_lines(text) or
                            "nvcc failed")
        entries = _entries(out_module)
        if ENTRY not in entries:
            return Compiled(False, "signature", "no kernel scatterThreeWay "
                            "with the fixed parameters; entries: %s"
                            % (", ".join(entries) or "none"),
                            includes=includes, entries=entries)
        return Compiled(True, None, "", out_module, includes, entries,
                        time.monotonic() - start)
    finally:
        if scratch is None:
            shutil.rmtree(work, ignore_errors=True)
