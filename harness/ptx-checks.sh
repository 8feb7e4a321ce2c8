#!/usr/bin/env bash
# ptx-checks.sh [ARCH...]: on a GPU machine, the course built as PTX only
# for an older GPU and checked on this one. For each ARCH (default:
# compute_75 compute_80, the T4's and the A100's), `make all ARCH=...`
# (an sm_XX cubin, which a newer GPU refuses, and compute_XX PTX, which
# its driver compiles at load: so the code runs with __CUDA_ARCH__ of
# that GPU, its source paths and not this GPU's), then
# harness/gpu-checks.sh on that build: every lab's --check, the student's
# status, the reference solution's check and the starter failing. Run from
# anywhere; the build folders are the course's, rebuilt for each ARCH (the
# settings stamps see the change). Exit 1 when any step failed.
set -u
cd "$(dirname "$0")/.." || exit 2
rc=0
for arch in ${*:-compute_75 compute_80}; do
    echo "=== ARCH=$arch: make -j all ARCH=$arch"
    if ! make -s -j"$(nproc)" all ARCH="$arch" > "/tmp/ptx-build-$arch.log" 2>&1; then
        tail -n 30 "/tmp/ptx-build-$arch.log"
        echo "=== ARCH=$arch: the build FAILED"
        rc=1
        continue
    fi
    grep -h '^built for' "/tmp/ptx-build-$arch.log" | sort -u
    echo "=== ARCH=$arch: bash harness/gpu-checks.sh"
    start=$(date +%s)
    ARCH="$arch" bash harness/gpu-checks.sh || rc=1
    echo "=== ARCH=$arch: gpu-checks.sh took $(( $(date +%s) - start )) s"
done
exit $rc
