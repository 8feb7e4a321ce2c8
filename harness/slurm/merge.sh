#!/bin/bash
# harness/slurm/merge.sh: the merge job after a grade-array.sh array,
# submitted by harness/slurm/submit.sh with --dependency=afterany on the
# array, so that it runs whether every task succeeded or not. It names
# every task whose shard is missing or unfinished (no OUT/shard-i/
# shard.json: the task failed, timed out or never ran), with the line that
# grades that shard again; then merges the shards (grade.py merge, which
# refuses shards graded with different settings) when all are there.
#
# Variables: OUT, TASKS (the array's task count); PYTHON (default
# python3); ARRAY_JOB (the array's job id, for the re-run line).
#SBATCH --job-name=grade-merge
#SBATCH --cpus-per-task=1
#SBATCH --mem=2G
#SBATCH --time=00:15:00
#SBATCH --output=grade-merge-%j.log
set -eu
me="merge.sh"
: "${OUT:?$me: set OUT to the output folder of the array}"
: "${TASKS:?$me: set TASKS to the array task count}"
cd "${SLURM_SUBMIT_DIR:-.}"
PYTHON=${PYTHON:-python3}
missing=()
shards=()
for ((i = 0; i < TASKS; i++)); do
    if [ -f "$OUT/shard-$i/shard.json" ] && [ -f "$OUT/shard-$i/grades.csv" ]; then
        shards+=("$OUT/shard-$i")
    else
        missing+=("$i")
    fi
done
if [ "${#missing[@]}" -gt 0 ]; then
    list=$(IFS=,; echo "${missing[*]}")
    echo "$me: ${#missing[@]} of $TASKS tasks left no finished shard: task(s) $list${ARRAY_JOB:+ of job $ARRAY_JOB} (see $OUT/logs/grade-${ARRAY_JOB:-JOB}_<task>.log)"
    echo "$me: grade them again with the same settings: sbatch --array=$list --gres=... --export=ALL,TASKS=$TASKS,SUBMISSIONS=...,OUT=$OUT,ARCH=...,SEED=... harness/slurm/grade-array.sh, then run this merge again"
    exit 1
fi
exec "$PYTHON" harness/grade.py merge "${shards[@]}" --out "$OUT"
