#!/usr/bin/env bash
# handout.sh DEST: writes the course as a student receives it into DEST, a
# new (or empty) folder outside this one. Run through `make handout
# DEST=dir`.
#
# The copy holds every file of the course except the EXCLUDE list below:
# no reference solution, no grading corpus (its passing kernels and its
# transcripts quote the answers), nothing that needs them. With a .git
# folder it is the files of the last commit (git archive HEAD: uncommitted
# changes are left out, and the script says so); without one (a copy of
# the tree on another machine) every file of the tree but what .gitignore
# names (build outputs). It builds, and its `make check` passes with or
# without a GPU: there the exercise is "not yet attempted" until the
# student writes threeway.cu.
#
# Fails loudly, before writing anything, when a listed path is missing (so
# the list cannot rot) or DEST is unusable; and after copying (removing
# the copy), when it holds a solution/ folder, the answer's formula for a
# positive's slot, or any line of the reference kernel that places an
# element (its code lines that the starter lacks and that name a negative
# or zero rank or total), however the file around it is named.
set -euo pipefail

# path (file or folder, from the top of the course) and why it stays out.
EXCLUDE=(
    "day33-exercise-threeway/solution|the reference solution and its explanation"
    "harness/grade-tests|the grading corpus: kernels that pass, expected verdicts, transcripts quoting the answers"
    "harness/grader/DESIGN.md|the grading tool's design and tests, for maintainers: it names the corpus's cases"
    "harness/evidence.sh|captures the maintainers' transcripts; runs the reference solution and the corpus"
    "harness/tests/gpu_off_by_one.sh|makes wrong kernels from the reference solution, whose lines it quotes"
    "day33-exercise-threeway/gpu-dev.sh|the exercise's GPU checks for maintainers; runs the reference solution and the grading corpus"
)
SPOILER='negRank\[i\] - zeroRank'

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

excluded() {   # is $1 (a path from the top) on the list, or inside one?
    local entry path
    for entry in "${EXCLUDE[@]}"; do
        path=${entry%%|*}
        case "$1" in "$path" | "$path"/*) return 0 ;; esac
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

# The checks this copy exists for.
found=$(find "$dest" -type d -name solution -print)
[ -z "$found" ] || die "the copy holds a solution folder: $found"
if grep -rn -- "$SPOILER" "$dest"; then
    die "the copy holds the formula for a positive's slot (the lines above): no student may read it"
fi
ex=$top/day33-exercise-threeway
trim() { sed 's/^[[:space:]]*//; s/[[:space:]]*$//'; }
lines=$(grep -hvE '^[[:space:]]*(\*|/\*|//|$)' "$ex"/solution/threeway.cu | trim |
        grep -vxF -f <(trim < "$ex/threeway.cu") | grep -iE 'neg|zero' |
        awk 'length >= 10' || true)
[ -n "$lines" ] || die "found no line of the reference kernel to look for: update the check"
if grep -rnF -f <(printf '%s\n' "$lines") "$dest"; then
    die "the copy holds lines of the reference kernel (above): no student may read them"
fi
echo "handout: checked: no solution/ folder, no '$SPOILER', none of the reference kernel's $(printf '%s\n' "$lines" | wc -l) placing lines"
echo "handout: done; try it: make -C $dest check"
