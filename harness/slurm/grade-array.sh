#!/bin/bash
# harness/slurm/grade-array.sh: grades a large class as a Slurm job array,
# one shard per array task, each task on one GPU. From the repository root:
#
#   export SUBMISSIONS=/path/to/class OUT=/path/to/grades
#   export ARCH=90 SEED=$RANDOM$RANDOM    # the same for every task
#   export CUDA_MODULE=cuda/12.4          # only where the cluster needs it
#   make -C harness probe && make -C day33-exercise-threeway threeway ARCH=$ARCH
#   jid=$(sbatch --parsable --array=0-7 harness/slurm/grade-array.sh)
#   sbatch --dependency=afterok:$jid --wrap \
#       "python3 harness/grade.py merge $OUT/shard-* --out $OUT"
#
# Task i runs grade.py --shard i/N (N = the array's task count: the array
# must be 0-based and contiguous, e.g. --array=0-7) into $OUT/shard-i; the
# merge checks that every submission was graded exactly once and writes
# $OUT/grades.csv with every results.json beside it.
#
# Variables: SUBMISSIONS and OUT (required); ARCH (the GPUs' compute
# capability, e.g. 90: the probe and the driver are built before the array
# starts, since the tasks share the repository and must not build them at
# once);
# SEED (one grading seed for the whole class, recorded in each shard.json;
# default: the array's job id); CUDA_MODULE (a module to "module load"
# before grading, where the toolkit is not on PATH otherwise); GRADE_FLAGS
# (more options, e.g. --no-sanitize). Adjust the #SBATCH lines
# (partition, account, time) to your cluster.
#SBATCH --job-name=grade-threeway
#SBATCH --array=0-7
#SBATCH --gres=gpu:1
#SBATCH --cpus-per-task=16
#SBATCH --mem=64G
#SBATCH --time=01:00:00
#SBATCH --output=grade-%A_%a.log
set -eu
: "${SUBMISSIONS:?set SUBMISSIONS to the class folder}"
: "${OUT:?set OUT to the output folder}"
: "${ARCH:?set ARCH to the GPUs compute capability (e.g. 90), and build the driver for it first}"
cd "${SLURM_SUBMIT_DIR:-.}"
if [ -n "${CUDA_MODULE:-}" ]; then
    set +u      # the modules' own scripts read unset variables
    type module >/dev/null 2>&1 || . /etc/profile.d/modules.sh
    module load "$CUDA_MODULE"
    set -u
fi
# Slurm sets CUDA_VISIBLE_DEVICES to the task's GPU; grade.py keeps it.
# GRADE_FLAGS is split on spaces on purpose: it holds options.
# shellcheck disable=SC2086
exec python3 harness/grade.py "$SUBMISSIONS" \
    --out "$OUT/shard-$SLURM_ARRAY_TASK_ID" \
    --shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT" \
    --seed "${SEED:-$SLURM_ARRAY_JOB_ID}" --arch "$ARCH" \
    --jobs "${SLURM_CPUS_PER_TASK:-4}" ${GRADE_FLAGS:-}
