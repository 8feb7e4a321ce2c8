"""compiling: every submission's kernel to a device module.

The compile itself is compiler.py's compile_submission: a copy of
threeway.cu alone in an empty scratch folder, the include list taken from
nvcc's preprocessor and allowed only inside the CUDA Toolkit's and the
host compiler's system folders, device code only (-cubin, or -fatbin for
several architectures or a PTX form, compute_75) under time, address-space and output limits, and
the fixed entry checked in the module. Nothing is linked; nothing built
from a submission runs on the host.

This module adds what grading needs around it: the module's place under
OUT/.grader/modules, the submission's seed (mixed with a hash of the
file), the stage's timestamps, and a verdict for a submission with no
usable file. Runs in parallel (--jobs) in pipeline.py's compile pool.
"""

import dataclasses
import hashlib
import os
from typing import Optional

from . import compiler
from .machine import SetupError

SOURCE_READ_MAX = 16 << 20      # bytes hashed for the seed


@dataclasses.dataclass
class Compiled(compiler.Compiled):
    """The compile stage's record of one submission: compiler.py's
    Compiled, plus the submission's seed and when the stage began and
    ended (t0, t1: seconds since grading began)."""
    seed: Optional[int] = None
    t0: float = 0.0
    t1: float = 0.0


def compile_submission(*args, **kwargs):
    """compiler.py's compile_submission; nvcc or its host compiler
    missing is the machine's fault (SetupError), never a verdict."""
    try:
        return compiler.compile_submission(*args, **kwargs)
    except compiler.CompilerUnavailable as e:
        raise SetupError("the compile stage cannot run: %s" % e)


def submission_seed(class_seed, path):
    """A 48-bit seed from the grading seed and the file's SHA-256:
    identical files get identical plans, no one can predict either."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        h.update(f.read(SOURCE_READ_MAX))
    mixed = hashlib.sha256(("%d:%s" % (class_seed, h.hexdigest())).encode())
    return int(mixed.hexdigest()[:12], 16)


def compile_one(cfg, sub, index, clock, nice=0):
    """Compiles one submission; never raises for what the file holds.
    clock() gives seconds since grading began (the stage's timestamps);
    nice is added to the compiler processes' nice value."""
    t0 = clock()
    if sub.kernel is None:
        rec = Compiled(False, "no_file", sub.problem)
    else:
        ext = compiler.module_ext(cfg.arch)
        module = os.path.join(cfg.state, "modules", "%s.%s" % (index, ext))
        try:
            c = compile_submission(sub.kernel, module, cfg.arch,
                                   nvcc=cfg.nvcc,
                                   time_limit=cfg.compile_timeout,
                                   mem_limit=cfg.compile_mem << 20,
                                   nice=nice)
            rec = Compiled(**vars(c))
            rec.seed = submission_seed(cfg.seed, sub.kernel)
        except SetupError:
            raise
        except Exception as e:  # a fault of the tool: this one only
            rec = Compiled(False, "tool_error", "the compile stage failed "
                           "(the grading tool's fault, not the file's): %s"
                           % type(e).__name__)
        if rec.ok and (not rec.module or not os.path.isfile(rec.module)):
            rec = Compiled(False, "tool_error", "the compile stage reported "
                           "success but left no module")
    rec.t0, rec.t1 = t0, clock()
    return rec
