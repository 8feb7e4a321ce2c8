#!/usr/bin/env bash
# capture.sh TRANSCRIPT COMMAND...: runs COMMAND from the repository root and
# appends to TRANSCRIPT a header (UTC date, commit, GPU, driver, nvcc, build
# line) once, then "$ COMMAND", everything it printed, and its exit code.
# Used on the GPU machine to write the evidence transcripts the lessons quote.
# COMMIT and BUILD_LINE come from the environment (the GPU machine's copy of
# the tree has no .git): COMMIT=$(git rev-parse HEAD) BUILD_LINE="make -j ARCH=90"
set -u
out=$1; shift
cd "$(dirname "$0")/.." || exit 2
if [ ! -s "$out" ]; then
    {
        echo "# evidence transcript"
        echo "date (UTC):  $(date -u '+%Y-%m-%d %H:%M:%S')"
        echo "commit:      ${COMMIT:-unknown}"
        if command -v nvidia-smi >/dev/null; then
            echo "GPU:         $(nvidia-smi --query-gpu=name,memory.total,compute_cap --format=csv,noheader | head -n 1)"
            echo "driver:      $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1)"
        fi
        echo "nvcc:        $(nvcc --version | tail -n 1)"
        echo "build line:  ${BUILD_LINE:-make}"
    } >>"$out"
fi
{
    echo
    echo "\$ $*"
} >>"$out"
"$@" >>"$out" 2>&1
rc=$?
echo "[exit code $rc]" >>"$out"
exit $rc
