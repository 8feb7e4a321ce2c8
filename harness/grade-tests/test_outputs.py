"""test_outputs.py: the grading tool's tests of what it writes; run by
run_tests.py (rt: run_tests itself, for its check, grade and read_rows,
and the grader's modules it imported).

- check_outputs: after the corpus's compile stage, OUT holds its own files
  and nothing else (a submission named grades.csv, a name that would run
  in a shell), no line of /etc/passwd anywhere in it, forbidden_include
  naming the path, formulas and leading dashes neutralised in grades.csv,
  odd bytes in a name shown escaped, no module left under OUT/.grader;
- check_schemas: grades.csv's columns and every results.json parse, with
  the types Gradescope reads, and scores that add up, out of 100;
- test_shards: --shard i/2 twice and merge; a shard missing, or a
  submission in two shards, refused.
"""

import csv
import json
import os
import shutil


def check_outputs(rt, out, rows, got, folders):
    """OUT after the corpus's compile stage: its own files and nothing
    else, no secret in it, names and answers neutralised."""
    check = rt.check
    check(os.path.isfile(os.path.join(out, "grades.csv")) and
          os.path.isdir(os.path.join(out, "submissions", "grades.csv")),
          "a submission named grades.csv cannot touch OUT/grades.csv")
    outside = [e for e in os.listdir(out) if e not in (
        "grades.csv", "gradescope.csv", "timings.csv", "summary.txt",
        "shard.json", "submissions", ".grader")]
    check(not outside and not os.path.exists(os.path.join(out, "pwned"))
          and not os.path.exists("pwned"), "nothing outside OUT's own files "
          "(%s); no folder name ran in a shell" % outside)
    with open("/etc/passwd", "rb") as f:
        secrets = [l for l in f.read().splitlines() if len(l) > 8][:20]
    leaked = []
    for root, _, files in os.walk(out):
        for name in files:
            with open(os.path.join(root, name), "rb") as f:
                data = f.read()
            leaked += [name for s in secrets if s in data]
    check(secrets and not leaked, "no line of /etc/passwd anywhere in OUT "
          "(%s)" % leaked[:3])
    inc = got.get("submissions/include_passwd", {})
    check("/etc/passwd" in inc.get("detail", ""), "forbidden_include names "
          "the path: %s" % inc.get("detail", "")[:80])
    r = got.get("submissions/answer_formula", {})
    check(r.get("answer", "").startswith("'=HYPERLINK("), "answer.txt's "
          "formula reaches grades.csv as text: %s" % r.get("answer", "")[:30])
    r = got.get("submissions/pass", {})
    check(r.get("answer", "").startswith("The positive base") and
          r["answer"].endswith("first positive."), "answer column: the "
          "first sentence of answer.txt")
    r = got.get("submissions/" + folders["-rf"], {})
    check(r.get("submission") == "'-rf", "a name starting with - is "
          "neutralised in grades.csv: %s" % r.get("submission"))
    odd = [x for x in rows if "\\xff" in x["submission"]]
    check(len(odd) == 1 and odd[0]["submission"].isprintable(), "odd bytes "
          "in a name are shown escaped: %r" % [x["submission"] for x in odd])
    r = got.get("submissions/no_file", {})
    check("kernel.cu" in r.get("detail", ""), "no_file names the file "
          "that was found: %s" % r.get("detail", ""))
    modules = [f for _, _, files in os.walk(os.path.join(out, ".grader"))
               for f in files if not f.endswith(".jsonl")]
    check(not os.path.exists(os.path.join(out, "gradescope.csv")) and
          not modules, "--build-only: no gradescope.csv (not_run is no "
          "grade), no module left under OUT/.grader (%s)" % modules[:3])


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_schemas(rt, out, rows):
    """grades.csv's columns and every results.json: types, verdicts,
    scores that add up to the row's, out of 100."""
    check = rt.check
    errs = []
    with open(os.path.join(out, "grades.csv"), newline="",
              encoding="utf-8") as f:
        header = next(csv.reader(f))
    if tuple(header) != rt.reports.CSV_COLUMNS:
        errs.append("grades.csv columns %s" % header)
    for r in rows:
        if r["reason"] not in rt.judge.REASONS or \
                r["status"] != rt.judge.status_of(r["reason"]):
            errs.append("row %r: reason/status" % r["submission"])
        for col in ("found_b1", "found_b2", "first_bad"):
            if r[col] not in ("", "None") and not r[col].lstrip(
                    "-").isdigit():
                errs.append("row %r: %s %r" % (r["submission"], col, r[col]))
        try:
            with open(os.path.join(out, r["results"]), encoding="utf-8") as f:
                res = json.load(f)
        except (OSError, ValueError) as e:
            errs.append("results.json of %r: %s" % (r["submission"], e))
            continue
        for key, typ in (("score", is_num), ("execution_time", is_num),
                         ("output", lambda v: isinstance(v, str)),
                         ("tests", lambda v: isinstance(v, list) and v)):
            if not typ(res.get(key)):
                errs.append("%r: top-level %s" % (r["submission"], key))
        total = maximum = 0.0
        for t in res.get("tests", []):
            if not (isinstance(t.get("name"), str) and is_num(t.get("score"))
                    and is_num(t.get("max_score")) and
                    t.get("status") in ("passed", "failed") and
                    isinstance(t.get("output"), str) and
                    t.get("visibility") == "visible" and
                    0 <= t["score"] <= t["max_score"]):
                errs.append("%r: test %r" % (r["submission"], t.get("name")))
                continue
            total += t["score"]
            maximum += t["max_score"]
        if abs(total - res.get("score", -1)) > 0.011 or \
                abs(maximum - 100) > 0.011 or \
                r["score"] != "%g" % res.get("score"):
            errs.append("%r: score %s, tests add up to %s of %s" % (
                r["submission"], res.get("score"), total, maximum))
    check(not errs, "schemas: grades.csv and %d results.json parse, scores "
          "add up, out of 100 (%s)" % (len(rows), errs[:3]))


def test_shards(rt, tmp):
    """--shard i/2 twice, then merge: each submission once; a shard
    missing or a submission twice refused."""
    check, grade, read_rows = rt.check, rt.grade, rt.read_rows
    klass = os.path.join(tmp, "small")
    for case in ("compile_error", "no_file", "signature_int_n"):
        shutil.copytree(os.path.join(rt.HERE, "corpus", case),
                        os.path.join(klass, case))
    outs = []
    for i in range(2):
        out = os.path.join(tmp, "shard%d" % i)
        rc, text = grade([klass, "--out", out, "--shard", "%d/2" % i,
                          "--build-only", "--arch", "75", "--seed", "5"])
        check(rc == 0, "--shard %d/2 exits 0 (%s)" % (i, rc))
        outs.append(out)
    merged = os.path.join(tmp, "merged")
    rc, text = grade(["merge"] + outs + ["--out", merged])
    rows = read_rows(merged)
    check(rc == 0 and sorted(r["submission"] for r in rows) == [
        "compile_error", "no_file", "signature_int_n"] and all(
        os.path.isfile(os.path.join(merged, r["results"])) for r in rows),
          "merge of 2 shards: each submission once, with its results.json")
    rc, text = grade(["merge", outs[0], "--out", os.path.join(tmp, "m2")])
    check(rc != 0 and "missing" in text, "merge with a shard missing fails")
    rc, text = grade(["merge", outs[0], outs[0], outs[1], "--out",
                      os.path.join(tmp, "m3")])
    check(rc != 0 and "twice" in text, "merge with a submission twice fails")
