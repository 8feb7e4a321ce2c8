#!/usr/bin/env python3
"""budgets.py: every C, CUDA and Python file of the course against its line
budget (lines of the file, blank lines and comments included).

Usage:
    python3 harness/budgets.py [ROOT]      (ROOT: the course; default: the
                                            folder above this script)

Prints one line per file, "lines / budget  path", the files over budget
marked OVER, then the students' files together against their sum, and a
last line saying whether all are within budget. Exit codes: 0 every file
within its budget, 1 one or more over, 2 bad arguments. Run by `make
check` (the top Makefile), so CI prints it.

The budgets, one table (BUDGETS, below): the first pattern that matches a
file's path (relative to ROOT, with / separators; fnmatch, so * crosses
folders) gives its budget; None exempts it, with the reason beside it.
Build outputs (build/, __pycache__/) are not read.
"""

import fnmatch
import os
import sys

EXTENSIONS = (".c", ".h", ".cu", ".cuh", ".py")

# (pattern, budget or None, why)
BUDGETS = [
    # The files a student reads.
    ("day31-scan/scan.cu", 400, "day 31's lab"),
    ("day33-compaction/compaction.cu", 550, "day 33's lab"),
    ("day33-exercise-threeway/solution/onepass.cu", 350,
     "the exercise's one-pass split"),
    # The production headers: one primitive each, in its one
    # configuration.
    ("day31-scan/singlepass_scan.cuh", 300, "a production header"),
    ("day31-scan/bulk_ring.cuh", 300, "a production header"),
    ("day31-scan/ring_pipeline.cuh", 300, "a production header"),
    ("day33-compaction/singlepass_compact.cuh", 300, "a production header"),
    ("day33-compaction/stable_partition.cuh", 300, "a production header"),
    ("day33-exercise-threeway/solution/*.cuh", 300, "a production header"),
    # The shared look-back.
    ("day31-scan/lookback.cuh", 650, "the shared look-back"),
    ("*", 900, "any other C, CUDA or Python file"),
]

# Files being cut to their budgets by changes not merged into this branch
# yet: printed OVER (pending), without failing the run. Delete an entry
# the moment its change is merged; an empty set is the normal state.
PENDING = set()

# The students' files, whose budgets together are what a student reads.
STUDENT_FILES = [
    "day31-scan/scan.cu",
    "day33-compaction/compaction.cu",
    "day33-exercise-threeway/solution/onepass.cu",
]
STUDENT_TOTAL = 1300

SKIP_DIRS = {"build", "__pycache__", ".git"}


def budget_of(path):
    """The (budget, why) of the first pattern that matches path."""
    for pattern, budget, why in BUDGETS:
        if fnmatch.fnmatchcase(path, pattern):
            return budget, why
    return 900, "any other C, CUDA or Python file"


def course_files(root):
    """Every C, CUDA and Python file under root, as sorted relative paths."""
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs
                         if d not in SKIP_DIRS and not d.startswith("."))
        for name in files:
            if name.endswith(EXTENSIONS):
                rel = os.path.relpath(os.path.join(folder, name), root)
                found.append(rel.replace(os.sep, "/"))
    return sorted(found)


def count_lines(path):
    with open(path, "rb") as f:
        data = f.read()
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def main(argv):
    if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith("-")):
        print("usage: budgets.py [ROOT]", file=sys.stderr)
        return 2
    root = argv[1] if len(argv) == 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..")
    if not os.path.isdir(root):
        print("budgets.py: %s is not a folder" % root, file=sys.stderr)
        return 2
    over = []
    lines_of = {}
    print("line budgets (lines / budget, blank lines and comments "
          "included):")
    for rel in course_files(root):
        lines = count_lines(os.path.join(root, rel))
        lines_of[rel] = lines
        budget, why = budget_of(rel)
        if budget is None:
            print("  %5d /   -   %s  (%s)" % (lines, rel, why))
            continue
        pending = rel in PENDING
        mark = ""
        if lines > budget:
            mark = "  OVER by %d%s" % (lines - budget, " (pending: cut by "
                                       "a change not merged yet)"
                                       if pending else "")
        print("  %5d / %5d %s%s" % (lines, budget, rel, mark))
        if lines > budget and not pending:
            over.append(rel)
    present = [f for f in STUDENT_FILES if f in lines_of]
    total = sum(lines_of[f] for f in present)
    print("students' files (%s): %d / %d lines together"
          % (", ".join(present), total, STUDENT_TOTAL))
    if over:
        print("budgets: %d over: %s" % (len(over), ", ".join(over)))
        return 1
    print("budgets: every file within its budget")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
