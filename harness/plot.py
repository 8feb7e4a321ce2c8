#!/usr/bin/env python3
"""plot.py: draw the labs' sweeps from their CSVs, as PNGs.

Usage:
    python3 harness/plot.py CSV [CSV ...] --out SIZES.png [--keep-out KEEP.png]

    python3 harness/plot.py day31-scan/scan-sweep-h200.csv \\
        --out day31-scan/sweep-h200.png

SIZES.png has two panels against n (log2 axis), one line per row (per lab
and row when several CSVs are given): the time per element in ns (median
over n) and x copy. A dashed line marks the n whose one buffer of ints
fills the L2 (l2_bytes / 4): to its left, timings measure the cache.
When a CSV's keep column takes two or more values at one n (day 33's
survival sweep), KEEP.png shows x copy against keep at that n, one line
per row; without --keep-out it is SIZES.png with "-keep" before ".png".
On the size panels, a row with a keep column shows its most common keep.

matplotlib is optional: without it the script prints one line saying so
and exits 0, so a make target that calls it never fails for that. It is
never needed by make check.

The CSV schema, shared by every lab's --sweep (one header line, then one
line per row per size, in this column order):

    lab        the lab that wrote it: day31-scan, day33-compaction, ...
    row        the row's name, as in the lab's table
    n          elements
    keep       the survival fraction in [0, 1] of rows that have one
               (compaction, partition); empty for the others
    median_ms  the row's median time over its timed runs, ms
    min_ms     the fastest run, ms
    max_ms     the slowest run, ms
    copy_ms    the median of the lab's copy row (copyInts: read n ints,
               write n) at this n, in the same run
    floor_ms   the row's floor: the bytes its algorithm must move, at the
               bandwidth of a device-to-device cudaMemcpy measured at this
               n in the same run
    x_copy     median_ms / copy_ms
    x_floor    median_ms / floor_ms
    gpu        the GPU's name (commas removed)
    l2_bytes   the GPU's L2 size in bytes

Exit codes: 0 drawn (or matplotlib missing), 2 bad arguments or a CSV
that does not follow the schema.
"""

import argparse
import collections
import csv
import math
import sys

COLUMNS = ["lab", "row", "n", "keep", "median_ms", "min_ms", "max_ms",
           "copy_ms", "floor_ms", "x_copy", "x_floor", "gpu", "l2_bytes"]


class SchemaError(Exception):
    pass


def read_rows(paths):
    """Every line of every CSV as a dict with typed values."""
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if header != COLUMNS:
                raise SchemaError("%s: header is %s, want %s"
                                  % (path, ",".join(header or []),
                                     ",".join(COLUMNS)))
            for number, fields in enumerate(reader, start=2):
                if len(fields) != len(COLUMNS):
                    raise SchemaError("%s:%d: %d fields, want %d"
                                      % (path, number, len(fields),
                                         len(COLUMNS)))
                r = dict(zip(COLUMNS, fields))
                try:
                    r["n"] = int(r["n"])
                    r["keep"] = float(r["keep"]) if r["keep"] else None
                    for k in ("median_ms", "min_ms", "max_ms", "copy_ms",
                              "floor_ms", "x_copy", "x_floor"):
                        r[k] = float(r[k])
                    r["l2_bytes"] = int(r["l2_bytes"])
                except ValueError as e:
                    raise SchemaError("%s:%d: %s" % (path, number, e))
                rows.append(r)
    return rows


def series(rows, several_labs):
    """Groups lines by (lab, row); the label names the lab when needed."""
    groups = collections.OrderedDict()
    for r in rows:
        key = (r["lab"], r["row"])
        groups.setdefault(key, []).append(r)
    return [(("%s: %s" % key) if several_labs else key[1], lines)
            for key, lines in groups.items()]


def size_points(lines):
    """One point per n: at the row's most common keep where it has one."""
    keeps = collections.Counter(r["keep"] for r in lines)
    usual = keeps.most_common(1)[0][0]
    points = sorted(((r["n"], r) for r in lines if r["keep"] == usual),
                    key=lambda p: p[0])
    return [r for _, r in points]


def keep_sweeps(lines):
    """{n: lines sorted by keep} for every n with two or more keeps."""
    by_n = collections.defaultdict(list)
    for r in lines:
        if r["keep"] is not None:
            by_n[r["n"]].append(r)
    return {n: sorted(ls, key=lambda r: r["keep"])
            for n, ls in by_n.items()
            if len(set(r["keep"] for r in ls)) >= 2}


def mark_l2(ax, rows):
    for l2 in sorted(set(r["l2_bytes"] for r in rows if r["l2_bytes"] > 0)):
        n = l2 / 4.0
        ax.axvline(n, color="grey", linestyle="--", linewidth=1)
        ax.annotate("L2 %.0f MiB\n(n = 2^%.1f)" % (l2 / 2.0 ** 20,
                                                   math.log2(n)),
                    xy=(n, 1), xycoords=("data", "axes fraction"),
                    xytext=(4, -4), textcoords="offset points",
                    va="top", fontsize=8, color="grey")


def title_of(rows):
    gpus = sorted(set(r["gpu"] for r in rows))
    labs = sorted(set(r["lab"] for r in rows))
    return "%s on %s" % (", ".join(labs), ", ".join(gpus))


def draw_sizes(plt, rows, groups, out):
    fig, (ax_t, ax_x) = plt.subplots(1, 2, figsize=(13, 5))
    for label, lines in groups:
        pts = size_points(lines)
        if not pts:
            continue
        ns = [r["n"] for r in pts]
        ax_t.plot(ns, [r["median_ms"] * 1e6 / r["n"] for r in pts],
                  marker="o", markersize=3, label=label)
        ax_x.plot(ns, [r["x_copy"] for r in pts], marker="o", markersize=3,
                  label=label)
    for ax in (ax_t, ax_x):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("n (elements)")
        ax.grid(True, which="major", alpha=0.3)
        mark_l2(ax, rows)
    ax_t.set_yscale("log")
    ax_t.set_ylabel("time per element (ns), median")
    ax_x.set_ylabel("x copy (median over the copy row's)")
    ax_x.axhline(1.0, color="black", linewidth=0.8)
    ax_x.legend(fontsize=8)
    fig.suptitle(title_of(rows))
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def draw_keeps(plt, rows, groups, out):
    fig, ax = plt.subplots(figsize=(7, 5))
    drawn = 0
    for label, lines in groups:
        for n, pts in sorted(keep_sweeps(lines).items()):
            ax.plot([r["keep"] for r in pts], [r["x_copy"] for r in pts],
                    marker="o", markersize=3,
                    label="%s (n = %s)" % (label, "2^%d" % math.log2(n)
                                          if n & (n - 1) == 0 else n))
            drawn += 1
    ax.set_xlabel("keep (fraction of elements that survive)")
    ax.set_ylabel("x copy (median over the copy row's)")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title_of(rows))
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return drawn


def main(argv):
    p = argparse.ArgumentParser(
        description="Draws sweep CSVs (schema in this file's docstring).")
    p.add_argument("csv", nargs="+", help="sweep CSV files")
    p.add_argument("--out", required=True, help="the size sweep's PNG")
    p.add_argument("--keep-out", help="the survival sweep's PNG")
    args = p.parse_args(argv)
    if not args.out.endswith(".png"):
        p.error("--out must name a .png file")

    try:
        rows = read_rows(args.csv)
    except (OSError, SchemaError) as e:
        print("plot.py: %s" % e, file=sys.stderr)
        return 2
    if not rows:
        print("plot.py: no data lines in %s" % ", ".join(args.csv),
              file=sys.stderr)
        return 2

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot.py: matplotlib is not installed (optional): no PNG "
              "written")
        return 0

    groups = series(rows, len(set(r["lab"] for r in rows)) > 1)
    draw_sizes(plt, rows, groups, args.out)
    print("plot.py: wrote %s" % args.out)
    if any(keep_sweeps(lines) for _, lines in groups):
        keep_out = args.keep_out or args.out[:-4] + "-keep.png"
        draw_keeps(plt, rows, groups, keep_out)
        print("plot.py: wrote %s" % keep_out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
