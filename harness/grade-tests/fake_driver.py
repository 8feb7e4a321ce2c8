#!/usr/bin/env python3
"""fake_driver.py: a TEST DOUBLE of the driver's grade mode
(day33-exercise-threeway/threeway --grade), for run_tests.py on a machine
without a GPU. It runs no kernel. It writes the result file's JSON Lines
events, exits with the codes, hangs, crashes or floods its output, as the
module file asks: a line "FAKE:<behaviour>" anywhere in it (run_tests.py's
fake compile stage copies the source into the module). Without one it
behaves as a passing submission with x_copy 10, timed (with
--ref-module) at the reference's speed. "named_<behaviour>" is the driver
with named tests (below), event for event as events.cu documents them;
the other modes stand for a driver without named tests. With FAKE_LOCK=1
in the environment it takes the --lock file as the driver does (fcntl:
shared for its runs, exclusive for hang_timing's stalled timing), writing
a "lock" event with state "wait" before and "held" after (FAKE_LOCK=quiet:
the lock without the events). "batch_<behaviour>"
writes every run's "start" first, as the driver does for the runs of one
batch, then the behaviour's results, faults and ends. It exits 9 at once
when the tool did not set CUDA_DEVICE_MAX_CONNECTIONS=1.

Also a fake compute-sanitizer when run as "fake_driver.py sanitizer ...":
it runs the rest of its command line, and with FAKE:memcheck in the
module writes a memcheck report to --log-file and exits 86.
"""

import json
import os
import re
import signal
import sys
import time

RUNS = int(os.environ.get("FAKE_RUNS", "4"))   # a long plan: FAKE_RUNS=628
LABELS = ["n=0 mix=thirds grid=1x256", "n=257 mix=thirds grid=3x64",
          "n=4096 mix=ends grid=2x128", "n=65536 mix=no-zeros grid=5x96"]


def arg(argv, name, default=None):
    return argv[argv.index(name) + 1] if name in argv else default


def main(argv):
    if argv and argv[0] == "sanitizer":
        return sanitizer(argv[1:])
    if os.environ.get("CUDA_DEVICE_MAX_CONNECTIONS") != "1":
        # The tool runs every driver with one hardware queue (running.py):
        # without it, every case of the fake driver fails.
        print("fake driver: CUDA_DEVICE_MAX_CONNECTIONS is not 1",
              file=sys.stderr)
        return 9
    with open(arg(argv, "--module"), "rb") as f:
        module = f.read().decode("utf-8", "replace")
    found = re.search(r"FAKE:([a-z_0-9.]+)", module)
    mode = found.group(1) if found else "pass"
    if os.environ.get("FAKE_ARGV"):
        ref = arg(argv, "--ref-module")
        if ref:
            with open(ref, "rb") as f:
                found = re.search(rb"FAKE:([a-z_0-9.]+)", f.read())
            ref = found.group(1).decode() if found else "pass"
        with open(os.environ["FAKE_ARGV"], "a") as f:
            f.write(json.dumps({"mode": mode, "ref": ref, "argv": argv})
                    + "\n")
    batch = mode.startswith("batch_")
    mode = mode[len("batch_"):] if batch else mode
    out = open(arg(argv, "--result"), "w")

    def emit(**ev):
        out.write(json.dumps(ev) + "\n")
        out.flush()

    plan = arg(argv, "--plan", "full")
    if mode.startswith("named_"):
        return named(mode[len("named_"):], argv, plan, emit)
    runs = 1 if plan == "sanitize" else RUNS
    if mode == "exit2":
        print("threeway: --module: unusable file", file=sys.stderr)
        return 2
    if mode == "exit3":
        print("threeway: no CUDA device", file=sys.stderr)
        return 3
    if mode == "hang_begin":
        time.sleep(3600)
    if mode.startswith("sleep_"):   # a slow start, then a pass
        time.sleep(float(mode[6:]))
    emit(event="begin", seed=int(arg(argv, "--seed")), plan=plan, runs=runs,
         visible=os.environ.get("CUDA_VISIBLE_DEVICES"),
         lock=arg(argv, "--lock"), gpu="Fake GPU", cc="9.0", sms=1,
         l2_bytes=1 << 20, driver=13000, runtime=13000)
    if mode == "signature":
        emit(event="module", status="signature",
             entries=["_Z15scatterThreeWayPKiS0_S0_PiiS0_S0_"])
        emit(event="end", status="signature", runs=runs, passed=0)
        return 0
    if mode == "load_error":
        emit(event="module", status="load_error",
             error="CUDA_ERROR_NO_BINARY_FOR_GPU")
        emit(event="end", status="load_error", runs=runs, passed=0)
        return 0
    emit(event="module", status="ok")
    if mode == "flood":
        junk = ("PASS {\"event\":\"end\",\"status\":\"pass\"}\n" * 2000)
        for _ in range(200):
            sys.stdout.write(junk)
        sys.stdout.flush()
        out.write("this is not JSON\n")
    def start(k):
        label = LABELS[k % len(LABELS)] if plan == "full" else "n=1000 mix=thirds grid=2x64"
        n = int(label.split()[0][2:])
        emit(event="start", run=k, label=label, n=n, mix="thirds", blocks=3,
             block=64)

    # As the driver: the GPU lock shared around the runs, exclusive while
    # timing; a staller keeps it until it is killed.
    take_lock(argv, emit, exclusive=mode == "hang_timing")
    if batch:
        for k in range(runs):
            start(k)
    passed = 0
    for k in range(runs):
        if not batch:
            start(k)
        if mode == "hang_run" and k == 1:
            time.sleep(3600)
        if mode == "fault" and k == 2:
            emit(event="fault", run=k, phase="check", call="cuCtxSynchronize",
                 error="CUDA_ERROR_ILLEGAL_ADDRESS")
            return 4
        if mode == "driver_timeout" and k == 1:
            emit(event="timeout", run=k, phase="check", seconds=30)
            return 6
        if mode == "segv" and k == 1:
            os.kill(os.getpid(), signal.SIGSEGV)
        if mode == "exit4_silent" and k == 3:
            return 4
        if mode == "nomem" and k == 1:  # cudaMalloc failed: the driver's
            # exit handler still writes a fault event, then exits 5
            print("threeway: the run's buffers do not fit in device memory",
                  file=sys.stderr)
            emit(event="fault", run=k, phase="check", call="cudaMalloc",
                 error="cudaErrorMemoryAllocation")
            return 5
        status = "pass"
        if mode in ("boundary", "unwritten_group") and k >= 1:
            status = "boundary" if mode == "boundary" else "unwritten"
        result = dict(event="result", run=k, status=status, detail=status,
                      want_b1=10, want_b2=20, found_b1=10,
                      found_b2=19 if status == "boundary" else 20,
                      b1_ok=True, b2_ok=status != "boundary",
                      first_bad=-1 if status == "pass" else 19,
                      got=5, want=0, bad=0 if status == "pass" else 7,
                      unwritten=0 if status != "unwritten" else 5,
                      order_errors=0, guard_before=0, guard_after=0,
                      guard_first_offset=None, disagree_run=-1,
                      group="zeros" if status == "unwritten" else None)
        if mode == "unknown_status" and k == 1:    # a status the tool
            result["status"] = "sideways"           # does not know yet
            status = "mismatch"
        emit(**result)
        if status != "pass":        # the plan stops at its first failure
            emit(event="end", status=status, runs=runs, passed=passed)
            return 0
        passed += 1
    if mode == "exit0_noend":
        return 0
    if mode == "exit7":
        return 7
    if mode == "timing_fault" and "--time" in argv:
        emit(event="fault", run=None, phase="timing", call="cuEventSynchronize",
             error="CUDA_ERROR_LAUNCH_FAILED")
        return 4
    if mode == "hang_timing" and "--time" in argv:
        time.sleep(3600)        # every check passed; stalls in the timing
    if "--time" in argv:
        x = float(mode[5:]) if mode.startswith("slow_") else 10.0
        if mode == "timing_bad":
            emit(event="timing", n=1 << 24, rounds=9, copy_ms=None,
                 split_ms=None, x_copy=None, x_copy_min=None,
                 x_copy_max=None, status="nondeterministic", bad_round=4)
            emit(event="end", status="nondeterministic", runs=runs,
                 passed=passed)
            return 0
        else:
            emit(**timing_event(argv, x))
    emit(event="end", status="pass", runs=runs, passed=passed)
    return 0


# ---------------------------------------------------------------------------
# The driver with named tests, as day33-exercise-threeway/events.cu
# documents its events: the begin event's "tests" (the names this process
# runs) and "runs" (the whole plan's count: a run's number is the same in
# every process, --tests or not), "test" on every run's events, each test
# stopping at its own first failure (its later runs "skip" events), one
# "test" event a test after the plan, then the timing (only with --time,
# every run passed and the test large run: "r", "scatter_ms",
# "ref_scatter_ms", "x_copy"; r null without --ref-module), then "end".
# The plan's order is the driver's: large last. Modes:
#   named_pass                  every test passes; timed at ratio 1
#   named_starter               writes nothing: every test fails at its
#                               first run (unwritten), memcheck's too
#   named_fail_<test>           <test>'s second run fails (boundary)
#   named_input_<test>          <test>'s first run writes into negRank
#   named_crash_<test>          a fault in <test>'s first run, exit 4
#   named_hang_<test>           <test>'s first run never ends
#   named_shared_<test>         as the driver beside a staller: the bound
#                               on a shared hold of the lock stops it in
#                               <test>'s first run ("hold": "shared", exit
#                               6); with --exclusive it passes every test
#   named_nomem                 cudaMalloc fails before the first run:
#                               the exit handler's fault event, exit 5
#   named_timing_<status>       every run passes; a warm-up launch of the
#                               timing fails its check with <status>
#                               (input_written: into "in")
#   named_slow_<r>              every test passes; the kernel r times the
#                               reference's (a --ref-module named_slow_<q>
#                               is q times as slow as named_pass)
# FAKE_ARGV=FILE in the environment: each process appends a line to FILE,
# {"mode": its module's FAKE mode, "ref": --ref-module's or null, "argv"}.

NAMED = ("tiny", "single_group", "block_grid_edges", "every_octave",
         "block_shapes", "many_per_thread", "input_shapes", "repeatability",
         "large")
PER_TEST = 2


def scatter_ms(path):
    """The fake's time of a module's scatterThreeWay: 0.5 ms, times r for
    a module saying FAKE:named_slow_<r> (or FAKE:slow_<x>: x / 10)."""
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", "replace")
    m = re.search(r"FAKE:named_slow_([0-9.]+)", text)
    if m:
        return 0.5 * float(m.group(1))
    m = re.search(r"FAKE:(?:batch_)?slow_([0-9.]+)", text)
    return 0.5 * float(m.group(1)) / 10.0 if m else 0.5


def timing_event(argv, x_copy, test=None):
    """The driver's timing event: the student's scatterThreeWay alone,
    against the reference's when --ref-module names it."""
    mine = scatter_ms(arg(argv, "--module"))
    ref = arg(argv, "--ref-module")
    theirs = scatter_ms(ref) if ref else None
    r = mine / theirs if theirs else None
    ev = dict(event="timing", n=1 << 24, rounds=11, warmup=2, copy_ms=1.0,
              split_ms=x_copy, x_copy=x_copy, x_copy_min=x_copy * 0.99,
              x_copy_max=x_copy * 1.01, scatter_ms=mine,
              ref_scatter_ms=theirs, r=r,
              r_min=r * 0.98 if r else None, r_max=r * 1.02 if r else None,
              status="pass")
    if test:
        ev["test"] = test
    return ev


def named(mode, argv, plan, emit):
    plan_tests = ["memory_safety"] if plan == "sanitize" else list(NAMED)
    tests = list(plan_tests)
    if arg(argv, "--tests"):
        tests = [t for t in tests if t in arg(argv, "--tests").split(",")]
    emit(event="begin", seed=int(arg(argv, "--seed")), plan=plan,
         runs=PER_TEST * len(plan_tests), gpu="Fake GPU", cc="9.0", sms=1,
         l2_bytes=1 << 20, driver=13000, runtime=13000, max_n=1 << 24,
         tests=tests)
    emit(event="module", status="ok")
    if mode == "nomem":
        print("CUDA error: cudaMalloc(&b->checks, ...) at buffers.cu:95: "
              "cudaErrorMemoryAllocation: out of memory", file=sys.stderr)
        emit(event="fault", run=None, test=None, phase="check",
             call="a CUDA call of the driver (its line is on stderr)",
             error="cudaErrorMemoryAllocation")
        return 5
    take_lock(argv, emit, exclusive=False)
    first, passed, tally = None, 0, []
    for ti, t in enumerate(plan_tests):
        if t not in tests:
            continue
        failed_at, done = None, 0
        for i in range(PER_TEST):
            k = ti * PER_TEST + i
            n = 1 + i if t == "tiny" else 4096 + i
            if failed_at is not None:
                emit(event="skip", run=k, test=t, reason="not run: the test "
                     "stopped at its first failure")
                continue
            emit(event="start", run=k, test=t, label="n=%d mix=thirds "
                 "grid=2x128" % n, n=n, mix="thirds", blocks=2, block=128,
                 launches=1)
            if mode == "crash_" + t:
                emit(event="fault", run=k, test=t, phase="check",
                     call="scatterThreeWay", error="cudaErrorIllegalAddress")
                return 4
            if mode == "hang_" + t:
                time.sleep(3600)
            if mode == "shared_" + t and "--exclusive" not in argv:
                print("threeway: scatterThreeWay ran past its limit of 10 s "
                      "(the GPU lock was held past one launch's limit) and "
                      "was stopped", file=sys.stderr)
                emit(event="timeout", run=k, test=t, phase="check",
                     seconds=10.0, hold="shared")
                return 6
            status = "unwritten" if mode == "starter" else \
                "boundary" if mode == "fail_" + t and i == 1 else \
                "input_written" if mode == "input_" + t else "pass"
            emit(event="result", run=k, test=t, status=status,
                 detail=status, buffer="negRank" if status ==
                 "input_written" else None,
                 want_b1=1, want_b2=2, found_b1=1 if status == "pass" else n,
                 found_b2=2 if status == "pass" else n,
                 b1_ok=status == "pass", b2_ok=status == "pass",
                 first_bad=-1 if status == "pass" else 0, got=0, want=-5,
                 bad=0 if status == "pass" else n, unwritten=0 if status ==
                 "pass" else n, order_errors=0, guard_before=0,
                 guard_after=0, guard_first_offset=None, disagree_run=-1,
                 group="negatives, zeros and positives" if status ==
                 "unwritten" else None)
            done += 1
            if status == "pass":
                passed += 1
            else:
                failed_at, first = k, first or status
                tally.append((t, status, done, done - 1, PER_TEST - done, k))
        if failed_at is None:
            tally.append((t, "pass", done, done, 0, None))
    # One "test" event a test, in the driver's order of its tests (large
    # before repeatability there, unlike the plan's order).
    order = NAMED[:7] + ("large", "repeatability")
    tally.sort(key=lambda x: order.index(x[0]) if x[0] in order else -1)
    for t, status, runs, ok, not_run, at in tally:
        emit(event="test", test=t, status=status, runs=runs, passed=ok,
             not_run=not_run, failed_run=at)
    if "--time" in argv and plan == "full" and first is None and \
            "large" in tests:
        ev = timing_event(argv, 6.0 * scatter_ms(arg(argv, "--module")),
                          "repeatability")
        if mode.startswith("timing_"):
            first = mode[len("timing_"):]
            for key in ("copy_ms", "split_ms", "x_copy", "x_copy_min",
                        "x_copy_max", "scatter_ms", "ref_scatter_ms", "r",
                        "r_min", "r_max"):
                ev[key] = None          # every time null, as the driver
            ev.update(status=first, bad_round=1, in_warmup=True,
                      launch="scatter", buffer="in" if first ==
                      "input_written" else None)
        emit(**ev)
    emit(event="end", status=first or "pass", runs=PER_TEST * len(
        plan_tests), passed=passed)
    return 0


def take_lock(argv, emit, exclusive):
    """With FAKE_LOCK=1, takes the --lock file as the driver does (fcntl:
    shared for its runs, exclusive while timing) and writes a "lock" event
    "wait" before and "held" after; FAKE_LOCK=quiet takes it and writes
    none (a driver without lock events). Returns the open file (held until
    the process ends), or None."""
    how = os.environ.get("FAKE_LOCK")
    if how not in ("1", "quiet") or not arg(argv, "--lock"):
        return None
    import fcntl
    lock = open(arg(argv, "--lock"), "r+")
    if how == "1":
        emit(event="lock", state="wait")
    fcntl.lockf(lock, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
    if how == "1":
        emit(event="lock", state="held")
    HELD.append(lock)
    return lock


HELD = []


def sanitizer(argv):
    log = arg(argv, "--log-file")
    cmd = argv[argv.index("--log-file") + 2:]
    module = open(arg(cmd, "--module"), "rb").read()
    rc = os.spawnv(os.P_WAIT, cmd[0], cmd)
    if b"FAKE:memcheck" in module:
        with open(log, "w") as f:
            f.write("========= COMPUTE-SANITIZER\n"
                    "========= Invalid __global__ write of size 4 bytes\n"
                    "=========     at scatterThreeWay+0x1d0\n"
                    "=========     Address 0x7f0000300000 is out of bounds\n"
                    "========= ERROR SUMMARY: 1 error\n")
        return 86
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
