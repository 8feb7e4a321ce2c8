"""harness/grade-tests/stallers.py WORK: the staller class, on a GPU
machine (harness/grade-tests/gpu-dev.sh runs it).

Grades a class of 12 copies of the reference solution alone, then the same
copies beside each staller of the corpus (stall_timing_spin,
stall_batch_sleep, stall_every_sm, stall_memory, and timeout), with the
same seed and --run-timeout 10. Every copy must be graded as it was alone:
pass, the same score, x_copy within 5% of its clean run; every staller its
verdict in expected.csv. stall_memory reserves 384 KiB a resident
thread (99 GiB on an H200); where that does not leave HEADROOM_GIB of the
GPU's memory to the rest of the class (an 80 GB card) the same kernel with
the largest frame that does, in steps of 32 KiB (memory_staller: 192 KiB,
about 50 GiB, on an H100), is graded in its place, so that the class still
runs beside most of the memory held; where no frame does, stall_memory's
verdict is crash and the class shows no memory pressure. The second grading within the first's time plus
one submission's limit (one launch's at the H200's timing size, 62914560
elements: every hold of the GPU lock is bounded by it). Prints a line a
submission and a last line; exits 1 when a check fails."""
import csv
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STALLERS = ("stall_timing_spin", "stall_batch_sleep", "stall_every_sm",
            "stall_memory", "timeout")
COPIES = 12
RUN_TIMEOUT = 10.0
LIMIT = RUN_TIMEOUT * 62914560 / (1 << 24)
# What the rest of a staller class holds at once, at most, with room over:
# 16 drivers and their buffers peaked at 21,850 MiB on an H100 (nvidia-smi
# every 2 s); a 256 KiB frame (66 GiB) beside them was refused there.
HEADROOM_GIB = 24


def expected():
    with open(os.path.join(HERE, "expected.csv"), newline="") as f:
        return {r["case"]: r["reason"].split("|") for r in csv.DictReader(f)}


def memory_room(text):
    """(SMs, bytes of memory) of this GPU, from the GPU line grade.py
    printed and nvidia-smi's total; None when either is unknown."""
    sms = re.search(r"compute capability [0-9.]+, ([0-9]+) SMs", text)
    try:
        mib = subprocess.run(["nvidia-smi", "--query-gpu=memory.total",
                              "--format=csv,noheader,nounits"],
                             stdout=subprocess.PIPE, universal_newlines=True,
                             check=True).stdout.split()[0]
    except (OSError, subprocess.CalledProcessError, IndexError):
        return None
    return (int(sms.group(1)), int(mib) << 20) if sms else None


def memory_reserve_fits(text, kib=384, room=None):
    """Whether stall_memory's reservation (2048 threads an SM, kib KiB a
    thread, every SM; the corpus's: 384) leaves HEADROOM_GIB of this GPU's
    memory (room: memory_room's) to the other drivers: where it does not,
    the kernel's launch is refused (out of memory) beside them and its
    verdict is crash, which says nothing of the other drivers. None when
    the room is unknown."""
    room = room or memory_room(text)
    if room is None:
        return None
    sms, total = room
    return 2048 * sms * kib * 1024 + (HEADROOM_GIB << 30) <= total


def memory_frame(text):
    """The frame stall_memory is graded with on this GPU, in KiB a thread:
    the corpus's 384 where it fits, else the largest multiple of 32 KiB
    that does; None where none fits; 384 where the fit is unknown."""
    room = memory_room(text)
    if room is None:
        return 384
    for kib in range(384, 0, -32):
        if memory_reserve_fits(text, kib, room):
            return kib
    return None


def memory_staller(dest, kib):
    """corpus/stall_memory into the folder dest with a stack frame of kib
    KiB a thread instead of its 384 (the same kernel otherwise)."""
    with open(os.path.join(HERE, "corpus", "stall_memory", "threeway.cu")) as f:
        src = f.read()
    frame = "98304"   # the corpus's frame, in ints
    if src.count(frame) != 3:
        raise SystemExit("stallers.py: corpus/stall_memory's frame of %s "
                         "ints is not where it was" % frame)
    os.makedirs(dest)
    with open(os.path.join(dest, "threeway.cu"), "w") as f:
        f.write("/* stallers.py: corpus/stall_memory with a %d KiB frame */\n"
                % kib + src.replace(frame, str(kib * 256)))


def make_class(work, name, extra, memory_kib=384):
    """A class of COPIES copies of the reference solution and the cases
    extra from corpus/, stall_memory's frame memory_kib KiB a thread."""
    klass = os.path.join(work, name)
    os.makedirs(klass)
    for i in range(COPIES):
        d = os.path.join(klass, "copy%02d" % i)
        os.makedirs(d)
        shutil.copy(os.path.join(ROOT, "day33-exercise-threeway", "solution",
                                 "threeway.cu"), d)
    for case in extra:
        if case == "stall_memory" and memory_kib != 384:
            memory_staller(os.path.join(klass, case), memory_kib)
        else:
            shutil.copytree(os.path.join(HERE, "corpus", case),
                            os.path.join(klass, case))
    return klass


def grade(klass, out):
    start = time.monotonic()
    p = subprocess.run([sys.executable, os.path.join(ROOT, "harness",
                                                     "grade.py"),
                        klass, "--out", out, "--seed", "4242",
                        "--run-timeout", str(RUN_TIMEOUT)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    print(p.stdout[-4000:])
    with open(os.path.join(out, "grades.csv"), newline="") as f:
        rows = {r["submission"]: r for r in csv.DictReader(f)}
    return time.monotonic() - start, p.returncode, rows, p.stdout


def main():
    work = sys.argv[1]
    os.makedirs(work, exist_ok=True)
    want = expected()
    clean_s, rc1, clean, text = grade(make_class(work, "clean", ()),
                                      os.path.join(work, "clean-out"))
    kib = memory_frame(text)
    if kib is None:
        kib = 384
        want["stall_memory"] = ["crash"]
        print("stall_memory's reservation does not fit this GPU: its "
              "launch is refused (crash), and the class shows no memory "
              "pressure")
    elif kib != 384:
        print("stall_memory's 384 KiB a thread does not fit this GPU beside "
              "the class: the same kernel with %d KiB stands in for it" % kib)
    stall_s, rc2, stall, _ = grade(make_class(work, "stall", STALLERS, kib),
                                   os.path.join(work, "stall-out"))
    bad = []
    for name, row in sorted(clean.items()):
        other = stall.get(name, {})
        x0 = float(row.get("x_copy") or 0)
        x1 = float(other.get("x_copy") or 0)
        ok = (row.get("reason") == "pass" and other.get("reason") == "pass"
              and other.get("score") == row.get("score") and x0 > 0 and
              abs(x1 / x0 - 1) <= 0.05)
        print("%s %-8s alone: %s %s x_copy %.3f; beside the stallers: %s %s "
              "x_copy %.3f" % ("ok " if ok else "BAD", name, row.get("reason"),
                               row.get("score"), x0, other.get("reason"),
                               other.get("score"), x1))
        if not ok:
            bad.append(name)
    for name in STALLERS:
        got = stall.get(name, {}).get("reason")
        ok = got in want[name]
        print("%s %-18s %s (expected %s)" % ("ok " if ok else "BAD", name, got,
                                            "|".join(want[name])))
        if not ok:
            bad.append(name)
    print("clean class %.1f s, beside the stallers %.1f s (at most %.1f s: "
          "clean + %.1f s)" % (clean_s, stall_s, clean_s + LIMIT, LIMIT))
    if rc1 or rc2:
        bad.append("grade.py exited %s and %s" % (rc1, rc2))
    if stall_s > clean_s + LIMIT:
        bad.append("too slow")
    print("stallers: %s" % ("every copy graded as alone" if not bad
                            else "FAILED: %s" % ", ".join(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
