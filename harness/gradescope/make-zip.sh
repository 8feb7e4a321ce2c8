#!/usr/bin/env bash
# harness/gradescope/make-zip.sh [ZIP]: builds the Gradescope autograder zip
# from the committed tree (git archive of HEAD): setup.sh and run_autograder
# at the top, the repository under repo/. Run from anywhere in the
# repository; default ZIP: ./autograder.zip.
set -eu
zip_path=$(realpath -m "${1:-autograder.zip}")
root=$(git rev-parse --show-toplevel)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
git -C "$root" archive --format=tar --prefix=repo/ HEAD | tar -x -C "$stage"
cp "$root/harness/gradescope/setup.sh" "$root/harness/gradescope/run_autograder" "$stage/"
chmod +x "$stage/setup.sh" "$stage/run_autograder"
rm -f "$zip_path"
(cd "$stage" && python3 -m zipfile -c "$zip_path" setup.sh run_autograder repo)
echo "wrote $zip_path"
