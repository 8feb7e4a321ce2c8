#!/bin/bash
# harness/slurm/grade-array.sh: one task of a Slurm job array that grades
# a class, one shard per task, each task on one GPU. Submit it with
# harness/slurm/submit.sh (which builds once, picks ARCH from the GPU type
# and submits the merge); see harness/slurm/README.md. By hand:
#
#   sbatch --array=0-7 --gres=gpu:h100:1 --export=ALL,SUBMISSIONS=...,\
#          OUT=...,ARCH=90,SEED=... harness/slurm/grade-array.sh
#
# Task i runs grade.py --shard i/N into $OUT/shard-i, N being TASKS when
# set (submit.sh sets it: then one task can be run again alone, e.g.
# --array=3), else the array's task count (0-based and contiguous). A task never builds:
# the probe and the driver are built once before the array (a task that
# finds them missing says so in one line, and how to build them).
#
# Variables: SUBMISSIONS, OUT, ARCH (the GPUs' compute capability, the
# driver's build) and SEED (one seed for the whole class), all required;
# CUDA_MODULE (a module to "module load" where the toolkit is not on PATH
# otherwise); PYTHON (default python3, 3.8 or newer); GRADE_FLAGS (more
# options, e.g. --no-sanitize, split on spaces). The #SBATCH lines are
# modest defaults: a task grades its shard in minutes with a few cores;
# add your cluster's partition and account on sbatch's command line.
#SBATCH --job-name=grade-threeway
#SBATCH --gres=gpu:1
#SBATCH --cpus-per-task=4
#SBATCH --mem=16G
#SBATCH --time=00:30:00
#SBATCH --output=grade-%A_%a.log
set -eu
me="grade-array.sh"
: "${SUBMISSIONS:?$me: set SUBMISSIONS to the class folder}"
: "${OUT:?$me: set OUT to the output folder}"
: "${ARCH:?$me: set ARCH to the GPUs compute capability (e.g. 90)}"
: "${SEED:?$me: set SEED to one grading seed for every task}"
: "${SLURM_ARRAY_TASK_ID:?$me: run it as a Slurm array task (sbatch --array=0-N)}"
cd "${SLURM_SUBMIT_DIR:-.}"
if [ -n "${CUDA_MODULE:-}" ]; then
    set +u      # the modules' own scripts read unset variables
    type module >/dev/null 2>&1 || . /etc/profile.d/modules.sh
    module load "$CUDA_MODULE"
    set -u
fi
PYTHON=${PYTHON:-python3}
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 8))' 2>/dev/null || {
    echo "$me: Python 3.8 or newer is needed, $PYTHON is $("$PYTHON" -V 2>&1): set PYTHON or load a newer one"
    exit 1
}
build_only=0
case " ${GRADE_FLAGS:-} " in *" --build-only "*) build_only=1 ;; esac
driver=day33-exercise-threeway/threeway
if [ "$build_only" = 0 ] && { [ ! -x "$driver" ] || [ ! -x harness/build/hx_probe ]; }; then
    echo "$me: the driver is not built; build it once before the array: make -C harness probe && make -C day33-exercise-threeway threeway ARCH=\"$ARCH\""
    exit 1
fi
# Slurm sets CUDA_VISIBLE_DEVICES to the task's GPU; grade.py keeps it.
# GRADE_NO_BUILD: grade.py uses the probe and driver as built, never make.
export GRADE_NO_BUILD=1
# GRADE_FLAGS is split on spaces on purpose: it holds options.
# shellcheck disable=SC2086
exec "$PYTHON" harness/grade.py "$SUBMISSIONS" \
    --out "$OUT/shard-$SLURM_ARRAY_TASK_ID" \
    --shard "$SLURM_ARRAY_TASK_ID/${TASKS:-$SLURM_ARRAY_TASK_COUNT}" \
    --seed "$SEED" --arch "$ARCH" \
    --jobs "${SLURM_CPUS_PER_TASK:-4}" ${GRADE_FLAGS:-}
