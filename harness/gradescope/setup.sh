#!/usr/bin/env bash
# harness/gradescope/setup.sh: Gradescope runs this once, as root, when it
# builds the autograder image. The autograder zip (make-zip.sh) holds this
# file, run_autograder and the course repository under repo/, unpacked by
# Gradescope into /autograder/source.
#
# Gradescope's hosted autograders have no GPU: this autograder runs the
# compile stage only (grade.py --build-only), to give students its verdict
# at once; the grade comes from grading the export on a GPU machine (see
# harness/GRADING.md, "Gradescope"). The base image must carry the CUDA
# Toolkit (nvcc, on PATH or in /usr/local/cuda/bin); nothing else is
# installed here except python3 when the image lacks it.
set -eu
export PATH="$PATH:/usr/local/cuda/bin"

if ! command -v nvcc >/dev/null 2>&1; then
    echo "setup.sh: nvcc not found: use a base image with the CUDA Toolkit" >&2
    exit 1
fi
if ! command -v python3 >/dev/null 2>&1; then
    apt-get update && apt-get install -y --no-install-recommends python3
fi
nvcc --version | tail -n 1
