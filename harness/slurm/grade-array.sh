#!/bin/bash
# harness/slurm/grade-array.sh: grades a large class as a Slurm job array,
# one shard per array task, each task on one GPU. From the repository root:
#
#   export SUBMISSIONS=/path/to/class OUT=/path/to/grades
#   jid=$(sbatch --parsable --array=0-7 harness/slurm/grade-array.sh)
#   sbatch --dependency=afterok:$jid --wrap \
#       "python3 harness/grade.py merge $OUT/shard-* --out $OUT"
#
# Task i runs grade.py --shard i/N (N = the array's task count: the array
# must be 0-based and contiguous, e.g. --array=0-7) into $OUT/shard-i; the
# merge checks that every submission was graded exactly once and writes
# $OUT/grades.csv with every results.json beside it. Adjust the #SBATCH
# lines (partition, account, time) to your cluster.
#SBATCH --job-name=grade-threeway
#SBATCH --array=0-7
#SBATCH --gres=gpu:1
#SBATCH --cpus-per-task=8
#SBATCH --mem=32G
#SBATCH --time=01:00:00
#SBATCH --output=grade-%A_%a.log
set -eu
: "${SUBMISSIONS:?set SUBMISSIONS to the class folder}"
: "${OUT:?set OUT to the output folder}"
cd "${SLURM_SUBMIT_DIR:-.}"
# Slurm sets CUDA_VISIBLE_DEVICES to the task's GPU; grade.py keeps it.
exec python3 harness/grade.py "$SUBMISSIONS" \
    --out "$OUT/shard-$SLURM_ARRAY_TASK_ID" \
    --shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT" \
    --jobs "${SLURM_CPUS_PER_TASK:-4}"
