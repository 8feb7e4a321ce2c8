"""clean: text that is safe to show, whatever a submission put in it.

A student controls much of what this tool writes: folder names, answer.txt,
the lines of a compile error that quote the file, the driver's output (the
kernel's printf). None of it may reach the instructor's terminal, editor or
spreadsheet as a control: an escape sequence that rewrites the screen, a
BEL, a carriage return that hides the start of a line, a NUL, a bidi
override that reorders what is shown. Every output goes through here:
the console, summary.txt, log.txt, grades.csv, gradescope.csv,
timings.csv, results.json.

Each such character is written as a visible escape instead: \\xNN below
U+0100 (C0 controls, DEL, C1 controls), \\uXXXX above (format characters
such as U+202E, line and paragraph separators). Bytes that are not UTF-8
(from surrogateescape) become \\xNN. A backslash is left as it is: the
escapes are for a person to read, not to decode.

The CSV formula guard is a separate question (reports.neutralise): a
cleaned cell may still start with "=".
"""

import re
import unicodedata

_UNSAFE_CATEGORIES = ("Cc", "Cf", "Cs", "Zl", "Zp", "Co", "Cn")


def _escape_char(c):
    o = ord(c)
    if 0xDC80 <= o <= 0xDCFF:           # a byte that is not UTF-8
        return "\\x%02x" % (o - 0xDC00)
    return "\\x%02x" % o if o < 0x100 else "\\u%04x" % o if o < 0x10000 \
        else "\\U%08x" % o


def _unsafe(c):
    return unicodedata.category(c) in _UNSAFE_CATEGORIES


_ASCII_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def text(s, keep="\n\t"):
    """s with every control or format character escaped but those in keep
    (by default newlines and tabs: a multi-line message stays one)."""
    if not isinstance(s, str):
        s = str(s)
    if s.isprintable():     # the common cases, without a look per character
        return s
    if s.isascii():
        return _ASCII_CONTROL.sub(lambda m: m.group() if m.group() in keep
                                  else _escape_char(m.group()), s)
    if not any(_unsafe(c) and c not in keep for c in s):
        return s
    return "".join(_escape_char(c) if c not in keep and _unsafe(c) else c
                   for c in s)


def line(s):
    """One line: every control character escaped, newlines included."""
    return text(s, keep="")


def cell(s):
    """A CSV cell: one line, tabs kept (a tab is data in a CSV)."""
    return text(s, keep="\t")


def data(obj):
    """A copy of a JSON-able value with every string cleaned (keys too),
    multi-line strings kept multi-line."""
    if isinstance(obj, str):
        return text(obj)
    if obj is None or isinstance(obj, (bool, int, float)):
        return obj
    if isinstance(obj, dict):
        return {text(k) if isinstance(k, str) else k: data(v)
                for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [data(v) for v in obj]
    return obj


def from_bytes(b, keep="\n\t"):
    """Bytes as cleaned text: UTF-8 where it decodes, \\xNN where not."""
    return text(bytes(b).decode("utf-8", "surrogateescape"), keep)
