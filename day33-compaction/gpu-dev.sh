#!/usr/bin/env bash
# gpu-dev.sh: day 33 checked and measured in one GPU session, before the
# evidence capture (harness/evidence.sh). Run from anywhere:
#   bash day33-compaction/gpu-dev.sh [STEP...]   logs in $OUT, else ./gpu-dev-logs
# With STEPs, only those run (a later call finds the build of an earlier
# one), e.g. in three calls of ten minutes or less on an H200:
# "build kernels sass check broken table sweep", then "dev-check
# variants", then "memcheck racecheck synccheck initcheck".
# Writes gpu-dev.log (every step's whole output, in order) and summary.txt
# (a line per step: its exit code, the one it should have, its time, then
# the log's last lines; also printed), through harness/dev-steps.sh. Each
# step has a time limit, so a hang costs that step only (exit 124).
#   build      make ARCH=90 of compaction, dev/ (make dev) and
#              dev/compaction-broken (compaction.cu with -DLOOKBACK_BROKEN:
#              the look-back takes an aggregate for a prefix)
#   kernels    the kernels in compaction's sm_90 cubins (cuobjdump
#              --list-elf, one ELF per translation unit, and each one's
#              functions): only the default rows' kernels, 18 at sm_90
#              (compaction.cu's 10; lab.cu's 4, CUB's select and partition
#              with its init and empty kernels; the scan's 2; the harness's
#              copy and compare), where cuobjdump is installed
#   sass       per single-pass kernel (compaction and the variants): 16-byte
#              loads and stores (LDG.E.128, STG.E.128), and the fences
#              (MEMBAR) and L1 invalidations (CCTL) acquire-release costs
#   check      compaction --check: ends "self-check: all N sizes passed"
#              (the sizes it prints; one over 2^30 where memory allows)
#   broken     dev/compaction-broken --check --n 1228803 must FAIL: exit 1,
#              the single-pass row named in its failure
#   table      compaction: the default run (where the time goes, survival
#              0.1 and 0.9, gather and scatter; the "targets:" lines)
#   sweep      compaction --sweep: into $OUT/compaction-sweep.csv
#   dev-check  make dev-check: dev/compaction-variants --check (every
#              configuration kept, the look-back ones also stalled)
#   variants   dev/compaction-variants: every configuration, memcpy, copy
#              and CUB, interleaved, at survival 0.1, 0.5 and 0.9
#   memcheck, racecheck, synccheck, initcheck   compute-sanitizer over
#              compaction --check at a small n: 827393 for memcheck (101
#              production tiles: the stalled walks move their window back;
#              the 3-block runs loop over tiles), 100003 for the others
set -u
cd "$(dirname "$0")/.." || exit 2
. harness/dev-steps.sh
steps_begin "${OUT:-gpu-dev-logs}" "$@" || exit 2
out=$steps_out
day=day33-compaction

nvidia-smi --query-gpu=name,memory.total,compute_cap,driver_version \
    --format=csv,noheader 2>/dev/null | head -n 1 | tee -a "$out/summary.txt"
step build 0 500 make -j ARCH=90 -C $day all dev dev/compaction-broken
if command -v cuobjdump >/dev/null; then
    step kernels 0 60 bash -c "cuobjdump --list-elf $day/compaction; \
        cuobjdump -arch sm_90 -sass $day/compaction | grep -c 'Function :' | \
        sed 's/^/kernels in the sm_90 cubins of compaction: /'; \
        cuobjdump -arch sm_90 -sass $day/compaction | grep 'Function :' | \
        sed 's/.*Function : //' | cut -c1-100"
    step sass 0 60 bash -c "for f in $day/compaction $day/dev/compaction-variants; do
        cuobjdump -sass \$f | awk '
          /Function :/ { k = (\$0 ~ /compactSinglePass|compactPiped|partitionRanges|partitionStable|countRanges|countEvens/) ? \$3 : \"\"
                         if (k != \"\") n[k] = 0 }
          k != \"\" && /LDG.E.128/ { l[k]++ }  k != \"\" && /STG.E.128/ { s[k]++ }
          k != \"\" && /MEMBAR/ { m[k]++ }     k != \"\" && /CCTL/ { c[k]++ }
          END { for (k in n) printf \"%4d LDG.128 %4d STG.128 %3d MEMBAR %3d CCTL  %s\n\",
                l[k], s[k], m[k], c[k], k }' | sort -k9
    done"
fi
step check 0 400 ./$day/compaction --check
step broken 1 120 ./$day/dev/compaction-broken --check --n 1228803
step table 0 300 ./$day/compaction
step sweep 0 600 ./$day/compaction --sweep --csv "$out/compaction-sweep.csv"
step dev-check 0 600 env OUT="$out" make -C $day dev-check
step variants 0 300 ./$day/dev/compaction-variants
san="compute-sanitizer --error-exitcode 99"
step memcheck 0 600 $san --tool memcheck ./$day/compaction --check --n 827393
for tool in racecheck synccheck initcheck; do
    step $tool 0 600 $san --tool $tool ./$day/compaction --check --n 100003
done

steps_end
