"""reports: what a grading run writes, and the table it prints.

OUT/grades.csv          one row per submission (CSV_COLUMNS)
OUT/gradescope.csv      Name, SID, Email, Total Score: one row per student
OUT/timings.csv         per submission, when each stage ran (seconds)
OUT/summary.txt         the table printed at the end
OUT/shard.json          the class, the seed, the machine, the reference
OUT/submissions/<folder>/results.json   Gradescope's results format
OUT/submissions/<folder>/log.txt        what was run and what it said
OUT/submissions/<folder>/events.jsonl   the driver's result file(s)

Every text this module writes is cleaned first (clean.py: control and
format characters as visible escapes). Then every text cell of a CSV
that a spreadsheet could read as a formula (starting with = + - @, a tab
or a carriage return, after any spaces) is prefixed with a single quote. Folder names come from
listing.folder_names and never leave OUT/submissions.
"""

import csv
import json
import os
import shutil

from . import clean, judge

CSV_COLUMNS = ("submission", "status", "reason", "found_b1", "found_b2",
               "first_bad", "x_copy", "answer", "score", "max_score",
               "detail", "results")
GRADESCOPE_COLUMNS = ("Name", "SID", "Email", "Total Score")
TIMING_COLUMNS = ("submission", "results", "compile_s", "load_s",
                  "checks_s", "timing_s", "sanitize_s", "compile_at",
                  "run_at", "end_at", "done_at")
TEXT_COLUMNS = ("submission", "answer", "detail", "Name", "SID", "Email")


def neutralise(cell):
    """A text cell a spreadsheet shows as text, never runs."""
    s = str(cell)
    if s[:1] in ("\t", "\r") or s.lstrip(" ")[:1] in ("=", "+", "-", "@"):
        return "'" + s
    return s


def write_csv(path, columns, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        w.writeheader()
        for r in rows:
            w.writerow({k: neutralise(clean.cell(r.get(k, "")))
                        if k in TEXT_COLUMNS else clean.cell(r.get(k, ""))
                        for k in columns})


def write_tables(out, grades, gradescope, timings, meta):
    """Writes OUT's own files from their rows: grades.csv, gradescope.csv,
    timings.csv, shard.json (meta) and summary.txt (a grading run and a
    merge alike). Returns the summary's text."""
    write_csv(os.path.join(out, "grades.csv"), CSV_COLUMNS, grades)
    write_csv(os.path.join(out, "gradescope.csv"), GRADESCOPE_COLUMNS,
              gradescope)
    write_csv(os.path.join(out, "timings.csv"), TIMING_COLUMNS, timings)
    with open(os.path.join(out, "shard.json"), "w") as f:
        json.dump(clean.data(meta), f, indent=1)
    summary = clean.text(summary_text(grades))
    with open(os.path.join(out, "summary.txt"), "w", encoding="utf-8") as f:
        f.write(summary)
    return summary


def read_csv(path):
    """Rows as written (a neutralised cell keeps its quote)."""
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _fmt(v):
    return "" if v is None else str(v)


def grades_row(sub, v):
    rep = v.report or {}
    return {"submission": sub.name, "status": v.status, "reason": v.reason,
            "found_b1": _fmt(rep.get("found_b1")),
            "found_b2": _fmt(rep.get("found_b2")),
            "first_bad": _fmt(rep.get("first_bad")),
            "x_copy": "" if v.x_copy is None else "%.3f" % v.x_copy,
            "answer": sub.answer, "score": "%g" % v.score,
            "max_score": "%g" % v.max_score,
            "detail": " ".join(v.detail.split())[:500],
            "results": sub.out_dir + "/results.json"}


def gradescope_rows(sub, v):
    people = sub.submitters or [{"name": sub.name, "sid": "", "email": ""}]
    return [{"Name": p.get("name") or sub.name, "SID": p.get("sid", ""),
             "Email": p.get("email", ""), "Total Score": "%g" % v.score}
            for p in people]


def timing_row(sub, comp, run, san, done_at):
    """How long each stage took, on the tool's own clock (seconds):
    compile (the compile stage); load (the driver's start to its module
    event: context creation, module load, waits for the GPU lock); checks
    (to its last result); timing (to the timing event); sanitize
    (memcheck's whole process). And when, counted from the start of
    grading: the compile began, the driver began, the last process ended,
    and the results were written (done_at, which waits for the reference
    to pass)."""
    row = {"submission": sub.name, "results": sub.out_dir + "/results.json",
           "compile_s": "%.3f" % (comp.t1 - comp.t0),
           "compile_at": "%.3f" % comp.t0, "done_at": "%.3f" % done_at}
    if run is None:
        return row
    marks = [e["_t"] for e in run.find("module")[:1]]
    results = [e["_t"] for e in run.find("result")]
    timing = [e["_t"] for e in run.find("timing")[:1]]
    if marks:
        row["load_s"] = "%.3f" % marks[0]
        if results:
            row["checks_s"] = "%.3f" % (max(results) - marks[0])
            if timing:
                row["timing_s"] = "%.3f" % (timing[0] - max(results))
    end = run.at + run.wall
    if san is not None:
        row["sanitize_s"] = "%.3f" % san.wall
        end = san.at + san.wall
    row.update(run_at="%.3f" % run.at, end_at="%.3f" % end)
    return row


def write_submission(out, sub, comp, run, san, san_log, v, elapsed, seed):
    """Writes OUT/submissions/<folder>/: results.json, log.txt and the
    driver's events. The folder is replaced whole."""
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
        for r, what in ((run, "plan"), (san, "sanitize")):
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


def summary_text(rows):
    width = min(max([len("submission")] + [len(r["submission"])
                                           for r in rows]), 40)
    fmt = "%-*s  %-6s  %-17s  %6s  %7s  %s"
    lines = ["", fmt % (width, "submission", "status", "reason", "score",
                        "x copy", "detail")]
    for r in rows:
        lines.append(fmt % (width, r["submission"][:width], r["status"],
                            r["reason"], r["score"], r["x_copy"] or "-",
                            r["detail"][:80]))
    counts = {}
    for r in rows:
        counts[r["reason"]] = counts.get(r["reason"], 0) + 1
    lines += ["", "per reason: " + (", ".join(
        "%s %d" % (k, counts[k]) for k in judge.REASONS if k in counts)
        or "none")]
    return "\n".join(lines) + "\n"
