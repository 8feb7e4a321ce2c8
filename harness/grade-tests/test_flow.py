"""test_flow.py: the instructor's flow, tested by run_tests.py (which calls
run(rt, tmp) with itself as rt, for its check(), grade() and fakes).

1. The judge on the driver's events as events.cu documents them
   (fake_driver.py's named mode: the begin event's test names, "test" on
   every run, skip and test events, the timing's r, scatter_ms,
   ref_scatter_ms): credit per named test, a failing class keeping the
   others' points, the starter's 10, a crash re-run once for the
   unfinished tests and the processes' events merged, no re-run after a
   timeout, a warm-up's failing check, exit 5 and a lock given up as
   errors, 13 boxes, --hide-until-due, an unknown status, the judge
   linear in the plan's runs.
2. Identity: the Gradescope metadata in the real export's shape
   (gradescope-export/submission_metadata.yml) read alike with and
   without PyYAML; rosters; a flat folder of .cu files; identity cells
   never rewritten.
3. The command line: only grades in gradescope.csv, the "not graded"
   line, --only regrades keeping every other row, the summary's histogram
   and verdict counts, late and answer columns, refused limits and
   shards, a merge refusing mixed settings; the grader and the driver
   wired through the pipeline (test_wiring), with and without the
   driver's lock events: --ref-module whenever it times, r scored, one
   --tests re-run after a crash, none after a timeout, memcheck's run
   whenever the module loaded, gpu_memory.
"""

import json
import os
import shutil
import subprocess
import sys
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from grader import cli, compiler, judge, listing, reports, running  # noqa

check = None        # run_tests.check, set by run()


def run(rt, tmp):
    global check
    check = rt.check
    test_judge(tmp)
    test_metadata(tmp)
    test_identity(rt, tmp)
    test_cli(rt, tmp)
    test_gradescope_zip(tmp)


# ---------------------------------------------------------------------------
# 1. The judge.

CFG = dict(arch="90", sanitize=True, perf=True, build_only=False,
           not_run_why="--build-only", hide_until_due=False)


def fake_run(tmp, mode, plan="full", tests=None, timed=True,
             ref="named_pass", exclusive=False):
    """A Run of fake_driver.py with FAKE:<mode>, its events as read; timed
    against a reference module saying FAKE:<ref>, as the grader runs it."""
    mod, res = os.path.join(tmp, "mod.cu"), os.path.join(tmp, "res.jsonl")
    refmod = os.path.join(tmp, "refmod.cu")
    for path, m in ((mod, mode), (refmod, ref)):
        with open(path, "w") as f:
            f.write("// FAKE:%s\n" % m)
    argv = [sys.executable, os.path.join(HERE, "fake_driver.py"), "--grade",
            "--module", mod, "--result", res, "--seed", "1", "--plan", plan]
    argv += ["--time", "--ref-module", refmod] if timed and not tests \
        else []
    argv += ["--tests", ",".join(tests)] if tests else []
    argv += ["--exclusive"] if exclusive else []
    p = subprocess.run(argv, env=dict(os.environ,
                                      CUDA_DEVICE_MAX_CONNECTIONS="1"),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r = running.Run("fake " + mode)
    r.rc = p.returncode
    r.exclusive = exclusive
    with open(res) as f:
        r.events = [json.loads(line) for line in f]
    return r


def judged(tmp, mode, rerun=True, **cfg):
    """The Verdict of a named-mode fake, re-run for unfinished tests as
    the grader does, and the tests the re-run was asked for."""
    runs = [fake_run(tmp, "named_" + mode)]
    left = judge.tests_to_rerun(runs)
    if left and rerun:          # once, as pipeline.py does
        runs.append(fake_run(tmp, "named_" + mode, tests=left))
    left = judge.unfinished_tests(runs[:1])
    san = fake_run(tmp, "named_" + mode, "sanitize", timed=False)
    comp = compiler.Compiled(True, None, "")
    return judge.judge(comp, runs, san, "", 3.0, types.SimpleNamespace(
        **dict(CFG, **cfg))), left


def boxes(v):
    return {t["name"].split(":")[0]: t for t in v.tests}


def test_judge(tmp):
    v, _ = judged(tmp, "pass")
    check(v.reason == "pass" and v.score == 100 and len(v.tests) == 13 and
          [t.split(":")[0] for t in boxes(v)] == ["compile", "signature"] +
          list(judge.CHECK_NAMES) + ["performance"], "named tests: a "
          "passing kernel scores 100 in 13 boxes (%s)" % v.score)
    v, _ = judged(tmp, "starter")
    b = boxes(v)
    check(v.score == 10 and v.reason == "unwritten" and all(
        b[n]["status"] == "failed" for n in judge.CHECK_NAMES) and
          "run 0 (n=1 " in b["tiny"]["output"], "the starter (writes "
          "nothing) scores 10: every test fails at its first run; tiny's "
          "report: %s" % b["tiny"]["output"][:60])
    v, _ = judged(tmp, "fail_block_shapes")
    b = boxes(v)
    others = [n for n in judge.CHECK_NAMES if n != "block_shapes"]
    check(v.score == 82 and v.failed == ["block_shapes"] and
          "boundaries found" in b["block_shapes"]["output"] and
          "stopped at its first failure" in b["block_shapes"]["output"] and
          all(b[n]["score"] == 8 for n in others) and
          b["performance"]["score"] == 0, "a kernel failing one class "
          "keeps the others' points: %s (72 + 10; no performance points)"
          % v.score)
    # The plan runs test after test (large last): a crash in every_octave
    # leaves the three tests before it finished, the five after it open.
    after = ["block_shapes", "many_per_thread", "input_shapes", "large",
             "repeatability"]
    v1, left = judged(tmp, "crash_every_octave", rerun=False)
    v2, _ = judged(tmp, "crash_every_octave")
    b1, b2 = boxes(v1), boxes(v2)
    check(left == after and v1.reason == v2.reason == "crash"
          and b1["large"]["score"] == 0 and "not run: the driver "
          "stopped" in b1["large"]["output"] and b1["tiny"]["score"] == 8
          and b2["large"]["score"] == 8 and v2.score == 82 and
          "cudaErrorIllegalAddress" in b2["every_octave"]["output"],
          "a crash costs its test only: the tests before it finished, the "
          "driver started again for %s, the processes' events merged (%s "
          "without the re-run, %s with)" % (left, v1.score, v2.score))
    first = fake_run(tmp, "named_crash_every_octave")
    again = fake_run(tmp, "named_crash_every_octave", tests=after)
    last = fake_run(tmp, "named_crash_large")
    check(judge.tests_to_rerun([first]) == after and
          judge.tests_to_rerun([first, again]) == [] and
          judge.tests_to_rerun([last]) == [] and
          judge.tests_to_rerun([fake_run(tmp, "exit3")]) == [] and
          judge.tests_to_rerun([fake_run(tmp, "fault")]) == [] and
          judge.tests_to_rerun([fake_run(tmp, "named_pass")]) == [],
          "tests_to_rerun: the unfinished tests after a crash; nothing "
          "after a process that finished no new test, a crash in the last "
          "test, a machine's error, a driver without named tests, or a "
          "normal end")
    stalled = fake_run(tmp, "named_crash_every_octave")
    stalled.rc, stalled.killed = -9, ("run", 6, 1.5)
    stalled.events = [e for e in stalled.events if e["event"] != "fault"]
    check(judge.tests_to_rerun([stalled]) == [] and judge.unfinished_tests(
        [stalled]) == after, "never again after a timeout (a staller costs "
          "one process's limit): %s left not run" % judge.unfinished_tests(
              [stalled]))
    # A watchdog's stop in a run whose batch wrote no start event (seen on
    # the H200 beside the stallers): the stop event's test fails with
    # timeout, and the submission is never a pass.
    unstarted = fake_run(tmp, "named_crash_every_octave")
    unstarted.rc = 6
    unstarted.events = [e for e in unstarted.events if e["event"] not in (
        "fault", "end")] + [{"event": "timeout", "run": 10 ** 6, "test":
                             "every_octave", "phase": "check",
                             "seconds": 10.0}]
    v = judge.judge(compiler.Compiled(True, None, ""), [unstarted],
                    fake_run(tmp, "named_pass", "sanitize", timed=False), "",
                    3.0, types.SimpleNamespace(**CFG))
    b = boxes(v)
    check(v.reason == "timeout" and v.status == "fail" and
          b["every_octave"]["score"] == 0 and "watchdog" in
          b["every_octave"]["output"] and b["tiny"]["score"] == 8,
          "a stop in a run with no start event: its test fails with "
          "timeout, never a pass (%s %s)" % (v.reason, v.score))
    shared = fake_run(tmp, "named_shared_every_octave")
    alone = fake_run(tmp, "named_shared_every_octave", exclusive=True)
    hung = fake_run(tmp, "named_crash_every_octave")
    hung.rc = 6
    hung.events = [e for e in hung.events if e["event"] != "fault"] + [
        {"event": "timeout", "run": 6, "test": "every_octave",
         "phase": "check", "seconds": 10.0}]
    check(judge.rerun_alone([shared]) and not judge.rerun_alone([alone])
          and not judge.rerun_alone([hung]) and not judge.rerun_alone(
              [shared, alone]) and alone.exclusive, "rerun_alone: only a "
          "first process stopped by the bound on a shared hold; never a "
          "launch's own limit, never a try alone")
    shared.superseded = True
    v = judge.judge(compiler.Compiled(True, None, ""), [shared, alone],
                    fake_run(tmp, "named_pass", "sanitize", timed=False), "",
                    3.0, types.SimpleNamespace(**CFG))
    check(v.reason == "pass" and v.score == 100, "a superseded process is "
          "left out of the verdict: %s %s" % (v.reason, v.score))
    v, _ = judged(tmp, "input_block_shapes")
    b = boxes(v)
    check(v.reason == "input_written" and v.score == 82 and
          "negRank" in b["block_shapes"]["output"] and
          "not run: 1 of them" in b["block_shapes"]["output"],
          "the driver's skip and test events: block_shapes fails at its "
          "first run (input_written, negRank), its second run skipped: %s"
          % b["block_shapes"]["output"][:160])
    v, _ = judged(tmp, "timing_input_written")
    b = boxes(v)
    check(v.reason == "input_written" and v.failed == ["repeatability"] and
          v.score == 82 and "warm-up" in b["repeatability"]["output"] and
          "into in" in b["repeatability"]["output"], "a warm-up launch of "
          "the timing that writes its input fails repeatability with the "
          "timing's verdict: %s" % b["repeatability"]["output"][:100])
    r = fake_run(tmp, "named_pass")
    r.events = r.events[:2] + [{"event": "lock", "state": "wait"},
                               {"event": "lock", "state": "gave_up"}]
    r.rc = 2
    v = judge.judge(compiler.Compiled(True, None, ""), [r], None, "", 3.0,
                    types.SimpleNamespace(**CFG))
    check(v.reason == "tool_error" and "GPU lock" in v.detail and
          judge.tests_to_rerun([r]) == [], "a driver that gave up waiting "
          "for the GPU lock: tool_error, graded again: %s" % v.detail[:70])
    v, _ = judged(tmp, "nomem")
    check(v.reason == "gpu_memory" and v.status == "error" and
          judge.tests_to_rerun([fake_run(tmp, "named_nomem")]) == [],
          "exit 5 (cudaMalloc failed) is gpu_memory, an error, not re-run: "
          "%s" % v.detail[:80])
    v, _ = judged(tmp, "slow_2")
    want = 90 + 10 * (3.0 - 2.0) / (3.0 - 1.25)
    perf = boxes(v)["performance"]["output"]
    check(v.reason == "pass" and abs(v.score - want) < 0.01 and
          abs(v.ratio - 2.0) < 1e-9 and "alone" in perf and
          abs(v.x_copy - 6.0) < 1e-9, "performance from the driver's r "
          "(scatter_ms / ref_scatter_ms): r 2 -> %s; x_copy kept: %s"
          % (v.score, perf[:120]))
    r = fake_run(tmp, "named_slow_2")
    for e in r.events:
        if e.get("event") == "timing":
            e["r"] = None
    v = judge.judge(compiler.Compiled(True, None, ""), [r], None, "", 3.0,
                    types.SimpleNamespace(**dict(CFG, sanitize=False)))
    check(abs(v.ratio - 2.0) < 1e-9, "r null: the ratio of the two "
          "medians, %s" % v.ratio)
    for e in r.events:
        if e.get("event") == "timing":
            e["scatter_ms"] = e["ref_scatter_ms"] = None
    v = judge.judge(compiler.Compiled(True, None, ""), [r], None, "", 3.0,
                    types.SimpleNamespace(**dict(CFG, sanitize=False)))
    check(abs(v.ratio - 2.0) < 1e-9, "no kernel times (a driver not given "
          "--ref-module): x_copy over the reference's, %s" % v.ratio)
    v, _ = judged(tmp, "starter", hide_until_due=True)
    vis = [(t["name"].split(":")[0], t["visibility"]) for t in v.tests]
    check(vis[:2] == [("compile", "visible"), ("signature", "visible")] and
          all(x == "after_due_date" for _, x in vis[2:]), "--hide-until-due:"
          " all but compile and signature after the due date")
    test_unknown_status(tmp)
    test_linear()


def test_unknown_status(tmp):
    r = fake_run(tmp, "named_pass")
    for e in r.events:
        if e.get("event") == "result" and e.get("run") == 3:
            e["status"] = "no_such_status"
    comp = compiler.Compiled(True, None, "")
    try:
        v = judge.judge(comp, [r], None, "", 3.0,
                        types.SimpleNamespace(**CFG))
        row = reports.grades_row(types.SimpleNamespace(
            name="x", answer="", answer_flag="", out_dir="submissions/x"), v)
        ok = v.reason == "tool_error" and row["status"] == "error" and \
            "no_such_status" in v.detail
    except Exception as e:          # noqa: BLE001 (the defect: it raised)
        ok, v = False, e
    check(ok and judge.status_of("no_such_status") == "error",
          "an unknown result status is this submission's tool_error, "
          "never an exception that stops the class: %s"
          % getattr(v, "detail", v))


def test_linear():
    """Judging a plan of 6000 runs: the events are indexed once (looking
    each run up by a scan took seconds)."""
    r = running.Run("big")
    r.rc = 0
    r.events = [{"event": "begin", "runs": 6000, "plan": "full",
                 "tests": list(judge.CHECK_NAMES[:-1])},
                {"event": "module", "status": "ok"}]
    for k in range(6000):
        t = judge.CHECK_NAMES[k % 9]
        r.events.append({"event": "start", "run": k, "test": t,
                         "label": "n=%d" % k, "n": k})
    for k in range(6000):
        r.events.append({"event": "result", "run": k, "test":
                         judge.CHECK_NAMES[k % 9], "status": "pass"})
    r.events += [{"event": "test", "test": t, "status": "pass"}
                 for t in judge.CHECK_NAMES[:-1]]
    r.events += [{"event": "timing", "status": "pass", "r": 1.0,
                  "x_copy": 3.0}, {"event": "end", "status": "pass"}]
    comp = compiler.Compiled(True, None, "")
    start = time.monotonic()
    v = judge.judge(comp, [r], None, "", 3.0, types.SimpleNamespace(
        **dict(CFG, sanitize=False)))
    took = time.monotonic() - start
    check(took < 1.0 and v.score == 92, "the judge is linear in the plan's "
          "runs: 6000 runs judged in %.3f s" % took)


# ---------------------------------------------------------------------------
# 2. Identity.

EXPORT_META = os.path.join(HERE, "gradescope-export",
                           "submission_metadata.yml")
WANT_META = {
    "submission_300111": ([("Jane Doe", "0042", "jane@example.edu")],
                          "2025-03-07 23:58:12.123456789 -08:00"),
    "submission_300222": ([("O'Brien, Pat", "00200", "pat@example.edu"),
                           ('Dwayne "The Rock" Lee', "201",
                            "dwayne@example.edu")],
                          "2025-03-08 01:30:00.000000000 -08:00"),
    "submission_300333": ([("Ann 'Annie' Ng", "0043", "+annie@example.edu")],
                          "2025-03-06 09:00:00.000000000 -08:00"),
}


def _flat(meta):
    return {k: ([(p["name"], p["sid"], p["email"]) for p in v["submitters"]],
                v["created_at"]) for k, v in meta.items()}


def test_metadata(tmp):
    with open(EXPORT_META, encoding="utf-8") as f:
        text = f.read()
    got, reader = listing.read_gradescope_meta(text, use_yaml=False)
    check(_flat(got) == WANT_META and reader == "the built-in reader",
          "Gradescope metadata, the built-in reader: the current "
          "submitters only (not :history:'s), a group, leading-zero SIDs, "
          "names with commas and quotes, Ruby tags: %s" % _flat(got))
    try:
        import yaml  # noqa: F401
        have = True
    except ImportError:
        have = False
    if have:
        got, reader = listing.read_gradescope_meta(text, use_yaml=True)
        check(_flat(got) == WANT_META and reader == "PyYAML", "Gradescope "
              "metadata read by PyYAML (Ruby tags accepted, no implicit "
              "typing): the same entries")
        got, reader = listing.read_gradescope_meta(text)
        check(reader == "PyYAML", "PyYAML is the reader when installed")
    else:
        print("skip the PyYAML reader: PyYAML is not installed "
              "(apt-get install python3-yaml)")
    for fold in ("submission_300111", "submission_300222"):
        os.makedirs(os.path.join(tmp, "export", fold))
        shutil.copy(os.path.join(HERE, "corpus", "pass", "threeway.cu"),
                    os.path.join(tmp, "export", fold))
    shutil.copy(EXPORT_META, os.path.join(tmp, "export"))
    kind, subs, notes = listing.list_class(os.path.join(tmp, "export"))
    names = [s.name for s in subs]
    check(kind == "gradescope" and names == [
        "Jane Doe", "O'Brien, Pat, Dwayne \"The Rock\" Lee"] and
          subs[0].created_at.startswith("2025-03-07"), "an export is "
          "listed by its current submitters: %s" % names)


def test_identity(rt, tmp):
    clones = os.path.join(tmp, "roster-class")
    for repo in ("threeway-alice", "threeway-bob", "carol"):
        path = os.path.join(clones, repo, "day33-exercise-threeway")
        os.makedirs(path)
        shutil.copy(os.path.join(HERE, "corpus", "pass", "threeway.cu"), path)
    roster = os.path.join(tmp, "roster.csv")
    with open(roster, "w") as f:
        f.write("Name,GitHub Username,SID,Email\n"
                "Alice A,alice,0007,alice@example.edu\n"
                "Bob B,bob,0008,bob@example.edu\n"
                "Dan D,dan,0009,dan@example.edu\n")
    kind, subs, notes = listing.list_class(clones)
    listing.apply_roster(subs, listing.read_roster(roster), notes)
    ids = {s.name: [(p["name"], p["sid"], p["email"]) for p in s.submitters]
           for s in subs}
    check(ids["threeway-alice"] == [("Alice A", "0007", "alice@example.edu")]
          and not ids["carol"] and any("not in the roster: carol" in n and
                                       "no submission: Dan D" in n
                                       for n in notes),
          "--roster joins Classroom clones by login (SIDs as written), "
          "names who matched nothing: %s" % notes[-1])
    flat = os.path.join(tmp, "flat")
    os.makedirs(flat)
    for name in ("alice.cu", "Bob Smith_123_4567_threeway.cu",
                 "carol_LATE_12_34_threeway-1.cu"):
        shutil.copy(os.path.join(HERE, "corpus", "pass", "threeway.cu"),
                    os.path.join(flat, name))
    kind, subs, notes = listing.list_class(flat)
    check(kind == "flat" and [s.name for s in subs] == [
        "Bob Smith", "alice", "carol"] and all(s.kernel for s in subs),
          "a flat folder of .cu files: one submission per student, named "
          "by the rule: %s" % [s.name for s in subs])
    shutil.copy(os.path.join(flat, "alice.cu"),
                os.path.join(flat, "alice_9_9_threeway.cu"))
    try:
        listing.list_class(flat)
        said = ""
    except listing.ClassError as e:
        said = str(e)
    check("both belong to alice" in said and "<student>.cu" in said,
          "a flat folder with two files of one student is refused with the "
          "rule: %s" % said[:100])
    rows, refused, _ = reports.gradescope_rows([types.SimpleNamespace(
        out_dir="submissions/a", name="a", submitters=[
            {"name": "Ann", "sid": "1", "email": "+ann@example.edu"},
            {"name": "Bo", "sid": "-2", "email": "bo@example.edu"},
            {"name": "Cy", "sid": "3", "email": "cy@example.edu"}])],
        [{"submission": "a", "status": "pass", "score": "90",
          "results": "submissions/a/results.json"}])
    check([r["Name"] for r in rows] == ["Cy"] and len(refused) == 2 and
          "'+ann@example.edu'" in refused[0] and "enter 90 by hand" in
          refused[0], "identity cells are never rewritten: a formula-like "
          "one is refused with one line: %s" % refused[:1])


# ---------------------------------------------------------------------------
# 3. The command line.

def fake_class(path, markers):
    for m in markers:
        os.makedirs(os.path.join(path, m))
        with open(os.path.join(path, m, "threeway.cu"), "w") as f:
            f.write("// FAKE:%s\n" % m)
    return path


def test_cli(rt, tmp):
    tools = rt.fake_tools(tmp)
    saved = (rt.compiling.compile_submission, rt.machine.probe_gpus,
             rt.cli.GRACE)
    rt.compiling.compile_submission = rt.fake_compile
    rt.machine.probe_gpus = lambda gpus, nvcc, then=None: [
        (g, "GPU: Fake GPU (compute capability 9.0, 1 SMs)", "90")
        for g in gpus]
    try:
        _test_cli(rt, tmp, tools)
        rt.cli.GRACE = 0.5
        for lock in ("1", "quiet"):
            test_wiring(rt, tmp, tools, lock)
    finally:
        (rt.compiling.compile_submission, rt.machine.probe_gpus,
         rt.cli.GRACE) = saved


def test_wiring(rt, tmp, tools, lock):
    """The grader and the driver's contract, end to end through the
    pipeline with the fake driver in its named mode: --ref-module the
    reference's module whenever it times, the driver's r scored; one
    re-run with --tests after a crash, none after a timeout; memcheck's
    run whenever the module loaded; exit 5 gpu_memory. lock: FAKE_LOCK,
    "1" (the driver writes lock events) or "quiet" (it writes none)."""
    klass = fake_class(os.path.join(tmp, "wiring-" + lock), [
        "named_pass", "named_slow_2", "named_crash_every_octave",
        "named_hang_block_shapes", "named_nomem", "named_shared_large"])
    ref = os.path.join(tmp, "wiring-ref.cu")
    with open(ref, "w") as f:
        f.write("// FAKE:named_pass\n")
    out = os.path.join(tmp, "wiring-out-" + lock)
    argv_log = os.path.join(tmp, "wiring-argv-%s.jsonl" % lock)
    os.environ.update(FAKE_ARGV=argv_log, FAKE_LOCK=lock)
    try:
        rc, text = rt.grade([klass, "--out", out, "--driver", tools["driver"],
                             "--sanitizer", tools["sanitizer"],
                             "--reference-module", ref, "--seed", "5",
                             "--run-timeout", "3", "--submission-timeout",
                             "10", "--jobs", "4"])
    finally:
        os.environ.pop("FAKE_ARGV", None)
        os.environ.pop("FAKE_LOCK", None)
    rows = {f.split("/")[1]: r for f, r in rt.by_folder(
        rt.read_rows(out)).items()}
    calls, refs = {}, {}
    with open(argv_log) as f:
        for line in f:
            c = json.loads(line)
            calls.setdefault(c["mode"], []).append(c["argv"])
            refs[id(calls[c["mode"]][-1])] = c["ref"]

    def plans(name):
        return [a for a in calls.get(name, []) if "full" in a]

    def sanitize(name):
        return [a for a in calls.get(name, []) if "sanitize" in a]

    def res(name):
        with open(os.path.join(out, "submissions", name,
                               "results.json")) as f:
            return {t["name"].split(":")[0]: t for t in json.load(f)["tests"]}
    tag = "(lock events: %s) " % ("yes" if lock == "1" else "none")
    # named_pass: the reference's run and the student's
    timed = [a for n in ("named_pass", "named_slow_2") for a in plans(n)]
    everyone = [a for v in calls.values() for a in v]
    check(rc == 0 and len(timed) == 3 and all(
        refs[id(a)] == "named_pass" for a in timed) and all(
            ("--time" in a) == ("--ref-module" in a) for a in everyone),
          tag + "every driver that times is given the reference's module "
          "(--ref-module), the reference's own included: exit %s" % rc)
    caches = {a[a.index("--input-cache") + 1] if "--input-cache" in a
              else None for a in everyone}
    check(len(caches) == 1 and None not in caches and not any(
        os.path.exists(c) for c in caches), tag + "every driver (the "
          "reference's, the students', memcheck's) is given one shared "
          "inputs' folder (--input-cache), removed at the end: %s"
          % sorted(map(str, caches)))
    perf = res("named_slow_2")["performance"]
    want = 90 + 10 * (3.0 - 2.0) / (3.0 - 1.25)
    check(rows["named_pass"]["score"] == "100" and abs(float(rows[
        "named_slow_2"]["score"]) - want) < 0.01 and rows["named_slow_2"][
            "ratio"] == "2.000" and "alone" in perf["output"] and
          rows["named_slow_2"]["x_copy"] == "6.000", tag + "the driver's r "
          "scored: %s; x_copy kept: %s" % (rows["named_slow_2"]["score"],
                                           rows["named_slow_2"]["x_copy"]))
    again = plans("named_crash_every_octave")
    want_tests = "block_shapes,many_per_thread,input_shapes,large," \
        "repeatability"
    check(len(again) == 2 and "--tests" not in again[0] and
          again[1][again[1].index("--tests") + 1] == want_tests and
          "--time" not in again[1] and rows["named_crash_every_octave"][
              "score"] == "82" and rows["named_crash_every_octave"][
                  "reason"] == "crash", tag + "a crash: the driver once more "
          "for the tests left (--tests %s), 82 points: %s" % (
              again[1][again[1].index("--tests") + 1] if len(again) == 2
              and "--tests" in again[1] else "-",
              rows["named_crash_every_octave"]["score"]))
    hung = res("named_hang_block_shapes")
    check(len(plans("named_hang_block_shapes")) == 1 and rows[
        "named_hang_block_shapes"]["reason"] == "timeout" and hung[
            "large"]["score"] == 0 and hung["every_octave"]["score"] == 8
          and hung["memory_safety"]["score"] == 8, tag + "a timeout: no "
          "second driver (a staller costs one limit), the tests after it "
          "not run, those before kept: %s" % rows["named_hang_block_shapes"][
              "score"])
    def limit(a):
        return a[a.index("--run-timeout") + 1] if "--run-timeout" in a \
            else None
    check([limit(a) for a in sanitize("named_hang_block_shapes")] == [
        "2"] and [limit(a) for a in sanitize("named_pass")] == ["3"],
          tag + "memcheck's run after a hang gets a launch limit of 2 s "
          "(AFTER_HANG_RUN_TIMEOUT), after a pass the class's 3 s: %s, %s"
          % ([limit(a) for a in sanitize("named_hang_block_shapes")],
             [limit(a) for a in sanitize("named_pass")]))
    check(all(len(sanitize(n)) == 1 for n in (
        "named_pass", "named_crash_every_octave",
        "named_hang_block_shapes")) and res("named_crash_every_octave")[
            "memory_safety"]["score"] == 8 and not sanitize("named_nomem"),
          tag + "memcheck's run whenever the module loaded (after a crash "
          "and a timeout too), not after an error of the machine")
    shared = plans("named_shared_large")
    with open(os.path.join(out, "submissions", "named_shared_large",
                           "log.txt")) as f:
        shared_log = f.read()
    check(len(shared) == 2 and "--exclusive" not in shared[0] and
          "--exclusive" in shared[1] and "--time" in shared[1] and
          "--tests" not in shared[1] and rows["named_shared_large"][
              "score"] == "100" and rows["named_shared_large"]["reason"] ==
          "pass" and "--exclusive" in shared_log and "held past" in
          shared_log, tag + "stopped by the bound on a shared hold (beside "
          "a staller): graded again alone (--exclusive, whole and timed), "
          "judged on that try, both tries in log.txt: %s" % rows[
              "named_shared_large"]["score"])
    check(rows["named_nomem"]["reason"] == "gpu_memory" and
          rows["named_nomem"]["status"] == "error" and
          len(plans("named_nomem")) == 1, tag + "exit 5 (cudaMalloc failed)"
          ": gpu_memory, an error, graded again later: %s"
          % rows["named_nomem"]["detail"][:80])
    shutil.rmtree(out)


def _test_cli(rt, tmp, tools):
    klass = fake_class(os.path.join(tmp, "cli-class"), [
        "named_pass", "named_starter", "named_fail_large", "exit3"])
    with open(os.path.join(klass, "named_pass", "answer.txt"), "w") as f:
        f.write("UNANSWERED: replace this whole file.\n")
    out = os.path.join(tmp, "cli-out")
    base = ["--out", out, "--driver", tools["driver"], "--sanitizer",
            tools["sanitizer"], "--seed", "11"]
    rc, text = rt.grade([klass] + base)
    rows = rt.by_folder(rt.read_rows(out))
    gs = rt.read_rows(out, "gradescope.csv")
    score = {f.split("/")[1]: r["score"] for f, r in rows.items()}
    check(rc == 0 and score == {"named_pass": "100", "named_starter": "10",
                                "named_fail_large": "82", "exit3": "10"},
          "named tests through the tool: %s" % score)
    check(sorted(g["Name"] for g in gs) == ["named_fail_large", "named_pass",
                                            "named_starter"] and
          "1 submissions not graded: exit3; grade them again" in text,
          "gradescope.csv holds grades only; the console names the rest")
    with open(os.path.join(out, "summary.txt")) as f:
        summary = f.read()
    check("scores of the 3 graded submissions:" in summary and
          summary.count("#") == 3 and "verdicts: pass 1, unwritten 1, "
          "boundary 1, no_gpu 1" in summary and "large 1/3" in summary and
          summary.strip() in text.replace("\r", ""), "summary.txt and the "
          "console end with the histogram, the verdict counts and each "
          "test's passes")
    flags = {f.split("/")[1]: r["answer_flag"] for f, r in rows.items()}
    check(flags["named_pass"] == "unanswered" and
          flags["named_starter"] == "missing", "answer flag: %s" % flags)
    with open(os.path.join(out, "submissions", "named_fail_large",
                           "results.json")) as f:
        res = json.load(f)
    check(len(res["tests"]) == 13, "results.json: 13 tests")

    # --only: one submission graded again; every other row kept.
    keep = {f: r for f, r in rows.items() if "named_starter" not in f}
    with open(os.path.join(klass, "named_starter", "threeway.cu"), "w") as f:
        f.write("// FAKE:named_pass\n")
    rc, text = rt.grade([klass, "--only", "named_starter"] + base[:-2])
    rows = rt.by_folder(rt.read_rows(out))
    check(rc == 0 and rows["submissions/named_starter"]["score"] == "100" and
          all(rows[f] == r for f, r in keep.items()) and len(rows) == 4 and
          len(rt.read_rows(out, "gradescope.csv")) == 3, "--only NAME: its "
          "row and files replaced, the other rows kept (%d rows)"
          % len(rows))
    rc, text = rt.grade([klass, "--only", "nobody"] + base[:-2])
    check(rc == 2 and "no submission named nobody" in text, "--only with an "
          "unknown name: %s" % text.strip()[-80:])
    rc, text = rt.grade([klass, "--only", "exit3", "--no-sanitize"] +
                        base[:-2])
    check(rc == 2 and "sanitize=True" in text, "--only refuses other "
          "settings than OUT's: %s" % text.strip()[-90:])

    for argv, said in ((["--compile-timeout", "0"], "above 0"),
                       (["--compile-timeout", "-1"], "above 0"),
                       (["--run-timeout", "nan"], "above 0"),
                       (["--submission-timeout", "-5"], "above 0"),
                       (["--compile-mem", "0"], "above 0"),
                       (["--shard", "3/1"], "--shard 3/N with the same N"),
                       (["--due", "2025-03-07"], "its offset")):
        rc, text = rt.grade([klass, "--out", os.path.join(tmp, "x")] + argv)
        check(rc == 2 and said in text, "refused: %s: %s" % (
            " ".join(argv), text.strip().splitlines()[-1][-90:]))

    # --build-only: no gradescope.csv, even over an OUT that had one.
    rc, text = rt.grade([klass, "--out", out, "--build-only", "--seed", "11"])
    check(rc == 0 and not os.path.exists(os.path.join(out, "gradescope.csv"))
          and "gradescope.csv" not in text.splitlines()[-2], "--build-only "
          "writes no gradescope.csv and removes an old one")

    # Late, from an export's times against --due.
    export = os.path.join(tmp, "late-export")
    for fold in ("submission_300111", "submission_300222"):
        fake_class(export, [fold])
        with open(os.path.join(export, fold, "threeway.cu"), "w") as f:
            f.write("// FAKE:named_pass\n")
    shutil.copy(EXPORT_META, export)
    late_out = os.path.join(tmp, "late-out")
    rc, text = rt.grade([export, "--out", late_out, "--driver",
                         tools["driver"], "--no-sanitize", "--due",
                         "2025-03-07T23:59-08:00", "--hide-until-due"])
    late = {r["submission"]: r["late"] for r in rt.read_rows(late_out)}
    gs = rt.read_rows(late_out, "gradescope.csv")
    check(late == {"Jane Doe": "no", "O'Brien, Pat, Dwayne \"The Rock\" "
                   "Lee": "1.52h"} and [g["SID"] for g in gs] == [
                       "0042", "00200", "201"], "late column against --due; "
          "SIDs kept as written: %s" % late)

    # Merge: shards graded with different settings are refused.
    small = fake_class(os.path.join(tmp, "merge-class"), ["a", "b"])
    outs = []
    for i, extra in enumerate((["--seed", "5"], ["--seed", "6"])):
        outs.append(os.path.join(tmp, "m%d" % i))
        rt.grade([small, "--out", outs[-1], "--build-only", "--shard",
                  "%d/2" % i] + extra)
    rc, text = rt.grade(["merge"] + outs + ["--out",
                                            os.path.join(tmp, "merged")])
    check(rc == 1 and "different seed" in text, "merge refuses shards "
          "graded with different seeds: %s" % text.strip()[:100])
    rc, text = rt.grade(["merge", outs[0], os.path.join(tmp, "absent"),
                         "--out", os.path.join(tmp, "merged")])
    check(rc == 1 and "not a finished grade.py OUT folder" in text and
          "shards missing: 1/2" in text, "merge names a failed shard and "
          "the missing one")


def test_gradescope_zip(tmp):
    """The GPU's results through Gradescope's autograder: make-zip.sh ZIP
    OUT packs each export submission's results.json; run_autograder hands
    over the one of the submission it runs for, by its id."""
    gs = os.path.join(os.path.dirname(HERE), "gradescope")
    out = os.path.join(tmp, "zip-out")
    for folder, score in (("submission_42", 77.0), ("submission_x1", 1.0)):
        os.makedirs(os.path.join(out, "submissions", folder))
        with open(os.path.join(out, "submissions", folder, "results.json"),
                  "w") as f:
            json.dump({"score": score, "tests": []}, f)
    zip_path = os.path.join(tmp, "autograder.zip")
    p = subprocess.run(["bash", os.path.join(gs, "make-zip.sh"), zip_path,
                        out], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    import zipfile
    names = zipfile.ZipFile(zip_path).namelist() if p.returncode == 0 else []
    check("results/submission_42/results.json" in names and not any(
        "submission_x1" in n for n in names) and "run_autograder" in names,
          "make-zip.sh ZIP OUT: the graded export's results.json in the zip "
          "(%d files)" % len(names))
    root = os.path.join(tmp, "autograder-root")
    os.makedirs(os.path.join(root, "source", "results", "submission_42"))
    shutil.copy(os.path.join(out, "submissions", "submission_42",
                             "results.json"),
                os.path.join(root, "source", "results", "submission_42"))
    with open(os.path.join(root, "submission_metadata.json"), "w") as f:
        json.dump({"id": 42, "users": [{"email": "a@example.edu"}]}, f)
    p = subprocess.run(["bash", os.path.join(gs, "run_autograder")],
                       env=dict(os.environ, AUTOGRADER_ROOT=root),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        with open(os.path.join(root, "results", "results.json")) as f:
            got = json.load(f)
    except (OSError, ValueError):
        got = {}
    check(p.returncode == 0 and got.get("score") == 77.0, "run_autograder "
          "hands Gradescope the GPU's results.json of submission 42: %s"
          % got)
