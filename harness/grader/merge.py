"""merge: the OUT folders of --shard i/N runs, merged into one.

Checked before anything is written: every folder is a grade.py OUT
folder (one that is not, a task that failed, is named); the shards graded
the same class (the same submission folders) with the same settings
(SETTINGS: the seed, ARCH, memcheck, performance, --build-only); every
shard 0..N-1 is present once (the missing ones are named, with the
command that grades one again); every submission was graded exactly once.
Then grades.csv, gradescope.csv, timings.csv, summary.txt and shard.json
are written, and each submission's folder is copied.
"""

import argparse
import json
import os
import shutil

from . import reports

# What every shard must share: a merge of shards graded differently would
# mix grades from different plans, GPUs or checks (a --no-sanitize shard
# lets an out-of-bounds write pass).
SETTINGS = ("seed", "arch", "sanitize", "perf", "build_only",
            "hide_until_due")


def main(argv):
    p = argparse.ArgumentParser(
        prog="grade.py merge", description="Merges the OUT folders of "
        "grade.py --shard i/N runs into one OUT folder.")
    p.add_argument("shards", nargs="+", help="the shards' OUT folders")
    p.add_argument("--out", required=True, help="the merged OUT folder")
    args = p.parse_args(argv)
    shards, problems = [], []
    for d in args.shards:
        try:
            with open(os.path.join(d, "shard.json")) as f:
                meta = json.load(f)
            tables = {name: reports.read_csv(os.path.join(d, name)) for name
                      in ("grades.csv", "timings.csv")}
            tables["gradescope.csv"] = [] if meta.get("build_only") else \
                reports.read_csv(os.path.join(d, "gradescope.csv"))
            shards.append((d, meta, tables))
        except (OSError, ValueError) as e:
            problems.append("%s: not a finished grade.py OUT folder (%s): "
                            "its task failed or is still running; grade "
                            "that shard again with the same --shard i/N "
                            "and --seed" % (d, e))
    problems += _check(shards)
    if problems:
        for msg in problems:
            print("grade.py merge: " + msg)
        return 1
    out = os.path.abspath(args.out)
    os.makedirs(os.path.join(out, "submissions"), exist_ok=True)
    order = {f: i for i, f in enumerate(shards[0][1]["folders"])}
    merged = {name: [] for name in ("grades.csv", "gradescope.csv",
                                    "timings.csv")}
    for d, meta, tables in shards:
        for name, rows in tables.items():
            merged[name] += rows
        for folder in meta["graded"]:
            src, dst = os.path.join(d, folder), os.path.join(out, folder)
            if os.path.abspath(src) != dst:
                shutil.rmtree(dst, ignore_errors=True)
                shutil.copytree(src, dst, symlinks=True)
    key = lambda r: order.get(r["results"].rsplit("/", 1)[0], 0)  # noqa
    grades = sorted(merged["grades.csv"], key=key)
    first = shards[0][1]
    meta = dict(first, shard="merged", graded=first["folders"],
                shards=[{"shard": m["shard"], "seed": m["seed"],
                         "arch": m["arch"], "reference": m["reference"],
                         "wall_s": m.get("wall_s")}
                        for _, m, _ in shards])
    summary = reports.write_tables(out, grades, merged["gradescope.csv"],
                                   sorted(merged["timings.csv"], key=key),
                                   meta)
    print(summary, end="")
    print("merged %d shards, %d submissions into %s" % (
        len(shards), len(grades), args.out))
    return 0


def _check(shards):
    problems = []
    if not shards:
        return problems
    classes = {tuple(m.get("folders", [])) for _, m, _ in shards}
    if len(classes) > 1:
        problems.append("the shards graded different classes")
    for key in SETTINGS:
        values = {}
        for d, m, _ in shards:
            values.setdefault(json.dumps(m.get(key)), []).append(m.get(
                "shard", d))
        if len(values) > 1:
            problems.append("the shards were graded with different %s: %s; "
                            "grade them again with the same settings" % (
                                key, "; ".join("%s in %s" % (v, ", ".join(
                                    map(str, w))) for v, w in
                                    values.items())))
    ids = [m.get("shard", "") for _, m, _ in shards]
    counts = {i.split("/")[-1] for i in ids}
    if len(counts) != 1 or not next(iter(counts)).isdigit():
        problems.append("the shards were cut differently: %s"
                        % ", ".join(ids))
    else:
        n = int(next(iter(counts)))
        want = {"%d/%d" % (i, n) for i in range(n)}
        if want - set(ids):
            seed = shards[0][1].get("seed")
            problems.append("shards missing: %s (grade each with grade.py "
                            "CLASS --shard i/%d --seed %s --out DIR, then "
                            "merge again)" % (", ".join(sorted(
                                want - set(ids), key=lambda x: int(
                                    x.split("/")[0]))), n, seed))
        if len(ids) != len(set(ids)):
            problems.append("a shard was given twice")
    seen = {}
    for d, m, tables in shards:
        for r in tables["grades.csv"]:
            folder = r["results"].rsplit("/", 1)[0]
            if folder in seen:
                problems.append("%s graded twice (%s and %s)" % (
                    r["submission"], seen[folder], d))
            seen[folder] = d
    if len(classes) == 1:
        missing = [f for f in next(iter(classes)) if f not in seen]
        if missing:
            problems.append("%d submissions missing: %s" % (
                len(missing), ", ".join(missing[:10])))
    return problems
