#!/usr/bin/env python3
"""host-cpu.py [COPIES]: the grading tool's own CPU time per submission,
without a GPU: a class of COPIES (default 40) fake drivers
(fake_driver.py), each writing a plan of FAKE_RUNS (default 628, the
H200 plan's size) runs in batches, graded with --no-sanitize. The drivers'
CPU is not counted (they are child processes): what is left is the
tool's: the watchdogs reading the events, the judge, the reports.
"""

import os
import resource
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
copies = int(sys.argv[1]) if len(sys.argv) > 1 else 40
sys.argv = sys.argv[:1]
import run_tests as rt  # noqa: E402
import test_hardening as th  # noqa: E402

tmp = tempfile.mkdtemp(prefix="host-cpu-")
try:
    os.environ.setdefault("FAKE_RUNS", "628")
    klass = th.make_class(os.path.join(tmp, "class"), [
        ("s%03d" % i, "batch_pass") for i in range(copies)])
    with th.fakes(rt, tmp) as tools:
        r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
        rc, text = rt.grade([klass, "--out", os.path.join(tmp, "out"),
                             "--driver", tools["driver"], "--no-sanitize",
                             "--jobs", "8", "--seed", "7"])
        r1, t1 = resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
    cpu = r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime
    print("host-cpu: %d copies of a %s-run plan, exit %s: %.1f s wall, the "
          "tool's own CPU %.2f s (%.3f s a copy)" % (
              copies, os.environ["FAKE_RUNS"], rc, t1 - t0, cpu,
              cpu / copies))
finally:
    shutil.rmtree(tmp, ignore_errors=True)
