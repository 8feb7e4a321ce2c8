#!/bin/bash
# harness/slurm/submit.sh: grades a class on a Slurm cluster, on the login
# node, from the repository root:
#
#   harness/slurm/submit.sh CLASS OUT GPU_TYPE [TASKS]
#   e.g. harness/slurm/submit.sh ~/class ~/grades h100 8
#
# 1. checks Python (3.8 or newer);
# 2. ARCH from the GPU type (h100 -> 90; ARCH=... overrides, and is needed
#    for a type this script does not know, or for GPU_TYPE "any");
# 3. builds the probe and the driver once, here (the tasks share this
#    repository and never build);
# 4. submits grade-array.sh as TASKS tasks (default 8), each asking for one
#    GPU of that type (--gres=gpu:TYPE:1; "any" asks for --gres=gpu:1);
# 5. submits merge.sh with --dependency=afterany on the array: it runs
#    when every task has ended, however they ended, names the tasks that
#    left no shard (and how to grade them again), else merges into OUT.
# The jobs' logs go to OUT/logs/. The last line printed is the two job
# ids, "ARRAY MERGE", for scripts.
#
# A class that fits one GPU (100 submissions grade in about a minute on
# an H100 or H200) needs no array: one srun does it, e.g.
#   srun --gres=gpu:h100:1 --cpus-per-task=8 --mem=32G --time=00:30:00 \
#       python3 harness/grade.py CLASS --out OUT
#
# Variables: SEED (default: drawn here, the same for every task), ARCH,
# CUDA_MODULE, PYTHON, GRADE_FLAGS (e.g. --no-sanitize), SBATCH_FLAGS
# (more sbatch options for both jobs, e.g. "--partition=gpu
# --account=cs123", split on spaces).
set -eu
me="submit.sh"
if [ $# -lt 3 ] || [ $# -gt 4 ]; then
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
SUBMISSIONS=$(cd "$1" && pwd)
mkdir -p "$2"
OUT=$(cd "$2" && pwd)
GPU_TYPE=$3
TASKS=${4:-8}
cd "$(dirname "$0")/../.."
PYTHON=${PYTHON:-python3}
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 8))' 2>/dev/null || {
    echo "$me: Python 3.8 or newer is needed, $PYTHON is $("$PYTHON" -V 2>&1): set PYTHON or load a newer one"
    exit 1
}
arch_of() {
    case "$(echo "$1" | tr 'A-Z' 'a-z')" in
        t4|rtx6000|rtx8000|quadro_rtx*|2080*) echo 75 ;;
        a100*|a30*) echo 80 ;;
        a10|a10g|a16|a40|a2|rtx_a*|a6000|a5000|a4000|3090*|3080*) echo 86 ;;
        l4|l40|l40s|rtx_6000_ada|ada*|4090*) echo 89 ;;
        h100*|h200*|gh200*|h800*) echo 90 ;;
        b100*|b200*|gb200*) echo 100 ;;
        *) echo "" ;;
    esac
}
if [ -z "${ARCH:-}" ]; then
    ARCH=$(arch_of "$GPU_TYPE")
    [ -n "$ARCH" ] || { echo "$me: unknown GPU type \"$GPU_TYPE\": set ARCH to its compute capability (e.g. ARCH=90 for an H100)"; exit 2; }
fi
if [ "$GPU_TYPE" = any ]; then gres="gpu:1"; else gres="gpu:$GPU_TYPE:1"; fi
SEED=${SEED:-$("$PYTHON" -c 'import secrets; print(secrets.randbits(48))')}
case " ${GRADE_FLAGS:-} " in
    *" --build-only "*) echo "$me: --build-only: the compile stage only, no driver needed" ;;
    *)
        if [ -n "${CUDA_MODULE:-}" ]; then
            set +u; type module >/dev/null 2>&1 || . /etc/profile.d/modules.sh
            module load "$CUDA_MODULE"; set -u
        fi
        echo "$me: building the probe and the driver for ARCH=\"$ARCH\" once, here"
        make -C harness probe >/dev/null
        make -C day33-exercise-threeway threeway ARCH="$ARCH" | tail -n 1 ;;
esac
export SUBMISSIONS OUT ARCH SEED TASKS PYTHON
mkdir -p "$OUT/logs"
# SBATCH_FLAGS is split on spaces on purpose: it holds options.
# shellcheck disable=SC2086
array=$(sbatch --parsable --array=0-$((TASKS - 1)) --gres="$gres" \
    --output="$OUT/logs/grade-%A_%a.log" --export=ALL ${SBATCH_FLAGS:-} \
    harness/slurm/grade-array.sh)
array=${array%%;*}
# shellcheck disable=SC2086
merge=$(ARRAY_JOB=$array sbatch --parsable --dependency=afterany:"$array" \
    --output="$OUT/logs/merge-%j.log" --export=ALL ${SBATCH_FLAGS:-} \
    harness/slurm/merge.sh)
merge=${merge%%;*}
echo "$me: array job $array ($TASKS tasks, --gres=$gres, ARCH=\"$ARCH\", seed $SEED), merge job $merge (afterany) into $OUT"
echo "$array $merge"
