"""listing: what a class is, and what each submission is called.

A class is one of:
  - a folder of submission folders, one per student (hidden entries,
    plain files and symbolic links are skipped), whatever the students'
    folders are named: "day33-exercise-threeway" or "threeway.cu" is a
    student's folder like any other;
  - a folder that is itself one submission: it holds a file threeway.cu
    (a file, not a folder of that name), or it is a clone of the course
    (day33-exercise-threeway/ holds threeway.cu and no other sub-folder
    holds a kernel): graded as a class of one;
  - a Gradescope "export submissions" folder (submission_metadata.yml
    beside submission_<id>/ folders): each submission is named by its
    submitters;
  - a folder of GitHub Classroom clones: each clone holds the kernel at
    <repo>/day33-exercise-threeway/threeway.cu.
In every submission folder the kernel is looked for at the top, then at
day33-exercise-threeway/, then one folder down (<dir>/threeway.cu or
<dir>/day33-exercise-threeway/threeway.cu, as a zipped folder unpacks).
answer.txt is read beside it. A kernel that is a symbolic link, or not a
regular file, is never read: the verdict is no_file.

Names: a folder's name may hold any byte. `display` makes it printable
(non-UTF-8 bytes and control or format characters become escapes) and is
what tables and CSV cells show; `folder_names` maps each submission to a
folder under OUT/submissions/ made of [A-Za-z0-9._-] and %XX escapes
only: never hidden, never a path separator, unique ignoring case.
"""

import hashlib
import json
import os
import re
import stat

from . import clean

KERNEL = "threeway.cu"
ANSWER = "answer.txt"
CLASSROOM_DIR = "day33-exercise-threeway"
GRADESCOPE_META = "submission_metadata.yml"
ANSWER_MAX = 300                # characters kept of answer.txt's sentence
FOLDER_MAX = 120                # characters of a folder name under OUT
SAFE = set(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
           b"0123456789._-")


class ClassError(Exception):
    """The class folder cannot be graded (the tool exits 2)."""


class Submission:
    """One submission. name: printable; key: the raw folder name (str,
    surrogate-escaped); kernel: a regular file or None, with problem
    saying why not; submitters: [{name, sid, email}] from Gradescope."""

    def __init__(self, key, name, folder):
        self.key, self.name, self.folder = key, name, folder
        self.kernel, self.problem, self.note = None, None, ""
        self.answer, self.submitters, self.out_dir = "", [], None


def display(raw):
    """A name as printable text on one line: undecodable bytes, control
    and format characters (newlines, escapes, bidi overrides) as visible
    escapes (clean.line)."""
    return clean.line(raw)


def folder_names(keys):
    """{key: folder} for a whole class (every shard computes the same)."""
    used, out = set(), {}
    for key in sorted(keys, key=_sort_key):
        raw = key.encode("utf-8", "surrogateescape")
        name = "".join(chr(b) if b in SAFE else "%%%02X" % b for b in raw)
        if name.startswith("."):
            name = "%2E" + name[1:]
        if len(name) > FOLDER_MAX:
            name = name[:FOLDER_MAX - 13] + "~" + \
                hashlib.sha256(raw).hexdigest()[:12]
        cand, k = name, 2
        while cand.lower() in used:
            cand, k = "%s~%d" % (name, k), k + 1
        used.add(cand.lower())
        out[key] = cand
    return out


def _sort_key(key):
    return key.encode("utf-8", "surrogateescape")


def list_class(path):
    """(kind, [Submission] sorted by raw name, [lines to print]).
    Raises ClassError when path is not a folder or holds nothing."""
    if not os.path.isdir(path):
        raise ClassError("%s is not a folder" % display(path))
    path = os.path.abspath(path)
    notes = []
    if _holds_kernel(path):
        base = os.path.basename(path) or "submission"
        notes.append("%s holds %s itself: graded as a class of one "
                     "submission, named %s" % (display(path), KERNEL,
                                               display(base)))
        subs = [Submission(base, display(base), path)]
        kind = "one"
    else:
        meta, path = _find_gradescope(path, notes)
        if meta is not None:
            subs, kind = _gradescope_class(path, meta, notes), "gradescope"
        else:
            subs = [Submission(e, display(e), os.path.join(path, e))
                    for e in _folders(path)]
            kind = "folders"
            clones = sum(os.path.isdir(os.path.join(s.folder, CLASSROOM_DIR))
                         for s in subs)
            if clones:
                notes.append("%d of them GitHub Classroom clones (the "
                             "kernel at <repo>/%s/%s)" % (clones,
                                                          CLASSROOM_DIR,
                                                          KERNEL))
    if not subs:
        raise ClassError("%s holds no submission: no folder with %s in it "
                         "(nothing to grade)" % (display(path), KERNEL))
    subs.sort(key=lambda s: _sort_key(s.key))
    for s in subs:
        s.kernel, s.problem, s.note = find_kernel(s.folder)
        s.answer = read_answer(os.path.dirname(s.kernel)) if s.kernel else ""
    return kind, subs, notes


def _folders(path):
    out = []
    for entry in os.listdir(path):
        full = os.path.join(path, entry)
        if not entry.startswith(".") and not os.path.islink(full) and \
                os.path.isdir(full):
            out.append(entry)
    return out


def _is_kernel_entry(path):
    """An entry that can only be the kernel: a file, a link or anything
    else named threeway.cu, but never a real folder of that name (a
    student's folder may be called threeway.cu)."""
    return os.path.lexists(path) and not (os.path.isdir(path) and
                                          not os.path.islink(path))


def _holds_kernel(folder):
    """Is folder one submission? It holds the kernel file itself, or it is
    a clone of the course: day33-exercise-threeway/ holds the kernel and
    no other sub-folder looks like a submission (holds a kernel at its
    top, in its day33-exercise-threeway/, or one folder down). A folder
    with two or more sub-folders holding kernels is a class, whatever
    they are named."""
    if _is_kernel_entry(os.path.join(folder, KERNEL)):
        return True
    if not _is_kernel_entry(os.path.join(folder, CLASSROOM_DIR, KERNEL)):
        return False
    return not any(_candidates(os.path.join(folder, e)) for e in
                   _folders(folder) if e != CLASSROOM_DIR)


def _candidates(folder):
    """([the kernel's places at the top], [its places one folder down])
    of a submission folder, those that exist."""
    tops = [p for p in (os.path.join(folder, KERNEL),
                        os.path.join(folder, CLASSROOM_DIR, KERNEL))
            if _is_kernel_entry(p)]
    below = sorted(p for e in _folders(folder) for p in (
        os.path.join(folder, e, KERNEL),
        os.path.join(folder, e, CLASSROOM_DIR, KERNEL))
        if _is_kernel_entry(p))
    return (tops, below) if tops or below else None


def find_kernel(folder):
    """(path, None, note) for a usable kernel, else (None, problem, "")."""
    tops, below = _candidates(folder) or ([], [])
    if tops:
        return _usable(tops[0], folder)
    if below:
        path, problem, _ = _usable(below[0], folder)
        note = "" if len(below) == 1 else "%d files named %s; graded %s" % (
            len(below), KERNEL, display(os.path.relpath(below[0], folder)))
        return path, problem, note
    others = sorted(e for e in os.listdir(folder) if e.endswith(".cu"))
    hint = (" (found %s: the kernel must be in a file named %s)"
            % (", ".join(display(e) for e in others[:3]), KERNEL)
            if others else "")
    return None, "no %s%s" % (KERNEL, hint), ""


def _usable(path, folder):
    rel = display(os.path.relpath(path, folder))
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        return None, "%s is a symbolic link (submit the file itself)" % rel, ""
    if not stat.S_ISREG(st.st_mode):
        return None, "%s is not a regular file" % rel, ""
    return path, None, ""


def read_answer(folder):
    """answer.txt's first sentence, one line, at most ANSWER_MAX chars
    ("" when missing, a link or not a regular file)."""
    path = os.path.join(folder, ANSWER)
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return ""
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as f:
            text = f.read(65536).decode("utf-8", "replace")
    except OSError:
        return ""
    text = " ".join(text.split())
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    return (m.group(1) if m else text)[:ANSWER_MAX]


# ---------------------------------------------------------------------------
# Gradescope's "export submissions" folder.

def _find_gradescope(path, notes):
    """(metadata dict or None, the export folder). A class folder that
    holds only the unpacked export folder is entered, with a note."""
    meta = os.path.join(path, GRADESCOPE_META)
    inner = _folders(path)
    if not os.path.isfile(meta) and len(inner) == 1 and os.path.isfile(
            os.path.join(path, inner[0], GRADESCOPE_META)):
        path = os.path.join(path, inner[0])
        meta = os.path.join(path, GRADESCOPE_META)
        notes.append("the export is in %s: graded from there"
                     % display(inner[0]))
    if not os.path.isfile(meta):
        return None, path
    with open(meta, "rb") as f:
        text = f.read(64 << 20).decode("utf-8", "replace")
    return read_gradescope_meta(text), path


def _gradescope_class(path, meta, notes):
    subs, seen = [], {}
    for entry in _folders(path):
        people = meta.get(entry, [])
        name = ", ".join(p["name"] for p in people if p.get("name")) or entry
        s = Submission(entry, display(name), os.path.join(path, entry))
        s.submitters = people
        seen.setdefault(s.name, []).append(s)
        subs.append(s)
    for same in seen.values():
        if len(same) > 1:
            for s in same:
                s.name = "%s (%s)" % (s.name, display(s.key))
    notes.append("a Gradescope export (%s): %d submissions, named by their "
                 "submitters%s" % (GRADESCOPE_META, len(subs),
                                   "" if _have_yaml() else
                                   " (read without PyYAML)"))
    return subs


def _have_yaml():
    try:
        import yaml  # noqa: F401
        return True
    except ImportError:
        return False


def read_gradescope_meta(text):
    """{submission folder: [{name, sid, email}]} from the metadata:
    PyYAML when installed and the file loads, else the subset parser."""
    try:
        import yaml
        data = yaml.safe_load(text)
        return {str(k): [_person(p) for p in (v or {}).get(":submitters")
                         or [] if isinstance(p, dict)]
                for k, v in data.items() if isinstance(v, dict)}
    except Exception:   # no PyYAML, or a tag safe_load refuses
        return parse_meta_subset(text)


def _person(p):
    return {k: "" if p.get(":" + k) is None else str(p.get(":" + k))
            for k in ("name", "sid", "email")}


def parse_meta_subset(text):
    """The part of Gradescope's YAML this tool reads, without PyYAML:
    top-level keys (the submission folders) and, under each, the
    ':submitters:' list of ':name:', ':sid:', ':email:' scalars. Any
    other key, nested or not, is skipped."""
    out, top, subs, item, sub_indent = {}, None, None, None, 0
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        if indent == 0:
            m = re.match(r"(.+?):\s*$", line)
            top, subs = (_scalar(m.group(1)), None) if m else (None, None)
            if top is not None:
                out[top] = []
            continue
        if top is None:
            continue
        if subs is None or indent < sub_indent or (
                indent == sub_indent and not line.startswith("-")):
            subs = None
            if re.fullmatch(r":?submitters:", line):
                subs, sub_indent, item = out[top], indent, None
            continue
        if line == "-" or line.startswith("- "):
            item = {"name": "", "sid": "", "email": ""}
            subs.append(item)
            line = line[1:].strip()
        m = re.fullmatch(r":?(name|sid|email):\s*(.*)", line)
        if item is not None and m:
            item[m.group(1)] = _scalar(m.group(2))
    return out


def _scalar(text):
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    if len(text) >= 2 and text[0] == text[-1] == '"':
        try:
            return str(json.loads(text))
        except ValueError:
            return text[1:-1]
    return re.split(r"\s+#", text)[0]
