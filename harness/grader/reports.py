"""reports: what a grading run writes, and the table it prints.

OUT/grades.csv          one row per submission (CSV_COLUMNS)
OUT/gradescope.csv      Name, SID, Email, Total Score: one row per student
                        of every graded submission (status pass or fail);
                        never written by --build-only
OUT/timings.csv         per submission, when each stage ran (seconds)
OUT/summary.txt         the table printed at the end, the score histogram,
                        the verdict counts, the tests' pass counts
OUT/shard.json          the class, the seed, the settings, the reference
OUT/submissions/<folder>/results.json   Gradescope's results format
OUT/submissions/<folder>/log.txt        what was run and what it said
OUT/submissions/<folder>/events.jsonl   the driver's result file(s)

Every text this module writes is cleaned first (clean.py: control and
format characters as visible escapes). Then, in grades.csv and
timings.csv, every text cell that a spreadsheet could read as a formula
(starting with = + - @, a tab or a carriage return, after any spaces) is
prefixed with a single quote. gradescope.csv's identity cells (Name, SID,
Email) are never rewritten: Gradescope matches them as they are, so a
student whose identity a spreadsheet would read as a formula, or holds a
control character, is left out of it, with one line saying so. Folder
names come from listing.folder_names and never leave OUT/submissions.
"""

import csv
import json
import os
import shutil

from . import clean, judge

CSV_COLUMNS = ("submission", "status", "reason", "score", "max_score",
               "failed_tests", "found_b1", "found_b2", "first_bad",
               "x_copy", "ratio", "late", "answer_flag", "answer", "detail",
               "results")
GRADESCOPE_COLUMNS = ("Name", "SID", "Email", "Total Score")
TIMING_COLUMNS = ("submission", "results", "compile_s", "load_s",
                  "checks_s", "timing_s", "sanitize_s", "compile_at",
                  "run_at", "end_at", "done_at")
TEXT_COLUMNS = ("submission", "answer", "detail")
IDENTITY = ("Name", "SID", "Email")
GRADED = ("pass", "fail")       # statuses whose score is a grade


def formula_like(cell):
    s = str(cell)
    return s[:1] in ("\t", "\r") or s.lstrip(" ")[:1] in ("=", "+", "-",
                                                          "@")


def neutralise(cell):
    """A text cell a spreadsheet shows as text, never runs."""
    s = str(cell)
    return "'" + s if formula_like(s) else s


def write_csv(path, columns, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        w.writeheader()
        for r in rows:
            w.writerow({k: neutralise(clean.cell(r.get(k, "")))
                        if k in TEXT_COLUMNS else clean.cell(r.get(k, ""))
                        for k in columns})


def write_tables(out, grades, gradescope, timings, meta, refused=()):
    """Writes OUT's own files from their rows: grades.csv, gradescope.csv
    (not with --build-only: meta["build_only"]; an old one is removed),
    timings.csv, shard.json (meta) and summary.txt (a grading run, a
    regrade and a merge alike). Returns the summary's text."""
    write_csv(os.path.join(out, "grades.csv"), CSV_COLUMNS, grades)
    gs = os.path.join(out, "gradescope.csv")
    if meta.get("build_only"):
        if os.path.lexists(gs):
            os.remove(gs)
    else:
        write_csv(gs, GRADESCOPE_COLUMNS, gradescope)
    write_csv(os.path.join(out, "timings.csv"), TIMING_COLUMNS, timings)
    with open(os.path.join(out, "shard.json"), "w") as f:
        json.dump(clean.data(meta), f, indent=1)
    summary = clean.text(summary_text(grades, meta, refused))
    with open(os.path.join(out, "summary.txt"), "w", encoding="utf-8") as f:
        f.write(summary)
    return summary


def read_csv(path):
    """Rows as written (a neutralised cell keeps its quote)."""
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _fmt(v):
    return "" if v is None else str(v)


def grades_row(sub, v, late=""):
    rep = v.report or {}
    return {"submission": sub.name, "status": v.status, "reason": v.reason,
            "found_b1": _fmt(rep.get("found_b1")),
            "found_b2": _fmt(rep.get("found_b2")),
            "first_bad": _fmt(rep.get("first_bad")),
            "x_copy": "" if v.x_copy is None else "%.3f" % v.x_copy,
            "ratio": "" if v.ratio is None else "%.3f" % v.ratio,
            "failed_tests": " ".join(v.failed), "late": late,
            "answer_flag": sub.answer_flag, "answer": sub.answer,
            "score": "%g" % v.score, "max_score": "%g" % v.max_score,
            "detail": " ".join(v.detail.split())[:500],
            "results": sub.out_dir + "/results.json"}


def gradescope_rows(subs, grades):
    """(rows of gradescope.csv, lines about students left out, names of
    submissions not graded) from the class's submissions and grades.csv's
    rows: one row per submitter of each graded row (status pass or fail),
    in grades.csv's order. A row with status error (not_run included) is
    no grade: it is left out and named, to be graded again. A submission
    with no identity is named by its submission name alone."""
    by_folder = {s.out_dir: s for s in subs}
    rows, refused, ungraded = [], [], []
    for g in grades:
        if g.get("status") not in GRADED:
            ungraded.append(g["submission"])
            continue
        sub = by_folder.get(g["results"].rsplit("/", 1)[0])
        people = (sub.submitters if sub else None) or [
            {"name": sub.name if sub else g["submission"], "sid": "",
             "email": ""}]
        for p in people:
            row = {"Name": p.get("name") or (sub.name if sub else ""),
                   "SID": p.get("sid", ""), "Email": p.get("email", ""),
                   "Total Score": g["score"]}
            bad = [k for k in IDENTITY if formula_like(row[k]) or
                   clean.cell(row[k]) != str(row[k])]
            if bad:
                why = ("would be read as a formula" if formula_like(
                    row[bad[0]]) else "holds a control character")
                refused.append("gradescope.csv: %s left out: its %s %s %s; "
                               "enter %s by hand" % (
                                   row["Name"] if "Name" not in bad else
                                   g["submission"], bad[0],
                                   clean.line(repr(row[bad[0]])), why,
                                   g["score"]))
                continue
            rows.append(row)
    return rows, refused, ungraded


def timing_row(sub, comp, run, san, done_at):
    """How long each stage took, on the tool's own clock (seconds):
    compile (the compile stage); load (the driver's start to its module
    event: context creation, module load, waits for the GPU lock); checks
    (to its last result); timing (to the timing event); sanitize
    (memcheck's whole process). And when, counted from the start of
    grading: the compile began, the driver began, the last process ended,
    and the results were written (done_at, which waits for the reference
    to pass). run: the plan's Run or the list of its processes (the
    stages are the first's; the end is the last process's)."""
    row = {"submission": sub.name, "results": sub.out_dir + "/results.json",
           "compile_s": "%.3f" % (comp.t1 - comp.t0),
           "compile_at": "%.3f" % comp.t0, "done_at": "%.3f" % done_at}
    plans = [r for r in (run if isinstance(run, (list, tuple)) else [run])
             if r is not None]
    if not plans:
        return row
    run, last = plans[0], plans[-1]
    marks = [e["_t"] for e in run.find("module")[:1]]
    results = [e["_t"] for e in run.find("result")]
    timing = [e["_t"] for e in run.find("timing")[:1]]
    if marks:
        row["load_s"] = "%.3f" % marks[0]
        if results:
            row["checks_s"] = "%.3f" % (max(results) - marks[0])
            if timing:
                row["timing_s"] = "%.3f" % (timing[0] - max(results))
    end = last.at + last.wall
    if san is not None:
        row["sanitize_s"] = "%.3f" % san.wall
        end = san.at + san.wall
    row.update(run_at="%.3f" % run.at, end_at="%.3f" % end)
    return row


def write_submission(out, sub, comp, run, san, san_log, v, elapsed, seed):
    """Writes OUT/submissions/<folder>/: results.json, log.txt and the
    driver's events. run: the plan's Run, or the list of its processes
    (the first, then those started again for unfinished tests: their
    events are marked plan, plan-2, ...). The folder is replaced whole."""
    folder = os.path.join(out, sub.out_dir)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    head = "%s: %s (%s)" % (sub.name, v.status, v.reason)
    if v.status == "error":
        head += ": not a verdict on the kernel; it will be graded again"
    output = "%s\n%s\nseed %s; graded by harness/grade.py" % (
        head, v.detail, comp.seed if comp.seed is not None else "-")
    results = {"score": v.score, "execution_time": round(elapsed, 2),
               "output": output, "visibility": "visible", "tests": v.tests}
    with open(os.path.join(folder, "results.json"), "w",
              encoding="utf-8") as f:
        json.dump(clean.data(results), f, indent=1, ensure_ascii=False)
        f.write("\n")
    log = ["submission %s" % sub.name, "grading seed %s; this file's seed %s"
           % (seed, comp.seed), "verdict: %s %s: %s" % (v.status, v.reason,
                                                        v.detail)]
    if sub.note:
        log.append(sub.note)
    log.append("compile: %s in %.2f s; entries %s; %d headers read" % (
        "ok" if comp.ok else comp.verdict, comp.seconds,
        ", ".join(comp.entries) or "-", len(comp.includes)))
    if comp.message:
        log.append(comp.message)
    with open(os.path.join(folder, "events.jsonl"), "w",
              encoding="utf-8") as ev:
        plans = run if isinstance(run, (list, tuple)) else [run]
        procs = [(r, "plan" if k == 0 else "plan-%d" % (k + 1))
                 for k, r in enumerate(plans)] + [(san, "sanitize")]
        for r, what in procs:
            if r is None:
                continue
            log.append("\n%s: %s -> exit %s%s, %.2f s, %d events%s" % (
                what, r.shown, r.rc, ", killed (%s)" % (r.killed,)
                if r.killed else "", r.wall, len(r.events),
                ", %d unreadable lines" % r.junk if r.junk else ""))
            log.append(r.output())
            for e in r.events:
                ev.write(json.dumps(dict(e, _process=what)) + "\n")
    if san_log:
        log.append("\ncompute-sanitizer's log:\n" + san_log[:8000])
    with open(os.path.join(folder, "log.txt"), "w", encoding="utf-8") as f:
        f.write(clean.text("\n".join(log)) + "\n")


HISTOGRAM = ((100, 100.01, "100"),) + tuple(
    (lo, lo + 10, "%d-%d" % (lo, lo + 9)) for lo in range(90, -1, -10))


def summary_text(rows, meta=None, refused=()):
    """The table (one line per submission), then the score histogram of
    the graded rows, the verdict counts, each check test's pass count,
    and the submissions not graded."""
    width = min(max([len("submission")] + [len(r["submission"])
                                           for r in rows]), 40)
    fmt = "%-*s  %-6s  %-17s  %6s  %7s  %s"
    lines = ["", fmt % (width, "submission", "status", "reason", "score",
                        "ratio", "detail")]
    for r in rows:
        lines.append(fmt % (width, r["submission"][:width], r["status"],
                            r["reason"], r["score"], r.get("ratio") or "-",
                            r["detail"][:80]))
    graded = [r for r in rows if r["status"] in GRADED]
    lines += ["", "scores of the %d graded submissions:" % len(graded)]
    for lo, hi, name in HISTOGRAM:
        k = sum(lo <= float(r["score"] or 0) < hi for r in graded)
        lines.append("  %7s  %-40s %d" % (name, "#" * min(k, 40), k))
    counts = {}
    for r in rows:
        counts[r["reason"]] = counts.get(r["reason"], 0) + 1
    known = [k for k in judge.REASONS if k in counts] + sorted(
        k for k in counts if k not in judge.REASONS)
    lines += ["", "verdicts: " + (", ".join(
        "%s %d" % (k, counts[k]) for k in known) or "none")]
    ran = [r for r in graded if "failed_tests" in r]
    if ran:
        lines.append("check tests passed: " + ", ".join(
            "%s %d/%d" % (name, sum(name not in r["failed_tests"].split()
                                    for r in ran), len(ran))
            for name in judge.CHECK_NAMES))
    flags = {}
    for r in rows:
        if r.get("answer_flag"):
            flags[r["answer_flag"]] = flags.get(r["answer_flag"], 0) + 1
    if flags:
        lines.append("answer.txt (not scored): " + ", ".join(
            "%s %d" % kv for kv in sorted(flags.items())))
    late = [r for r in rows if r.get("late") not in ("", "no", None)]
    if late:
        lines.append("late: %d (%s)" % (len(late), ", ".join(
            r["submission"] for r in late[:10])))
    lines += list(refused)
    ungraded = [r["submission"] for r in rows if r["status"] not in GRADED]
    if ungraded and not (meta or {}).get("build_only"):
        lines.append("%d submissions not graded: %s; grade them again "
                     "(they are not in gradescope.csv)" % (
                         len(ungraded), ", ".join(ungraded[:20]) +
                         (", ..." if len(ungraded) > 20 else "")))
    return "\n".join(lines) + "\n"
