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
        self.created_at, self.answer_flag = "", ""


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
            subs = _gradescope_class(path, meta[0], notes, meta[1])
            kind = "gradescope"
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
            loose = _loose_kernels(path)
            if not subs and loose:
                subs, kind = _flat_class(path, loose, notes), "flat"
            elif loose:
                notes.append("%d loose .cu files beside the submission "
                             "folders are not graded (%s)" % (
                                 len(loose), FLAT_RULE))
    if not subs:
        raise ClassError("%s holds no submission: no folder with %s in it "
                         "and no .cu file (nothing to grade). %s" % (
                             display(path), KERNEL, FLAT_RULE))
    subs.sort(key=lambda s: _sort_key(s.key))
    for s in subs:
        if kind == "flat":
            s.kernel, s.problem, _ = _usable(s.kernel, path)
            s.answer_flag = "missing"
            continue
        s.kernel, s.problem, s.note = find_kernel(s.folder)
        where = os.path.dirname(s.kernel) if s.kernel else s.folder
        s.answer = read_answer(where) if s.kernel else ""
        s.answer_flag = answer_flag(where)
    return kind, subs, notes


# ---------------------------------------------------------------------------
# A flat folder of .cu files (how Canvas and Moodle hand submissions over).

FLAT_RULE = "A flat folder holds one .cu file per student: <student>.cu, " \
    "or Canvas's and Moodle's <student>_<number>_..._<file>.cu (the " \
    "student is the part before the first _<number>_)."
FLAT_NAME = re.compile(r"(.+?)_(?:LATE_)?\d+_.*\.cu")


def _loose_kernels(path):
    """The .cu entries of path that are not folders (a student's folder
    may be named threeway.cu)."""
    return sorted(e for e in os.listdir(path) if e.endswith(".cu") and
                  not e.startswith(".") and len(e) > 3 and
                  not os.path.isdir(os.path.join(path, e)))


def flat_student(filename):
    """The student a flat folder's file belongs to (FLAT_RULE)."""
    m = FLAT_NAME.fullmatch(filename)
    return m.group(1) if m else filename[:-3]


def _flat_class(path, files, notes):
    by = {}
    for f in files:
        by.setdefault(flat_student(f), []).append(f)
    twice = {k: v for k, v in by.items() if len(v) > 1}
    if twice:
        k = sorted(twice)[0]
        raise ClassError("%s: %s and %s both belong to %s. %s Keep one file "
                         "per student." % (display(path), display(
                             twice[k][0]), display(twice[k][1]), display(k),
                                           FLAT_RULE))
    subs = []
    for student, (f,) in by.items():
        s = Submission(student, display(student), path)
        s.kernel = os.path.join(path, f)
        s.note = "the kernel is %s (a flat folder)" % display(f)
        subs.append(s)
    notes.append("a flat folder of %d .cu files, one per student: %s"
                 % (len(subs), FLAT_RULE))
    return subs


def answer_flag(folder):
    """"missing" (no answer.txt), "unanswered" (the starter's text, which
    begins UNANSWERED, or nothing), else "" (an answer to read)."""
    path = os.path.join(folder, ANSWER)
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return "missing"
    except OSError:
        return "missing"
    text = read_answer(folder)
    return "unanswered" if not text or text.upper().startswith(
        "UNANSWERED") else ""


# ---------------------------------------------------------------------------
# A roster: identities for plain folders and Classroom clones.

ROSTER_KEYS = ("folder", "login", "github", "github_username", "name")


def read_roster(path):
    """[{folder, login, name, sid, email}] from a CSV with a header: a
    column naming each student's submission (folder, login or
    github_username: a Classroom clone is <assignment>-<login>; or
    name), and SID and Email. Headers are matched ignoring case. Raises
    ClassError with one line when the file has no usable columns."""
    import csv
    with open(path, newline="", encoding="utf-8-sig") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise ClassError("--roster %s: no rows under a header" % path)
    cols = {k.strip().lower().replace(" ", "_"): k for k in rows[0] if k}
    keys = [c for c in ROSTER_KEYS if c in cols]
    if not keys:
        raise ClassError("--roster %s: no column %s (the header has: %s)"
                         % (path, " or ".join(ROSTER_KEYS), ", ".join(
                             sorted(cols))))
    get = lambda r, c: (r.get(cols[c]) or "").strip() if c in cols \
        else ""     # noqa: E731
    out = []
    for r in rows:
        e = {c: get(r, c) for c in ROSTER_KEYS}
        e["login"] = e["login"] or e["github"] or e["github_username"]
        e["sid"] = get(r, "sid") or get(r, "student_id")
        e["email"] = get(r, "email")
        out.append(e)
    return out


def apply_roster(subs, roster, notes):
    """Gives each submission without submitters the identity of its one
    roster entry: a roster folder equal to its folder's name, a login
    that is its name or ends it after a "-" (a Classroom clone), or a
    name equal to it (ignoring case). Notes who matched nothing."""
    matched, used = 0, set()
    for s in subs:
        if s.submitters:
            continue
        key = s.key.lower()
        hits = [i for i, e in enumerate(roster) if
                e["folder"] and e["folder"].lower() == key or
                e["login"] and (e["login"].lower() == key or
                                key.endswith("-" + e["login"].lower())) or
                e["name"] and e["name"].lower() == key]
        if len(hits) == 1:
            e = roster[hits[0]]
            s.submitters = [{"name": e["name"] or s.name, "sid": e["sid"],
                             "email": e["email"]}]
            matched += 1
            used.add(hits[0])
        elif len(hits) > 1:
            notes.append("roster: %s matches %d entries; left without an "
                         "identity" % (s.name, len(hits)))
    lost = [s.name for s in subs if not s.submitters]
    spare = [e["name"] or e["login"] or e["folder"]
             for i, e in enumerate(roster) if i not in used]
    notes.append("roster: %d of %d submissions matched%s%s" % (
        matched, len(subs), "; not in the roster: " + ", ".join(lost[:10])
        if lost else "", "; roster entries with no submission: " +
        ", ".join(spare[:10]) if spare else ""))


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


def _gradescope_class(path, meta, notes, reader):
    subs, seen = [], {}
    for entry in _folders(path):
        info = meta.get(entry, {})
        people = info.get("submitters", [])
        name = ", ".join(p["name"] for p in people if p.get("name")) or entry
        s = Submission(entry, display(name), os.path.join(path, entry))
        s.submitters, s.created_at = people, info.get("created_at", "")
        seen.setdefault(s.name, []).append(s)
        subs.append(s)
    for same in seen.values():
        if len(same) > 1:
            for s in same:
                s.name = "%s (%s)" % (s.name, display(s.key))
    notes.append("a Gradescope export (%s, read with %s): %d submissions, "
                 "named by their submitters" % (GRADESCOPE_META, reader,
                                                len(subs)))
    return subs


# ---------------------------------------------------------------------------
# submission_metadata.yml: one reader. Its shape (Gradescope writes it with
# Ruby's YAML, so tags such as !ruby/object:BigDecimal appear):
#   submission_<id>:
#     :submitters:
#     - :name: Jane Doe
#       :sid: '0042'
#       :email: jane@example.edu
#     :created_at: 2025-03-01 10:00:00.000000000 -08:00
#     :score: !ruby/object:BigDecimal 18:0.1e2
#     :history:
#     - :id: ...
#       :submitters: ...      earlier submissions: never read
# Only each entry's own :submitters: and :created_at: are read, every value
# as text (an SID keeps its leading zeros). PyYAML, when installed, parses
# the file with every tag accepted and no implicit typing; without it, the
# subset parser below reads the same two keys. Both give the same result.

def read_gradescope_meta(text, use_yaml=None):
    """({submission folder: {"submitters": [{name, sid, email}],
    "created_at": text}}, the reader used: "PyYAML" or "the built-in
    reader"). use_yaml None: PyYAML when installed; False: never; True:
    PyYAML or ImportError."""
    if use_yaml is not False:
        try:
            import yaml
        except ImportError:
            if use_yaml:
                raise
        else:
            return _meta_yaml(yaml, text), "PyYAML"
    return parse_meta_subset(text), "the built-in reader"


def _meta_yaml(yaml, text):
    class Loader(yaml.SafeLoader):
        yaml_implicit_resolvers = {}        # every plain scalar is text

    def any_tag(loader, suffix, node):
        if isinstance(node, yaml.MappingNode):
            return loader.construct_mapping(node, deep=True)
        if isinstance(node, yaml.SequenceNode):
            return loader.construct_sequence(node, deep=True)
        return loader.construct_scalar(node)
    Loader.add_multi_constructor("!", any_tag)
    Loader.add_multi_constructor("tag:", any_tag)
    data = yaml.load(text, Loader=Loader)
    out = {}
    for k, v in (data or {}).items() if isinstance(data, dict) else ():
        if not isinstance(v, dict):
            continue
        people = v.get(":submitters") or []
        out[str(k)] = {"submitters": [_person(p) for p in people if
                                      isinstance(p, dict)] if isinstance(
                                          people, list) else [],
                       "created_at": _text(v.get(":created_at"))}
    return out


def _text(v):
    return "" if v is None or v in ("~", "null") else str(v)


def _person(p):
    return {k: _text(p.get(":" + k)) for k in ("name", "sid", "email")}


def parse_meta_subset(text):
    """The metadata's entries, without PyYAML: top-level keys (the
    submission folders) and, at each entry's own level, :created_at: and
    the :submitters: list of :name:, :sid:, :email: scalars. Keys nested
    deeper (:history:'s own submitters) are skipped; tags are dropped."""
    out, top, level, people, item = {}, None, None, None, None
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line.strip() or line.lstrip().startswith("#") or \
                line.startswith(("---", "...")):
            continue
        indent = len(line) - len(line.lstrip(" "))
        line = _untag(line.strip())
        if indent == 0:
            m = re.match(r"(.+?):\s*$", line)
            top = _scalar(m.group(1)) if m else None
            level, people, item = None, None, None
            if top is not None:
                out[top] = {"submitters": [], "created_at": ""}
            continue
        if top is None:
            continue
        if level is None and not line.startswith("-"):
            level = indent              # the entry's own keys
        if indent == level and not line.startswith("-"):
            people, item = None, None
            m = re.match(r":?([A-Za-z_]+):\s*(.*)$", line)
            if m and m.group(1) == "submitters":
                people = out[top]["submitters"]
            elif m and m.group(1) == "created_at":
                out[top]["created_at"] = _scalar(m.group(2))
            continue
        if people is None or indent < level:
            continue
        if line.startswith("-"):
            if indent > level + 2:      # a list nested in a submitter
                item = None
                continue
            item = {"name": "", "sid": "", "email": ""}
            people.append(item)
            line = _untag(line[1:].strip())
            indent_item = indent + 2
            if not line:
                continue
        elif item is None or indent != indent_item:
            continue
        m = re.fullmatch(r":?(name|sid|email):\s*(.*)", line)
        if item is not None and m:
            item[m.group(1)] = _scalar(m.group(2))
    return out


def _untag(text):
    """text without a leading YAML tag (!ruby/object:X, !!str)."""
    return re.sub(r"^!\S*\s*", "", text)


def _scalar(text):
    text = _untag(text.strip())
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    if len(text) >= 2 and text[0] == text[-1] == '"':
        try:
            return str(json.loads(text))
        except ValueError:
            return text[1:-1]
    text = re.split(r"\s+#", text)[0]
    return "" if text in ("~", "null") else text
