#!/usr/bin/env bash
# harness/gradescope/make-zip.sh [ZIP [OUT]]: builds the Gradescope
# autograder zip from the committed tree (git archive of HEAD): setup.sh
# and run_autograder at the top, the repository under repo/. With OUT (a
# grade.py OUT folder of a Gradescope export, graded on a GPU), the zip also
# holds each graded submission's results.json under
# results/submission_<id>/: run_autograder then hands Gradescope the GPU's
# results of the submission it runs for (harness/GRADING.md, "Gradescope").
# Run from anywhere in the repository; default ZIP: ./autograder.zip.
set -eu
zip_path=$(realpath -m "${1:-autograder.zip}")
out=${2:-}
root=$(git rev-parse --show-toplevel)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
git -C "$root" archive --format=tar --prefix=repo/ HEAD | tar -x -C "$stage"
cp "$root/harness/gradescope/setup.sh" "$root/harness/gradescope/run_autograder" "$stage/"
chmod +x "$stage/setup.sh" "$stage/run_autograder"
parts="setup.sh run_autograder repo"
if [ -n "$out" ]; then
    count=0
    for f in "$out"/submissions/submission_*/results.json; do
        [ -f "$f" ] && [ ! -L "$f" ] || continue
        folder=$(basename "$(dirname "$f")")
        case $folder in submission_*[!0-9]*) continue ;; esac
        mkdir -p "$stage/results/$folder"
        cp "$f" "$stage/results/$folder/results.json"
        count=$((count + 1))
    done
    if [ "$count" -eq 0 ]; then
        echo "make-zip.sh: $out holds no submissions/submission_<id>/results.json: grade a Gradescope export into it first" >&2
        exit 1
    fi
    parts="$parts results"
    echo "make-zip.sh: $count graded submissions' results.json included"
fi
rm -f "$zip_path"
(cd "$stage" && python3 -m zipfile -c "$zip_path" $parts)
echo "wrote $zip_path"
