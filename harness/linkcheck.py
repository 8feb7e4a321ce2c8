#!/usr/bin/env python3
"""linkcheck.py: every relative link in every Markdown file of a copy of
the course must resolve inside that copy.

    python3 harness/linkcheck.py [ROOT]      (default: the course this
                                              script sits in)

Reads every *.md under ROOT (build/ folders and .git left out). A link is
an inline link or image, [text](target) or ![alt](target), a reference
definition "[name]: target", or an HTML src= or href=, outside fenced code
blocks and inline code. Absolute URLs (http:, mailto:, ...) and links to an
anchor of the same page (#...) are not checked; any other target, stripped
of its #anchor, must name a file or folder that exists, relative to the
Markdown file (a target starting with / is refused: it means nothing in a
copy of the course). A link into .git or build/ is refused too.

Prints one line per broken link, "FILE:LINE: TARGET: why", then a
summary; exit 0 when none is broken, 1 otherwise, 2 on a bad argument.
`make check` runs it on the maintainers' copy, and so on every handout
(whose own `make check` runs it on itself).

Standard library only, Python 3.8 or newer.
"""

import os
import re
import sys
from urllib.parse import unquote

sys.dont_write_bytecode = True

SKIP_DIRS = {".git", "build", "__pycache__"}
_INLINE = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>]*>|[^)\s]+)"
                     r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
_REFDEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
_HTML = re.compile(r"""\b(?:src|href)\s*=\s*["']([^"']+)["']""", re.I)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")


def markdown_files(root):
    for here, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for f in sorted(files):
            if f.endswith(".md"):
                yield os.path.join(here, f)


def links(path):
    """(line number, target) for every link of the Markdown file."""
    fence = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for no, line in enumerate(f, 1):
            m = _FENCE.match(line)
            if m:
                mark = m.group(1)
                if fence is None:
                    fence = mark[0] * len(mark)
                elif mark.startswith(fence):
                    fence = None
                continue
            if fence is not None:
                continue
            text = _CODE_SPAN.sub("", line)
            for rx in (_INLINE, _REFDEF, _HTML):
                for m in rx.finditer(text):
                    target = m.group(1)
                    if target.startswith("<") and target.endswith(">"):
                        target = target[1:-1]
                    yield no, target


def broken(root, md, target):
    """Why target, linked from md, does not resolve; None when it does."""
    if _SCHEME.match(target) or target.startswith("#"):
        return None
    plain = unquote(target.split("#", 1)[0].split("?", 1)[0])
    if not plain:
        return None
    if plain.startswith("/"):
        return "an absolute path: link relative to the Markdown file"
    dest = os.path.normpath(os.path.join(os.path.dirname(md), plain))
    rel = os.path.relpath(dest, root)
    if rel == ".." or rel.startswith(".." + os.sep):
        return "outside the course"
    if set(rel.split(os.sep)) & SKIP_DIRS:
        return "into a build output or .git, which a copy does not hold"
    if not os.path.exists(dest):
        return "no such file or folder in this copy"
    return None


def main(argv):
    if len(argv) > 1 or (argv and argv[0].startswith("-")):
        print("usage: linkcheck.py [ROOT]", file=sys.stderr)
        return 2
    root = os.path.realpath(argv[0] if argv else
                            os.path.join(os.path.dirname(__file__), ".."))
    if not os.path.isdir(root):
        print("linkcheck.py: %s is not a folder" % root, file=sys.stderr)
        return 2
    files = count = bad = 0
    for md in markdown_files(root):
        files += 1
        for no, target in links(md):
            count += 1
            why = broken(root, md, target)
            if why:
                bad += 1
                print("%s:%d: %s: %s" % (os.path.relpath(md, root), no,
                                         target, why))
    print("link check of %s: %d Markdown files, %d links, %d broken"
          % (root, files, count, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
