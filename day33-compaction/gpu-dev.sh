#!/usr/bin/env bash
# gpu-dev.sh: the day 33 development run, in one call on a GPU machine,
# before the evidence is captured (harness/evidence.sh). At most 60 s of
# GPU work (about 30 s on an H200), after the build. Run from anywhere:
#   bash day33-compaction/gpu-dev.sh     logs in $OUT, else ./gpu-dev-logs
# Writes two files: gpu-dev.log (every step's whole output, in order) and
# summary.txt (a line per step: its exit code, the one it should have, its
# time, then the log's last lines; also printed). Each step has a time
# limit, so a hang costs that step only (exit 124).
#   build     make ARCH=90 (sm_90 only)
#   sass      per single-pass kernel: 16-byte loads and stores (LDG.E.128,
#             STG.E.128: the "vector stores" configurations must have
#             some) and the fences (MEMBAR) and L1 invalidations (CCTL)
#             that acquire-release costs, where cuobjdump is installed
#   check     compaction --check: ends "self-check: all 15 sizes passed"
#             (14 without the GPU memory for one above 2^30); every
#             configuration of both tables, the look-back ones also with
#             the debug stalls, at sizes whose tiles let windows of 128
#             move back
#   broken    compaction built with -DLOOKBACK_BROKEN (the look-back
#             takes an aggregate for a prefix): --check --n 1228803 must
#             fail (exit 1), the production row among those it names
#   variants  compaction --variants --n 2^28: every configuration of the
#             single-pass compaction and of the stable partition, memcpy,
#             copy and CUB, interleaved, at survival 0.1, 0.5 and 0.9
set -u
cd "$(dirname "$0")/.." || exit 2
out=${OUT:-gpu-dev-logs}
mkdir -p "$out"
log=$out/gpu-dev.log summary=$out/summary.txt
: >"$log"
: >"$summary"
failed=0

# run NAME SECONDS COMMAND...: the whole output to the log, the exit code,
# the time and the last TAIL lines to the summary and the terminal.
run() {
    local name=$1 limit=$2 start=$SECONDS rc
    shift 2
    printf '\n######## %s: %s\n' "$name" "$*" >>"$log"
    local from=$(($(wc -l <"$log") + 1))
    timeout "$limit" "$@" >>"$log" 2>&1
    rc=$?
    [ "$rc" -eq 0 ] || failed=1
    { echo "== $name: exit $rc (want 0), $((SECONDS - start)) s: $*"
      tail -n +"$from" "$log" | tail -n "${TAIL:-12}" | sed 's/^/   /'
    } | tee -a "$summary"
}

nvidia-smi --query-gpu=name,memory.total,compute_cap,driver_version \
    --format=csv,noheader 2>/dev/null | head -n 1 | tee -a "$summary"
run build 400 make -j"$(nproc)" ARCH=90 -C day33-compaction
if command -v cuobjdump >/dev/null; then
    run sass 60 bash -c "cuobjdump -sass day33-compaction/compaction | awk '
      /Function :/ { k = (\$0 ~ /compactSinglePass|compactPiped|partitionRanges|partitionStable|countRanges|countEvens/) ? \$3 : \"\"
                     if (k != \"\") n[k] = 0 }
      k != \"\" && /LDG.E.128/ { l[k]++ }  k != \"\" && /STG.E.128/ { s[k]++ }
      k != \"\" && /MEMBAR/ { m[k]++ }     k != \"\" && /CCTL/ { c[k]++ }
      END { for (k in n) printf \"%4d LDG.128 %4d STG.128 %3d MEMBAR %3d CCTL  %s\\n\",
            l[k], s[k], m[k], c[k], k }' | sort -k9"
fi
run check 35 ./day33-compaction/compaction --check
broken=day33-compaction/build/compaction-broken
run broken 120 bash -c "cd day33-compaction && nvcc -O3 -std=c++17 \
    -gencode arch=compute_90,code=sm_90 -I../harness -I../day31-scan \
    -DLOOKBACK_BROKEN -o build/compaction-broken compaction.cu \
    build/tile_scan.o build/hx/*.o && cd .. && \
    { ./$broken --check --n 1228803; rc=\$?; echo \"exit \$rc (want 1)\"; \
      [ \$rc -eq 1 ]; }"
TAIL=120 run variants 25 ./day33-compaction/compaction --variants --n 2^28

[ "$failed" -eq 0 ] && echo "gpu-dev: every step as expected" ||
    echo "gpu-dev: a step did not exit as expected (logs in $out)"
exit "$failed"
