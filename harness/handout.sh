#!/usr/bin/env bash
# handout.sh DEST: writes the course as a student receives it into DEST, a
# new (or empty) folder outside this one. Run through `make handout
# DEST=dir`.
#
# The copy is the student's: every file of the course except
#   - the paths of the EXCLUDE list below (the reference solution, the
#     grading tool beyond the exercise's compile stage, Gradescope, Slurm,
#     GRADING.md, the grading corpus, the maintainers' scripts and tests),
#     but for the KEEP list inside them (the compile stage, which the
#     exercise's own Makefile runs);
#   - by name, anywhere: every NOTES.md (the maintainers' record), every
#     dev/ folder (variants and instruments) and every gpu-dev.sh;
#   - every transcript (evidence-*.txt, notes-*.txt, *.csv, *.png) that no
#     Markdown file of the copy links or names by its path from that file
#     (or from the top of the course): a lesson keeps what it quotes;
#   - in every Markdown file, the lines from a line
#     "<!-- instructors only: make handout leaves this out -->" to the line
#     "<!-- end of instructors only -->" (both included).
# With a .git folder it is the files of the last commit (git archive HEAD:
# uncommitted changes are left out, and the script says so); without one
# (a copy of the tree on another machine) every file of the tree but what
# .gitignore names (build outputs). It builds, and its `make check` passes
# with or without a GPU: there the exercise is "not yet attempted" until
# the student writes threeway.cu (and, without a GPU, its CPU check runs).
#
# Fails loudly, before writing anything, when a listed path is missing (so
# the list cannot rot) or DEST is unusable; and after copying (removing
# the copy), when any file of it (every one is read) holds a solution/
# folder, the answer's formula for a positive's slot, a partial hint
# (arithmetic on a rank, HINTS below), or any line of the reference kernel
# that places an element (its code lines that the starter lacks and that
# name a negative or zero rank or total), however the file around it is
# named; or when a relative link of its Markdown does not resolve in the
# copy (harness/linkcheck.py).
set -euo pipefail

# path (file or folder, from the top of the course) and why it stays out.
EXCLUDE=(
    "day33-exercise-threeway/solution|the reference solution and its explanation"
    "harness/grade-tests|the grading corpus: kernels that pass, expected verdicts, transcripts quoting the answers"
    "harness/grader|the grading tool (but its compile stage: KEEP)"
    "harness/grade.py|the grading tool's entry point"
    "harness/GRADING.md|the instructors' guide to grading: verdicts, scores, sample answers"
    "harness/gradescope|Gradescope's autograder"
    "harness/slurm|grading on a Slurm cluster"
    "harness/evidence.sh|captures the maintainers' transcripts; runs the reference solution and the corpus"
    "harness/capture.sh|writes the maintainers' transcripts"
    "harness/handout.sh|this script: its checks spell out what they look for"
    "harness/tests/gpu_off_by_one.sh|makes wrong kernels from the reference solution, whose lines it quotes"
    "harness/tests/test_cpu_check.sh|the CPU check against the reference solution and the corpus"
    "harness/tests/test_handout.sh|makes a handout and checks it with the reference solution"
    "harness/tests/expect.sh|the helper of those two tests"
    "harness/build-time.sh|times the maintainers' clean build"
    "harness/dev-check.sh|runs the days' dev/ checks (no dev/ in this copy)"
    "harness/dev-steps.sh|the step runner of the maintainers' GPU scripts"
    "harness/solved-check.sh|runs the your-turn slots' reference fills (dev/)"
)
# Inside EXCLUDE, what the student's copy needs: the exercise's Makefile
# compiles threeway.cu through compiler.py (which reads entries.py).
KEEP=(
    "harness/grader/compiler.py"
    "harness/grader/entries.py"
)
# Any file or folder of these names, anywhere.
EXCLUDE_NAMES="NOTES.md | dev | gpu-dev.sh"
SPOILER='negRank\[i\] - zeroRank'
# Partial hints: arithmetic on a rank at i, a positive's slot from i, a
# base one off the totals' sum. (A rank's own definition, negRank[i - 1] +
# (in[i - 1] < 0), is no hint.)
HINTS='(negRank|zeroRank)\[i\] *[-+]|[-+] *(\(size_t\) *)?(negRank|zeroRank)\[i\]|\bi *- *(\(size_t\) *)?(neg|nr)\b|A *\+ *B *\+ *\(?i\b|\bab *[-+] *(1 *\+ *)?\(i\b'
BLOCK_START='<!-- instructors only: make handout leaves this out -->'
BLOCK_END='<!-- end of instructors only -->'

die() { echo "handout: $*" >&2; exit 1; }

top=$(cd "$(dirname "$0")/.." && pwd -P)
dest=${1:-}
if [ -z "$dest" ]; then
    echo "usage: make handout DEST=<folder>   (a new or empty folder, outside the course)" >&2
    exit 2
fi

for entry in "${EXCLUDE[@]}"; do
    path=${entry%%|*}
    [ -e "$top/$path" ] && continue
    if [ ! -e "$top/day33-exercise-threeway/solution" ]; then
        die "this copy has no day33-exercise-threeway/solution: it is a student's copy already (make handout runs in the maintainers' copy)"
    fi
    die "$path is on the exclude list of harness/handout.sh but not in the course: update the list"
done

for path in "${KEEP[@]}"; do
    [ -f "$top/$path" ] || die "$path is on the keep list of harness/handout.sh but not in the course: update the list"
done

if [ -e "$dest" ] && [ ! -d "$dest" ]; then
    die "DEST=$dest exists and is not a folder"
fi
if [ -d "$dest" ] && [ -n "$(ls -A "$dest")" ]; then
    die "DEST=$dest is not empty: give a new or empty folder"
fi
created=0
[ -d "$dest" ] || created=1
mkdir -p "$dest"
dest=$(cd "$dest" && pwd -P)
case "$dest/" in
"$top/"*) [ "$created" -eq 0 ] || rmdir "$dest"
          die "DEST=$dest is inside the course folder $top: give a folder outside it" ;;
esac
# From here on DEST holds only what this script wrote: a copy that fails
# its checks is removed, never left where it could be handed out.
cleanup() {
    local rc=$?
    if [ "$rc" -ne 0 ]; then
        find "$dest" -mindepth 1 -delete
        [ "$created" -eq 0 ] || rmdir "$dest"
        echo "handout: removed the unfinished copy in $dest" >&2
    fi
}
trap cleanup EXIT

excluded() {   # is $1 (a path from the top) left out?
    local entry path comp
    for path in "${KEEP[@]}"; do
        [ "$1" = "$path" ] && return 1
    done
    for entry in "${EXCLUDE[@]}"; do
        path=${entry%%|*}
        case "$1" in "$path" | "$path"/*) return 0 ;; esac
    done
    local IFS=/
    for comp in $1; do
        case " $EXCLUDE_NAMES " in *" $comp "*) return 0 ;; esac
    done
    return 1
}

# A small reading of .gitignore, for a tree without .git: blank lines and
# comments; "/a/b" anchored at the top; "name" anywhere; a trailing "/"
# for folders only; * ? [ globs within one path component. Anything else
# (a "!" negation, "**") stops the script rather than be misread.
ignores=()
if [ -f "$top/.gitignore" ]; then
    while IFS= read -r line || [ -n "$line" ]; do
        line=${line%$'\r'}
        case "$line" in "" | "#"*) continue ;; esac
        case "$line" in
        "!"* | *"**"*) die ".gitignore line '$line' is beyond what handout.sh reads; extend its reader" ;;
        esac
        ignores+=("$line")
    done < "$top/.gitignore"
fi

ignored() {   # is the file $1 (a path from the top) a build output?
    local pat dir_only anchored comps i n
    IFS=/ read -r -a comps <<< "$1"
    n=${#comps[@]}
    for pat in "${ignores[@]+"${ignores[@]}"}"; do
        dir_only=0; anchored=0
        case "$pat" in */) dir_only=1; pat=${pat%/} ;; esac
        case "$pat" in /*) anchored=1; pat=${pat#/} ;; */*) anchored=1 ;; esac
        if [ "$anchored" -eq 1 ]; then
            # shellcheck disable=SC2053
            if [ "$dir_only" -eq 0 ] && [[ $1 == $pat ]]; then return 0; fi
            for ((i = 1; i < n; ++i)); do
                # shellcheck disable=SC2053
                [[ $(IFS=/; echo "${comps[*]:0:i}") == $pat ]] && return 0
            done
        else
            # Any folder on the path, or the file itself unless dir_only.
            for ((i = 0; i < n; ++i)); do
                [ "$dir_only" -eq 1 ] && [ "$i" -eq $((n - 1)) ] && break
                # shellcheck disable=SC2053
                [[ ${comps[i]} == $pat ]] && return 0
            done
        fi
    done
    return 1
}

if [ -d "$top/.git" ] || [ -f "$top/.git" ]; then
    commit=$(git -C "$top" rev-parse --short HEAD)
    echo "handout: the files of commit $commit, into $dest"
    if [ -n "$(git -C "$top" status --porcelain --untracked-files=no)" ]; then
        echo "handout: note: uncommitted changes to tracked files are not in the copy"
    fi
    while IFS= read -r -d '' item; do
        meta=${item%%$'\t'*} f=${item#*$'\t'}
        excluded "$f" && continue
        read -r mode _ blob <<< "$meta"
        case $mode in
        100644 | 100755) ;;
        *) die "$f is not a plain file in git (mode $mode): copy it by hand or extend handout.sh" ;;
        esac
        mkdir -p "$dest/$(dirname "$f")"
        git -C "$top" cat-file blob "$blob" > "$dest/$f"
        [ "$mode" = 100644 ] || chmod +x "$dest/$f"
    done < <(git -C "$top" ls-tree -r -z HEAD)
else
    echo "handout: no .git here: every file of the tree but the build outputs .gitignore names, into $dest"
    while IFS= read -r -d '' f; do
        f=${f#./}
        excluded "$f" && continue
        ignored "$f" && continue
        mkdir -p "$dest/$(dirname "$f")"
        cp -p "$top/$f" "$dest/$f"
    done < <(cd "$top" && find . -path ./.git -prune -o -type f -print0)
fi

for entry in "${EXCLUDE[@]}"; do
    echo "handout: left out ${entry%%|*}: ${entry#*|}"
done
echo "handout: left out every NOTES.md, dev/ and gpu-dev.sh: the maintainers' record, variants and GPU scripts"

# The instructors' blocks of the Markdown files; then the transcripts no
# Markdown file of the copy names.
while IFS= read -r -d '' md; do
    awk -v s="$BLOCK_START" -v e="$BLOCK_END" -v f="${md#"$dest"/}" '
        $0 == s { if (inside) { bad = 1; exit } inside = 1; next }
        $0 == e { if (!inside) { bad = 1; exit } inside = 0; next }
        !inside { print }
        END { if (bad || inside) { print f ": unbalanced instructors-only markers" > "/dev/stderr"; exit 1 } }
    ' "$md" > "$md.tmp" || die "$md: fix its instructors-only markers"
    mv "$md.tmp" "$md"
done < <(find "$dest" -name '*.md' -print0)
python3 - "$dest" <<'PY' || die "could not sort the transcripts"
import os, re, sys
root = sys.argv[1]
docs = {}
for here, _, files in os.walk(root):
    for f in files:
        if f.endswith(".md"):
            p = os.path.join(here, f)
            with open(p, encoding="utf-8", errors="replace") as fh:
                docs[p] = fh.read()
transcript = re.compile(r"^(evidence-.*\.txt|notes-.*\.txt|.*\.csv|.*\.png)$")
for here, _, files in os.walk(root):
    for f in sorted(files):
        if not transcript.match(f):
            continue
        path = os.path.join(here, f)
        top = os.path.relpath(path, root)
        named = any(os.path.relpath(path, os.path.dirname(md)) in text or
                    top in text for md, text in docs.items())
        if not named:
            os.remove(path)
            print("handout: left out %s: a transcript no lesson quotes" % top)
PY


# The checks this copy exists for.
found=$(find "$dest" -type d -name solution -print)
[ -z "$found" ] || die "the copy holds a solution folder: $found"
# grep -r reads every file of the copy, whatever its name or kind; exit 1
# is "nothing found", anything above it a check that could not run.
leak() {   # leak WHAT GREP-ARGS...: dies when grep finds anything
    local what=$1 found rc=0
    shift
    found=$(grep -rn "$@" "$dest") || rc=$?
    [ "$rc" -le 1 ] || die "the check for $what could not run (grep exit $rc)"
    [ -z "$found" ] || { printf '%s\n' "$found" >&2
        die "the copy holds $what (the lines above): no student may read it"; }
}
leak "the formula for a positive's slot" -e "$SPOILER"
leak "a partial hint, arithmetic on a rank" -E -e "$HINTS"
ex=$top/day33-exercise-threeway
trim() { sed 's/^[[:space:]]*//; s/[[:space:]]*$//'; }
lines=$(grep -hvE '^[[:space:]]*(\*|/\*|//|$)' "$ex"/solution/threeway.cu | trim |
        grep -vxF -f <(trim < "$ex/threeway.cu") | grep -iE 'neg|zero' |
        awk 'length >= 10' || true)
[ -n "$lines" ] || die "found no line of the reference kernel to look for: update the check"
leak "lines of the reference kernel" -F -f <(printf '%s\n' "$lines")
python3 "$dest/harness/linkcheck.py" "$dest" | sed 's/^/handout: /' ||
    die "a Markdown file of the copy links to a file the copy does not hold (above): fix the link, or put it between instructors-only markers"
echo "handout: checked every file: no solution/ folder, no '$SPOILER', no partial hint, none of the reference kernel's $(printf '%s\n' "$lines" | wc -l) placing lines; every relative link resolves"
echo "handout: done; try it: make -C $dest check"
